"""One scripts/bench at a time: a second bench must not bring up its testbed over a running
one's (the namespaces have fixed names). bench.harness.hold_machine takes a machine-wide lock
for the life of the process; a second bench waits for it, or fails naming the holder."""
import fcntl
import os
import signal
import subprocess
import sys
import types

import pytest

from bench import harness

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HOLDER = """
import sys, types
from bench import harness
harness.hold_machine(types.SimpleNamespace(no_wait_idle=True, max_idle_wait=0), sys.argv[1])
print("held", flush=True)
sys.stdin.read()
"""


def opts(no_wait=False, max_wait=0.0):
    return types.SimpleNamespace(no_wait_idle=no_wait, max_idle_wait=max_wait)


@pytest.fixture
def holder(tmp_path):
    """Another bench process holding the lock at tmp_path/lock until its stdin closes."""
    path = str(tmp_path / "lock")
    p = subprocess.Popen([sys.executable, "-c", HOLDER, path, "replay", "--quick"], cwd=ROOT,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "held"
    yield path, p
    p.kill()
    p.wait()


def test_a_second_bench_fails_at_once_with_no_wait_idle_naming_the_holder(holder):
    path, p = holder
    with pytest.raises(SystemExit) as e:
        harness.hold_machine(opts(no_wait=True), path)
    msg = str(e.value)
    assert f"another scripts/bench holds {path} (pid {p.pid}," in msg, msg
    assert "replay --quick" in msg and "cannot share this machine's testbed" in msg, msg


def test_a_second_bench_waits_for_the_first_and_gives_up_after_max_idle_wait(holder, capsys):
    path, p = holder
    with pytest.raises(SystemExit) as e:
        harness.hold_machine(opts(max_wait=0.3), path, poll=0.05)
    assert f"pid {p.pid}" in str(e.value)
    assert f"waiting: another scripts/bench holds {path}" in capsys.readouterr().out


def test_the_lock_is_free_when_its_holder_ends_however_it_ends(holder):
    path, p = holder
    p.kill()
    p.wait()
    f = harness.hold_machine(opts(no_wait=True), path)
    try:
        with open(path) as g:
            assert g.read().startswith(f"pid {os.getpid()}, since ")
        # Held now: another process is refused.
        r = subprocess.run([sys.executable, "-c", HOLDER, path], cwd=ROOT, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
        assert r.returncode != 0 and f"pid {os.getpid()}" in r.stderr, r.stderr
    finally:
        harness._HELD.remove(f)
        f.close()


def test_the_lock_file_is_writable_by_every_user_and_an_unusable_one_is_named(tmp_path):
    path = str(tmp_path / "lock")
    f = harness.hold_machine(opts(no_wait=True), path)
    harness._HELD.remove(f)
    f.close()
    assert os.stat(path).st_mode & 0o777 == 0o666, oct(os.stat(path).st_mode)
    bad = str(tmp_path / "no-such-dir" / "lock")
    with pytest.raises(SystemExit) as e:
        harness.hold_machine(opts(no_wait=True), bad)
    assert f"cannot open the bench lock {bad}" in str(e.value) and "EAGLE_BENCH_LOCK" in str(e.value)


# scripts/testbed.sh run by hand must not tear down a running bench's testbed (prefix eb). `run`
# with no command is used throughout: past the guard it stops at once ("give a command"), so
# the test never touches a real testbed.
TESTBED = os.path.join(ROOT, "scripts", "testbed.sh")


def run_testbed(lock, *extra, add=None):
    env = {k: v for k, v in os.environ.items() if k != "EAGLE_BENCH_LOCK_FD"}
    env.update({"EAGLE_BENCH_LOCK": lock, **(add or {})})
    return subprocess.run(["bash", TESTBED, "run", *extra], env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=60)


def test_testbed_by_hand_stops_while_a_bench_holds_the_lock_naming_it(holder):
    path, p = holder
    r = run_testbed(path)
    assert r.returncode == 1, r.stderr
    assert f"a scripts/bench holds {path} (pid {p.pid}," in r.stderr and "replay --quick" in r.stderr, r.stderr
    assert "would tear its testbed (prefix eb) down mid-run" in r.stderr, r.stderr
    # Another prefix is another testbed: not guarded.
    r = run_testbed(path, "--prefix", "ebx", "--subnet", "79")
    assert r.returncode == 2 and "give a command after --" in r.stderr, r.stderr
    # Once the bench has ended, the same call goes on.
    p.kill()
    p.wait()
    r = run_testbed(path)
    assert r.returncode == 2 and "give a command after --" in r.stderr, r.stderr


def test_the_benchs_own_testbed_calls_pass_its_lock(tmp_path):
    path = str(tmp_path / "lock")
    f = harness.hold_machine(opts(no_wait=True), path)
    try:
        kw = harness.lock_passing()
        assert kw["env"]["EAGLE_BENCH_LOCK_FD"] == str(f.fileno()) and kw["pass_fds"] == (f.fileno(),)
        r = subprocess.run(["bash", TESTBED, "run"], env={**kw["env"], "EAGLE_BENCH_LOCK": path},
                           pass_fds=kw["pass_fds"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=60)
        assert r.returncode == 2 and "give a command after --" in r.stderr, r.stderr
        # A marker without the lock's file behind it does not pass.
        r = run_testbed(path, add={"EAGLE_BENCH_LOCK_FD": "9"})
        assert r.returncode == 1 and "a scripts/bench holds" in r.stderr, r.stderr
    finally:
        harness._HELD.remove(f)
        f.close()
    assert harness.lock_passing() == {}


STUCK = """
import sys, threading, time, types
from bench import harness
harness.hold_machine(types.SimpleNamespace(no_wait_idle=True, max_idle_wait=0), sys.argv[1])
harness.on_signals(lambda: print("torn down", flush=True))
# A thread the interpreter waits for at exit (as a SQL client's gRPC threads were).
threading.Thread(target=time.sleep, args=(120,)).start()
print("held", flush=True)
time.sleep(120)
"""


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_a_signal_ends_the_bench_and_frees_the_machine_whatever_threads_remain(tmp_path, sig):
    # Interrupted during the server scenario, the bench tore its testbed down and then hung
    # at exit on its clients' threads, holding the lock: every later bench waited for it.
    path = str(tmp_path / "lock")
    p = subprocess.Popen([sys.executable, "-c", STUCK, path], cwd=ROOT,
                         stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "held"
        p.send_signal(getattr(signal, sig))
        assert p.wait(timeout=30) == 128 + getattr(signal, sig)
        assert p.stdout.read().splitlines()[-1] == "torn down"
    finally:
        p.kill()
        p.wait()
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)   # free again: taken at once
