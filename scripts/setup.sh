#!/usr/bin/env bash
# Idempotent set-up for a fresh Debian machine: installs what is missing, then builds the jar.
#   apt: gradle (4.4.1, runs Scala through JavaExec), junit4, xz-utils, a JDK, gcc, python3-venv
#   rustup: a stable Rust toolchain when cargo is missing
#   .venv: pyspark==4.0.1 (sdist only, ~35 s build), pytest, tpchgen-cli, duckdb, matplotlib
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

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  log "creating .venv"
  "$PY" -m venv .venv
fi
VPY=.venv/bin/python
want=(pyspark==4.0.1 pytest tpchgen-cli duckdb matplotlib pyarrow)
missing=()
for spec in "${want[@]}"; do
  name=${spec%%==*}
  "$VPY" -m pip show -q "$name" >/dev/null 2>&1 || missing+=("$spec")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "pip install ${missing[*]} (pyspark builds from its sdist, about 35 s)"
  "$VPY" -m pip install -q --disable-pip-version-check "${missing[@]}"
fi

if [ "${EAGLE_SETUP_NO_BUILD:-0}" != 1 ]; then
  log "building the jar"
  bash scripts/build.sh
fi
log "done"
