#!/usr/bin/env bash
# THE test command (README, .ci/run): set-up and jar build, the Rust tests, then the Spark
# integration tests (real executors; about 5 minutes on a loaded 2-core machine).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
start=$(date +%s)

bash scripts/setup.sh            # installs what is missing, builds build/libs/eagle-spark-*.jar
. scripts/env.sh

echo "== cargo test --workspace --release"
cargo test --workspace --release

echo "== pytest tests/ (Spark $("$ROOT/.venv/bin/python" -c 'import pyspark; print(pyspark.__version__)'), SPARK_HOME=$SPARK_HOME)"
.venv/bin/python -m pytest tests/ -q -p no:cacheprovider

echo "== all tests passed in $(( $(date +%s) - start )) s"
