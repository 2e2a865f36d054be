"""Wheel build hook and version source.

The wheel carries the plugin jar(s) and src/eagle_spark/_generated.py (version and key
list). They come from one of two places:
- a staged copy of python/ (scripts/build-wheel.sh, python/stage_wheel.py), which has them
  under src/eagle_spark/;
- a clone (`pip install ./python`): this folder's parent is the repository, and the hook
  generates _generated.py and takes the jars of Cargo.toml's version from build/libs (built
  by scripts/build.sh), leaving the source tree as it is. Without a built jar the build
  stops at once with one line naming the command to run.

The wheel is platform-specific because every jar carries a native library
(native/<os>-<arch>/libeagle_jni.*). The tag is derived from the jars themselves:
py3-none-<platform>, where a Linux library that needs only the libraries manylinux allows
gets manylinux_2_<N>_<arch> with N the newest GLIBC_2.N symbol version it needs (read from
the ELF file), else linux_<arch>."""
import glob
import os
import re
import shutil
import struct
import sys
import tempfile
import zipfile

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

# PEP 600 / auditwheel: the libraries a manylinux wheel may link against without bundling.
MANYLINUX_LIBS = {
    "libc.so.6", "libm.so.6", "libdl.so.2", "librt.so.1", "libpthread.so.0", "libgcc_s.so.1",
    "libstdc++.so.6", "libutil.so.1", "libresolv.so.2", "libnsl.so.1", "libcrypt.so.1",
    "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1",
}
ARCH = {"x86_64": "x86_64", "aarch64": "aarch64"}


def elf_needs(data):
    """(DT_NEEDED names, version names from DT_VERNEED) of a 64-bit little-endian ELF."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    loads, dynamic = [], None
    for i in range(phnum):
        p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack_from("<IIQQQQ", data, phoff + i * phentsize)
        if p_type == 1:  # PT_LOAD
            loads.append((p_vaddr, p_offset, p_filesz))
        elif p_type == 2:  # PT_DYNAMIC
            dynamic = (p_offset, p_filesz)
    if dynamic is None:
        return [], []

    def off(vaddr):
        for v, o, size in loads:
            if v <= vaddr < v + size:
                return vaddr - v + o
        raise ValueError("address 0x%x is in no PT_LOAD segment" % vaddr)

    entries = {}
    needed = []
    for i in range(dynamic[1] // 16):
        tag, val = struct.unpack_from("<qQ", data, dynamic[0] + 16 * i)
        if tag == 0:
            break
        if tag == 1:  # DT_NEEDED
            needed.append(val)
        else:
            entries[tag] = val
    strtab = off(entries[5])  # DT_STRTAB

    def string(o):
        return data[strtab + o:data.index(b"\0", strtab + o)].decode()

    versions = []
    if 0x6FFFFFFE in entries:  # DT_VERNEED, DT_VERNEEDNUM
        vn = off(entries[0x6FFFFFFE])
        for _ in range(entries.get(0x6FFFFFFF, 0)):
            _, cnt, _, aux, nxt = struct.unpack_from("<HHIII", data, vn)
            a = vn + aux
            for _ in range(cnt):
                _, _, _, name, anext = struct.unpack_from("<IHHII", data, a)
                versions.append(string(name))
                a += anext
            if nxt == 0:
                break
            vn += nxt
    return [string(n) for n in needed], versions


def platform_tag(native_dir, lib_name, data):
    """The wheel platform tag for one native library found under native/<native_dir>/."""
    os_name, _, arch = native_dir.partition("-")
    if os_name == "linux" and arch in ARCH:
        needed, versions = elf_needs(data)
        glibc = [tuple(int(x) for x in m.groups()) for m in
                 (re.fullmatch(r"GLIBC_(\d+)\.(\d+)(?:\.\d+)?", v) for v in versions) if m]
        if glibc and set(needed) <= MANYLINUX_LIBS:
            major, minor = max(glibc)
            return "manylinux_%d_%d_%s" % (major, minor, ARCH[arch])
        return "linux_" + ARCH[arch]
    if os_name == "darwin":
        return {"x86_64": "macosx_10_12_x86_64", "aarch64": "macosx_11_0_arm64"}[arch]
    if os_name == "windows" and arch == "x86_64":
        return "win_amd64"
    raise ValueError("no wheel platform tag known for native/%s/%s" % (native_dir, lib_name))


def jar_platforms(jar):
    """{native dir (os-arch): platform tag} of the native libraries in one jar."""
    tags = {}
    with zipfile.ZipFile(jar) as z:
        for name in z.namelist():
            m = re.fullmatch(r"native/([^/]+)/([^/]*eagle_jni[^/]*)", name)
            if m:
                tags[m.group(1)] = platform_tag(m.group(1), m.group(2), z.read(name))
    if not tags:
        raise ValueError("%s carries no native/<os>-<arch>/ library" % jar)
    return tags


def strictest(tags):
    """One tag for one os-arch across jars: linux_<arch> if any jar is not manylinux, else
    the newest glibc floor."""
    if any(not t.startswith("manylinux_") for t in tags):
        return sorted(tags, key=lambda t: t.startswith("manylinux_"))[0]
    return max(tags, key=lambda t: [int(x) for x in re.findall(r"_(\d+)_(\d+)_", t)[0]])


def wheel_tag(jars):
    """py3-none-<platform>[.<platform>...] for the os-arch pairs every jar carries."""
    per_jar = {os.path.basename(j): jar_platforms(j) for j in jars}
    common = set.intersection(*(set(p) for p in per_jar.values()))
    if not common:
        raise RuntimeError("the jars share no native platform: %s" % per_jar)
    return "py3-none-" + ".".join(sorted(strictest({p[d] for p in per_jar.values()}) for d in common))


HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)  # the repository, when this is a clone's python/
FIRST = "run scripts/build.sh (or scripts/build-wheel.sh) first"


def fail(msg):
    """Stops the build with one line (pip shows a backend's last lines; no traceback)."""
    sys.exit("eagle-spark: " + msg)


def staged(root):
    """True when src/eagle_spark/ holds the generated module (a staged copy of python/)."""
    return os.path.exists(os.path.join(root, "src", "eagle_spark", "_generated.py"))


def in_clone(root):
    return (os.path.realpath(root) == os.path.realpath(HERE) and os.path.isfile(os.path.join(REPO, "Cargo.toml"))
            and os.path.isfile(os.path.join(HERE, "stage_wheel.py")))


def stage_wheel():
    sys.path.insert(0, HERE)
    try:
        import stage_wheel as sw
    finally:
        sys.path.remove(HERE)
    return sw


def version():
    """The package version ([tool.hatch.version] source "code"): the staged _generated.py's,
    else, in a clone, Cargo.toml's workspace version."""
    gen = os.path.join(HERE, "src", "eagle_spark", "_generated.py")
    if os.path.exists(gen):
        with open(gen) as f:
            m = re.search(r"(?m)^__version__ = '([^']+)'$", f.read())
        if not m:
            fail("%s has no __version__: remove it and %s" % (gen, FIRST))
        return m.group(1)
    if not in_clone(HERE):
        fail("no src/eagle_spark/_generated.py and no repository around %s: build the wheel from a "
             "clone with scripts/build-wheel.sh" % HERE)
    return stage_wheel().cargo_version(REPO)


class CustomBuildHook(BuildHookInterface):
    def initialize(self, version, build_data):
        if self.target_name != "wheel":
            return
        pkg = os.path.join(self.root, "src", "eagle_spark")
        if staged(self.root):
            jars = sorted(glob.glob(os.path.join(pkg, "jars", "*.jar")))
            if not jars:
                fail("no staged jars under %s: build the wheel with scripts/build-wheel.sh" % pkg)
        elif in_clone(self.root):
            jars = self.from_clone(self.metadata.version, build_data)
        else:
            fail("no staged jars or _generated.py under %s: build the wheel with scripts/build-wheel.sh" % pkg)
        build_data["pure_python"] = False
        build_data["tag"] = wheel_tag(jars)

    def from_clone(self, version, build_data):  # version: the package's (initialize's is the target's)
        """`pip install ./python` in a clone: the jars of this version in build/libs and a
        generated _generated.py go into the wheel (force-included; the tree is not touched)."""
        sw = stage_wheel()
        libs = os.path.join(REPO, "build", "libs")
        pattern = re.compile(r"eagle-spark-\d+\.\d+_\d+\.\d+-%s\.jar" % re.escape(version))
        jars = sorted(j for j in glob.glob(os.path.join(libs, "eagle-spark-*.jar"))
                      if pattern.fullmatch(os.path.basename(j)))
        if not jars:
            fail("no plugin jar eagle-spark-<line>_<scala>-%s.jar in %s: %s" % (version, libs, FIRST))
        for j in jars:
            sw.check_plugin_jar(j)
        self.tmp = tempfile.mkdtemp(prefix="eagle-spark-wheel.")
        gen = os.path.join(self.tmp, "_generated.py")
        with open(gen, "w") as f:
            f.write(sw.generated_source(REPO, version))
        build_data["force_include"][gen] = "eagle_spark/_generated.py"
        for j in jars:
            build_data["force_include"][j] = "eagle_spark/jars/" + os.path.basename(j)
        return jars

    def finalize(self, version, build_data, artifact_path):
        if getattr(self, "tmp", None):
            shutil.rmtree(self.tmp, ignore_errors=True)
