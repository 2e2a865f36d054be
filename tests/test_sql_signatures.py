"""spark-eagle:local[4]: the stages of SQL queries get history signatures of their own.

Adaptive query execution submits a query's stages from its own threads, so they all carry
one call site (`$anonfun$withThreadLocalCaptured$1 at ...`): keyed by call site and width
alone, every 4-partition map stage of every query shared one history entry, and a query's
estimate came from whichever query ran before it (on the TPC-H benchmark, 28 different
32-task stages shared the estimate of Q1's heavy lineitem scan). The signature of a query's
stage now adds a key of its query and the stage's rank among the query's stages of the same
kind and width. The key is the job description when the application sets one; else (a
notebook's `spark.sql`, every Spark Connect operation, whose description is its session's)
the query's analyzed plan, so two queries of one session are told apart and one query is
known again in any session.
"""
import collections
import contextlib
import json

from conftest import spark

SQL_CONF = {
    "spark.sql.adaptive.enabled": "true",
    # Joins shuffle both sides (no broadcast), so one query has two map stages of one width.
    "spark.sql.autoBroadcastJoinThreshold": "-1",
    "spark.sql.shuffle.partitions": "4",
}


def _join(s, mod):
    """Two aggregated sides joined: two 4-partition map stages, then the join."""
    a = s.range(0, 20000, numPartitions=4).selectExpr(f"id % {mod} as k", "id as v").groupBy("k").sum("v")
    b = s.range(0, 30000, numPartitions=4).selectExpr(f"id % {mod} as k").groupBy("k").count()
    return sorted(tuple(r) for r in a.join(b, "k").collect())


def _queries(s):
    sc = s.sparkContext
    out = {}
    for name, mod in (("query A", 7), ("query B", 11)):
        sc.setJobDescription(name)
        out[name] = _join(s, mod)
    sc.setJobDescription(None)
    return out


def _expected(mod):
    sums = collections.Counter()
    for i in range(20000):
        sums[i % mod] += i
    counts = collections.Counter(i % mod for i in range(30000))
    return sorted((k, sums[k], counts[k]) for k in range(mod))


def _map_stages(summary, by="description"):
    """The task sets of each query's 4-task map stages, in submission order; the query named by
    its jobs' `by` (their description, or their job group)."""
    desc = {j["jobId"]: j.get(by) for j in summary["jobs"]}
    out = collections.defaultdict(list)
    for t in sorted(summary["taskSets"], key=lambda t: t["stageId"]):
        d = desc.get(t["jobId"])
        if d in ("query A", "query B") and t["tasks"] == 4 and t["attempt"] == 0:
            out[d].append(t)
    return out


@contextlib.contextmanager
def _app(tmp_path, summary):
    """An application on spark-eagle:local[4] with SQL_CONF and a history file in `tmp_path`."""
    conf = dict(SQL_CONF, **{"spark.scheduler.eagle.history.path": str(tmp_path / "history.json")})
    with spark("spark-eagle:local[4]", conf, summary_path=tmp_path / summary) as (s, r):
        for k, v in SQL_CONF.items():
            s.conf.set(k, v)
        yield s, r


def test_sql_stages_get_signatures_of_their_own_and_the_history_finds_them(tmp_path):
    with _app(tmp_path, "first.json") as (s, r):
        first = _queries(s)
    assert first == {"query A": _expected(7), "query B": _expected(11)}
    stages = _map_stages(r["summary"])
    for d in ("query A", "query B"):
        assert len(stages[d]) >= 2, (d, r["summary"]["taskSets"])
        names = {t["stageName"] for t in stages[d]}
        sigs = [t["signature"] for t in stages[d]]
        # Same call site and width, yet each stage of the query has its own signature.
        assert len(set(sigs)) == len(sigs), (d, names, sigs)
    # And no stage of one query shares a signature with a stage of the other.
    a = {t["signature"] for t in stages["query A"]}
    b = {t["signature"] for t in stages["query B"]}
    assert not a & b, (a, b)

    # The next application that runs query A finds its stages in the history.
    saved = {e["signature"] for e in json.loads((tmp_path / "history.json").read_text())["entries"]}
    assert a <= saved, (a, saved)
    with _app(tmp_path, "second.json") as (s, r2):
        s.sparkContext.setJobDescription("query A")
        assert _join(s, 7) == _expected(7)
    again = _map_stages(r2["summary"])["query A"]
    assert [t["signature"] for t in again] == [t["signature"] for t in stages["query A"]]
    assert all(t["submitEstimateSource"] == "history" for t in again), again


def _grouped_queries(s, names):
    """Each query of `names` under its job group alone: no job description, as a notebook's
    `spark.sql` runs (and as a Spark Connect operation does, whose description is its session's)."""
    sc = s.sparkContext
    out = {}
    for name in names:
        sc.setLocalProperty("spark.jobGroup.id", name)
        out[name] = _join(s, {"query A": 7, "query B": 11}[name])
    sc.setLocalProperty("spark.jobGroup.id", None)
    return out


def test_queries_without_a_description_are_told_apart_by_their_plan(tmp_path):
    with _app(tmp_path, "first.json") as (s, r):
        first = _grouped_queries(s, ("query A", "query B"))
    assert first == {"query A": _expected(7), "query B": _expected(11)}
    assert not any(j.get("description") for j in r["summary"]["jobs"]), r["summary"]["jobs"]
    stages = _map_stages(r["summary"], by="jobGroup")
    a = [t["signature"] for t in stages["query A"]]
    b = [t["signature"] for t in stages["query B"]]
    assert len(a) >= 2 and len(b) >= 2, stages
    # The same call site, width and rank in their queries, yet the two queries' stages differ.
    assert not set(a) & set(b), (a, b)

    # Another application running query A, with no description either, finds its stages.
    with _app(tmp_path, "second.json") as (s, r2):
        assert _grouped_queries(s, ("query A",)) == {"query A": _expected(7)}
    again = _map_stages(r2["summary"], by="jobGroup")["query A"]
    assert [t["signature"] for t in again] == a
    assert all(t["submitEstimateSource"] == "history" for t in again), again
