"""Cluster mode on the testbed: ``scripts/bench cluster [--quick]`` (options, system specs and
outputs: docs/benchmarks.md, "Cluster mode").

Four Spark applications share the testbed's hosts at once: the trace replay's short jobs split
between two "interactive" applications and its long jobs between two "batch" ones (alternating,
in arrival order; every job keeps its arrival time and carries the trace's class and estimate
as hints). Systems, each on a fresh testbed:

* ``eagle``, ``eagle-adaptive``, ``hawk``, ``sparrow``: cluster mode on the same daemons
  (``scripts/testbed.sh --eagle-daemons --eagle-policy P``). A system spec may add a short
  partition (``@PARTITION``), the hosts of each role (``/N[:M]``) and its own eagle keys
  (``+KEY=VALUE``): ``parse_system``.
* ``static``: stock standalone; each application's ``spark.cores.max`` is its share of the
  work's task-seconds of all slots, in executors of 1 core.
* ``oversubscribed``: stock standalone where every application takes every host's cores.

The latency of a job is from its arrival to its end. The four applications of a system replay
every plan (ratio, seed) in turn, after unmeasured warm-up plans (``plan_sequence``); before
each, every application writes a ready file and the orchestrator gives all four the same start
time. Writes ``target/bench/cluster/results.json`` (runs, the summary per ratio with the
targets, the paper check through eagle-sim, each run's ``threads`` and ``machine`` CPU) and
``report.html``.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import threading
import time

from . import eventlog, threads
from .schedulers import eagle_keys

SYSTEMS = ("eagle", "eagle-adaptive", "hawk", "sparrow", "static", "oversubscribed")
CLUSTER_SYSTEMS = ("eagle", "eagle-adaptive", "hawk", "sparrow")
PARTITIONS = ("fixed", "adaptive", "slots", "share")
APPS = ("interactive-0", "interactive-1", "batch-0", "batch-1")
# The cluster counters that are levels, not running totals (a plan's figure is the level after it).
CLUSTER_GAUGES = ("centralUp", "hostsUp", "heldGrants", "runningLeases")
NODE_PORT = 7101                     # scripts/testbed.sh runs every eagle-node on it


def add_arguments(p):
    p.add_argument("--systems", default=",".join(SYSTEMS),
                   help=f"cluster: comma list of {','.join(SYSTEMS)} (default all); a cluster-mode "
                        f"system may name its own short partition, e.g. eagle-adaptive@slots, and any "
                        f"but static the number of hosts each application has executors on, e.g. "
                        f"eagle-adaptive/4 or eagle-adaptive@slots/4 (default every host), or the interactive and "
                        f"the batch applications' apart, e.g. eagle-adaptive/4:8, and a cluster-mode one its "
                        f"own spark.scheduler.eagle.* keys after '+', e.g. eagle-adaptive/4+minProbes=2")
    p.add_argument("--short-partition", choices=PARTITIONS,
                   help="cluster: eagle-central's short-only partition for every cluster-mode system "
                        "(default fixed, the paper's)")
    p.add_argument("--long-headroom", type=float, metavar="F",
                   help="cluster: eagle-central's --long-headroom for every cluster-mode system (default: "
                        "the testbed's, 0.1 under eagle-adaptive and 0 under the papers' policies)")
    p.add_argument("--steal-fraction", type=float, metavar="F",
                   help="cluster: eagle-adaptive nodes' --steal-fraction, the budget of the steal before "
                        "long work as a share of a host's slot-time (default: the node's, 0.05; 0 turns "
                        "it off)")
    p.add_argument("--warmup", type=int, metavar="N",
                   help="cluster: replay the first N plans (in order, again from the first if N is "
                        "more) unmeasured before the measured ones, by every system alike (default 3; "
                        "quick 1)")
    p.add_argument("--no-warmup", action="store_true",
                   help="cluster: measure from the first plan, on cold executors (--warmup 0)")


WARMUP = "warmup"


#: Warm-up plans by default. One plan left cluster mode's executors compiling: each
#: application has a JVM on every host and each JVM sees a share of its tasks, so its JIT CPU
#: at the first measured ratio was about twice the next one's. At three, the interactive
#: executors' compilation on the plan that carries the ratio-1.2 means fell from 23-32 to
#: 13-16 CPU-s, and hawk's figures moved as much as eagle's (docs/MEASUREMENTS.md).
#: ``--quick`` is a smoke run: one plan.
DEFAULT_WARMUP, QUICK_WARMUP = 3, 1


def warmups(args) -> int:
    """The number of warm-up plans: ``--warmup`` (default :data:`DEFAULT_WARMUP`, under
    ``--quick`` :data:`QUICK_WARMUP`), 0 under ``--no-warmup``."""
    if getattr(args, "no_warmup", False):
        return 0
    n = getattr(args, "warmup", None)
    if n is None:
        n = QUICK_WARMUP if getattr(args, "quick", False) else DEFAULT_WARMUP
    if n < 0:
        raise SystemExit(f"cluster: --warmup must be a number of plans >= 0, got {n}")
    return n


def plan_sequence(plans_by_tag: dict, warmup: int) -> list:
    """The plans every application replays, in order, as ``(tag, split)``: ``warmup`` plans
    ahead of the measured ones, the first plans once more in order (from the first again when
    ``warmup`` is more than there are), under the tags ``warmup``, ``warmup-2``, ... (left out
    of the results).

    Why: the testbed runs every host's executors on the machine's few cores. A new executor
    JVM spends seconds of CPU compiling hot code (about 9 CPU-s each, measured), and the
    systems start different numbers of executors (cluster mode one per application and host,
    the static split one per core it holds). On real hosts each host compiles its own
    executors on its own cores, once per application lifetime; here that one-off cost lands
    in the first measured plan and grows with the executor count, whatever the scheduler.
    Replaying a plan first measures every system in the steady state of long-lived
    applications.

    One plan is not always enough: cluster mode's executors each run a share of an
    application's tasks, and a JVM compiles a code path once it has run it often enough, so
    a system with more executors per application takes more plans to reach that state
    (``threads``' JIT CPU-s of each plan show whether it has)."""
    seq = list(plans_by_tag.items())
    if not seq:
        return []
    warm = [(WARMUP if i == 0 else f"{WARMUP}-{i + 1}", seq[i % len(seq)][1]) for i in range(int(warmup))]
    return warm + seq


def split_plan(plan: dict) -> dict:
    """The replay plan's jobs by application: short jobs alternate between the interactive
    applications, long ones between the batch ones. Ids are renumbered per application
    (``orig_id`` keeps the plan's); arrival times are kept."""
    out = {a: {"jobs": [], "meta": dict(plan.get("meta", {}), app=a)} for a in APPS}
    turn = {"short": 0, "long": 0}
    for j in plan["jobs"]:
        cls = j["class"]
        pair = APPS[:2] if cls == "short" else APPS[2:]
        app = pair[turn[cls] % 2]
        turn[cls] += 1
        jobs = out[app]["jobs"]
        jobs.append(dict(j, id=len(jobs), orig_id=j["id"]))
    return out


def work_s(plan: dict) -> float:
    return sum(sum(j["durations_ms"]) for j in plan["jobs"]) / 1000.0


def static_cores(plans: dict, total: int) -> dict:
    """Each application's ``spark.cores.max`` under the static split: its share of the
    task-seconds of all slots, at least 1, summing to at most ``total`` (or one per
    application when there are fewer slots than applications)."""
    work = {a: work_s(p) for a, p in plans.items()}
    all_work = sum(work.values()) or 1.0
    cores = {a: max(1, round(total * w / all_work)) for a, w in work.items()}
    while sum(cores.values()) > max(total, len(cores)):
        a = max(cores, key=lambda k: (cores[k], k))
        cores[a] -= 1
    return cores


def app_conf(system: str, tb: dict, run_dir: str, app: str, slots: int, cores_max: int | None,
             eagle: dict | None = None, on_hosts: int | None = None) -> dict:
    """One application's SparkConf under ``system``; ``eagle``: ``spark.scheduler.eagle.*`` keys
    (``--eagle-conf``) of the cluster-mode systems; ``on_hosts``: the hosts it takes an executor
    on (default every host; not for ``static``)."""
    from .harness import ROOT
    from .schedulers import spark_conf
    cluster = system in CLUSTER_SYSTEMS
    extra = {"spark.app.name": f"eagle-bench-cluster-{system}-{app}", "spark.driver.memory": "1g"}
    hosts = int(tb["hosts"])
    if system == "static":
        extra.update({"spark.executor.cores": "1", "spark.cores.max": str(cores_max)})
    else:
        extra.update({"spark.executor.cores": str(slots), "spark.cores.max": str(slots * (on_hosts or hosts))})
    conf = spark_conf("eagle" if cluster else "fifo", tb, run_dir, ROOT, eagle=eagle if cluster else None, extra=extra)
    if cluster:
        if not tb.get("eagle_central"):
            raise SystemExit("cluster: the testbed has no eagle daemons (TB_EAGLE_CENTRAL missing)")
        conf.update({
            "spark.scheduler.eagle.cluster.central": tb["eagle_central"],
            "spark.scheduler.eagle.cluster.nodePort": str(NODE_PORT),
            "spark.scheduler.eagle.cluster.secretFile": tb["eagle_secret"],
        })
    return conf


def split_conf(label: str) -> tuple:
    """A system label's head and its own keys (:func:`bench.schedulers.split_conf`)."""
    from .schedulers import split_conf as split
    return split(label, "cluster")


def parse_system(label: str, hosts: int | None = None) -> tuple:
    """``SYSTEM[@PARTITION][/N[:M]][+KEY=VALUE...]``: a system, a cluster-mode one under that short
    partition, each application with executors on ``N`` hosts, or the interactive ones on ``N``
    and the batch ones on ``M`` (not ``static``, whose split is its own; at most ``hosts`` when
    given), and for a cluster-mode one its own keys (``split_conf``): ``(system, partition or
    None, N or (N, M) or None)`` (``hosts_of`` reads the last); anything else is an error naming
    it."""
    label_conf = label
    label, conf = split_conf(label)
    head, slash, n = label.partition("/")
    on_hosts = None
    if slash:
        counts = n.split(":")
        if len(counts) > 2 or not all(c.isdigit() and 1 <= int(c) <= (hosts or int(c)) for c in counts):
            raise SystemExit(f"cluster: {label!r}: after '/' comes the number of hosts each application "
                             f"has executors on, 1 to {hosts or 'the hosts'}, or N:M (the interactive "
                             f"applications on N, the batch ones on M)")
        on_hosts = int(counts[0]) if len(counts) == 1 else (int(counts[0]), int(counts[1]))
    system, at, partition = head.partition("@")
    if system not in SYSTEMS:
        raise SystemExit(f"cluster: unknown system {system!r} in {label!r} (known: {', '.join(SYSTEMS)})")
    if at and system not in CLUSTER_SYSTEMS:
        raise SystemExit(f"cluster: {label!r}: only the cluster-mode systems ({', '.join(CLUSTER_SYSTEMS)}) "
                         f"have a short partition")
    if at and partition not in PARTITIONS:
        raise SystemExit(f"cluster: {label!r}: the short partition is one of {', '.join(PARTITIONS)}")
    if slash and system == "static":
        raise SystemExit(f"cluster: {label!r}: the static split sizes its applications itself")
    if conf and system not in CLUSTER_SYSTEMS:
        raise SystemExit(f"cluster: {label_conf!r}: only the cluster-mode systems ({', '.join(CLUSTER_SYSTEMS)}) "
                         f"take spark.scheduler.eagle.* keys")
    return system, (partition if at else None), on_hosts


def base_system(label: str) -> str:
    """The system a label (``parse_system``) names, without partition, hosts or keys."""
    return split_conf(label)[0].partition("/")[0].partition("@")[0]


def run_dir_name(label: str) -> str:
    """The folder of a system's runs under ``runs/``: the label, ``/N`` written ``-on-N`` (and
    ``/N:M`` ``-on-N-M``), so that ``eagle-adaptive/4`` is neither inside ``eagle-adaptive``'s
    folder nor removed with it."""
    return label.replace("/", "-on-").replace(":", "-")


def hosts_of(on_hosts, app: str) -> int | None:
    """The hosts ``app`` takes executors on under ``parse_system``'s third field: ``N`` for
    every application, ``(N, M)``: N for the interactive ones, M for the batch ones; None for
    every host."""
    if isinstance(on_hosts, tuple):
        return on_hosts[0] if app.startswith("interactive") else on_hosts[1]
    return on_hosts


def executors_of(system: str, hosts: int, cores_max: int | None, on_hosts: int | None = None) -> int:
    return cores_max if system == "static" else (on_hosts or hosts)


def executor_hosts(run_dir: str) -> list:
    """The hosts an application's executors were on, from its event log (``events/``)."""
    hosts = set()
    for root, _, files in os.walk(os.path.join(run_dir, "events")):
        for name in files:
            try:
                with open(os.path.join(root, name), errors="replace") as f:
                    for line in f:
                        if '"SparkListenerExecutorAdded"' in line:
                            try:
                                hosts.add(json.loads(line)["Executor Info"]["Host"])
                            except (ValueError, KeyError, TypeError):
                                pass
            except OSError:
                pass
    return sorted(hosts)


# ---------------------------------------------------------------- orchestration

def one_system(args, label: str, plans_by_tag: dict, out_dir: str, slots: int) -> list:
    """Brings a testbed up for the system ``label`` names (``parse_system``), runs every plan with
    the four applications at once."""
    from . import harness, stats
    log = harness.log
    a = argparse.Namespace(**vars(args))
    system, partition, on_hosts = parse_system(label)
    partition = partition or getattr(args, "short_partition", None)
    cluster = system in CLUSTER_SYSTEMS
    a.cores = slots * len(APPS) if system != "static" else slots
    a.testbed_extra = (["--eagle-daemons", "--eagle-slots", str(slots), "--eagle-policy", system]
                       if cluster else [])
    if cluster and partition:
        a.testbed_extra += ["--eagle-short-partition", partition]
    if cluster and getattr(args, "long_headroom", None) is not None:
        a.testbed_extra += ["--eagle-long-headroom", str(args.long_headroom)]
    if system == "eagle-adaptive" and getattr(args, "steal_fraction", None) is not None:
        if not 0.0 <= args.steal_fraction <= 1.0:
            raise SystemExit(f"cluster: --steal-fraction must be in [0, 1], got {args.steal_fraction}")
        a.testbed_extra += ["--eagle-steal-fraction", str(args.steal_fraction)]
    a.worker_memory = f"{(len(APPS) if system != 'static' else slots) * 900}m"
    a.executor_memory = "512m"
    tbed = harness.Testbed(a)
    base = os.path.join(out_dir, "runs", run_dir_name(label))
    runs = []
    sampler = threads.Sampler() if threads.Sampler.available() else None
    try:
        tb = tbed.up()
        if sampler:
            sampler.start()
        log(f"{label}: testbed {tb['mode']}, {tb['hosts']} hosts, workers advertise {tb['cores']} cores"
            + (f", eagle-node {slots} slots, central {tb['eagle_central']}" if cluster else ""))
        hosts = int(tb["hosts"])
        # Static split: the cores of the first plan's shares (the plans of one trace differ little).
        cores = static_cores(next(iter(plans_by_tag.values()))["apps"], hosts * slots) if system == "static" else {}
        sequence = plan_sequence(plans_by_tag, warmups(args))
        shutil.rmtree(base, ignore_errors=True)
        os.makedirs(base)
        harness.wait_idle(args, harness.TESTBED_STATE)
        # One application per role replays every plan in turn; each plan starts at one time for all.
        results, workers = {}, []
        for app in APPS:
            run_dir = os.path.join(base, app)
            os.makedirs(run_dir)
            plans, span = [], 0.0
            for tag, split in sequence:
                path = os.path.join(run_dir, f"plan-{tag}.json")
                with open(path, "w") as f:
                    json.dump(split["apps"][app], f)
                jobs = split["apps"][app]["jobs"]
                span += jobs[-1]["arrival_s"] if jobs else 0.0
                plans.append({"tag": tag, "path": path, "ready": os.path.join(base, f"{tag}.{app}.ready"),
                              "go": os.path.join(base, f"{tag}.go")})
            if on_hosts and workers:
                # One after another, so the master spreads them (see the module's doc).
                _wait_ready(os.path.join(base, f"{sequence[0][0]}.{APPS[len(workers) - 1]}.ready"),
                            lambda: APPS[len(workers) - 1] in results)
            cfg = {"workload": "cluster", "scheduler": label, "system": system, "app": app, "testbed": tb,
                   "plans": plans, "executors": executors_of(system, hosts, cores.get(app), hosts_of(on_hosts, app)),
                   "spark_conf": app_conf(system, tb, run_dir, app, slots, cores.get(app),
                                          eagle=eagle_keys(args, label), on_hosts=hosts_of(on_hosts, app))}
            th = threading.Thread(target=lambda r=run_dir, c=cfg, s=span: results.__setitem__(
                c["app"], harness.run_driver(r, c, timeout=s * 8 + 600 + 300 * len(plans))), daemon=True)
            th.start()
            workers.append(th)
        for tag, _ in sequence:
            # Every application ready for this plan (or finished: a failed one must not hang the run).
            t_wait = time.time()
            while not all(os.path.exists(os.path.join(base, f"{tag}.{x}.ready")) or x in results for x in APPS):
                if time.time() - t_wait > 900:
                    break
                time.sleep(0.2)
            # Written whole, then renamed: a driver polling for the file never reads it empty.
            go = os.path.join(base, f"{tag}.go")
            if sampler:
                sampler.mark(tag)
            with open(go + ".tmp", "w") as f:
                f.write(str(time.time() + 2.0))
            os.replace(go + ".tmp", go)
            log(f"  {label} {tag}: {len(APPS)} applications ready after {time.time() - t_wait:.0f}s; replaying"
                + (" (unmeasured)" if tag not in plans_by_tag else ""))
        for th in workers:
            th.join()
        if sampler:
            sampler.mark(END)
        summaries = {app: _summary(os.path.join(base, app)) for app in APPS}
        placed = {app: executor_hosts(os.path.join(base, app)) for app in APPS}
        log(f"  {label}: executors on " + "; ".join(f"{a} {','.join(h)}" for a, h in placed.items()))
        counters = {app: (sm or {}).get("cluster") for app, sm in summaries.items()}
        go_ms = plan_starts(base, [t for t, _ in sequence])
        fell_back = fallbacks(system, summaries)
        for tag, split in plans_by_tag.items():
            jobs, ok, errors = [], not fell_back, list(fell_back)
            for app in APPS:
                res = results.get(app) or {"ok": False, "error": "no result"}
                rr = {r.get("tag"): r for r in res.get("replays") or []}.get(tag) or {}
                ok &= bool(res.get("ok") and rr.get("correct"))
                if res.get("error"):
                    errors.append(f"{app}: {str(res['error']).splitlines()[0][:300]}")
                jobs += [dict(j, app=app) for j in rr.get("jobs") or [] if j]
            short = [j["latency"] for j in jobs if j["class"] == "short"]
            long_ = [j["latency"] for j in jobs if j["class"] == "long"]
            meta = split["meta"]
            runs.append({"system": label, "scheduler": label, "ratio": meta["ratio"], "seed": meta["seed"],
                         "short": stats.summary(short), "long": stats.summary(long_),
                         "correct": ok and len(jobs) == meta["n_jobs"], "errors": errors,
                         "jobs": len(jobs), "load": meta.get("nominal_load"),
                         "static_cores": cores or None, "executor_hosts": placed,
                         "cluster": {app: plan_counters(results.get(app) or {}, tag) for app in APPS},
                         "cluster_run": counters,
                         "short_partition": tb.get("eagle_short_partition") if cluster else None,
                         "anatomy": anatomy(base, go_ms, tag),
                         "threads": thread_cpu(sampler, base, [t for t, _ in sequence], tag),
                         "machine": machine_cpu(sampler, [t for t, _ in sequence], tag),
                         "latencies": {"short": [round(x, 4) for x in short], "long": [round(x, 4) for x in long_]}})
            r = runs[-1]
            log(f"  {label} {tag}: short p50/p90/p99 = {_fmt(r['short'])} | long p50 = "
                f"{(r['long'].get('p50') or 0):.2f}" + ("" if r["correct"] else f" | FAILED: {errors}"))
            if r["threads"]:
                log(f"  {label} {tag}: executor CPU-s (JIT part; task threads' s waiting for a core per CPU-s) "
                    + "; ".join(f"{app} {fmt_threads(x.get('executor'))}" for app, x in r["threads"].items()))
            if r["machine"]:
                log(f"  {label} {tag}: {fmt_machine(r['machine'])}")
    finally:
        if sampler:
            sampler.stop()
        tbed.down()
        keep_testbed_logs(tbed.state, base)
    return runs


def plan_counters(result: dict, tag: str) -> dict | None:
    """One application's cluster counters over plan ``tag``, from its driver's result
    (``run_cluster``: the reading at the start and after each plan): each running total less
    its reading after the plan before (or at the start), and the levels of ``CLUSTER_GAUGES``
    as read after the plan. {} for an application not under cluster mode; None when a reading
    is missing (the plan did not run, or the counters could not be read)."""
    prev = result.get("counters_at_start")
    for r in result.get("replays") or []:
        cur = r.get("counters")
        if r.get("tag") == tag:
            if cur is None or prev is None:
                return None
            out = {}
            for k, v in cur.items():
                if k.startswith("cluster."):
                    name = k[len("cluster."):]
                    out[name] = v if name in CLUSTER_GAUGES else v - prev.get(k, 0)
            return out
        prev = cur
    return None


def keep_testbed_logs(state: str, base: str) -> None:
    """Copies the testbed's logs (``state``/logs: the master's, the workers', and in cluster
    mode every eagle-node's and eagle-central's) into the system's run folder ``base``, as
    ``testbed-logs/``: the next system's testbed writes over them, so without the copy only the
    last system's daemon logs outlived a run. Nothing to copy, nothing done. It runs in
    ``one_system``'s ``finally``, so a copy that fails (a full disk, a folder in the way) is
    logged, not raised: it must not replace the run's own error or its results."""
    from .harness import log
    src = os.path.join(state, "logs")
    if not os.path.isdir(src):
        return
    dst = os.path.join(base, "testbed-logs")
    try:
        shutil.rmtree(dst, ignore_errors=True)
        os.makedirs(base, exist_ok=True)
        shutil.copytree(src, dst)
    except OSError as e:
        log(f"testbed logs not kept in {dst}: {e}")


END = "end"


def thread_cpu(sampler, base: str, tags: list, tag: str) -> dict:
    """Each application's JVM threads' CPU and run-queue wait over plan ``tag`` (``bench.threads``),
    from its start to the next plan's (or the end of the last); {} without a sampler."""
    if sampler is None or tag not in tags:
        return {}
    try:
        return _thread_cpu(sampler, base, tags, tag)
    except Exception as e:  # a measurement aid: never the reason a run's results are lost
        from .harness import log
        log(f"  threads: {tag}: {e!r}")
        return {}


def _plan_end(tags: list, tag: str) -> str:
    """The mark that ends plan ``tag``'s window: the next plan's start, or ``END``."""
    i = tags.index(tag)
    return tags[i + 1] if i + 1 < len(tags) else END


def _thread_cpu(sampler, base: str, tags: list, tag: str) -> dict:
    end = _plan_end(tags, tag)
    ids = {app: threads.app_ids(os.path.join(base, app, "events")) for app in APPS}

    def app_of(who):
        role, key = who
        if role == "executor":
            return next((app for app, s in ids.items() if key in s), None)
        return os.path.basename(key) if os.path.dirname(key) == base else None
    return sampler.window(tag, end, app_of)


def machine_cpu(sampler, tags: list, tag: str) -> dict:
    """The whole machine's CPU over plan ``tag``, windowed as :func:`thread_cpu` is
    (``bench.threads.Sampler.machine``); {} without a sampler or a reading."""
    if sampler is None or tag not in tags:
        return {}
    return sampler.machine(tag, _plan_end(tags, tag))


def fmt_machine(m: dict) -> str:
    """``machine CPU-s used / capacity (busy %): group CPU-s, ...``, the groups that used any."""
    busy = f"{100 * m['busy']:.0f} %" if m.get("busy") is not None else "-"
    groups = ", ".join(f"{g} {v:.1f}" for g, v in sorted(m["by"].items(), key=lambda x: -x[1]) if v >= 0.05)
    return (f"machine CPU-s {m['used_cpu_s']:.1f} used of {m['capacity_cpu_s']:.1f} "
            f"({m['cpus']} CPUs x {m['wall_s']:.1f} s; busy {busy}): {groups}")


def fmt_threads(fig: dict | None) -> str:
    """``CPU-s (JIT CPU-s; task threads' wait per CPU-s) on JVMs`` of one application's executors."""
    if not fig:
        return "-"
    task = fig["by"]["task"]
    per = task["wait_s"] / task["cpu_s"] if task["cpu_s"] else 0.0
    return f"{fig['cpu_s']:.1f} ({fig['by']['jit']['cpu_s']:.1f} JIT; {per:.1f}) on {fig['jvms']}"


def plan_starts(base: str, tags: list) -> dict:
    """When each plan started replaying (its ``TAG.go`` file's time), in epoch ms."""
    out = {}
    for tag in tags:
        try:
            with open(os.path.join(base, f"{tag}.go")) as f:
                out[tag] = float(f.read()) * 1000
        except (OSError, ValueError):
            pass
    return out


def anatomy(base: str, go_ms: dict, tag: str) -> dict:
    """Each application's task anatomy (``eventlog.task_anatomy``) over plan ``tag``: the tasks
    launched from its start to the next plan's."""
    if tag not in go_ms:
        return {}
    since = go_ms[tag]
    until = min((t for t in go_ms.values() if t > since), default=float("inf"))
    out = {}
    for app in APPS:
        log_files = eventlog.find_log(os.path.join(base, app, "events"))
        if log_files:
            out[app] = eventlog.task_anatomy(log_files, since, until)
    return out


def _wait_ready(path: str, failed, limit_s: float = 900.0):
    """Until ``path`` exists, ``failed()`` holds, or ``limit_s`` passed."""
    t = time.time()
    while not os.path.exists(path) and not failed() and time.time() - t < limit_s:
        time.sleep(0.2)


def _summary(run_dir):
    try:
        with open(os.path.join(run_dir, "eagle-summary.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def fallbacks(system: str, summaries: dict) -> list:
    """The applications of a cluster-mode ``system`` whose plugin fell back to stock scheduling
    (its run summary's ``fallback``; e.g. a central that refused the driver), each naming why:
    their jobs ran, but not under the system measured, so the run is not counted."""
    if system not in CLUSTER_SYSTEMS:
        return []
    return [f"{app}: the plugin fell back to stock scheduling: {sm.get('fallbackReason')}"
            for app, sm in summaries.items() if sm and sm.get("fallback")]


def _fmt(s):
    return "/".join(f"{(s.get(k) or 0):.2f}" for k in ("p50", "p90", "p99"))


def summarise(runs: list, ratios: list, systems: list) -> list:
    """Per ratio: each system's percentiles averaged over seeds (``schedulers``, as the replay's
    summary, so that bench/report.py draws both), and the targets (docs/benchmarks.md)."""
    from . import stats
    out = []
    for ratio in ratios:
        row = {"ratio": ratio, "schedulers": {}}
        for s in systems:
            rs = [r for r in runs if r["ratio"] == ratio and r["system"] == s and r["correct"]]
            row["schedulers"][s] = {"runs": len(rs),
                                 "short": {k: stats.mean_of([r["short"] for r in rs], k) for k in ("p50", "p90", "p99")},
                                 "long": {k: stats.mean_of([r["long"] for r in rs], k) for k in ("p50", "p90", "p99")}}
        sy = row["schedulers"]
        # The targets for the paper's Eagle ("criteria") and for eagle-adaptive, each under
        # the invocation's partition; "criteria_of" has them for every eagle system and variant.
        for system, key in (("eagle", "criteria"), ("eagle-adaptive", "criteria_adaptive")):
            if system in sy:
                row[key] = _criteria(sy[system], sy)
        row["criteria_of"] = {s: _criteria(sy[s], sy, hawk_of(s, sy)) for s in systems
                              if base_system(s) in ("eagle", "eagle-adaptive")}
        out.append(row)
    return out


def hawk_of(label: str, sy: dict) -> str:
    """The Hawk run an eagle ``label`` is held against: Hawk with executors on as many hosts
    (``hawk/N`` for ``.../N``) when it ran, else plain ``hawk``."""
    n = split_conf(label)[0].partition("/")[2]
    return f"hawk/{n}" if n and f"hawk/{n}" in sy else "hawk"


def _criteria(e: dict, sy: dict, hawk: str = "hawk") -> dict:
    from . import stats
    crit = {}
    if "static" in sy:
        crit["short_p99_vs_static"] = stats.ratio(e["short"]["p99"], sy["static"]["short"]["p99"])
        crit["long_p50_vs_static"] = stats.ratio(e["long"]["p50"], sy["static"]["long"]["p50"])
    if hawk in sy:
        crit["short_p99_vs_hawk"] = stats.ratio(e["short"]["p99"], sy[hawk]["short"]["p99"])
        crit["hawk"] = hawk
    lim = {"short_p99_vs_static": 0.5, "short_p99_vs_hawk": 0.7, "long_p50_vs_static": 1.10}
    crit["met"] = {f"{k} <= {v}": (None if crit.get(k) is None else crit[k] <= v) for k, v in lim.items()}
    return crit


# ---------------------------------------------------------------- the paper check (simulator)

SIM_SYSTEMS = ("eagle", "hawk", "sparrow")
CENTRAL_SHORT_FRACTION = 0.1         # eagle-central's default --short-fraction (the testbed's)


def plan_trace(plan: dict) -> str:
    """The plan as an eagle-sim trace (seconds): ``arrival ntasks mean d1 .. dn`` per job."""
    lines = []
    for j in plan["jobs"]:
        d = " ".join(f"{x / 1000.0:g}" for x in j["durations_ms"])
        lines.append(f"{j['arrival_s']:.6f} {len(j['durations_ms'])} {j['estimate_ms'] / 1000.0:g} {d}")
    return "\n".join(lines) + "\n"


def short_only_hosts(hosts: int, fraction: float = CENTRAL_SHORT_FRACTION) -> int:
    """eagle-core partition::short_only_count: the central's short-only hosts."""
    if hosts < 2 or fraction <= 0:
        return 0
    return min(max(1, round(fraction * hosts)), hosts - 1)


def build_simulator(root: str, run=None) -> bool:
    """``cargo build --release -p eagle-sim`` in ``root``; False (and the reason logged) when it
    fails or cargo is missing."""
    import subprocess
    from .harness import log
    run = run or subprocess.run
    log("building eagle-sim for the paper check (cargo build --release -p eagle-sim)")
    try:
        r = run(["cargo", "build", "--release", "-q", "-p", "eagle-sim"], cwd=root,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    except OSError as e:
        log(f"paper check skipped: cannot run cargo ({e})")
        return False
    if r.returncode != 0:
        log(f"paper check skipped: eagle-sim did not build (exit {r.returncode}): {r.stderr[-800:]}")
        return False
    return True


def simulate(plans_by_tag: dict, hosts: int, slots: int, cutoff_s: float, out_dir: str) -> list | None:
    """The same plans through eagle-sim (one central and distributed schedulers, as the
    prototype; no JVM, no network): eagle, hawk and sparrow on ``hosts`` nodes of ``slots``
    slots, with the testbed's short partition. eagle-sim is built first (``cargo build
    --release``, a no-op when current), as the testbed builds the daemons, so the check runs on
    the working tree's engine; None, with the reason logged, when that build fails."""
    import subprocess
    from .harness import ROOT
    sim = os.path.join(ROOT, "target", "release", "eagle-sim")
    if not build_simulator(ROOT):
        return None
    big = 100.0 * (hosts - short_only_hosts(hosts)) / hosts
    out = []
    for tag, split in plans_by_tag.items():
        path = os.path.join(out_dir, f"sim-{tag}.tr")
        with open(path, "w") as f:
            f.write(plan_trace(split["plan"]))
        meta = split["meta"]
        for system in SIM_SYSTEMS:
            # The plan's classes use the trace cutoff on the job mean, in ms: seconds here.
            cmd = [sim, "run", "--trace", path, "--system", system, "--nodes", str(hosts), "--slots", str(slots),
                   "--cutoff", f"{cutoff_s / 1000.0:g}", "--small-partition", "100", "--big-partition", f"{big:g}",
                   "--seed", str(meta["seed"]), "--json"]
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if r.returncode != 0:
                out.append({"system": system, "ratio": meta["ratio"], "seed": meta["seed"], "error": r.stderr[-500:]})
                continue
            rep = json.loads(r.stdout)
            out.append({"system": system, "ratio": meta["ratio"], "seed": meta["seed"],
                        "short": rep["short"], "long": rep["long"]})
    return out


def paper_check(sim_runs: list | None, summary: list) -> list:
    """Eagle/Hawk on the testbed next to the simulator's, per ratio (short p50/p90/p99, long p50)."""
    from . import stats
    rows = []
    for row in summary:
        ratio, sy = row["ratio"], row["schedulers"]
        test = {}
        if "eagle" in sy and "hawk" in sy:
            test = {f"short_{k}": stats.ratio(sy["eagle"]["short"][k], sy["hawk"]["short"][k]) for k in ("p50", "p90", "p99")}
            test["long_p50"] = stats.ratio(sy["eagle"]["long"]["p50"], sy["hawk"]["long"]["p50"])
        sim = {}
        if sim_runs:
            def mean(system, cls, k):
                return stats.mean_of([r[cls] for r in sim_runs if r["system"] == system and r["ratio"] == ratio
                                      and cls in r], k)
            sim = {f"short_{k}": stats.ratio(mean("eagle", "short", k), mean("hawk", "short", k)) for k in ("p50", "p90", "p99")}
            sim["long_p50"] = stats.ratio(mean("eagle", "long", "p50"), mean("hawk", "long", "p50"))
        rows.append({"ratio": ratio, "eagle_vs_hawk_testbed": test, "eagle_vs_hawk_simulator": sim})
    return rows


def paper_check_line(row: dict) -> str:
    """The log line of one ratio's paper check: paper Eagle over Hawk on the testbed and in the
    simulator, each as ratios of short p50/p90/p99 and long p50, or why a side is missing."""
    def side(x, missing):
        if not x:
            return missing
        return (f"short p50/p90/p99 {x.get('short_p50') or 0:.2f}/{x.get('short_p90') or 0:.2f}/"
                f"{x.get('short_p99') or 0:.2f}x, long p50 {x.get('long_p50') or 0:.2f}x")
    return (f"ratio {row['ratio']:g} paper check, eagle/hawk: testbed "
            f"{side(row['eagle_vs_hawk_testbed'], 'not run (--systems needs eagle and hawk)')}; simulator "
            f"{side(row['eagle_vs_hawk_simulator'], 'not run (see above)')}")


def main(args) -> int:
    from . import harness, trace
    from .harness import resolve_trace
    log = harness.log
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    for s in systems:
        parse_system(s, args.workers)
    if len(set(systems)) != len(systems):
        raise SystemExit(f"cluster: a system is named twice in --systems {args.systems!r}")
    out_dir = os.path.join(args.out, "cluster")
    os.makedirs(out_dir, exist_ok=True)
    slots = args.cores
    path, cutoff = resolve_trace(args, out_dir, args.workers * slots)
    tjobs = trace.load_trace(path)
    plans = {}
    for ratio in args.ratios:
        for seed in args.seeds:
            plan = trace.build_workload(tjobs, slots=args.workers * slots, ratio=ratio, n_jobs=args.jobs,
                                        seed=seed, cutoff_s=cutoff)
            tag = f"r{ratio:g}-s{seed}"
            apps = split_plan(plan)
            plans[tag] = {"apps": apps, "meta": plan["meta"], "plan": plan}
            log(f"{tag}: " + ", ".join(f"{a} {len(p['jobs'])} jobs ({work_s(p):.0f} task-s)" for a, p in apps.items()))

    harness.on_signals()   # one_system's finally takes its testbed down
    harness.wait_idle(args)
    runs = []
    for system in systems:
        runs += one_system(args, system, plans, out_dir, slots)
    summary = summarise(runs, args.ratios, systems)
    sim_runs = simulate(plans, args.workers, slots, cutoff, out_dir)
    results = {"scenario": "cluster", "trace": os.path.basename(path), "cutoff_s": cutoff,
               "testbed": {"hosts": args.workers, "slots": args.workers * slots, "slots_per_host": slots,
                           "mode": "netns", "applications": list(APPS),
                           "network": args.network, "host_cpu": getattr(args, "host_cpu", "shared"),
                           "short_only_hosts": short_only_hosts(args.workers)},
               "warmup": warmups(args),
               "runs": runs, "summary": summary, "simulator": sim_runs,
               "paper_check": paper_check(sim_runs, summary)}
    harness.write_results(args.out, results)
    for row in results["summary"]:
        for s, x in row["schedulers"].items():
            log(f"ratio {row['ratio']:g} {s}: short p50/p90/p99 {_fmt(x['short'])}, long p50 "
                f"{(x['long']['p50'] or 0):.2f}")
        for system, crit in (row.get("criteria_of") or {}).items():
            log(f"ratio {row['ratio']:g} {system}: {crit}")
    for row in results["paper_check"]:
        log(paper_check_line(row))
    return 0 if all(r["correct"] for r in runs) else 1
