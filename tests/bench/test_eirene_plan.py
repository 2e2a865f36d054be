"""bench/eirene.py without Spark: the straggler plan and the option checks."""
import pytest

from bench import eirene


def plan(load, fraction=0.107, seed=1, jobs=400):
    return eirene.build_plan(seed, load, slots=8, jobs=jobs, tasks=4, task_ms=1000,
                             fraction=fraction, slowdown=(3.0, 10.0))


def test_stragglers_follow_the_fraction_and_slowdown_range():
    p = plan(1.0)
    slow = [f for j in p["jobs"] for f in j["slowdowns"] if f > 1]
    assert p["meta"]["straggler_tasks"] == len(slow)
    assert 0.07 < len(slow) / p["meta"]["tasks"] < 0.15
    assert all(3.0 <= f <= 10.0 for f in slow)
    assert all(d == 1000 for j in p["jobs"] for d in j["durations_ms"])
    assert not [f for j in plan(1.0, fraction=0.0)["jobs"] for f in j["slowdowns"] if f > 1]


def test_offered_load_sets_the_arrival_rate():
    heavy, light = plan(1.0), plan(0.3)
    for p, load in ((heavy, 1.0), (light, 0.3)):
        work = sum(d * f for j in p["jobs"] for d, f in zip(j["durations_ms"], j["slowdowns"])) / 1000
        span = p["jobs"][-1]["arrival_s"]
        assert 0.8 * load < work / (8 * span) < 1.25 * load, (load, work / (8 * span))
    assert plan(1.0) == plan(1.0), "deterministic per seed"
    assert plan(1.0, seed=2) != plan(1.0)


@pytest.mark.parametrize("bad", ["heavy", "heavy=0", "heavy=x", "=1"])
def test_bad_loads_are_named(bad):
    with pytest.raises(SystemExit) as e:
        eirene.parse_loads(bad)
    assert "--loads" in str(e.value)


def test_cold_input_gives_each_task_a_distinct_block():
    p = eirene.build_plan(1, 1.0, slots=8, jobs=50, tasks=4, task_ms=1000, fraction=0.107,
                          slowdown=(3.0, 10.0), partitions=16)
    for j in p["jobs"]:
        assert len(j["parts"]) == 4 and len(set(j["parts"])) == 4, j
        assert all(0 <= x < 16 for x in j["parts"])
    assert len({x for j in p["jobs"] for x in j["parts"]}) == 16, "every block is read by some job"
    assert all("parts" not in j for j in plan(1.0)["jobs"]), "no input: sleep-only jobs as before"


def test_ccdm_variants_are_offered():
    assert {"eagle+ccdm", "eagle+both"} <= set(eirene.VARIANTS)
    assert eirene.VARIANTS["eagle+both"] == {"eirene.satc": "true", "eirene.ccdm": "true"}
