"""The server bench's real clients: one SQL session each, as one user's notebook or dashboard.

* ``connect``: pyspark's own Spark Connect client (``SparkSession.builder.remote(...).create()``,
  a new server-side session each; ``user_id`` names the user).
* ``thrift``: PyHive, a HiveServer2 Thrift client (the protocol behind Spark's JDBC/ODBC
  server and its JDBC driver, and what Python BI tools such as Superset use), authenticating
  with SASL PLAIN as the named user.

Both give :meth:`Session.run`: a statement's rows, with numbers as Python numbers (HiveServer2
sends DECIMAL as text), so that :mod:`bench.check` compares them with DuckDB's.
"""
from __future__ import annotations

import decimal
import re

_NUMBER = re.compile(r"-?\d+(\.\d+)?([eE][-+]?\d+)?")


class Session:
    """One client session of ``user`` on a server of ``kind`` at ``host:port``."""

    def __init__(self, kind: str, host: str, port: int, user: str):
        self.kind, self.user = kind, user
        if kind == "connect":
            from pyspark.sql import SparkSession
            self._spark = SparkSession.builder.remote(f"sc://{host}:{port}/;user_id={user}").create()
        elif kind == "thrift":
            from pyhive import hive
            self._conn = hive.connect(host=host, port=port, username=user, auth="NONE")
        else:
            raise ValueError(f"client kind must be connect or thrift, got {kind!r}")

    def run(self, sql: str) -> list:
        """Runs one statement; its rows (lists), decimals as floats."""
        if self.kind == "connect":
            rows = [list(r) for r in self._spark.sql(sql).collect()]
        else:
            cur = self._conn.cursor()
            try:
                cur.execute(sql)
                rows = [list(r) for r in cur.fetchall()] if cur.description else []
            finally:
                cur.close()
        return [[_number(v) for v in r] for r in rows]

    def close(self) -> None:
        try:
            if self.kind == "connect":
                self._spark.stop()
            else:
                self._conn.close()
        except Exception:   # the server may be gone already: nothing of the session remains to free
            pass


def _number(v):
    if isinstance(v, decimal.Decimal):
        return float(v)
    if isinstance(v, str) and _NUMBER.fullmatch(v):
        return float(v) if any(c in v for c in ".eE") else int(v)
    return v
