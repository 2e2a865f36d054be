"""``scripts/bench server [--quick]``: one shared SQL server, its interactive users beside ETL.

On the testbed's standalone cluster, one server at a time (Spark Connect, then the Thrift
JDBC/ODBC server: ``--servers``), one Spark application per server and scheduler:

* ``fifo``: stock Spark;
* ``fair``: stock FAIR with a pool per session, Spark's documented Thrift set-up: each session
  names its own pool (``SET spark.sql.thriftserver.scheduler.pool=<user>`` on Thrift,
  ``SET spark.scheduler.pool=<user>`` on Connect, which Spark SQL passes on to the jobs of the
  session's queries), created with Spark's pool defaults;
* ``eagle``: the plugin with default keys (its tenants are those pools).

The clients are the same under every scheduler, real clients each with a session of its own
(:mod:`bench.sql_clients`: pyspark's Spark Connect client, PyHive over HiveServer2 Thrift):

* ``--clients`` interactive users (default 8; quick 4) in a closed loop for ``--window``
  seconds (default 240; quick 60): think, then one TPC-H query of the dashboard set
  (``--dashboard-queries``), again. Each user draws its queries and its think times
  (exponential, mean ``--think``) from a random stream of its own, seeded by
  ``--server-seed`` and its index, so its sequence is the same under every scheduler.
* ETL users (``--etl``), each once, from the window's start: ``sort`` (``--sort-gb`` of cached
  random integers ordered and written as parquet) and ``aggregate`` (a group-by of
  ``--agg-rows`` generated rows into 100,003 groups). The users start ``--lead`` s later.

Every interactive answer is checked against DuckDB's on the same files; the sort's output
(row count, checksum, ordered range files) and the aggregate's answer in closed form.
Writes ``target/bench/server/results.json`` and its report: per server and scheduler, the
interactive latency p50/p90/p99 of the queries started in the window, the queries completed
per minute in it, and each ETL job's time; per server, eagle against FAIR.
"""
from __future__ import annotations

import os
import random
import shutil
import threading
import time

from . import harness, stats, tpch
from .harness import ROOT, Testbed, log, spark_home, testbed_json, wait_idle, write_results
from .progress import Steps
from .schedulers import spark_conf
from .sql_clients import Session
from .tpch_queries import TABLES, query

SERVERS = ("connect", "thrift")
POOL_KEY = {"connect": "spark.scheduler.pool", "thrift": "spark.sql.thriftserver.scheduler.pool"}
ETL = ("sort", "aggregate")
AGG_GROUPS = 100_003
#: the sort's checksum, exact: the sum as text becomes a Python int (bench/sql_clients.py)
CHECKSUM = "cast(sum(cast(v AS decimal(38,0))) AS string)"


def add_arguments(p) -> None:
    g = p.add_argument_group("server")
    g.add_argument("--servers", default=",".join(SERVERS), help="comma list of connect,thrift (default both)")
    g.add_argument("--clients", type=int, help="interactive users (default 8; quick 4)")
    g.add_argument("--window", type=float, help="seconds the interactive users run (default 240; quick 60)")
    g.add_argument("--think", type=float, default=2.0, help="mean think time of a user, s (default 2)")
    g.add_argument("--server-seed", type=int, default=1, help="seed of the users' queries and think times")
    g.add_argument("--dashboard-queries", default="1,3,5,6,10,12,14,19",
                   help="the TPC-H queries the users draw from (default 1,3,5,6,10,12,14,19)")
    g.add_argument("--server-sf", type=float, help="TPC-H scale factor of the users' queries (default 0.2; quick 0.05)")
    g.add_argument("--etl", default=",".join(ETL), help="comma list of sort,aggregate (default both)")
    g.add_argument("--agg-rows", type=float, help="rows the aggregate groups (default 1e9; quick 1e8)")


def settings(args) -> dict:
    """The workload's sizes, from the options and the defaults (quick or not)."""
    q = args.quick
    servers = [s for s in args.servers.split(",") if s]
    etl = [e for e in args.etl.split(",") if e]
    for name, vals, allowed in (("--servers", servers, SERVERS), ("--etl", etl, ETL)):
        bad = [v for v in vals if v not in allowed]
        if bad:
            raise SystemExit(f"server: unknown {name} entry {bad[0]!r} (expected {','.join(allowed)})")
    try:
        queries = [int(x) for x in args.dashboard_queries.split(",")]
    except ValueError:
        raise SystemExit(f"server: bad --dashboard-queries {args.dashboard_queries!r} (comma list of 1..22)")
    if not queries or any(not 1 <= x <= 22 for x in queries):
        raise SystemExit(f"server: bad --dashboard-queries {args.dashboard_queries!r} (comma list of 1..22)")
    given = lambda v, quick, full: (quick if q else full) if v is None else v   # noqa: E731
    out = {"servers": servers, "etl": etl, "queries": queries, "seed": args.server_seed,
           "clients": given(args.clients, 4, 8), "window_s": given(args.window, 60.0, 240.0),
           "think_s": args.think, "lead_s": args.lead, "sf": given(args.server_sf, 0.05, 0.2),
           "parts": args.parts, "sort_gb": args.sort_gb, "agg_rows": int(given(args.agg_rows, 1e8, 1e9)),
           "eagle_conf": dict(getattr(args, "eagle_conf", []) or [])}
    for k in ("clients", "window_s", "think_s", "sf", "sort_gb", "agg_rows"):
        if not out[k] > 0:
            raise SystemExit(f"server: {k.replace('_s', '')} must be positive, got {out[k]}")
    return out


def user_plan(seed: int, index: int, queries: list, think_s: float):
    """The endless (think time, query) sequence of interactive user ``index``."""
    rng = random.Random(f"server-{seed}-{index}")
    while True:
        yield rng.expovariate(1.0 / think_s), rng.choice(queries)


def aggregate_sql(rows: int, parts: int) -> tuple[str, list]:
    """The ETL aggregate and its answer: groups and the sum of all ids."""
    sql = (f"SELECT count(*) AS groups, sum(s) AS total FROM (SELECT id % {AGG_GROUPS} AS k, sum(id) AS s "
           f"FROM range(0, {rows}, 1, {parts}) GROUP BY id % {AGG_GROUPS})")
    return sql, [[min(rows, AGG_GROUPS), rows * (rows - 1) // 2]]


def sort_checks(sess: Session, out_dir: str, expected: list) -> tuple[bool, str]:
    """The sort's files, in part order, hold disjoint ascending ranges; rows and sum as the input's."""
    path = f"parquet.`file://{out_dir}`"
    got = sess.run(f"SELECT count(*), {CHECKSUM} FROM {path}")
    if got != expected:
        return False, f"rows and sum {got}, input {expected}"
    files = sess.run(f"SELECT input_file_name() AS f, min(v), max(v) FROM {path} GROUP BY input_file_name()")
    files.sort(key=lambda r: os.path.basename(r[0]).split("-")[1])
    for a, b in zip(files, files[1:]):
        if a[2] > b[1]:
            return False, f"output files overlap: {os.path.basename(a[0])} / {os.path.basename(b[0])}"
    return True, f"{expected[0][0]} rows in {len(files)} ordered range files, checksum equal"


class Run:
    """One server and scheduler: its sessions, their threads and what they measured."""

    def __init__(self, kind, srv, cfg, answers, run_dir):
        self.kind, self.srv, self.cfg, self.answers, self.run_dir = kind, srv, cfg, answers, run_dir
        self.queries, self.etl, self.errors = [], {}, []
        self.lock = threading.Lock()
        #: the common start, fixed once every session is open (ETL input cached)
        self.t0 = None

    def start(self):
        self.t0 = time.time() + 1.0

    def session(self, user: str) -> Session:
        s = Session(self.kind, self.srv.host, self.srv.port, user)
        s.run(f"SET {POOL_KEY[self.kind]}={user}")
        return s

    def interactive(self, index, ready):
        cfg = self.cfg
        sess = self.session(f"user{index + 1}")
        ready.wait()
        t0 = self.t0
        start, end = t0 + cfg["lead_s"], t0 + cfg["lead_s"] + cfg["window_s"]
        time.sleep(max(0.0, start - time.time()))
        try:
            for think, q in user_plan(cfg["seed"], index, cfg["queries"], cfg["think_s"]):
                time.sleep(max(0.0, min(think, end - time.time())))
                if time.time() >= end:
                    return
                t = time.time()
                try:
                    rows, err = sess.run(query(q, cfg["sf"])), None
                except Exception as e:   # a failed query is recorded as wrong, and the user goes on
                    rows, err = None, str(e).splitlines()[0][:300]
                done = time.time()
                ok, msg = (False, err) if err else tpch.check_answer(q, rows, self.answers)
                with self.lock:
                    self.queries.append({"user": index + 1, "query": q, "start": t - t0, "end": done - t0,
                                         "latency": done - t, "ok": ok, "check": msg,
                                         "in_window": done <= end})
                if not ok:
                    log(f"    user{index + 1} Q{q}: WRONG: {msg}")
        finally:
            sess.close()

    def etl_job(self, name, ready):
        cfg = self.cfg
        sess = self.session(f"etl-{name}")
        try:
            if name == "sort":
                rows = int(cfg["sort_gb"] * 1e9 / 8)
                parts = max(2 * self.cfg["slots"], int(cfg["sort_gb"] * 1e9 / 32e6))
                sess.run(f"CACHE TABLE sort_input AS SELECT cast(floor((rand(42) - 0.5) * 9.0e18) AS bigint) AS v "
                         f"FROM range(0, {rows}, 1, {parts})")
                expected = sess.run(f"SELECT count(*), {CHECKSUM} FROM sort_input")
                out_dir = os.path.join(self.run_dir, "sorted")
                sql = f"INSERT OVERWRITE DIRECTORY 'file://{out_dir}' USING parquet SELECT v FROM sort_input ORDER BY v"
            else:
                sql, answer = aggregate_sql(cfg["agg_rows"], 4 * self.cfg["slots"])
            ready.wait()
            time.sleep(max(0.0, self.t0 - time.time()))
            t = time.time()
            try:
                got, err = sess.run(sql), None
            except Exception as e:
                got, err = None, str(e).splitlines()[0][:300]
            done = time.time()
            if err:
                ok, msg = False, err
            elif name == "sort":
                ok, msg = sort_checks(sess, out_dir, expected)
            else:
                ok, msg = got == answer, f"answer {got}, expected {answer}"
            self.etl[name] = {"seconds": round(done - t, 3), "ok": ok, "check": msg}
            log(f"    {name}: {done - t:.1f} s, {'ok' if ok else 'WRONG'}: {msg}")
        finally:
            sess.close()


def warm_up(kind, srv, data, answers, cfg):
    """Tables over the TPC-H files in the server's catalogue, and one query, before the clock."""
    sess = Session(kind, srv.host, srv.port, "setup")
    try:
        for t in TABLES:
            sess.run(f"CREATE TABLE IF NOT EXISTS {t} USING parquet LOCATION 'file://{os.path.join(data, t)}'")
        q = cfg["queries"][0]
        ok, msg = tpch.check_answer(q, sess.run(query(q, cfg["sf"])), answers)
        if not ok:
            raise RuntimeError(f"warm-up Q{q} answer differs from DuckDB's: {msg}")
    finally:
        sess.close()


def run_one(tb, cfg, kind, sched, data, answers, out_dir) -> dict:
    run_dir = os.path.join(out_dir, "runs", f"{kind}-{sched}")
    shutil.rmtree(run_dir, ignore_errors=True)
    os.makedirs(run_dir)
    conf = spark_conf(sched, tb, run_dir, ROOT, eagle=cfg["eagle_conf"])
    master = conf.pop("spark.master")
    conf.pop("spark.scheduler.allocation.file", None)   # FAIR: the sessions' pools, Spark's defaults
    conf["spark.app.name"] = f"eagle-bench-server-{kind}-{sched}"
    netns = tb.get("mode") == "netns"
    host = tb["driver_host"] if netns else "127.0.0.1"
    env = {"SPARK_LOCAL_IP": host, "SPARK_LOCAL_HOSTNAME": host} if netns else {}
    from .sql_server import server
    t_wall = time.time()
    with server(kind, master, run_dir, conf, spark_home(), host=host, env=env, timeout=300) as srv:
        warm_up(kind, srv, data, answers, cfg)
        run = Run(kind, srv, dict(cfg, slots=tb["slots"]), answers, run_dir)
        users = [(run.etl_job, name) for name in cfg["etl"]] + [(run.interactive, i) for i in range(cfg["clients"])]
        ready = threading.Barrier(len(users), action=run.start)
        threads = [threading.Thread(target=_guarded, args=(run, ready, fn, arg), daemon=True) for fn, arg in users]
        for th in threads:
            th.start()
        deadline = time.time() + 900 + cfg["lead_s"] + cfg["window_s"] + 1800
        for th in threads:
            th.join(max(1.0, deadline - time.time()))
        if any(th.is_alive() for th in threads):
            run.errors.append("users still running 30 minutes after the window: stopped with the server")
    summary = srv.summary or {}
    return entry(sched, kind, cfg, run, summary, time.time() - t_wall)


def _guarded(run, ready, fn, arg):
    """One user's thread: an error (a session that does not open, a lost server) is recorded and
    releases the others from the start barrier, so that the run ends wrong rather than hangs."""
    try:
        fn(arg, ready)
    except Exception as e:
        run.errors.append(f"{fn.__name__} {arg}: {str(e).splitlines()[0][:300] if str(e) else type(e).__name__}")
        ready.abort()


def entry(sched, kind, cfg, run, summary, wall) -> dict:
    """One run's figures: latencies of the queries started in the window, throughput, ETL times."""
    lat = [q["latency"] for q in run.queries]
    done_in_window = sum(1 for q in run.queries if q["in_window"])
    etl_ok = all((run.etl.get(n) or {}).get("ok") for n in cfg["etl"])
    correct = bool(run.queries) and all(q["ok"] for q in run.queries) and etl_ok and not run.errors
    counters = summary.get("counters") or {}
    return {"scheduler": sched, "variant": kind, "short": stats.summary(lat),
            "long": stats.summary([run.etl[n]["seconds"] for n in cfg["etl"] if n in run.etl]),
            "latencies": {"short": [round(x, 3) for x in lat],
                          "long": [run.etl[n]["seconds"] for n in cfg["etl"] if n in run.etl]},
            "queries_per_min": round(done_in_window / (cfg["window_s"] / 60.0), 2),
            "queries": len(run.queries), "wrong": sum(1 for q in run.queries if not q["ok"]),
            "etl": run.etl, "errors": run.errors, "correct": correct, "wall_seconds": round(wall, 1),
            "engine": {"fallback": summary.get("fallback"), "decisions": counters.get("decisions"),
                       "tenants": sorted({t["tenant"] for t in summary.get("taskSets") or [] if t.get("tenant")})}
            if summary else None,
            "per_query": run.queries}


def criteria(runs, cfg) -> list:
    """Per server, eagle against FAIR with pools: interactive p90 and p99 at most FAIR's, queries
    per minute at least FAIR's, each ETL job at most 1.1x FAIR's time."""
    out = []
    for kind in cfg["servers"]:
        by = {r["scheduler"]: r for r in runs if r["variant"] == kind}
        e, f = by.get("eagle"), by.get("fair")
        if not e or not f:
            continue
        row = {"server": kind,
               "p90_vs_fair": stats.ratio(e["short"]["p90"], f["short"]["p90"]),
               "p99_vs_fair": stats.ratio(e["short"]["p99"], f["short"]["p99"]),
               "qpm_vs_fair": stats.ratio(e["queries_per_min"], f["queries_per_min"]),
               "etl_vs_fair": {n: stats.ratio((e["etl"].get(n) or {}).get("seconds"),
                                              (f["etl"].get(n) or {}).get("seconds")) for n in cfg["etl"]}}
        if "fifo" in by:
            row["p99_vs_fifo"] = stats.ratio(e["short"]["p99"], by["fifo"]["short"]["p99"])
        le = lambda x, lim: None if x is None else x <= lim   # noqa: E731
        row["met"] = {"p90 <= fair": le(row["p90_vs_fair"], 1.0), "p99 <= fair": le(row["p99_vs_fair"], 1.0),
                      "queries/min >= fair": None if row["qpm_vs_fair"] is None else row["qpm_vs_fair"] >= 1.0,
                      **{f"{n} <= 1.1 x fair": le(x, 1.1) for n, x in row["etl_vs_fair"].items()}}
        out.append(row)
    return out


def main(args) -> int:
    cfg = settings(args)
    wait_idle(args)
    tbed = Testbed(args)
    harness.on_signals(tbed.down)
    out_dir = os.path.join(args.out, "server")
    os.makedirs(out_dir, exist_ok=True)
    runs = []
    try:
        tb = tbed.up()
        log(f"testbed: {tb['mode']}, master {tb['master']}, {tb['hosts']} hosts, {tb['slots']} slots")
        data = tpch.ensure_data(os.path.join(args.out, "data"), cfg["sf"], cfg["parts"], log=log)
        answers = tpch.duckdb_answers(data, cfg["sf"], log=log)
        log(f"server: {cfg['clients']} users x TPC-H Q{','.join(map(str, cfg['queries']))} at SF {cfg['sf']:g}, "
            f"think {cfg['think_s']:g} s, window {cfg['window_s']:g} s; ETL {', '.join(cfg['etl']) or 'none'}")
        steps = Steps(len(cfg["servers"]) * len(args.schedulers), log, "application")
        for kind in cfg["servers"]:
            for sched in args.schedulers:
                steps.start(f"{kind} server, {sched}")
                wait_idle(args, harness.TESTBED_STATE)
                r = run_one(tb, cfg, kind, sched, data, answers, out_dir)
                runs.append(r)
                s = r["short"]
                log(f"  {kind} {sched}: queries p50/p90/p99 {s['p50'] or 0:.2f}/{s['p90'] or 0:.2f}/{s['p99'] or 0:.2f} s "
                    f"(n={s['count']}), "
                    f"{r['queries_per_min']} per minute; ETL "
                    + ", ".join(f"{n} {v['seconds']:.1f} s" for n, v in r["etl"].items())
                    + ("" if r["correct"] else f"; NOT CORRECT: {r['wrong']} wrong answers, errors {r['errors']}"))
        steps.finish()
    finally:
        tbed.down()
    crit = criteria(runs, cfg)
    for c in crit:
        r3 = lambda x: "-" if x is None else f"{x:.2f}"   # noqa: E731
        log(f"{c['server']}: eagle/fair p90 {r3(c['p90_vs_fair'])}x, p99 {r3(c['p99_vs_fair'])}x, queries/min "
            f"{r3(c['qpm_vs_fair'])}x, ETL " + ", ".join(f"{n} {r3(x)}x" for n, x in c["etl_vs_fair"].items())
            + "; targets " + ", ".join(f"{k}: {'met' if ok else 'MISSED'}" for k, ok in c["met"].items()))
    write_results(args.out, {"scenario": "server", "testbed": testbed_json(tb), "workload": cfg,
                             "runs": runs, "criteria": crit})
    ok = runs and all(r["correct"] for r in runs)
    log("done" + ("" if ok else " (some runs failed or gave wrong answers)"))
    return 0 if ok else 1
