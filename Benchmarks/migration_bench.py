#!/usr/bin/env python3
"""The migration section of scripts/bench (`scripts/bench --migration`):
`cql pull` between two local servers and `cql files fetch` beside curl.

pull: N comments shaped like a Valine site's export (Chinese text, a
Pointer, a typed Date, an ACL) loaded into a source SQLite database and
served by `cql serve`; `cql pull` copies them into a fresh SQLite database
through /1.1/scan (1,000 a page) and is timed with /usr/bin/time: objects/s
and peak RSS. A second pull with nothing changed shows what a re-pull costs
(the delta scan, then the objectId scan that finds deletions).

files fetch: M small files (1-4 KB) served by a threaded Python HTTP server
(the same host for both tools, so both meet the same server); `_File` rows
with their size and MD5 loaded into SQLite; `cql files fetch --jobs J`
timed, then curl fetching the same URLs in J parallel processes of 100 URLs
each (`xargs -P J -n 100 curl --remote-name-all`: connection reuse within a
process, no verification), files/s.

Usage: migration_bench.py CQL [--objects N] [--files M] [--jobs J]
Prints the rows (markdown) for BENCHMARKS.md.
"""
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

cql = sys.argv[1]
args = sys.argv[2:]


def option(name, default):
    return type(default)(args[args.index(name) + 1]) if name in args else default


objects = option("--objects", 1_000_000)
files = option("--files", 10_000)
jobs = option("--jobs", 16)
keys = {"CQL_APP_ID": "bench", "CQL_APP_KEY": "benchkey", "CQL_MASTER_KEY": "benchmaster"}


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_port(port):
    for _ in range(600):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"nothing listens on {port}")


def timed(argv, **kw):
    """Runs argv under /usr/bin/time -v: (seconds, peak RSS in MB, stdout)."""
    start = time.time()
    p = subprocess.run(["/usr/bin/time", "-v"] + argv, capture_output=True, text=True, **kw)
    seconds = time.time() - start
    if p.returncode not in (0,):
        sys.stderr.write(p.stdout + p.stderr)
        raise SystemExit(f"{argv[0]} failed ({p.returncode})")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1)) / 1024
    return seconds, rss, p.stdout


def bench_pull(tmp):
    export = os.path.join(tmp, "export")
    os.makedirs(export)
    with open(os.path.join(export, "Comment.0.jsonl"), "w") as f:
        f.write("#filetype:JSON-streaming;version=1.0;class=Comment\n")
        for i in range(objects):
            f.write(json.dumps({
                "objectId": f"c{i:08d}", "comment": f"第{i}条评论：迁移基准 {i % 977}", "nick": f"访客{i % 5000}",
                "url": f"/posts/{i % 2000}/", "post": {"__type": "Pointer", "className": "Post", "objectId": f"p{i % 2000:05d}"},
                "insertedAt": {"__type": "Date", "iso": f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}T{i % 24:02d}:00:00.000Z"},
                "ACL": {"*": {"read": True}}, "createdAt": "2024-01-01T00:00:00.000Z", "updatedAt": "2024-01-01T00:00:00.000Z",
            }, ensure_ascii=False, separators=(",", ":")) + "\n")
    subprocess.run([cql, "load", "--sqlite", os.path.join(tmp, "src.db"), export], check=True, capture_output=True)
    port = free_port()
    server = subprocess.Popen([cql, "serve", "--sqlite", os.path.join(tmp, "src.db"), "--port", str(port)],
                              env={**os.environ, **keys}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_port(port)
        pull = [cql, "pull", "--from", f"http://127.0.0.1:{port}", "--app-id", keys["CQL_APP_ID"],
                "--master-key", keys["CQL_MASTER_KEY"], "--sqlite", os.path.join(tmp, "dst.db")]
        first, rss, _ = timed(pull)
        again, rss2, _ = timed(pull)
    finally:
        server.terminate()
        server.wait()
    return [
        f"| cql pull, {objects:,} objects from a local cql serve (SQLite → SQLite) | {first:.1f} s, {objects / first:,.0f} objects/s, peak RSS {rss:.0f} MB | | | |",
        f"| cql pull again, nothing changed (delta scan + objectId scan) | {again:.1f} s, peak RSS {rss2:.0f} MB | | | |",
    ]


HOST = r'''
import http.server, sys, os
os.chdir(sys.argv[1])
class H(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), H).serve_forever()
'''


def bench_files(tmp):
    hosted = os.path.join(tmp, "host")
    export = os.path.join(tmp, "files-export")
    os.makedirs(hosted)
    os.makedirs(export)
    port = free_port()
    lines = ["#filetype:JSON-streaming;version=1.0;class=_File"]
    urls = []
    for i in range(files):
        data = (f"file {i} " * (100 + i % 400)).encode()[: 1024 + (i * 37) % 3072]
        name = f"f{i:06d}.bin"
        with open(os.path.join(hosted, name), "wb") as f:
            f.write(data)
        url = f"http://127.0.0.1:{port}/{name}"
        urls.append(url)
        lines.append(json.dumps({"objectId": f"f{i:06d}", "name": name, "url": url, "key": f"lc/{name}",
                                 "metaData": {"size": len(data), "_checksum": hashlib.md5(data).hexdigest()}}))
    with open(os.path.join(export, "_File.0.jsonl"), "w") as f:
        f.write("\n".join(lines) + "\n")
    host_script = os.path.join(tmp, "host.py")
    with open(host_script, "w") as f:
        f.write(HOST)
    host = subprocess.Popen([sys.executable, host_script, hosted, str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_port(port)
        db = os.path.join(tmp, "files.db")
        subprocess.run([cql, "load", "--sqlite", db, export], check=True, capture_output=True)
        fetch, rss, out = timed([cql, "files", "fetch", "--sqlite", db, "--jobs", str(jobs)])
        if f"copied {files:,} files" not in out and f"copied {files} files" not in out:
            raise SystemExit("files fetch did not copy every file:\n" + out)
        target = os.path.join(tmp, "curl-out")
        os.makedirs(target)
        start = time.time()
        subprocess.run(f"xargs -P {jobs} -n 100 curl -s -f --remote-name-all", shell=True, cwd=target,
                       input="\n".join(urls), text=True, check=True)
        curl = time.time() - start
        if len(os.listdir(target)) != files:
            raise SystemExit("curl did not fetch every file")
    finally:
        host.terminate()
        host.wait()
    return [
        f"| cql files fetch, {files:,} files of 1-4 KB, --jobs {jobs} (size and MD5 checked, fsync, rename) | {fetch:.1f} s, {files / fetch:,.0f} files/s, peak RSS {rss:.0f} MB | curl, {jobs} parallel processes | {curl:.1f} s, {files / curl:,.0f} files/s | {curl / fetch:.2f}× |",
    ]


def main():
    tmp = tempfile.mkdtemp(prefix="cql-migration-bench-")
    try:
        rows = bench_pull(tmp) + bench_files(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("| work | cql | other | other's time | cql's speed ÷ other's |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(r)


main()
