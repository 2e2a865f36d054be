#!/usr/bin/env bash
# Decompresses the shared traces into traces/ at the repo root (gitignored), so
# tools that want plain .tr files have them. eagle-sim itself also reads .xz.
#   usage: scripts/traces.sh [SHARED_TRACES_DIR]
# Default source: <repo>/../shared/traces. Idempotent: skips up-to-date files,
# and copies plain .tr files (YH_small.tr) too.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SRC="${1:-$ROOT/../shared/traces}"
DST="$ROOT/traces"
if [ ! -d "$SRC" ]; then
  echo "traces.sh: no trace directory at $SRC (pass one as the first argument)" >&2
  exit 1
fi
command -v xz >/dev/null || { echo "traces.sh: xz is not installed (apt-get install xz-utils)" >&2; exit 1; }
mkdir -p "$DST"
shopt -s nullglob
n=0
for f in "$SRC"/*.tr.xz; do
  out="$DST/$(basename "${f%.xz}")"
  if [ ! -s "$out" ] || [ "$f" -nt "$out" ]; then
    xz -dc "$f" > "$out.tmp" && mv "$out.tmp" "$out"
    echo "traces.sh: $out ($(wc -l < "$out") jobs)"
  fi
  n=$((n + 1))
done
for f in "$SRC"/*.tr; do
  out="$DST/$(basename "$f")"
  if [ ! -s "$out" ] || [ "$f" -nt "$out" ]; then
    cat "$f" > "$out.tmp" && mv "$out.tmp" "$out"
    echo "traces.sh: $out"
  fi
  n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "traces.sh: no .tr or .tr.xz files in $SRC" >&2; exit 1; }
echo "traces.sh: $n traces in $DST"
