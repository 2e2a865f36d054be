"""The replay's slot load: what its tasks held the slots for, against what its plan says."""
import json

from bench import eventlog, trace
from bench.run import slot_load


def _job(job, stages, plan):
    return {"Event": "SparkListenerJobStart", "Job ID": job, "Stage IDs": stages,
            "Properties": {"bench.class": "short", "bench.plan": plan}}


def _task(stage, t0_ms, t1_ms):
    return {"Event": "SparkListenerTaskEnd", "Stage ID": stage,
            "Task Info": {"Launch Time": t0_ms, "Finish Time": t1_ms, "Locality": "PROCESS_LOCAL"}}


def test_each_plans_tasks_slot_time_is_summed_from_the_event_log(tmp_path):
    events = [_job(1, [1], "r1.2-s1"), _job(2, [2, 3], "r2-s1"),
              _task(1, 1000, 1250), _task(1, 1000, 1100), _task(2, 5000, 5040), _task(3, 6000, 8000),
              # a task without a finish time holds no measured slot time
              {"Event": "SparkListenerTaskEnd", "Stage ID": 1, "Task Info": {"Launch Time": 9000}}]
    p = tmp_path / "events"
    p.write_text("\n".join(json.dumps(e) for e in events) + "\n")
    ev = eventlog.parse([str(p)])
    assert ev["slot_ms_by_plan"] == {"r1.2-s1": 350, "r2-s1": 2040}


def test_slot_load_scales_the_plans_load_by_the_measured_slot_time():
    jobs = [trace.TraceJob(0.0, 10.0, (10.0, 10.0)), trace.TraceJob(1.0, 20.0, (20.0,)),
            trace.TraceJob(2.0, 300.0, (300.0, 200.0, 400.0))]
    plan = trace.build_workload(jobs, slots=4, ratio=1.2, n_jobs=30, seed=3, cutoff_s=90.0)
    meta = plan["meta"]
    work = sum(sum(j["durations_ms"]) for j in plan["jobs"]) / 1000.0
    assert abs(meta["work_s"] - work) < 1e-3
    # Tasks that held their slots exactly their durations put the plan's own load on them.
    assert abs(slot_load(work * 1000.0, meta) - meta["sample_load"]) < 1e-3
    # Three times the slot time, three times the load.
    assert abs(slot_load(3 * work * 1000.0, meta) - 3 * meta["sample_load"]) < 1e-2
    assert slot_load(None, meta) is None
    assert slot_load(100.0, dict(meta, work_s=0)) is None
