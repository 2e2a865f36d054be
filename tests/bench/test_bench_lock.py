"""One scripts/bench at a time: a second bench must not bring up its testbed over a running
one's (the namespaces have fixed names). bench.harness.hold_machine takes a machine-wide lock
for the life of the process; a second bench waits for it, or fails naming the holder."""
import os
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
