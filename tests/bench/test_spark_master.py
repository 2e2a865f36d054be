import http.server
import threading

import pytest

from bench import spark_master


def test_alive_workers_counts_the_alive_ones():
    assert spark_master.alive_workers({"workers": [{"state": "ALIVE"}, {"state": "DEAD"}, {}, {"state": "ALIVE"}]}) == 2
    assert spark_master.alive_workers({"status": "ALIVE"}) == 0


@pytest.fixture
def master():
    bodies = {"/json/": b'{"workers": [{"state": "ALIVE"}, {"state": "ALIVE"}, {"state": "LOST"}]}',
              "/list/": b"[1, 2]", "/html/": b"<html>"}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = bodies.get(self.path)
            self.send_response(200 if body else 404)
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, *a):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()


def test_fetch_alive_is_zero_for_anything_but_a_status(master):
    assert spark_master.fetch_alive(master + "/json/") == 2
    for path in ("/list/", "/html/", "/missing/"):
        assert spark_master.fetch_alive(master + path) == 0
    assert spark_master.fetch_alive("http://127.0.0.1:1/json/") == 0     # nothing listens
