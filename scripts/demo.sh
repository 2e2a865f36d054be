#!/usr/bin/env bash
# README's first command: set up (installs what is missing, builds the jar), then run the
# demo: a long job plus a stream of short jobs on local-cluster[2,2,1024], under the stock
# FIFO scheduler and under spark-eagle:, printing each short job's latency side by side.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh
. scripts/env.sh
exec .venv/bin/python scripts/demo.py
