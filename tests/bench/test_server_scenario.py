"""scripts/bench server: its options, the users' plans, the ETL answers and the criteria
(bench/server.py), and the clients' number conversion (bench/sql_clients.py)."""
import decimal
import itertools

import pytest

from bench import run, server
from bench.sql_clients import _number


def test_defaults_and_quick_sizes():
    full = server.settings(run.parse_args(["server"]))
    assert (full["clients"], full["window_s"], full["sf"], full["agg_rows"]) == (8, 240.0, 0.2, 10**9)
    assert full["servers"] == ["connect", "thrift"] and full["etl"] == ["sort", "aggregate"]
    quick = server.settings(run.parse_args(["server", "--quick"]))
    assert (quick["clients"], quick["window_s"], quick["sf"], quick["agg_rows"]) == (4, 60.0, 0.05, 10**8)
    assert full["eagle_conf"] == {}


def test_eagle_keys_are_kept_for_the_eagle_runs():
    cfg = server.settings(run.parse_args(["server", "--eagle-conf", "order=fsp"]))
    assert cfg["eagle_conf"] == {"order": "fsp"}


@pytest.mark.parametrize("argv, named", [
    (["--servers", "connect,hive"], "'hive'"),
    (["--etl", "sort,join"], "'join'"),
    (["--dashboard-queries", "1,23"], "--dashboard-queries"),
    (["--dashboard-queries", "one"], "--dashboard-queries"),
    (["--clients", "0"], "clients"),
    (["--think", "-1"], "think"),
])
def test_a_bad_option_is_an_error_naming_it(argv, named):
    with pytest.raises(SystemExit) as e:
        server.settings(run.parse_args(["server", *argv]))
    assert named in str(e.value)


def test_a_users_plan_depends_on_its_seed_and_index_only():
    take = lambda seed, i: list(itertools.islice(server.user_plan(seed, i, [1, 6, 14], 2.0), 50))  # noqa: E731
    assert take(1, 0) == take(1, 0)
    assert take(1, 0) != take(1, 1) and take(1, 0) != take(2, 0)
    plan = take(1, 3)
    assert {q for _, q in plan} <= {1, 6, 14} and len({q for _, q in plan}) == 3
    thinks = [t for t, _ in plan]
    assert all(t > 0 for t in thinks) and 1.0 < sum(thinks) / len(thinks) < 3.5


@pytest.mark.parametrize("rows", [10, 100_003, 250_000])
def test_the_aggregate_answer_is_its_closed_form(rows):
    sql, answer = server.aggregate_sql(rows, 4)
    groups = {}
    for i in range(rows):
        groups[i % server.AGG_GROUPS] = groups.get(i % server.AGG_GROUPS, 0) + i
    assert answer == [[len(groups), sum(groups.values())]]
    assert f"range(0, {rows}, 1, 4)" in sql


def _run(sched, kind, p90, p99, qpm, sort_s):
    return {"scheduler": sched, "variant": kind, "short": {"p90": p90, "p99": p99}, "queries_per_min": qpm,
            "etl": {"sort": {"seconds": sort_s}}}


def test_criteria_compare_eagle_with_fair_per_server():
    runs = [_run("fair", "connect", 4.0, 8.0, 30, 100), _run("eagle", "connect", 2.0, 9.0, 33, 105),
            _run("fifo", "connect", 9.0, 18.0, 20, 90), _run("fair", "thrift", 4.0, 8.0, 30, 100)]
    (c,) = server.criteria(runs, {"servers": ["connect", "thrift"], "etl": ["sort"]})
    assert c["server"] == "connect"
    assert c["met"] == {"p90 <= fair": True, "p99 <= fair": False, "queries/min >= fair": True,
                        "sort <= 1.1 x fair": True}
    assert c["p99_vs_fifo"] == 0.5


def test_hiveserver2_text_numbers_become_numbers():
    assert _number("12") == 12 and _number("-3.50") == -3.5 and _number("1e3") == 1000.0
    assert _number(decimal.Decimal("2.25")) == 2.25
    assert _number("1-URGENT") == "1-URGENT" and _number("R") == "R" and _number(None) is None
