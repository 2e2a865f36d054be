"""Input limits end to end: a corrupt history file cannot poison the estimates."""
import inspect
import json
import math
import os

import workloads
from conftest import spark

HISTORY_LINE = "workloads.py:%d" % (inspect.getsourcelines(workloads.history_job)[1] + 2)


def test_history_with_absurd_samples_is_rejected_and_rewritten_clean(tmp_path):
    path = tmp_path / "history.json"
    conf = {"spark.scheduler.eagle.history.path": str(path)}
    with spark("spark-eagle:local[4]", conf) as (s, _):
        assert workloads.history_job(s.sparkContext) == sum(range(1, 401))
    good = json.loads(path.read_text())
    sig = good["entries"][0]["signature"]
    # meanMs 1e308 x 1e6 samples: finite on its own, but it overflowed the weighted mean to
    # inf, which the next save wrote as null (an unreadable file from then on).
    bad = {"format": "eagle-history/1", "entries": [
        {"signature": sig, "meanMs": 1e308, "samples": 1000000}]}
    path.write_text(json.dumps(bad, indent=2))
    with spark("spark-eagle:local[4]", conf, summary_path=tmp_path / "s.json") as (s, r):
        assert workloads.history_job(s.sparkContext) == sum(range(1, 401))
    summary = r["summary"]
    assert summary["fallback"] is False, summary["fallbackReason"]
    (ts,) = [t for t in summary["taskSets"] if t["stageName"].endswith(HISTORY_LINE)]
    assert ts["submitEstimateSource"] != "history", ts
    assert ts["estimateMs"] is not None and 0 <= ts["estimateMs"] < 60000, ts
    saved = json.loads(path.read_text())  # the rejected file was replaced by a clean one
    assert saved["entries"] and all(
        isinstance(e["meanMs"], (int, float)) and math.isfinite(e["meanMs"]) and e["meanMs"] < 60000
        for e in saved["entries"]), saved
    assert sorted(os.listdir(tmp_path)) == ["history.json", "s.json"], "no temporary file left"
