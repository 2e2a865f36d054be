"""One Spark Connect session, through pyspark's own client, running SQL statements in order.

    python tests/sql_client.py sc://HOST:PORT [--user NAME] STATEMENT...

Prints one JSON line per statement: {"rows": [[...], ...], "seconds": S}. Used by
tests/sql_servers.py: one process a session, as separate users' notebooks would be.
"""
import argparse
import json
import time

from pyspark.sql import SparkSession


def main():
    p = argparse.ArgumentParser()
    p.add_argument("url")
    p.add_argument("--user", default=None)
    p.add_argument("statements", nargs="+")
    a = p.parse_args()
    url = a.url + (f"/;user_id={a.user}" if a.user else "")
    s = SparkSession.builder.remote(url).create()
    try:
        for sql in a.statements:
            t0 = time.time()
            rows = s.sql(sql).collect()
            print(json.dumps({"rows": [list(r) for r in rows], "seconds": time.time() - t0}), flush=True)
    finally:
        s.stop()


if __name__ == "__main__":
    main()
