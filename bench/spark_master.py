"""``python -m bench.spark_master URL``: how many workers a standalone Spark master lists as
ALIVE in its JSON status (``http://HOST:UI_PORT/json/``); ``scripts/testbed.sh`` polls it
until every worker has registered.

Prints 0, never fails, when the master does not answer within 2 s (it is still starting) or
answers with something other than its status.
"""
from __future__ import annotations

import json
import sys
import urllib.request


def alive_workers(status: dict) -> int:
    return sum(1 for w in status.get("workers", []) if w.get("state") == "ALIVE")


def fetch_alive(url: str, timeout: float = 2) -> int:
    try:
        return alive_workers(json.load(urllib.request.urlopen(url, timeout=timeout)))
    except Exception:
        return 0


if __name__ == "__main__":
    print(fetch_alive(sys.argv[1]))
