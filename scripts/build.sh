#!/usr/bin/env bash
# Builds build/libs/eagle-spark-<version>.jar (cargo + scalac + jar) and the benchmark jar
# build/libs/eagle-spark-bench-<version>.jar with Gradle, offline.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
. scripts/env.sh
# (Debian's gradle script prints `java -version` to stderr: drop those lines)
gradle --offline --quiet --no-daemon eagleJar benchJar "$@" 2> >(grep -v -E '^(openjdk version|OpenJDK )' >&2)
ls build/libs/eagle-spark-*.jar
