"""Where the central places long task sets, on real Spark: three worker hosts
(127.0.0.2-4), each with an eagle-node of 2 slots, and an eagle-central that keeps no host
for short work and runs `--long-headroom 0.5` (one long task set on at most 3 - ceil(1.5) = 1
host), as `scripts/eagle-cluster.sh` starts it; every application takes one executor of 2
cores on each host (the standalone recipe of docs/guide/cluster-mode.md). `tests/test_cluster_mode.py` runs the
rest of cluster mode on two hosts, where the headroom and the input have no room to act.

- The headroom: a batch application's long job of many tasks runs on one host, and a second
  application's small long job, submitted while it runs, runs on a host the batch job does
  not use, and ends first. (With no headroom the batch job queues on all three hosts and the
  small job waits behind its tasks.)
- The input: a long job reading cached partitions is placed by its input. Its first reads run
  on the host holding most of its blocks (by least work left alone, it went to the lowest idle
  host, wherever its blocks were); the reads whose blocks are elsewhere hand that host's
  grants back and are placed again away from it, so nearly every read is PROCESS_LOCAL.

Waits are bounded generously; no timing is asserted.
"""
import os

import pytest

from standalone import standalone
from test_cluster_mode import (SLOTS, _until, cluster_daemons, finish, launch, leased, read, run_held,
                               task_events)

HOSTS = ["127.0.0.2", "127.0.0.3", "127.0.0.4"]


@pytest.fixture(scope="module")
def daemons(tmp_path_factory):
    flags = ["--short-fraction", "0", "--long-headroom", "0.5"]
    with cluster_daemons(tmp_path_factory.mktemp("eagle-placement"), HOSTS, flags) as d:
        yield d


@pytest.fixture(scope="module")
def hosts3():
    # slots x 2 applications on every host
    with standalone({h: SLOTS * 2 for h in HOSTS}, "placement", memory="1500m") as url:
        yield url

@pytest.mark.full
def test_a_big_long_job_leaves_a_host_to_another_applications_small_one(daemons, hosts3, tmp_path):
    batch_go, small_go = tmp_path / "batch-go", tmp_path / "small-go"
    batch, batch_out = launch(daemons, hosts3, tmp_path, "batch", [{"class": "long", "ms": 2000, "tasks": 8}],
                              go=batch_go)
    small, small_out = launch(daemons, hosts3, tmp_path, "small", [{"class": "long", "ms": 300, "tasks": 2}],
                              go=small_go)
    _until("both applications' executors", lambda: os.path.exists(batch_out) and os.path.exists(small_out), 240)
    batch_go.write_text("go")
    _until("the batch job to hold a host's slots", lambda: str(SLOTS) in leased(daemons).values(), 240)
    small_go.write_text("go")
    finish(small, 300)
    finish(batch, 300)
    b, s = read(batch_out)["jobs"][0], read(small_out)["jobs"][0]
    assert sorted(r[0] for r in b["rows"]) == list(range(8)) and sorted(r[0] for r in s["rows"]) == [0, 1]
    batch_hosts, small_hosts = {r[3] for r in b["rows"]}, {r[3] for r in s["rows"]}
    # One long job on at most one host of three; the small job on another, free of it.
    assert len(batch_hosts) == 1, b["rows"]
    assert not small_hosts & batch_hosts, (small_hosts, batch_hosts)
    # 8 tasks of 2 s on one host's 2 slots: the small job, submitted once they ran, ends first.
    assert s["done"] < b["done"], (s, b)
    _until("no lease left on the nodes", lambda: set(leased(daemons).values()) == {"0"}, 60)


@pytest.mark.full
def test_a_long_job_goes_to_the_host_holding_most_of_its_input(daemons, hosts3, tmp_path):
    # A short job caches 8 partitions (its probes reach every host, so the blocks land on
    # several); a long job then reads them, placed on one host by the headroom: the one
    # holding most of its blocks, where its first reads run.
    jobs = [{"class": "long", "ms": 300, "tasks": 8, "cached": True, "cache_class": "short", "cache_ms": 2000}]
    _, starts, ends = run_held(daemons, hosts3, tmp_path, "near", jobs)
    by_stage = {}
    for e in ends:
        by_stage.setdefault(e["Stage ID"], []).append(e["Task Info"])
    assert sorted(by_stage) == [0, 1], sorted(by_stage)  # cache; read
    blocks = {}
    for t in by_stage[0]:
        blocks[t["Host"]] = blocks.get(t["Host"], 0) + 1
    reads = by_stage[1]
    most = max(blocks.values())
    first = min(reads, key=lambda t: t["Launch Time"])
    assert blocks[first["Host"]] == most, (first["Host"], blocks)
    # The reads whose blocks are elsewhere hand that host's grants back (delay scheduling)
    # and are placed again away from it, where their blocks are. Wide margin: a read may
    # still go remote once its locality wait has passed.
    local = [t for t in reads if t["Locality"] == "PROCESS_LOCAL"]
    assert len(local) >= 6, (blocks, [(t["Host"], t["Locality"]) for t in reads])
    assert len(starts) == 16
