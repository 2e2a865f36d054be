#!/usr/bin/env bash
# Builds build/libs/eagle-spark-<line>_<scala>-<version>.jar (cargo + scalac + jar) with
# Gradle, offline; for the default line also the benchmark jar
# build/libs/eagle-spark-bench-<version>.jar and the test-only
# build/libs/eagle-spark-tests-<version>.jar (stub cluster manager for tests/).
#   scripts/build.sh                 the default line (spark-plugin/spark-lines.properties),
#                                    or SPARK_HOME's line when SPARK_HOME is set
#   scripts/build.sh --spark 3.5     that line, against .venv-spark-3.5 (created if missing)
#   scripts/build.sh --all           every line
# Other arguments go to gradle.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
line=""
all=0
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --spark) line=${2:?--spark needs a line, e.g. --spark 3.5}; shift 2 ;;
    --spark=*) line=${1#--spark=}; shift ;;
    --all) all=1; shift ;;
    *) args+=("$1"); shift ;;
  esac
done
if [ "$all" = 1 ]; then
  . scripts/env.sh
  for l in $(eagle_all_lines); do
    bash scripts/build.sh --spark "$l" ${args[@]+"${args[@]}"}
  done
  exit 0
fi
if [ -n "$line" ]; then
  export EAGLE_SPARK_LINE="$line"
  unset SPARK_HOME  # the line's own venv
fi
. scripts/env.sh
if [ -z "${SPARK_HOME:-}" ]; then
  # The line's venv is missing: create it (no build, that is this script's job).
  EAGLE_SPARK_LINES="$EAGLE_SPARK_LINE" EAGLE_SETUP_NO_BUILD=1 bash scripts/setup.sh
  . scripts/env.sh
fi
# (Debian's gradle script prints `java -version` to stderr: drop those lines)
tasks=(eagleJar)
# The benchmark and test-only jars run on the default line's .venv only.
[ "$EAGLE_SPARK_LINE" = "$(eagle_default_line)" ] && tasks+=(benchJar testJar)
gradle --offline --quiet --no-daemon "${tasks[@]}" -PsparkLine="$EAGLE_SPARK_LINE" ${args[@]+"${args[@]}"} \
  2> >(grep -v -E '^(openjdk version|OpenJDK )' >&2)
ls build/libs/eagle-spark-"${EAGLE_SPARK_LINE}"_*.jar
