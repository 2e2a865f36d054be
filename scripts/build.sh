#!/usr/bin/env bash
# Builds build/libs/eagle-spark-<version>.jar (cargo + scalac + jar) with Gradle, offline, the
# benchmark jar build/libs/eagle-spark-bench-<version>.jar and the test-only
# build/libs/eagle-spark-tests-<version>.jar (stub cluster manager for tests/).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
. scripts/env.sh
# (Debian's gradle script prints `java -version` to stderr: drop those lines)
gradle --offline --quiet --no-daemon eagleJar benchJar testJar "$@" 2> >(grep -v -E '^(openjdk version|OpenJDK )' >&2)
ls build/libs/eagle-spark-*.jar
