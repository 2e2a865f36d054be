"""What the simulator scripts share (``scripts/sim-compare``, ``sim-dds``, ``sim-eirene``,
``sim-lotes``; modules ``bench.sim_*``): eagle-sim's path, one run of it, a pool of at most
two runs at once, their progress lines, and the results file.

Invariants:

- ``ROOT`` is the checkout that holds this package; every default path (the binary, the
  traces, ``target/...``) is below it or next to it (``../shared``).
- ``run`` returns eagle-sim's stdout. A failed run ends the script with
  ``<prog>: <command> failed:`` and the simulator's stderr (exit status 1); without ``prog``
  it raises RuntimeError with the same text instead.
- ``pool`` yields ``(task, result)`` in the order of the tasks, whatever order the runs
  finish in, so a script's tables do not depend on the timing of its runs.
- ``mean`` is NaN for no values (``statistics.mean`` otherwise, exact to the last bit).
"""
from __future__ import annotations

import concurrent.futures as cf
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def binary(root: str) -> str:
    """The release build of eagle-sim (``cargo build --release -p eagle-sim``)."""
    return os.path.join(root, "target", "release", "eagle-sim")


def seed_list(quick: bool, seeds: int) -> list:
    """Seeds 1..seeds, or seed 1 alone with ``--quick``."""
    return [1] if quick else list(range(1, seeds + 1))


def run(cmd: list, prog: str | None = None) -> str:
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        msg = f"{' '.join(cmd)} failed:\n{r.stderr}"
        if prog is None:
            raise RuntimeError(msg)
        sys.exit(f"{prog}: {msg}")
    return r.stdout


def run_json(cmd: list, prog: str | None = None) -> dict:
    """The report of ``eagle-sim run ... --json``."""
    return json.loads(run(cmd, prog))


def pool(fn, tasks: list, workers: int = 2):
    """``fn(*task)`` for every task, ``workers`` at a time; yields ``(task, result)`` in task order."""
    with cf.ThreadPoolExecutor(max_workers=workers) as ex:
        yield from zip(tasks, ex.map(lambda t: fn(*t), tasks))


def runs_done(prog: str, i: int, total: int, label: str, elapsed: float) -> str:
    """``sim-dds: 3/16 runs done (dynamic seed 1), 42 s elapsed, ETA 182 s``."""
    return (f"{prog}: {i}/{total} runs done ({label}), {elapsed:.0f} s elapsed, "
            f"ETA {elapsed * (total - i) / i:.0f} s")


def mean(xs) -> float:
    xs = list(xs)
    return statistics.mean(xs) if xs else float("nan")


def write_results(out: str, data: dict) -> str:
    """``out/results.json`` (the folder made if need be); its path."""
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "results.json")
    with open(path, "w") as f:
        json.dump(data, f, indent=1)
    return path


def pyplot():
    """matplotlib.pyplot on the Agg backend, or None when matplotlib is not installed."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt
