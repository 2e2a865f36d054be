"""Shared SQL servers under the plugin, through their real clients.

Many users share one driver behind a Spark Connect server (notebooks, applications) or the
Thrift JDBC/ODBC server (BI tools, beeline): that driver's scheduler decides whose query runs
first. Each test starts the server on `spark-eagle:local[4]` with default keys (no hints), runs
a long query from one session (24 tasks of 3 s: six waves on 4 slots) and, once it runs, three
other users' sessions at once, each with three small aggregates one after another: pyspark's
Spark Connect client for the Connect server, beeline over JDBC for the Thrift server.

Every answer is checked. Under FIFO the small queries would wait until the long query's last
wave launched (about 15 s); under the plugin a small query waits at most for one running task.
The assertion leaves a factor of two: every small query within half the long query's time.
The summary must show that the engine decided every launch (no fallback), and that each user's
queries ran for a tenant of its own: a Connect session (with the user the client named), or
on the Thrift server the pool the session chose (`SET spark.sql.thriftserver.scheduler.pool`,
Spark's documented set-up for FAIR pools). Each small query's stage has a history
signature of its own.
"""
import re
import time

import pytest

from sql_servers import client_results, server, start_client

MASTER = "spark-eagle:local[4]"
LONG_TASKS, LONG_MS = 24, 3000
# A filter on the call's result keeps the call in the plan (it holds for every row).
LONG = (f"SELECT count(*) FROM (SELECT reflect('java.lang.Thread', 'sleep', CAST({LONG_MS} AS BIGINT)) AS r "
        f"FROM range(0, {LONG_TASKS}, 1, {LONG_TASKS})) WHERE coalesce(r, '') <> '-'")
USERS = ("alice", "bob", "carol")


def small(n):
    """A two-task aggregate and its answer."""
    return f"SELECT sum(id) FROM range(0, {n}, 1, 2)", str(n * (n - 1) // 2)


def _wait_for_log(srv, pattern, timeout=120):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if re.search(pattern, open(srv.log, errors="replace").read()):
            return
        time.sleep(0.2)
    raise AssertionError(f"no {pattern!r} in {srv.log} within {timeout} s")


@pytest.mark.parametrize("kind", ["connect", "thrift"])
def test_users_small_queries_do_not_wait_for_another_users_long_query(kind, tmp_path):
    with server(kind, MASTER, str(tmp_path)) as srv:
        # A first session warms the server (its first query plans and compiles for seconds).
        warm_sql, warm_answer = small(100)
        warm = start_client(srv, "etl", [warm_sql])
        assert client_results(srv, warm, [warm_sql])[0][0] == [[warm_answer]]
        long = start_client(srv, "etl", [LONG])
        _wait_for_log(srv, rf"Submitting {LONG_TASKS} missing tasks")
        queries = {u: [small(1000 * (i + 1) + j) for j in range(3)] for i, u in enumerate(USERS)}
        # Thrift: each session picks a pool of its own, as Spark documents for FAIR pools.
        pool = {u: [f"SET spark.sql.thriftserver.scheduler.pool={u}"] if kind == "thrift" else [] for u in USERS}
        statements = {u: pool[u] + [q for q, _ in qs] for u, qs in queries.items()}
        clients = {u: start_client(srv, u, statements[u]) for u in USERS}
        results = {u: client_results(srv, c, statements[u])[len(pool[u]):] for u, c in clients.items()}
        (long_rows, long_s), = client_results(srv, long, [LONG])
    assert long_rows == [[str(LONG_TASKS)]]
    for u, qs in queries.items():
        assert [rows for rows, _ in results[u]] == [[[answer]] for _, answer in qs], u
    seconds = {u: [round(s, 2) for _, s in r] for u, r in results.items()}
    msg = f"{kind}: long query {long_s:.1f} s; small queries {seconds}"
    print(msg)
    assert max(max(s) for s in seconds.values()) <= 0.5 * long_s, msg
    summary = srv.summary
    assert summary is not None, f"no summary at the server's stop ({srv.log})"
    assert summary["fallback"] is False, summary.get("fallbackReason")
    # Every task launched by the engine's decision: the long query's, and 2 per small query.
    assert summary["counters"]["decisions"] >= LONG_TASKS + 2 * 3 * len(USERS), summary["counters"]
    # Each user's queries ran for a tenant of its own.
    tenants = {(t.get("tenant"), t.get("user")) for t in summary["taskSets"] if t.get("tenant")}
    if kind == "connect":
        users = {u for _, u in tenants}
        assert set(USERS) <= users, tenants
        assert all(name.startswith("session ") for name, _ in tenants), tenants
        assert len({name for name, u in tenants if u in USERS}) == len(USERS), tenants
    else:
        assert {f"pool {u}" for u in USERS} <= {name for name, _ in tenants}, tenants
    # Every small query is a query of its own to the history: on Connect every operation of a
    # session has one job description (the session's), so the query's plan tells them apart.
    users_tenants = {name for name, u in tenants if u in USERS} | {f"pool {u}" for u in USERS}
    maps = [t["signature"] for t in summary["taskSets"]
            if t["tasks"] == 2 and t["attempt"] == 0 and t.get("tenant") in users_tenants]
    assert len(maps) == 3 * len(USERS) and len(set(maps)) == len(maps), maps
