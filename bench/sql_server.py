"""Spark's shared SQL servers, started under any master, for the tests and the server bench.

A server is started with spark-submit in the foreground: the Spark Connect server
(``SparkConnectServer``) or the Thrift JDBC/ODBC server (``HiveThriftServer2``, its Derby
metastore in the server's own directory). Each binds port 0 and the caller reads the port it
got from the server's log, so no other process can take a port picked beforehand. On exit the
server gets SIGTERM (Spark's shutdown hook stops the SparkContext, and the plugin writes its
summary), SIGKILL after 60 s. Used by ``tests/sql_servers.py`` and :mod:`bench.server`.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import time

#: kind -> (main class, its arguments given the host to bind, the log line that names the port)
KINDS = {
    "connect": ("org.apache.spark.sql.connect.service.SparkConnectServer",
                lambda host: ["--conf", "spark.connect.grpc.binding.port=0"],
                re.compile(r"Spark Connect server started at: \S*:(\d+)")),
    "thrift": ("org.apache.spark.sql.hive.thriftserver.HiveThriftServer2",
               lambda host: ["--hiveconf", "hive.server2.thrift.port=0",
                             "--hiveconf", f"hive.server2.thrift.bind.host={host}", "spark-internal"],
               re.compile(r"Starting ThriftBinaryCLIService on port (\d+)")),
}


class Server:
    def __init__(self, kind: str, host: str, port: int, log: str):
        self.kind, self.host, self.port, self.log = kind, host, port, log
        #: the plugin's summary, once the server has stopped (when the conf asked for one)
        self.summary = None

    @property
    def url(self) -> str:
        if self.kind == "connect":
            return f"sc://{self.host}:{self.port}"
        return f"jdbc:hive2://{self.host}:{self.port}/default"


def _wait_for_port(proc, log, pattern, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited ({proc.returncode}) before listening; its log {log}:\n"
                               + open(log, errors="replace").read()[-3000:])
        m = pattern.search(open(log, errors="replace").read())
        if m and int(m.group(1)) > 0:
            return int(m.group(1))
        time.sleep(0.5)
    raise RuntimeError(f"the server did not listen within {timeout} s; its log {log}")


@contextlib.contextmanager
def server(kind: str, master: str, workdir: str, conf: dict, spark_home: str,
           host: str = "127.0.0.1", env: dict | None = None, timeout: float = 180):
    """Runs a ``kind`` server ("connect" or "thrift") on ``master`` with the SparkConf ``conf``
    (jars, driver memory and class path included: spark-submit applies them to the driver it
    launches); yields a :class:`Server`. Its summary is read from
    ``spark.scheduler.eagle.summary.path`` after the stop."""
    if kind not in KINDS:
        raise ValueError(f"server kind must be one of {sorted(KINDS)}, got {kind!r}")
    cls, extra, pattern = KINDS[kind]
    os.makedirs(workdir, exist_ok=True)
    args = [os.path.join(spark_home, "bin", "spark-submit"), "--class", cls, "--master", master]
    for k, v in conf.items():
        args += ["--conf", f"{k}={v}"]
    log = os.path.join(workdir, "server.log")
    with open(log, "w") as out:
        proc = subprocess.Popen(args + extra(host), cwd=workdir, stdout=out, stderr=subprocess.STDOUT,
                                env={**os.environ, "PYSPARK_PYTHON": sys.executable, **(env or {})},
                                start_new_session=True)
    srv = None
    try:
        srv = Server(kind, host, _wait_for_port(proc, log, pattern, timeout), log)
        yield srv
    finally:
        proc.terminate()
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    summary_path = conf.get("spark.scheduler.eagle.summary.path")
    if srv is not None and summary_path and os.path.exists(summary_path):
        with open(summary_path) as f:
            srv.summary = json.load(f)
