"""scripts/eagle-cluster.sh starts eagle-central with the short partition asked for: the
paper's `fixed` by default, under every node policy, and whatever `--short-partition` names;
and with the long headroom of its policy (0.1 under eagle-adaptive, none under the papers'),
or whatever `--long-headroom` names.
Real daemons (debug builds) on loopback; the central's own start-up line says which partition
it runs, so an operator can check it in the log.
"""
import os
import re
import subprocess

import pytest

from conftest import ROOT, daemon_bin_dir
from standalone import free_port

SCRIPT = os.path.join(ROOT, "scripts", "eagle-cluster.sh")


@pytest.fixture(scope="module")
def binaries():
    return daemon_bin_dir()


def _script(action, state, bin_dir, node_port, central_port, *extra):
    return subprocess.run(["bash", SCRIPT, action, "--hosts", f"127.0.0.1:{node_port}",
                           "--central", f"127.0.0.1:{central_port}", "--slots", "2", "--state", str(state),
                           "--bin", bin_dir, "--timeout", "30", *extra],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)


def _with_central_log(bin_dir, tmp_path, extra, check):
    """Starts the daemons with `extra`, hands the central's log to `check`, stops them; returns
    (state, node_port, central_port)."""
    state = tmp_path / "state"
    node_port, central_port = free_port(), free_port()
    started = _script("start", state, bin_dir, node_port, central_port, *extra)
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        check((state / "logs" / "central.log").read_text())
    finally:
        stopped = _script("stop", state, bin_dir, node_port, central_port, *extra)
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    return state, node_port, central_port


@pytest.mark.parametrize("extra, partition", [
    ((), "fixed"),                                                  # the default policy, eagle-adaptive
    (("--policy", "hawk"), "fixed"),
    (("--short-partition", "adaptive"), "adaptive"),
    (("--policy", "eagle", "--short-partition", "slots"), "slots"),
    (("--short-partition", "share"), "share"),
])
def test_the_central_runs_the_short_partition_it_is_given(binaries, tmp_path, extra, partition):
    def check(log):
        assert re.search(rf"--short-partition {partition}\b", log), log
        # The central's own account of what it runs, not only what it was given.
        said = re.findall(r"short partition (\w+) \(floor", log)
        assert said == [partition], log

    state, node_port, central_port = _with_central_log(binaries, tmp_path, extra, check)
    status = _script("status", state, binaries, node_port, central_port, *extra)
    assert status.returncode != 0 and "DOWN" in status.stdout, status.stdout


def test_a_bad_short_partition_is_refused_naming_the_flag(binaries, tmp_path):
    r = _script("start", tmp_path / "state", binaries, free_port(), free_port(), "--short-partition", "auto")
    assert r.returncode != 0
    assert "--short-partition must be fixed, adaptive, slots or share, got 'auto'" in r.stderr, r.stderr
    assert not (tmp_path / "state" / "logs" / "central.log").exists()


@pytest.mark.parametrize("extra, headroom", [
    ((), "0.1"),                                                    # the default policy, eagle-adaptive
    (("--policy", "eagle"), "0"),
    (("--policy", "hawk"), "0"),
    (("--policy", "hawk", "--long-headroom", "0.25"), "0.25"),
    (("--long-headroom", "0"), "0"),
])
def test_the_central_runs_the_long_headroom_of_its_policy(binaries, tmp_path, extra, headroom):
    def check(log):
        said = re.findall(r"long headroom ([0-9.]+)", log)
        assert [float(x) for x in said] == [float(headroom)], log

    _with_central_log(binaries, tmp_path, extra, check)


def test_a_bad_long_headroom_is_refused_naming_the_flag(binaries, tmp_path):
    r = _script("start", tmp_path / "state", binaries, free_port(), free_port(), "--long-headroom", "1.5")
    assert r.returncode != 0
    assert "--long-headroom must be a number in [0, 1), got '1.5'" in r.stderr, r.stderr
    assert not (tmp_path / "state" / "logs" / "central.log").exists()


def _node_args(state):
    """The command line of the one node the script started (its pid file)."""
    pids = [p for p in state.glob("*.pid") if p.stem != "central"]
    assert len(pids) == 1, pids
    with open("/proc/%s/cmdline" % pids[0].read_text().strip(), "rb") as f:
        return f.read().decode().split("\0")


@pytest.mark.parametrize("extra, steal", [((), None), (("--steal-fraction", "0"), "0")])
def test_eagle_adaptive_nodes_run_the_steal_fraction_they_are_given(binaries, tmp_path, extra, steal):
    seen = {}
    _with_central_log(binaries, tmp_path, extra, lambda _: seen.setdefault("args", _node_args(tmp_path / "state")))
    args = seen["args"]
    got = args[args.index("--steal-fraction") + 1] if "--steal-fraction" in args else None
    assert got == steal, args


@pytest.mark.parametrize("extra, message", [
    (("--steal-fraction", "2"), "--steal-fraction must be a number in [0, 1], got '2'"),
    (("--policy", "hawk", "--steal-fraction", "0.1"), "--steal-fraction applies to --policy eagle-adaptive only"),
])
def test_a_bad_steal_fraction_is_refused_naming_the_flag(binaries, tmp_path, extra, message):
    r = _script("start", tmp_path / "state", binaries, free_port(), free_port(), *extra)
    assert r.returncode != 0
    assert message in r.stderr, r.stderr
    assert not (tmp_path / "state" / "logs" / "central.log").exists()
