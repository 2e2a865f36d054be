#!/usr/bin/env bash
# THE test command (README, .ci/run): set-up and jar builds, the Rust tests, the Spark
# integration tests (real executors) on the default Spark line (4.3), then the smoke tests
# (test_smoke.py and test_cluster_mode.py, -m smoke) on the other lines of EAGLE_SMOKE_LINES (default "3.5 4.0 4.1 4.2"), each with
# its own venv (.venv-spark-<line>), SPARK_HOME and jar. About 50 minutes on a loaded
# 2-core machine. EAGLE_SMOKE_LINES="" skips the other lines.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
start=$(date +%s)
smoke_lines=${EAGLE_SMOKE_LINES-3.5 4.0 4.1 4.2}

# installs what is missing (with a venv per smoke line), builds the default line's jar
EAGLE_SPARK_LINES="$smoke_lines" bash scripts/setup.sh
. scripts/env.sh
for line in $smoke_lines; do
  echo "== scripts/build.sh --spark $line"
  bash scripts/build.sh --spark "$line"
done

echo "== cargo fmt --all --check (rustfmt.toml)"
cargo fmt --all --check

echo "== cargo test --workspace --release"
cargo test --workspace --release

echo "== pytest tests/ (Spark $("$EAGLE_VENV/bin/python" -c 'import pyspark; print(pyspark.__version__)'), SPARK_HOME=$SPARK_HOME)"
"$EAGLE_VENV/bin/python" -m pytest tests/ -q -p no:cacheprovider

for line in $smoke_lines; do
  t0=$(date +%s)
  venv=$(eagle_venv "$line")
  home=$("$venv/bin/python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')
  echo "== pytest tests/ -m smoke (Spark $("$venv/bin/python" -c 'import pyspark; print(pyspark.__version__)'), SPARK_HOME=$home)"
  SPARK_HOME="$home" EAGLE_SPARK_LINE="$line" SPARK_SCALA_VERSION="$(eagle_line_field "$line" 2)" \
    "$venv/bin/python" -m pytest tests/test_smoke.py tests/test_cluster_mode.py -m smoke -q -p no:cacheprovider
  echo "== smoke tests on Spark $line passed in $(( $(date +%s) - t0 )) s"
done

echo "== all tests passed in $(( $(date +%s) - start )) s"
