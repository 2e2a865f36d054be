#!/usr/bin/env bash
# THE test command (README, .ci/run): set-up and jar builds, rustfmt, the Rust tests, the Spark
# integration tests (real executors) on the default Spark line (4.3), then the smoke tests
# (test_smoke.py and test_cluster_mode.py, -m smoke) on the other lines of EAGLE_SMOKE_LINES
# (default "3.5 4.0 4.1 4.2"), each with its own venv (.venv-spark-<line>), SPARK_HOME and jar.
# EAGLE_SMOKE_LINES="" skips the other lines; EAGLE_TEST_WORKERS sets the default line's pytest
# workers (3). Prints the time of each phase.
#
#   scripts/test.sh           the default tier (CI's): every test not marked `full`
#   scripts/test.sh --full    both tiers: also the tests marked `full` (longer variants)
#
# docs/design/testing.md maps each feature to its tests and their tier. The Rust tests build in
# the `ci` cargo profile (Cargo.toml); the daemons the Spark tests start are its binaries.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
full=0
case "${1:-}" in
  --full) full=1 ;;
  "") ;;
  *) echo "scripts/test.sh: unknown argument '$1' (expected --full or nothing)" >&2; exit 2 ;;
esac
smoke_lines=${EAGLE_SMOKE_LINES-3.5 4.0 4.1 4.2}
start=$(date +%s)
phases=()
phase_name=""
phase_start=$start
# phase <name>: ends the running phase (recording its time) and starts the next one.
phase() {
  local now; now=$(date +%s)
  if [ -n "$phase_name" ]; then
    phases+=("$(printf '%6d s  %s' $((now - phase_start)) "$phase_name")")
    echo "== $phase_name: $((now - phase_start)) s"
  fi
  phase_name=${1:-}
  phase_start=$now
  [ -z "$phase_name" ] || echo "== $phase_name"
}

phase "set-up (scripts/setup.sh) and the default line's jars"
# installs what is missing (with a venv per smoke line), builds the default line's jar
EAGLE_SPARK_LINES="$smoke_lines" bash scripts/setup.sh
. scripts/env.sh

phase "cargo fmt --all --check (rustfmt.toml)"
cargo fmt --all --check

phase "cargo build --profile ci -p eagle-node -p eagle-central (the daemons of the Spark tests)"
cargo build --profile ci -q -p eagle-node -p eagle-central
export EAGLE_DAEMON_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/ci"

# The Spark tests wait on sleeping tasks and JVM start-ups far more than on the CPU. So the
# default line's tests run in $workers pytest-xdist workers (tests/conftest.py keeps a module's
# tests together unless they are independent), beside the Rust tests, the other lines' jars and
# their smoke tests (two lines at a time); the tests marked `alone` run last, by themselves.
workers=${EAGLE_TEST_WORKERS:-3}
tier="not full"
[ "$full" = 1 ] && tier=""
logs="$ROOT/target/test-logs"
mkdir -p "$logs"
main_log="$logs/pytest-$EAGLE_SPARK_LINE.log"
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
phase "pytest tests/ -m '${tier:+$tier and }not alone' on Spark $EAGLE_SPARK_LINE ($workers workers; ${main_log#"$ROOT"/}) beside the Rust tests and the other lines"
"$EAGLE_VENV/bin/python" -m pytest tests/ -q -p no:cacheprovider -n "$workers" --dist loadgroup \
  -m "${tier:+$tier and }not alone" > "$main_log" 2>&1 &
main_pid=$!
pids+=("$main_pid")

echo "== cargo test --workspace --profile ci"
t0=$(date +%s)
cargo test --workspace --profile ci
echo "== cargo test: $(( $(date +%s) - t0 )) s"
for line in $smoke_lines; do
  echo "== the jar of Spark $line (scripts/build.sh --spark $line)"
  bash scripts/build.sh --spark "$line"
done

# smoke <line>: the smoke tests on that line, logged to target/test-logs/smoke-<line>.log.
smoke() {
  local line=$1 venv home t0
  t0=$(date +%s)
  venv=$(eagle_venv "$line")
  home=$("$venv/bin/python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')
  echo "== pytest -m smoke on Spark $line (SPARK_HOME=$home)"
  SPARK_HOME="$home" EAGLE_SPARK_LINE="$line" SPARK_SCALA_VERSION="$(eagle_line_field "$line" 2)" \
    "$venv/bin/python" -m pytest tests/test_smoke.py tests/test_cluster_mode.py -m smoke -q -p no:cacheprovider
  echo "== smoke tests on Spark $line: $(( $(date +%s) - t0 )) s"
}
# Two streams of lines, each line after the other in its stream.
streams=("" "")
i=0
for line in $smoke_lines; do
  streams[$((i % 2))]="${streams[$((i % 2))]} $line"
  i=$((i + 1))
done
smoke_pids=()
for k in 0 1; do
  [ -n "${streams[$k]// /}" ] || continue
  ( for line in ${streams[$k]}; do smoke "$line" > "$logs/smoke-$line.log" 2>&1 || exit 1; done ) &
  smoke_pids+=($!)
  pids+=($!)
done
failed=""
for pid in "${smoke_pids[@]}"; do
  wait "$pid" || failed="$failed smoke"
done
for line in $smoke_lines; do
  [ -f "$logs/smoke-$line.log" ] && cat "$logs/smoke-$line.log"
done
wait "$main_pid" || failed="$failed pytest"
echo "== pytest on Spark $EAGLE_SPARK_LINE (${main_log#"$ROOT"/}):"
cat "$main_log"
if [ -n "$failed" ]; then
  echo "== FAILED:$failed (logs in ${logs#"$ROOT"/})" >&2
  exit 1
fi

phase "pytest tests/ -m '${tier:+$tier and }alone' on Spark $EAGLE_SPARK_LINE, by themselves"
"$EAGLE_VENV/bin/python" -m pytest tests/ -q -p no:cacheprovider -m "${tier:+$tier and }alone"
trap - EXIT
phase ""

echo "== phases:"
printf '%s\n' "${phases[@]}"
echo "== all tests passed in $(( $(date +%s) - start )) s"
