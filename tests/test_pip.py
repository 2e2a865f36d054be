"""The pip package: scripts/build-wheel.sh builds the wheel, pip installs it into a temporary
folder, and a fresh Python (the .venv's, with its pyspark) imports it from there and runs real
Spark jobs through eagle_spark.configure() and through spark-submit with the flags of
`python -m eagle_spark --submit-args`. Also: jar selection by Spark line and Scala version,
the error for a pyspark whose line has no jar, and the error for an unknown key."""
import glob
import json
import os
import platform
import re
import subprocess
import sys
import zipfile

import pytest
import pyspark
from pyspark import SparkConf, SparkContext

from conftest import ROOT

VERSION = re.search(r'(?m)^version\s*=\s*"([^"]+)"', open(os.path.join(ROOT, "Cargo.toml")).read()).group(1)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """(wheel path, pip --target folder) of a wheel built from build/libs' jar(s)."""
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(["bash", os.path.join(ROOT, "scripts/build-wheel.sh"), "--no-build", "--out", str(out)],
                   check=True, timeout=600)
    (whl,) = glob.glob(str(out / "*.whl"))
    target = tmp_path_factory.mktemp("site")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--disable-pip-version-check",
                    "--target", str(target), whl], check=True, timeout=300)
    return whl, str(target)


@pytest.fixture(scope="module")
def installed(wheel):
    """The eagle_spark module imported from the pip --target folder (not from python/src)."""
    sys.path.insert(0, wheel[1])
    try:
        import eagle_spark
    finally:
        sys.path.remove(wheel[1])
    assert os.path.dirname(eagle_spark.__file__) == os.path.join(wheel[1], "eagle_spark")
    return eagle_spark


def run_python(target, code, extra_path=(), timeout=900):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(list(extra_path) + [target]))
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=timeout)


def test_wheel_is_tagged_for_the_native_library_and_carries_the_built_jars(wheel):
    whl, target = wheel
    name = os.path.basename(whl)
    m = re.fullmatch(r"eagle_spark-(?P<v>[^-]+)-py3-none-(?P<plat>[\w.]+)\.whl", name)
    assert m and m.group("v") == VERSION, name
    machine = platform.machine()
    assert re.fullmatch(r"manylinux_2_\d+_%s|linux_%s" % (machine, machine), m.group("plat")), name
    with zipfile.ZipFile(whl) as z:
        meta = z.read("eagle_spark-%s.dist-info/WHEEL" % VERSION).decode()
        jars = sorted(n for n in z.namelist() if n.startswith("eagle_spark/jars/"))
    assert "Root-Is-Purelib: false" in meta and "Tag: py3-none-%s" % m.group("plat") in meta, meta
    assert jars and all(re.fullmatch(r"eagle_spark/jars/eagle-spark-\d+\.\d+_\d+\.\d+-%s\.jar" % re.escape(VERSION), j)
                        for j in jars), jars
    # the wheel's jars are byte for byte the jars scripts/build.sh made
    built = {open(p, "rb").read() for p in glob.glob(os.path.join(ROOT, "build/libs/eagle-spark-*%s.jar" % VERSION))}
    for j in jars:
        data = open(os.path.join(target, j), "rb").read()
        assert data in built, j
        with zipfile.ZipFile(os.path.join(target, j)) as z:
            assert "native/linux-%s/libeagle_jni.so" % platform.machine() in z.namelist()


def test_keys_are_eagleconfs(installed):
    """The generated key list is the jar's own EagleConf.Keys (names and defaults)."""
    keys = SparkContext._jvm.org.apache.spark.scheduler.eagle.EagleConf.Keys()
    jvm_keys = [(keys.apply(i).name(), keys.apply(i).default()) for i in range(keys.length())]
    assert list(installed.KEYS) == jvm_keys


JOB = r"""
import json, sys, time
import eagle_spark
from pyspark.sql import SparkSession

builder = (SparkSession.builder.appName("pip-test").config("spark.ui.enabled", "false")
           .config("spark.executor.memory", "768m"))
spark = eagle_spark.configure(builder, "local-cluster[2,1,1024]", summary_path=sys.argv[1], seed=7).getOrCreate()
sc = spark.sparkContext
deadline = time.time() + 300
while sc._jsc.sc().getExecutorMemoryStatus().size() < 3 and time.time() < deadline:  # driver + 2 executors
    time.sleep(0.5)
out = {
    "module": eagle_spark.__file__,
    "jar": eagle_spark.jar_path(),
    "master": sc.master,
    "executors": sc._jsc.sc().getExecutorMemoryStatus().size() - 1,
    "sum": sc.parallelize(range(10000), 8).map(lambda x: x * x).sum(),
    "groups": sorted(tuple(r) for r in spark.range(0, 1000, numPartitions=6)
                     .selectExpr("id % 3 AS k").groupBy("k").count().collect()),
}
spark.stop()
print("RESULT " + json.dumps(out))
"""


def test_configure_runs_a_real_job_under_the_eagle_scheduler(wheel, tmp_path):
    _, target = wheel
    summary_path = tmp_path / "summary.json"
    p = run_python(target, "import sys; sys.argv[1:] = [%r]\n" % str(summary_path) + JOB)
    assert p.returncode == 0, p.stderr[-4000:]
    (line,) = [x for x in p.stdout.splitlines() if x.startswith("RESULT ")]
    out = json.loads(line[len("RESULT "):])
    assert out["module"].startswith(target) and out["jar"].startswith(target), out
    assert out["master"] == "spark-eagle:local-cluster[2,1,1024]"
    assert out["executors"] == 2
    assert out["sum"] == sum(x * x for x in range(10000))
    assert out["groups"] == [[0, 334], [1, 333], [2, 333]]
    summary = json.loads(summary_path.read_text())
    assert summary["fallback"] is False, summary["fallbackReason"]
    assert summary["config"]["seed"] == 7  # the keyword argument reached EagleConf
    tasks = sum(t["tasks"] for t in summary["taskSets"])
    assert tasks >= 8 + 6 and all(t["eagleJob"] >= 0 for t in summary["taskSets"])
    assert summary["counters"]["decisions"] >= tasks


APP = r"""
import sys
from pyspark.sql import SparkSession
spark = SparkSession.builder.getOrCreate()
n = spark.sparkContext.parallelize(range(5000), 5).filter(lambda x: x % 7 == 0).count()
open(sys.argv[1], "w").write("%s %d" % (spark.sparkContext.master, n))
spark.stop()
"""


def test_spark_submit_with_the_printed_flags(wheel, tmp_path):
    _, target = wheel
    (tmp_path / "app.py").write_text(APP)
    summary, result = tmp_path / "summary.json", tmp_path / "result.txt"
    script = ('"$SPARK_HOME/bin/spark-submit" $("%s" -m eagle_spark --submit-args --master "local[2]" '
              '--conf summary.path=%s) --conf spark.ui.enabled=false %s %s'
              % (sys.executable, summary, tmp_path / "app.py", result))
    env = dict(os.environ, PYTHONPATH=target)
    p = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr[-4000:]
    assert result.read_text() == "spark-eagle:local[2] %d" % len(range(0, 5000, 7))
    s = json.loads(summary.read_text())
    assert s["fallback"] is False and s["counters"]["decisions"] >= 5


def test_jar_for_a_pyspark_line_without_one_is_a_clear_error(wheel, installed, tmp_path):
    _, target = wheel
    fake = tmp_path / "fake" / "pyspark"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    (fake / "version.py").write_text("__version__: str = '3.4.1'\n")
    lines = sorted(installed.jars())
    p = run_python(target, "import eagle_spark; print(eagle_spark.jar_path())", extra_path=[str(tmp_path / "fake")])
    assert p.returncode != 0
    err = p.stderr.strip().splitlines()[-1]
    assert err.startswith("eagle_spark._jars.NoMatchingJarError")
    assert "installed pyspark 3.4.1" in err and "Spark line 3.4" in err
    assert all("Spark %s (Scala" % line in err for line in lines), err
    # the CLI says the same and exits 2
    cli = run_python(target, "import runpy; runpy.run_module('eagle_spark', run_name='__main__')",
                     extra_path=[str(tmp_path / "fake")])
    assert cli.returncode == 2 and "installed pyspark 3.4.1" in cli.stderr, cli.stderr
    # an explicit version
    with pytest.raises(installed.NoMatchingJarError, match=r"Spark 9\.1\.0 \(Spark line 9\.1\)"):
        installed.jar_path("9.1.0")
    with pytest.raises(ValueError, match="not a Spark version: 'four'"):
        installed.jar_path("four")


def test_jar_selection_by_line_and_scala(installed, tmp_path):
    from eagle_spark import _jars  # the installed package's module (imported by `installed`)

    assert _jars.__file__.startswith(os.path.dirname(installed.__file__))
    for name in ("eagle-spark-3.5_2.12-0.1.0.jar", "eagle-spark-3.5_2.13-0.1.0.jar",
                 "eagle-spark-4.3_2.13-0.1.0.jar", "eagle-spark-0.1.0.jar", "notes.txt"):
        (tmp_path / name).write_bytes(b"")

    def pick(version, scala=None):
        return os.path.basename(_jars.select(version, scala, jars_dir=str(tmp_path)))

    assert pick("3.5.3") == "eagle-spark-3.5_2.12-0.1.0.jar"  # the line's default Scala
    assert pick("3.5", "2.13") == "eagle-spark-3.5_2.13-0.1.0.jar"
    assert pick("4.3.0-preview1") == "eagle-spark-4.3_2.13-0.1.0.jar"
    with pytest.raises(_jars.NoMatchingJarError) as e:
        pick("4.0.1")
    assert str(e.value).endswith("Spark 3.5 (Scala 2.12), Spark 3.5 (Scala 2.13), Spark 4.3 (Scala 2.13). "
                                 "Install a pyspark of one of those lines, or an eagle-spark built for Spark 4.0.")
    with pytest.raises(_jars.NoMatchingJarError, match="Spark 3.5.0 with Scala 2.11"):
        pick("3.5.0", "2.11")
    # the installed pyspark (from .venv) picks its own line
    line = ".".join(pyspark.__version__.split(".")[:2])
    assert os.path.basename(installed.jar_path()).startswith("eagle-spark-%s_2.1" % line)


def test_configure_appends_and_rejects_unknown_keys(installed):
    jar = installed.jar_path()
    conf = SparkConf(loadDefaults=False).set("spark.jars", "/opt/a.jar").set("spark.driver.extraClassPath", "/opt/b")
    assert installed.configure(conf, "local[3]", summary_path="/tmp/s.json", dds_enabled=False,
                               **{"reservation.maxFraction": 0.25}) is conf
    assert conf.get("spark.master") == "spark-eagle:local[3]"
    assert conf.get("spark.jars") == "/opt/a.jar," + jar
    assert conf.get("spark.driver.extraClassPath") == "/opt/b" + os.pathsep + jar
    assert conf.get("spark.scheduler.eagle.summary.path") == "/tmp/s.json"
    assert conf.get("spark.scheduler.eagle.dds.enabled") == "false"
    assert conf.get("spark.scheduler.eagle.reservation.maxFraction") == "0.25"
    installed.configure(conf, "spark-eagle:local[2]")  # idempotent: no second copy of the jar
    assert conf.get("spark.jars") == "/opt/a.jar," + jar and conf.get("spark.master") == "spark-eagle:local[2]"

    fresh = SparkConf(loadDefaults=False)
    with pytest.raises(ValueError, match=r"unknown Eagle configuration key 'sumary_path' .*did you mean summary\.path"):
        installed.configure(fresh, summary_path="/tmp/s.json", sumary_path="/tmp/s.json")
    assert fresh.getAll() == []  # nothing was set
    with pytest.raises(TypeError, match="SparkSession.Builder or a SparkConf"):
        installed.configure({"spark.master": "local"})


def test_staging_takes_every_line_of_the_version_and_nothing_else(tmp_path):
    """python/stage_wheel.py on a repository with a version matrix in build/libs: every
    eagle-spark-<line>_<scala>-<version>.jar of Cargo.toml's version goes in as it is; other
    versions, and the benchmark and test-only jars, stay out."""
    import shutil

    # The key list comes from the staged jar's registry, through scripts/gen-config-docs.
    repo, lines = tmp_path / "repo", "spark-plugin/spark-lines.properties"
    (repo / "build/libs").mkdir(parents=True)
    (repo / os.path.dirname(lines)).mkdir(parents=True)
    shutil.copy(os.path.join(ROOT, "Cargo.toml"), repo)
    shutil.copy(os.path.join(ROOT, lines), repo / lines)
    shutil.copytree(os.path.join(ROOT, "python"), repo / "python")
    shutil.copytree(os.path.join(ROOT, "scripts"), repo / "scripts")
    jar = sorted(glob.glob(os.path.join(ROOT, "build/libs/eagle-spark-[0-9]*_*-%s.jar" % VERSION)))[-1]

    def stage(*names):
        for n in names:
            shutil.copy(jar, repo / "build/libs" / (n % VERSION if "%s" in n else n))
        out = tmp_path / ("stage%d" % len(os.listdir(tmp_path)))
        out.mkdir()
        subprocess.run([sys.executable, str(repo / "python/stage_wheel.py"), str(repo), str(out)], check=True)
        return out, sorted(os.listdir(out / "src/eagle_spark/jars"))

    out, names = stage("eagle-spark-3.5_2.12-%s.jar", "eagle-spark-4.3_2.13-%s.jar", "eagle-spark-3.5_2.12-0.0.1.jar",
                       "eagle-spark-0.0.1.jar", "eagle-spark-bench-%s.jar", "eagle-spark-tests-%s.jar")
    assert names == ["eagle-spark-%s_%s-%s.jar" % (line, scala, VERSION) for line, scala in
                     (("3.5", "2.12"), ("4.3", "2.13"))]
    staged = out / "src/eagle_spark/jars" / ("eagle-spark-4.3_2.13-%s.jar" % VERSION)
    assert staged.read_bytes() == open(jar, "rb").read()


def pip_install_target(project, target):
    return subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--disable-pip-version-check",
                           "--target", str(target), str(project)], capture_output=True, text=True, timeout=600)


def test_pip_install_from_a_clone_takes_the_built_jars(tmp_path):
    """`pip install ./python` in a clone: the wheel gets build/libs' jar(s) of Cargo.toml's
    version and a generated key list, and the source tree is left as it was."""
    p = pip_install_target(os.path.join(ROOT, "python"), tmp_path / "site")
    assert p.returncode == 0, (p.stdout + p.stderr)[-4000:]
    pkg = tmp_path / "site" / "eagle_spark"
    gen = (pkg / "_generated.py").read_text()
    assert "__version__ = %r" % VERSION in gen and "('seed', '42')" in gen, gen
    jars = sorted(os.listdir(pkg / "jars"))
    built = sorted(glob.glob(os.path.join(ROOT, "build/libs/eagle-spark-[0-9]*_*-%s.jar" % VERSION)))
    assert jars == [os.path.basename(j) for j in built]
    for j in built:
        assert (pkg / "jars" / os.path.basename(j)).read_bytes() == open(j, "rb").read()
    src = os.path.join(ROOT, "python/src/eagle_spark")
    assert not os.path.exists(os.path.join(src, "_generated.py")) and not os.path.exists(os.path.join(src, "jars"))


def test_pip_install_from_a_clone_without_jars_names_the_command_to_run(tmp_path):
    """Without a built jar, `pip install ./python` stops before building, with one line that
    says what to run (not a traceback about a missing _generated.py)."""
    import shutil

    repo, conf = tmp_path / "repo", "spark-plugin/src/main/scala/org/apache/spark/scheduler/eagle/EagleConf.scala"
    (repo / os.path.dirname(conf)).mkdir(parents=True)
    shutil.copy(os.path.join(ROOT, "Cargo.toml"), repo)
    shutil.copy(os.path.join(ROOT, conf), repo / conf)
    shutil.copytree(os.path.join(ROOT, "python"), repo / "python",
                    ignore=shutil.ignore_patterns("__pycache__", "_generated.py", "jars"))
    p = pip_install_target(repo / "python", tmp_path / "site")
    out = p.stdout + p.stderr
    assert p.returncode != 0, out[-4000:]
    (line,) = [x.strip() for x in out.splitlines() if "eagle-spark: " in x]
    assert line == ("eagle-spark: no plugin jar eagle-spark-<line>_<scala>-%s.jar in %s: run scripts/build.sh "
                    "(or scripts/build-wheel.sh) first" % (VERSION, repo / "build" / "libs")), out[-4000:]
    assert "Traceback" not in out, out[-4000:]
    assert not (tmp_path / "site" / "eagle_spark").exists()


def test_configure_after_a_jvm_without_the_plugin_says_so(wheel):
    """The driver class path is fixed when the JVM starts: configure() on a builder in a
    process whose JVM was launched without the jar raises instead of a later 'Could not parse
    Master URL'."""
    _, target = wheel
    p = run_python(target, "\n".join([
        "from pyspark import SparkContext",
        "from pyspark.sql import SparkSession",
        "import eagle_spark",
        "SparkContext('local[1]', 'plain').stop()",
        "try:",
        "    eagle_spark.configure(SparkSession.builder, 'local[2]')",
        "except RuntimeError as e:",
        "    print('RAISED', e)",
    ]))
    assert p.returncode == 0, p.stderr[-4000:]
    assert "RAISED eagle_spark.configure() came after this process started its Spark JVM" in p.stdout
