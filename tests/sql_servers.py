"""Spark's shared SQL servers under the plugin, for the tests, and their real clients.

A server runs on a `spark-eagle:` master with the plugin jar on the driver class path, started
and stopped by `bench/sql_server.py` (shared with `scripts/bench server`).

Clients: pyspark's Spark Connect client (`tests/sql_client.py`, one process a session) and
`bin/beeline` (one process a JDBC connection). Both run statements in order and return, per
statement, its rows and its seconds.
"""
import contextlib
import json
import os
import re
import subprocess
import sys

from bench import sql_server
from conftest import JAR

SPARK_HOME = os.environ["SPARK_HOME"]
HERE = os.path.dirname(os.path.abspath(__file__))


@contextlib.contextmanager
def server(kind, master, workdir, conf=None, timeout=180):
    """Runs a `kind` server ("connect" or "thrift") on `master` with the plugin jar; yields a
    :class:`bench.sql_server.Server` whose `summary` is the plugin's, once it has stopped."""
    conf = {"spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "4",
            "spark.scheduler.eagle.summary.path": os.path.join(workdir, "summary.json"),
            "spark.jars": JAR, "spark.driver.extraClassPath": JAR, "spark.driver.memory": "1g",
            **(conf or {})}
    with sql_server.server(kind, master, workdir, conf, SPARK_HOME, timeout=timeout) as srv:
        yield srv


def start_client(srv, user, statements):
    """Starts one session of `user` running `statements` in order: a Spark Connect client
    process, or a beeline process. :func:`client_results` collects what it ran."""
    if srv.kind == "connect":
        args = [sys.executable, os.path.join(HERE, "sql_client.py"), srv.url, "--user", user, *statements]
    else:
        # Non-silent: beeline reports each statement's "N row(s) selected (S seconds)".
        args = [os.path.join(SPARK_HOME, "bin", "beeline"), "-u", srv.url, "-n", user, "--outputformat=csv2",
                "--showHeader=false", "-e", ";\n".join(statements) + ";"]
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=os.path.dirname(srv.log))


_SELECTED = re.compile(r"(?:\d+|No) rows? selected \(([0-9.]+) seconds\)")


def client_results(srv, proc, statements, timeout=300):
    """[(rows as lists of strings, seconds)] of each statement a client ran, in order; fails
    naming the client's output when it did not run them all."""
    out, err = proc.communicate(timeout=timeout)
    if srv.kind == "connect":
        res = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        rows = [([[str(v) for v in r] for r in x["rows"]], x["seconds"]) for x in res]
    else:
        seconds = [float(s) for s in _SELECTED.findall(err)]
        lines = [ln for ln in out.splitlines() if ln.strip()]
        # One row per statement in these tests (aggregates): row i belongs to statement i.
        rows = [([ln.split(",")], s) for ln, s in zip(lines, seconds)]
    assert proc.returncode == 0 and len(rows) == len(statements), \
        f"{srv.kind} client: exit {proc.returncode}, {len(rows)} of {len(statements)} statements\n{out[-2000:]}\n{err[-3000:]}"
    return rows
