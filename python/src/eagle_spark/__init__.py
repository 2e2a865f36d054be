"""eagle-spark for PySpark: the Eagle scheduler plugin jar that matches the installed
pyspark, and helpers that enable it.

    import eagle_spark
    from pyspark.sql import SparkSession

    spark = eagle_spark.configure(SparkSession.builder, "local[*]", summary_path="/tmp/s.json").getOrCreate()

configure() must run before the first SparkSession/SparkContext of the process: Spark finds
the `spark-eagle:` cluster manager on the driver class path, which is fixed when the JVM
starts.
"""
import difflib
import os

from ._jars import NoMatchingJarError, available, select

try:
    from ._generated import KEYS, __version__
except ImportError:  # a source checkout: the wheel build (scripts/build-wheel.sh) generates it
    KEYS, __version__ = (), "0+unknown"

__all__ = ["configure", "jar_path", "jars", "conf_key", "KEYS", "PREFIX", "NoMatchingJarError", "__version__"]

PREFIX = "spark.scheduler.eagle."
MASTER_PREFIX = "spark-eagle:"


def jar_path(spark_version=None):
    """Path of the bundled plugin jar for the installed pyspark's Spark line (major.minor),
    or for spark_version ('4.0', '4.0.1', ...) when given. Raises NoMatchingJarError naming
    the version and the lines this package carries when none fits."""
    return select(spark_version)


def jars():
    """{Spark line: {Scala version: jar path}} of every jar in the package."""
    out = {}
    for line, scala, path in available():
        out.setdefault(line, {})[scala] = path
    return out


def conf_key(name):
    """The full Spark key for an Eagle key name: 'summary_path', 'summary.path' and
    'spark.scheduler.eagle.summary.path' all give 'spark.scheduler.eagle.summary.path'
    (the documented names contain no underscores, so '_' stands for '.'). ValueError
    naming the key when it is not one of EagleConf's keys."""
    short = name[len(PREFIX):] if name.startswith(PREFIX) else name
    short = short.replace("_", ".")
    known = [k for k, _ in KEYS]
    if not known:
        raise RuntimeError("eagle_spark has no key list (_generated.py is missing): install the built wheel")
    if short not in known:
        close = difflib.get_close_matches(short, known, n=3, cutoff=0.6)
        hint = " (did you mean %s?)" % " or ".join(close) if close else ""
        raise ValueError(
            "unknown Eagle configuration key %r (%s%s)%s. Known keys (use '_' for '.'): %s"
            % (name, PREFIX, short, hint, ", ".join(known)))
    return PREFIX + short


def _value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


class _Target:
    """A SparkSession.Builder or a SparkConf, read and written alike."""

    def __init__(self, obj):
        if hasattr(obj, "config") and hasattr(obj, "_options"):  # SparkSession.Builder
            self.get = lambda k: obj._options.get(k)
            self.set = lambda k, v: obj.config(k, v)
            self.builder = True
        elif hasattr(obj, "set") and hasattr(obj, "get") and hasattr(obj, "setMaster"):  # SparkConf
            self.get = lambda k: obj.get(k)
            self.set = lambda k, v: obj.set(k, v)
            self.builder = False
        else:
            raise TypeError("configure() takes a SparkSession.Builder or a SparkConf, not %s" % type(obj).__name__)


def _append(target, key, item, sep):
    current = target.get(key)
    parts = [p for p in (current or "").split(sep) if p]
    if item not in parts:
        parts.append(item)
    target.set(key, sep.join(parts))


def _check_running_jvm():
    """Spark looks cluster managers up on the driver class path, fixed at JVM start: a JVM
    already launched without the plugin cannot use spark-eagle: masters."""
    try:
        from py4j.java_gateway import JavaClass
        from pyspark import SparkContext
    except ImportError:
        return
    jvm = SparkContext._jvm
    if jvm is not None and not isinstance(jvm.org.apache.spark.scheduler.eagle.EagleClusterManager, JavaClass):
        raise RuntimeError(
            "eagle_spark.configure() came after this process started its Spark JVM without the "
            "eagle-spark jar on the driver class path; call it before the first "
            "SparkSession/SparkContext is created")


def configure(builder_or_conf, inner_master="local[*]", **eagle_keys):
    """Enable the Eagle scheduler on a SparkSession.Builder or SparkConf and return it.

    Sets spark.master to spark-eagle:<inner_master>, appends the matching jar (jar_path())
    to spark.jars and to spark.driver.extraClassPath (keeping what they held), and sets
    spark.scheduler.eagle.<key> for each keyword argument (summary_path="/tmp/s.json",
    policy="paper", dds_enabled=False, or **{"reservation.maxFraction": 0.3}). An unknown
    key raises ValueError naming it before anything is set."""
    target = _Target(builder_or_conf)
    settings = [(conf_key(k), _value(v)) for k, v in eagle_keys.items() if v is not None]
    inner = str(inner_master).strip()
    if inner.startswith(MASTER_PREFIX):
        inner = inner[len(MASTER_PREFIX):]
    if not inner:
        raise ValueError("inner_master is empty: expected local[*], local-cluster[W,C,M], spark://host:port, ...")
    jar = jar_path()
    if target.builder:
        _check_running_jvm()
    target.set("spark.master", MASTER_PREFIX + inner)
    _append(target, "spark.jars", jar, ",")
    _append(target, "spark.driver.extraClassPath", jar, os.pathsep)
    for k, v in settings:
        target.set(k, v)
    return builder_or_conf
