"""TPC-H data (tpchgen-cli parquet) and the DuckDB reference answers."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time

from . import check
from .progress import Steps
from .tpch_queries import ORDER_KEYS, DESC_KEYS, TABLES, query


def data_dir(root: str, sf: float, parts: int) -> str:
    return os.path.join(root, f"tpch-sf{sf:g}-p{parts}")


def tpchgen_binary() -> str:
    cand = os.path.join(os.path.dirname(sys.executable), "tpchgen-cli")
    if os.path.exists(cand):
        return cand
    found = shutil.which("tpchgen-cli")
    if not found:
        raise SystemExit("tpchgen-cli not found: run scripts/setup.sh (it pip-installs tpchgen-cli)")
    return found


def ensure_data(root: str, sf: float, parts: int, log=print) -> str:
    """Generates the 8 tables as parquet, ``parts`` files each, once (a DONE marker)."""
    d = data_dir(root, sf, parts)
    if os.path.exists(os.path.join(d, "DONE")):
        return d
    if os.path.exists(d):
        shutil.rmtree(d)
    os.makedirs(d)
    log(f"generating TPC-H SF {sf:g} parquet in {parts} parts to {d}")
    t = time.time()
    steps = Steps(len(TABLES), log, "table", every=10)
    for table in TABLES:
        steps.start(table)
        # nation and region are tiny; one file each.
        p = 1 if table in ("nation", "region") else parts
        cmd = [tpchgen_binary(), "parquet", "-s", f"{sf:g}", "--tables", table,
               "--output-dir", d]
        if p > 1:
            cmd += ["--parts", str(p)]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        if p == 1:  # single file <table>.parquet -> <table>/<table>.parquet, like the parts layout
            os.makedirs(os.path.join(d, table), exist_ok=True)
            os.replace(os.path.join(d, f"{table}.parquet"), os.path.join(d, table, f"{table}.parquet"))
    with open(os.path.join(d, "DONE"), "w") as f:
        f.write(f"sf={sf} parts={parts} seconds={time.time() - t:.1f}\n")
    log(f"generated in {time.time() - t:.1f}s")
    return d


def duckdb_answers(d: str, sf: float, log=print) -> dict:
    """{query number: {"rows": [...], "seconds": ..}} from DuckDB on the same files, cached."""
    path = os.path.join(d, "duckdb-answers.json")
    if os.path.exists(path):
        with open(path) as f:
            return {int(k): v for k, v in json.load(f).items()}
    import duckdb
    con = duckdb.connect()
    con.execute("SET threads TO 2")
    for t in TABLES:
        con.execute(f"CREATE VIEW {t} AS SELECT * FROM read_parquet('{os.path.join(d, t)}/*.parquet')")
    out = {}
    steps = Steps(22, log, "DuckDB reference answer", every=10)
    for q in range(1, 23):
        steps.start(f"Q{q}")
        t0 = time.time()
        rows = con.execute(query(q, sf)).fetchall()
        out[q] = {"rows": check.norm_rows(rows), "seconds": round(time.time() - t0, 3)}
    con.close()
    with open(path, "w") as f:
        json.dump(out, f)
    log(f"DuckDB reference answers: {sum(len(v['rows']) for v in out.values())} rows for 22 queries")
    return out


def check_answer(q: int, rows, answers: dict) -> tuple[bool, str]:
    return check.compare(rows, answers[q]["rows"], ORDER_KEYS[q], DESC_KEYS.get(q, ()))
