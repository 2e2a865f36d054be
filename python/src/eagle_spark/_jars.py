"""Which of the bundled jars fits the Spark at hand.

The wheel carries one jar per Spark line, named eagle-spark-<line>_<scala>-<version>.jar
(e.g. eagle-spark-4.0_2.13-0.1.0.jar); the plugin is compiled against one Spark line's
internals (TaskSchedulerImpl, TaskSetManager), so the line (major.minor) must match the
running Spark's, and the Scala binary version must match its Scala."""
import glob
import importlib.util
import os
import re

JARS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jars")
JAR_NAME = re.compile(r"eagle-spark-(?P<line>\d+\.\d+)_(?P<scala>\d+\.\d+)-(?P<version>[^/\\]+)\.jar")


class NoMatchingJarError(RuntimeError):
    """No bundled jar fits the requested (or installed) Spark version."""


def available(jars_dir=JARS_DIR):
    """[(line, scala, path)] of the jars in jars_dir, sorted by line then Scala version."""
    out = []
    for path in glob.glob(os.path.join(jars_dir, "*.jar")):
        m = JAR_NAME.fullmatch(os.path.basename(path))
        if m:
            out.append((m.group("line"), m.group("scala"), path))
    return sorted(out, key=lambda j: (_nums(j[0]), _nums(j[1])))


def _nums(version):
    return tuple(int(x) for x in version.split("."))


def line_of(spark_version):
    """'4.0' of '4.0.1', '4.0' or '4.1.0-preview1'; ValueError naming a malformed version."""
    m = re.match(r"(\d+)\.(\d+)(?:$|[.\-+])", str(spark_version).strip())
    if not m:
        raise ValueError("not a Spark version: %r (expected major.minor[.patch], e.g. 4.0.1)" % (spark_version,))
    return "%s.%s" % m.groups()


def _pyspark_dir():
    spec = importlib.util.find_spec("pyspark")
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


def installed_spark_version():
    """The version of the pyspark this interpreter would import (read from its version.py
    without importing it), or None when there is none."""
    d = _pyspark_dir()
    if d is None:
        return None
    try:
        with open(os.path.join(d, "version.py")) as f:
            m = re.search(r"""__version__(?:\s*:\s*str)?\s*=\s*['"]([^'"]+)['"]""", f.read())
        if m:
            return m.group(1)
    except OSError:
        pass
    try:
        from importlib.metadata import version
        return version("pyspark")
    except Exception:
        return None


def installed_scala_version():
    """Scala binary version (e.g. '2.13') of the installed Spark, from the scala-library jar
    of pyspark's own distribution or of $SPARK_HOME; None when neither has one."""
    homes = [os.path.join(d, "jars") for d in (_pyspark_dir(), os.environ.get("SPARK_HOME")) if d]
    for jars in homes:
        for path in glob.glob(os.path.join(jars, "scala-library-*.jar")):
            m = re.match(r"scala-library-(\d+\.\d+)\.", os.path.basename(path))
            if m:
                return m.group(1)
    return None


def describe(jars):
    return ", ".join("Spark %s (Scala %s)" % (line, scala) for line, scala, _ in jars) or "none"


def select(spark_version=None, scala_version=None, jars_dir=JARS_DIR):
    """Path of the jar for spark_version (default: the installed pyspark's version)."""
    jars = available(jars_dir)
    installed = installed_spark_version()
    version = spark_version if spark_version is not None else installed
    if version is None:
        raise NoMatchingJarError(
            "pyspark is not installed for this Python, so the Spark version is unknown: pass "
            "spark_version (e.g. jar_path('4.0')). Jars in this package: %s" % describe(jars))
    line = line_of(version)
    candidates = [j for j in jars if j[0] == line]
    what = "Spark %s" % version if spark_version is not None else "the installed pyspark %s" % version
    if not candidates:
        raise NoMatchingJarError(
            "eagle-spark has no jar for %s (Spark line %s); this package carries jars for: %s. "
            "Install a pyspark of one of those lines, or an eagle-spark built for Spark %s."
            % (what, line, describe(jars), line))
    if scala_version is None and installed is not None and line_of(installed) == line:
        scala_version = installed_scala_version()
    if scala_version is None:
        if len(candidates) == 1:
            return candidates[0][2]
        # the Scala of the line's stock distribution (and of its pyspark wheel)
        scala_version = "2.13" if _nums(line)[0] >= 4 else "2.12"
    for j in candidates:
        if j[1] == scala_version:
            return j[2]
    raise NoMatchingJarError(
        "eagle-spark has no jar for %s with Scala %s; this package carries jars for: %s"
        % (what, scala_version, describe(jars)))
