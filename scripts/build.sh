#!/usr/bin/env bash
# Builds build/libs/eagle-spark-<version>.jar (cargo + scalac + jar) with Gradle, offline.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
. scripts/env.sh
gradle --offline --quiet --no-daemon eagleJar "$@"
ls build/libs/eagle-spark-*.jar
