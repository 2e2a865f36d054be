"""Spark's shared SQL servers under the plugin, for the tests, and their real clients.

A server is started with spark-submit in the foreground on a `spark-eagle:` master, with the
plugin jar on the driver class path: the Spark Connect server (`SparkConnectServer`) or the
Thrift JDBC/ODBC server (`HiveThriftServer2`, its Derby metastore in the server's own
directory). Each binds port 0 and the test reads the port it got from its log, so no other
process can take a port picked beforehand. On exit the server gets SIGTERM (Spark's shutdown
hook stops the SparkContext, and the plugin writes its summary), SIGKILL after 60 s.

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
import time

from conftest import JAR

SPARK_HOME = os.environ["SPARK_HOME"]
HERE = os.path.dirname(os.path.abspath(__file__))

#: kind -> (main class, its arguments, the log line that names the bound port)
KINDS = {
    "connect": ("org.apache.spark.sql.connect.service.SparkConnectServer",
                ["--conf", "spark.connect.grpc.binding.port=0"],
                re.compile(r"Spark Connect server started at: \S*:(\d+)")),
    "thrift": ("org.apache.spark.sql.hive.thriftserver.HiveThriftServer2",
               ["--hiveconf", "hive.server2.thrift.port=0", "--hiveconf", "hive.server2.thrift.bind.host=127.0.0.1",
                "spark-internal"],
               re.compile(r"Starting ThriftBinaryCLIService on port (\d+)")),
}


class Server:
    def __init__(self, kind, port, log):
        self.kind, self.port, self.log = kind, port, log
        #: the plugin's summary, once the server has stopped
        self.summary = None

    @property
    def url(self):
        return f"sc://127.0.0.1:{self.port}" if self.kind == "connect" else f"jdbc:hive2://127.0.0.1:{self.port}/default"


def _wait_for_port(proc, log, pattern, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"the server exited ({proc.returncode}) before listening; its log {log}:\n"
                                 + open(log).read()[-3000:])
        m = pattern.search(open(log, errors="replace").read())
        if m and int(m.group(1)) > 0:
            return int(m.group(1))
        time.sleep(0.5)
    raise AssertionError(f"the server did not listen within {timeout} s; its log {log}")


@contextlib.contextmanager
def server(kind, master, workdir, conf=None, timeout=180):
    """Runs a `kind` server ("connect" or "thrift") on `master`; yields a :class:`Server`."""
    cls, extra, pattern = KINDS[kind]
    os.makedirs(workdir, exist_ok=True)
    summary_path = os.path.join(workdir, "summary.json")
    conf = {"spark.ui.enabled": "false", "spark.scheduler.eagle.summary.path": summary_path,
            "spark.sql.shuffle.partitions": "4", **(conf or {})}
    args = [os.path.join(SPARK_HOME, "bin", "spark-submit"), "--class", cls, "--master", master,
            "--jars", JAR, "--driver-class-path", JAR, "--driver-memory", "1g"]
    for k, v in conf.items():
        args += ["--conf", f"{k}={v}"]
    log = os.path.join(workdir, "server.log")
    with open(log, "w") as out:
        proc = subprocess.Popen(args + extra, cwd=workdir, stdout=out, stderr=subprocess.STDOUT,
                                env={**os.environ, "PYSPARK_PYTHON": sys.executable})
    try:
        srv = Server(kind, _wait_for_port(proc, log, pattern, timeout), log)
        yield srv
    finally:
        proc.terminate()
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if os.path.exists(summary_path):
        with open(summary_path) as f:
            srv.summary = json.load(f)


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
