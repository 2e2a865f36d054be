#!/usr/bin/env bash
# THE test command (README, .ci/run): set-up and jar builds, rustfmt, the Rust tests, the Spark
# integration tests (real executors) on the default Spark line (4.3), then the smoke tests
# (test_smoke.py; with --full also test_cluster_mode.py -m smoke) on the other lines of EAGLE_SMOKE_LINES
# (default "3.5 4.0": one line of each other shim set; with --full "3.5 4.0 4.1 4.2"), each with
# its own venv (.venv-spark-<line>), SPARK_HOME and jar.
# EAGLE_SMOKE_LINES="" skips the other lines; EAGLE_TEST_WORKERS sets the default line's pytest
# workers (2). Prints the time of each phase.
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
# 4.1 and 4.2 build against 4.0's shims: the default tier smoke-tests one line of each shim set.
if [ "$full" = 1 ]; then smoke_lines=${EAGLE_SMOKE_LINES-3.5 4.0 4.1 4.2}; else smoke_lines=${EAGLE_SMOKE_LINES-3.5 4.0}; fi
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

# One compile for both: building the tests builds the daemons the Spark tests start (eagle-node's
# and eagle-central's integration tests run them). A separate `cargo build -p` of the daemons
# resolves features without the dev-dependencies, so the graph was compiled twice over in part.
phase "cargo test --workspace --profile ci --no-run (the tests, and the daemons of the Spark tests)"
cargo test --workspace --profile ci -q --no-run
export EAGLE_DAEMON_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/ci"
for bin in eagle-node eagle-central; do
  [ -x "$EAGLE_DAEMON_BIN/$bin" ] || { echo "scripts/test.sh: $EAGLE_DAEMON_BIN/$bin was not built" >&2; exit 1; }
done

phase "cargo test --workspace --profile ci$([ "$full" = 1 ] && echo " -- --include-ignored")"
if [ "$full" = 1 ]; then
  cargo test --workspace --profile ci -- --include-ignored
else
  cargo test --workspace --profile ci
fi

for line in $smoke_lines; do
  phase "the jar of Spark $line (scripts/build.sh --spark $line)"
  bash scripts/build.sh --spark "$line"
done

# The Spark tests wait on sleeping tasks and JVM start-ups more than on the CPU: the default
# line's tests run in $workers pytest-xdist workers (tests/conftest.py keeps a module's tests
# together unless they are independent), beside the other lines' smoke tests, one line after
# the other. The tests marked `alone` run last, by themselves.
workers=${EAGLE_TEST_WORKERS:-2}
# Every JVM of the Spark tests (drivers, executors, the SQL servers, beeline, the standalone
# daemons) runs seconds of small tasks on two loaded cores, where C2's compiler threads only
# take CPU from the tests; the client compiler alone warms up sooner. The jars are built above,
# without it. The benchmarks keep the JVM's defaults.
export JDK_JAVA_OPTIONS="${JDK_JAVA_OPTIONS:--XX:TieredStopAtLevel=1}"
tier="not full"
[ "$full" = 1 ] && tier=""
logs="$ROOT/target/test-logs"
mkdir -p "$logs"
main_log="$logs/pytest-$EAGLE_SPARK_LINE.log"
phase "pytest tests/ -m '${tier:+$tier and }not alone' on Spark $EAGLE_SPARK_LINE ($workers workers; ${main_log#"$ROOT"/}), beside the smoke tests of: ${smoke_lines:-no other line}"
"$EAGLE_VENV/bin/python" -m pytest tests/ -q -rfE -p no:cacheprovider -n "$workers" --dist loadgroup --durations=25 \
  -m "${tier:+$tier and }not alone" > "$main_log" 2>&1 &
main_pid=$!
trap 'kill "$main_pid" 2>/dev/null || true' EXIT
failed=""
# The other lines run test_smoke.py; with --full also the smoke tests of cluster mode.
smoke_files=(tests/test_smoke.py)
[ "$full" = 1 ] && smoke_files+=(tests/test_cluster_mode.py)
for line in $smoke_lines; do
  t0=$(date +%s)
  venv=$(eagle_venv "$line")
  home=$("$venv/bin/python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')
  echo "== pytest -m smoke on Spark $line (SPARK_HOME=$home)"
  if SPARK_HOME="$home" EAGLE_SPARK_LINE="$line" SPARK_SCALA_VERSION="$(eagle_line_field "$line" 2)" \
      "$venv/bin/python" -m pytest "${smoke_files[@]}" -m smoke -q -p no:cacheprovider; then
    echo "== smoke tests on Spark $line: $(( $(date +%s) - t0 )) s"
  else
    failed="$failed smoke-$line"
  fi
done
wait "$main_pid" || failed="$failed pytest-$EAGLE_SPARK_LINE"
trap - EXIT
echo "== pytest on Spark $EAGLE_SPARK_LINE (${main_log#"$ROOT"/}):"
cat "$main_log"
if [ -n "$failed" ]; then
  echo "== FAILED:$failed" >&2
  exit 1
fi

phase "pytest tests/ -m '${tier:+$tier and }alone' on Spark $EAGLE_SPARK_LINE, by themselves"
"$EAGLE_VENV/bin/python" -m pytest tests/ -q -p no:cacheprovider -m "${tier:+$tier and }alone"
phase ""

echo "== phases:"
printf '%s\n' "${phases[@]}"
echo "== all tests passed in $(( $(date +%s) - start )) s"
