#!/usr/bin/env python3
"""The cloud-engine section of scripts/bench (`scripts/bench --engine`):
what hooks cost a create through `cql serve --engine`.

The engine is LeanCloud's Python `leancloud.Engine` (PyPI `leancloud`
3.0.2, the virtualenv scripts/setup makes) served by `wsgiref`, one thread
a request (Tests/Clients/leancloud_engine_app.py), beside a release
`cql serve` over a fresh SQLite file. C client threads (kept-alive
connections, Python's http.client) create objects for D seconds in each of
three classes of the same shape (after the same creates on a server
without --engine, the baseline): Plain (no hook), Bench (a no-op
beforeSave) and BenchBoth (no-op beforeSave and afterSave); then the same
threads call the engine's beforeSave of Bench directly (the engine's own
floor: what one hook round trip costs with no server in between).

Usage: engine_bench.py CQL PYTHON [--seconds D] [--connections C]
Prints the rows (markdown) for BENCHMARKS.md.
"""
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

cql, python = sys.argv[1], sys.argv[2]
args = sys.argv[3:]


def option(name, default):
    return type(default)(args[args.index(name) + 1]) if name in args else default


seconds = option("--seconds", 10.0)
connections = option("--connections", 8)
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
keys = {"CQL_APP_ID": "bench", "CQL_APP_KEY": "benchkey", "CQL_MASTER_KEY": "benchmaster", "CQL_HOOK_KEY": "benchhook"}
app_headers = {"X-LC-Id": "bench", "X-LC-Key": "benchkey", "Content-Type": "application/json"}


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_for(port, path, headers, failure):
    """Asks `path` every 0.1 s until it answers 200 (at most 30 s); else ends the run with `failure`."""
    for _ in range(300):
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", path, headers=headers)
            if conn.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise SystemExit(failure)


def load(port, path, headers, body, keep_alive):
    """C threads posting for `seconds`: requests per second and the median latency (ms)."""
    done, latencies, stop = [0], [], time.time() + seconds
    lock = threading.Lock()

    def worker(t):
        conn = http.client.HTTPConnection("127.0.0.1", port)
        mine, n = [], 0
        while time.time() < stop:
            start = time.perf_counter()
            payload = json.dumps(body(t, n))
            n += 1
            try:
                conn.request("POST", path, payload, headers)
                response = conn.getresponse()
                response.read()
                ok = response.status < 300
            except (http.client.HTTPException, OSError):
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port)
                continue
            if not keep_alive or response.getheader("Connection", "").lower() == "close":
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port)
            if ok:
                mine.append(time.perf_counter() - start)
        with lock:
            done[0] += len(mine)
            latencies.extend(mine)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(connections)]
    began = time.time()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    latencies.sort()
    return done[0] / (time.time() - began), 1000 * latencies[len(latencies) // 2] if latencies else 0


def main():
    tmp = tempfile.mkdtemp(prefix="cql-engine-bench-")
    server_port, engine_port = free_port(), free_port()
    env = {**os.environ, "LEANCLOUD_APP_ID": "bench", "LEANCLOUD_APP_KEY": "benchkey", "LEANCLOUD_APP_MASTER_KEY": "benchmaster",
           "LEANCLOUD_APP_HOOK_KEY": "benchhook", "LEANCLOUD_APP_PORT": str(engine_port),
           "LEANCLOUD_API_SERVER": f"http://127.0.0.1:{server_port}"}
    engine = subprocess.Popen([python, os.path.join(root, "Tests/Clients/leancloud_engine_app.py")], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    server = subprocess.Popen([cql, "serve", "--sqlite", os.path.join(tmp, "app.db"), "--port", str(server_port),
                               "--engine", f"http://127.0.0.1:{engine_port}"],
                              env={**os.environ, **keys}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(server_port, "/1.1/functions/_ops/metadatas", {"X-LC-Id": "bench", "X-LC-Key": "benchmaster,master"},
                 "the server did not discover the engine")
        rows = []
        # The baseline: the same binary and data without --engine (what a class without hooks must not lose).
        plain_port = free_port()
        plain = subprocess.Popen([cql, "serve", "--sqlite", os.path.join(tmp, "plain.db"), "--port", str(plain_port)],
                                 env={**os.environ, **keys}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_for(plain_port, "/1.1/date", {}, "the server without --engine did not start")
            rate, p50 = load(plain_port, "/1.1/classes/Plain", app_headers, lambda t, n: {"thread": t, "n": n, "title": "bench"}, True)
            rows.append(f"| cql serve without --engine, creates ({connections} connections, SQLite) | {rate:,.0f} creates/s, p50 {p50:.1f} ms | | | |")
        finally:
            plain.terminate()
            plain.wait()
        for label, cls in [("no hook", "Plain"), ("a no-op beforeSave", "Bench"), ("no-op beforeSave + afterSave", "BenchBoth")]:
            rate, p50 = load(server_port, f"/1.1/classes/{cls}", app_headers, lambda t, n: {"thread": t, "n": n, "title": "bench"}, True)
            rows.append(f"| cql serve --engine, creates, {label} ({connections} connections, SQLite) | {rate:,.0f} creates/s, p50 {p50:.1f} ms | | | |")
        hook_headers = {**app_headers, "X-LC-Hook-Key": "benchhook"}
        rate, p50 = load(engine_port, "/1.1/functions/Bench/beforeSave", hook_headers,
                         lambda t, n: {"object": {"thread": t, "n": n, "title": "bench"}}, False)
        rows.append(f"| the engine alone: its no-op beforeSave called directly (Python leancloud.Engine on wsgiref) | {rate:,.0f} calls/s, p50 {p50:.1f} ms | | | |")
        print("\n".join(rows))
    finally:
        server.terminate()
        engine.terminate()
        server.wait()
        engine.wait()


main()
