#!/usr/bin/env bash
# Builds the pip package: dist/eagle_spark-<version>-py3-none-<platform>.whl, with the plugin
# jar(s) of scripts/build.sh as package data (version from Cargo.toml).
#
#   bash scripts/build-wheel.sh [--no-build] [--out DIR]
#     --no-build   use the jars already in build/libs (default: run scripts/build.sh --all
#                  first, which builds every Spark line, creating their venvs if missing)
#     --out DIR    where the wheel goes (default: dist/)
#
# The wheel is built by pip with hatchling (fetched from PyPI into pip's isolated build
# environment) from a staged copy of python/ (python/stage_wheel.py adds the jars and the
# generated version and key list). Its platform tag comes from the native library inside
# the jars (python/hatch_build.py), e.g. manylinux_2_34_x86_64.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
build=1
out="$ROOT/dist"
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) build=0 ;;
    --out) out="$(mkdir -p "$2" && cd "$2" && pwd)"; shift ;;
    *) echo "build-wheel.sh: unknown argument '$1' (expected --no-build, --out DIR)" >&2; exit 2 ;;
  esac
  shift
done
PY="${PYTHON:-$ROOT/.venv/bin/python}"
[ -x "$PY" ] || PY=python3
. scripts/env.sh   # SPARK_HOME: the Spark a single-line jar was compiled against
if [ "$build" = 1 ]; then
  bash scripts/build.sh --all >/dev/null
fi
stage="$(mktemp -d "${TMPDIR:-/tmp}/eagle-wheel.XXXXXX")"
trap 'rm -rf "$stage"' EXIT
"$PY" python/stage_wheel.py "$ROOT" "$stage"
mkdir -p "$out"
version="$(sed -n 's/^__version__ = .\(.*\).$/\1/p' "$stage/src/eagle_spark/_generated.py")"
rm -f "$out"/eagle_spark-"$version"-*.whl
"$PY" -m pip wheel --quiet --no-deps --disable-pip-version-check --wheel-dir "$out" "$stage"
ls "$out"/eagle_spark-"$version"-py3-none-*.whl
