#!/usr/bin/env bash
# Idempotent set-up for a fresh Debian machine: installs what is missing, then builds the jar.
#   apt: gradle (4.4.1, runs Scala through JavaExec), junit4, xz-utils, a JDK, gcc, python3-venv
#   rustup: a stable Rust toolchain when cargo is missing, and its rustfmt component
#   .venv: pyspark of the default Spark line (4.3.0; sdist only, ~35 s build), pytest,
#          pytest-xdist, tpchgen-cli, duckdb, matplotlib, pyarrow, the Spark Connect client's
#          requirements, PyHive (the server bench's Thrift client)
#   EAGLE_SPARK_LINES="3.5 4.0": also .venv-spark-3.5, .venv-spark-4.0 (that line's pinned
#          pyspark and pytest; versions in spark-plugin/spark-lines.properties), for
#          scripts/build.sh --spark <line> and the smoke tests. Every line runs on JDK 17.
# Set EAGLE_SETUP_NO_BUILD=1 to skip the final build.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

log() { printf '[setup] %s\n' "$*" >&2; }

need_apt=()
command -v curl >/dev/null 2>&1 || need_apt+=(curl ca-certificates)
command -v cc >/dev/null 2>&1 || need_apt+=(gcc libc6-dev)
command -v python3 >/dev/null 2>&1 || need_apt+=(python3)
python3 -c 'import ensurepip' >/dev/null 2>&1 || need_apt+=(python3-venv)
command -v gradle >/dev/null 2>&1 || need_apt+=(gradle)
[ -f /usr/share/java/junit4.jar ] || need_apt+=(junit4)
command -v xz >/dev/null 2>&1 || need_apt+=(xz-utils)
command -v java >/dev/null 2>&1 || need_apt+=(openjdk-17-jdk-headless)
if [ ${#need_apt[@]} -gt 0 ]; then
  log "apt-get install ${need_apt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

# Rust (the workspace needs a recent stable toolchain; Debian's rustc is too old).
[ -f "$HOME/.cargo/env" ] && . "$HOME/.cargo/env"
if ! command -v cargo >/dev/null 2>&1; then
  log "installing the Rust toolchain with rustup (minimal profile)"
  curl -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal >/dev/null
  . "$HOME/.cargo/env"
fi
# rustfmt: scripts/test.sh checks the workspace's formatting (rustfmt.toml). The minimal
# profile leaves it out.
if ! cargo fmt --version >/dev/null 2>&1; then
  log "adding rustfmt to the Rust toolchain"
  rustup component add rustfmt >/dev/null
fi

PY=${PYTHON:-python3}
. scripts/env.sh

# venv_with <dir> <pip spec>...: creates the venv if missing and installs what is missing or
# of another version (a pinned pyspark replaces the one installed before).
venv_with() {
  local dir=$1; shift
  if [ ! -x "$dir/bin/python" ]; then
    log "creating ${dir#"$ROOT"/}"
    "$PY" -m venv "$dir"
  fi
  local missing=() spec name want have
  for spec in "$@"; do
    name=${spec%%==*}
    want=""; [ "$name" != "$spec" ] && want=${spec#*==}
    # (pip show fails for a package not installed: with pipefail that must not end the script)
    have=$("$dir/bin/python" -m pip show "$name" 2>/dev/null | sed -n 's/^Version: //p' || true)
    if [ -z "$have" ] || { [ -n "$want" ] && [ "$have" != "$want" ]; }; then missing+=("$spec"); fi
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "pip install ${missing[*]} into ${dir#"$ROOT"/} (pyspark builds from its sdist, about 35 s)"
    "$dir/bin/python" -m pip install -q --disable-pip-version-check "${missing[@]}"
  fi
}

default_line=$(eagle_default_line)
# The venvs are independent: they install side by side (pip waits mostly on downloads and on
# pyspark's sdist builds), and any failure fails the set-up.
# pytest is pinned below 9: pytest 9's node ids ignore the group pytest-xdist 3.8 appends
# under --dist loadgroup, so tests that share a testbed or an application would split across
# workers (tests/conftest.py stops with that message).
PYTEST=(pytest==8.4.2)
pids=()
# The Spark Connect client's own requirements (pyspark.sql.connect.utils; pandas below 3, which
# that client does not support yet): tests/test_sql_servers.py runs it against a Connect server.
CONNECT_CLIENT=(pandas==2.3.3 grpcio grpcio-status googleapis-common-protos zstandard)
# PyHive over HiveServer2 Thrift with SASL PLAIN in pure Python: the Thrift server's client in
# scripts/bench server (bench/sql_clients.py).
THRIFT_CLIENT=(pyhive==0.7.0 thrift thrift_sasl pure-sasl)
venv_with "$ROOT/.venv" "pyspark==$(eagle_line_field "$default_line" 1)" "${PYTEST[@]}" pytest-xdist==3.8.0 tpchgen-cli duckdb \
  matplotlib pyarrow "${CONNECT_CLIENT[@]}" "${THRIFT_CLIENT[@]}" &
pids+=($!)
for line in ${EAGLE_SPARK_LINES:-}; do
  [ "$line" = "$default_line" ] && continue
  v=$(eagle_line_field "$line" 1)
  if [ -z "$v" ]; then
    log "EAGLE_SPARK_LINES: unknown Spark line '$line' (one of $(eagle_all_lines | tr '\n' ' '))"
    exit 2
  fi
  venv_with "$(eagle_venv "$line")" "pyspark==$v" "${PYTEST[@]}" &
  pids+=($!)
done
for pid in "${pids[@]}"; do
  wait "$pid"
done

if [ "${EAGLE_SETUP_NO_BUILD:-0}" != 1 ]; then
  log "building the jar"
  bash scripts/build.sh
fi
log "done"
