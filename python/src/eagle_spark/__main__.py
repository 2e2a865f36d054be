"""python -m eagle_spark: the jar for the installed pyspark and the spark-submit flags.

    python -m eagle_spark                     # jar path, flags and an example
    python -m eagle_spark --jar               # the jar path only
    python -m eagle_spark --submit-args [--master 'local-cluster[2,1,1024]'] [--conf summary.path=/tmp/s.json]
        # one line for spark-submit $(python -m eagle_spark --submit-args) app.py
    python -m eagle_spark --keys              # the spark.scheduler.eagle.* keys and defaults
"""
import argparse
import shlex
import sys

from . import KEYS, MASTER_PREFIX, NoMatchingJarError, __version__, conf_key, jar_path, jars
from ._jars import installed_spark_version


def submit_args(jar, inner, conf):
    args = ["--master", MASTER_PREFIX + inner, "--jars", jar, "--conf", "spark.driver.extraClassPath=" + jar]
    for k, v in conf:
        args += ["--conf", "%s=%s" % (k, v)]
    return args


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m eagle_spark", description=__doc__.split("\n")[0])
    what = p.add_mutually_exclusive_group()
    what.add_argument("--submit-args", action="store_true",
                      help="print only the spark-submit arguments, unquoted, on one line (for $(...))")
    what.add_argument("--jar", action="store_true", help="print only the jar path")
    what.add_argument("--keys", action="store_true", help="list the spark.scheduler.eagle.* keys and defaults")
    p.add_argument("--spark-version", help="Spark version to pick the jar for (default: the installed pyspark's)")
    p.add_argument("--master", default="local[*]", help="inner master wrapped as spark-eagle:<inner> (default local[*])")
    p.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                   help="an Eagle key (summary.path=..., summary_path=... or the full name); repeatable")
    a = p.parse_args(argv)

    if a.keys:
        for name, default in KEYS:
            print("%s%s = %s" % ("spark.scheduler.eagle.", name, default))
        return 0
    try:
        conf = []
        for kv in a.conf:
            k, sep, v = kv.partition("=")
            if not sep:
                raise ValueError("--conf %r: expected KEY=VALUE" % kv)
            conf.append((conf_key(k.strip()), v))
        jar = jar_path(a.spark_version)
    except (ValueError, NoMatchingJarError) as e:
        print("eagle_spark: %s" % e, file=sys.stderr)
        return 2
    inner = a.master[len(MASTER_PREFIX):] if a.master.startswith(MASTER_PREFIX) else a.master
    args = submit_args(jar, inner, conf)
    if a.jar:
        print(jar)
        return 0
    if a.submit_args:
        bad = [x for x in args if any(c.isspace() or c in "'\"\\" for c in x)]
        if bad:
            print("eagle_spark: %r cannot be passed through $(...) word splitting; quote it yourself "
                  "(the jar is %s)" % (bad[0], jar), file=sys.stderr)
            return 2
        print(" ".join(args))
        return 0
    installed = installed_spark_version()
    print("eagle-spark %s, jars for Spark %s" % (__version__, ", ".join(
        "%s (Scala %s)" % (line, "/".join(sorted(s))) for line, s in sorted(jars().items()))))
    print("Spark: %s" % (a.spark_version or ("installed pyspark %s" % installed)))
    print("jar: %s" % jar)
    print("spark-submit arguments:\n  %s" % " ".join(shlex.quote(x) for x in args))
    print("or, in a shell:\n  spark-submit $(python -m eagle_spark --submit-args) app.py")
    return 0


if __name__ == "__main__":
    sys.exit(main())
