#!/usr/bin/env python3
"""The serve section of scripts/bench (`scripts/bench --serve`): `cql serve`
under `wrk` beside `pgbench` running the same SQL on the same PostgreSQL.

Data: N comments shaped like a Valine site's LeanCloud export (Chinese text,
`url` among 2,000 pages, `createdAt` strings, an `insertedAt` Date, `ACL`),
loaded with `cql load --index url` into SQLite and into a private
PostgreSQL 15. For each database `cql serve` runs (release build) and wrk
drives, with C connections for D seconds each:

  get     GET /1.1/classes/Comment/<random id>
  page    a Valine page: where {"url": <random page>}, order=-createdAt, limit=10
  count   where {"url": <random page>}, count=1, limit=0

and pgbench runs the SQL cql generates for the same three requests
(`cql run --postgres --grantees '*' --explain`: the SQL the server runs for
an anonymous caller, ACL read condition included, after its index probes,
with the same random choices
as pgbench variables) with the same number of connections against the same
database. Reported: requests/s, p50/p99 latency (wrk --latency; pgbench:
average latency), peak RSS of the server, and serve/pgbench throughput.

What the ratio measures: HTTP parsing, auth (X-LC-Key), the where-JSON
reader, binder and optimizer, SQL generation, the database round trip
through CQLSQL (where concurrent runs of one statement coalesce into one),
and JSON output — against the database executing the same SQL alone, one
statement per transaction (pgbench's own protocol, prepared statements).

Usage: serve_bench.py CQL [--objects N] [--connections C] [--seconds D] [--markdown-only]
Writes Benchmarks/serve-results.json and the serve section of BENCHMARKS.md.
"""
import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
cql = sys.argv[1]
args = sys.argv[2:]


def option(name, default):
    return type(default)(args[args.index(name) + 1]) if name in args else default


OBJECTS = option("--objects", 1_000_000)
CONNECTIONS = option("--connections", 64)
SECONDS = option("--seconds", 10)
PAGES = 2_000
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
work = tempfile.mkdtemp(prefix="cql-serve-bench-")
KEYS = {"CQL_APP_ID": "bench", "CQL_APP_KEY": "bench-key", "CQL_MASTER_KEY": "bench-master"}


def generate(path, n):
    rnd = random.Random(7)
    words = ["博客", "评论", "谢谢", "分享", "学习", "不错", "问题", "代码", "hello", "great", "文章", "支持"]
    base = 1_600_000_000_000
    ids = []
    with open(path, "w") as f:
        f.write("#filetype:JSON-streaming;version=1.0;class=Comment\n")
        for i in range(n):
            # Derived from i, so wrk and pgbench can pick a random existing one.
            oid = "%024x" % (i * 7919 + 1)
            ids.append(oid)
            ms = base + i * 1000
            iso = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms / 1000)) + ".%03dZ" % (ms % 1000)
            obj = {
                "objectId": oid, "url": "/p/%d/" % rnd.randrange(PAGES), "nick": "访客%d" % rnd.randrange(500),
                "comment": "".join(rnd.choice(words) for _ in range(rnd.randrange(3, 12))),
                "rid": "" if rnd.random() < 0.8 else "%024x" % rnd.getrandbits(96),
                "createdAt": iso, "updatedAt": iso, "insertedAt": {"__type": "Date", "iso": iso},
                "ACL": {"*": {"read": True}},
            }
            f.write(json.dumps(obj, ensure_ascii=False) + "\n")
    return ids


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def start_serve(db_args, readers):
    """`cql serve` on the database; `readers`: its `--readers` (None: the default)."""
    port = free_port()
    env = dict(os.environ, **KEYS)
    p = subprocess.Popen([cql, "serve", "--port", str(port)] + (["--readers", str(readers)] if readers else []) + db_args, env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    line = b""
    while b"listening on" not in line:
        line = p.stderr.readline()
        if not line:
            raise SystemExit("cql serve did not start")
    # Drain the access log so the pipe never fills (and the log costs the same as in use).
    subprocess.Popen(["cat"], stdin=p.stderr, stdout=subprocess.DEVNULL)
    return p, port


def wrk(port, lua, label, seconds=None):
    script = os.path.join(work, label + ".lua")
    with open(script, "w") as f:
        f.write(lua)
    out = subprocess.run(["wrk", "-t", "2", "-c", str(CONNECTIONS), "-d", "%ds" % (seconds or SECONDS), "--latency", "-s", script,
                          "http://127.0.0.1:%d" % port], capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    lat = {}
    for pct in ("50", "99"):
        m = re.search(r"\s%s%%\s+([\d.]+)(us|ms|s)" % pct, out)
        v = float(m.group(1))
        lat[pct] = v / 1000 if m.group(2) == "us" else (v * 1000 if m.group(2) == "s" else v)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if errors:
        raise SystemExit("wrk %s: %s non-2xx answers\n%s" % (label, errors.group(1), out))
    return {"rps": rps, "p50_ms": lat["50"], "p99_ms": lat["99"]}


def lua_script(kind):
    headers = 'wrk.headers["X-LC-Id"] = "bench"\nwrk.headers["X-LC-Key"] = "bench-key"\n'
    if kind == "get":
        return headers + """
request = function()
  return wrk.format("GET", "/1.1/classes/Comment/" .. string.format("%%024x", math.random(0, %d) * 7919 + 1))
end
""" % (OBJECTS - 1)
    if kind == "page":
        return headers + """
request = function()
  local w = '%%7B%%22url%%22%%3A%%22%%2Fp%%2F' .. math.random(0, %d) .. '%%2F%%22%%7D'
  return wrk.format("GET", "/1.1/classes/Comment?where=" .. w .. "&order=-createdAt&limit=10")
end
""" % (PAGES - 1)
    return headers + """
request = function()
  local w = '%%7B%%22url%%22%%3A%%22%%2Fp%%2F' .. math.random(0, %d) .. '%%2F%%22%%7D'
  return wrk.format("GET", "/1.1/classes/Comment?where=" .. w .. "&count=1&limit=0")
end
""" % (PAGES - 1)


def translated_sql(query_text, pg_url):
    """The SQL `cql run` (and so `cql serve`) runs for the query on this
    database, from `cql run --explain`: after its index probes (a key that
    holds no array loses its array branch), which `translate` cannot know."""
    # --grantees '*': the wrk requests carry the app key and no session, so
    # the server runs them as the public, with the ACL read condition.
    out = subprocess.run([cql, "run", "--postgres", pg_url, "--grantees", "*", "--explain", query_text], capture_output=True,
                         text=True, check=True).stdout
    fields = {}
    for line in out.splitlines():
        for name in ("sql", "arguments", "count sql", "count arguments"):
            if line.startswith("-- %s: " % name):
                fields[name] = line[len("-- %s: " % name):]
    if "count sql" in fields:
        return {"sql": fields["count sql"], "arguments": json.loads(fields["count arguments"])}
    return {"sql": fields["sql"], "arguments": json.loads(fields["arguments"])}


def sql_literal(s):
    return "'" + s.replace("'", "''") + "'"


def pgbench_script(kind, count, pg_url):
    """The SQL cql generates for the request, with its arguments as pgbench
    variables (the same random choices as the wrk scripts)."""
    if kind == "get":
        t = translated_sql("select * from Comment where objectId = 'X'", pg_url)
    elif kind == "page":
        t = translated_sql("select * from Comment where url = '/p/1/' order by -createdAt limit 10", pg_url)
    else:
        t = translated_sql("select count(*) from Comment where url = '/p/1/'", pg_url)
    sql = t["sql"]
    lines = ["\\set i random(0, %d)" % (count - 1), "\\set p random(0, %d)" % (PAGES - 1)]
    for n in range(len(t["arguments"]), 0, -1):
        a = t["arguments"][n - 1]
        if a == "X":
            # bigint: i * 7919 passes int4's range (prepared, $1 is int4).
            expr = "lpad(to_hex(:i::bigint * 7919 + 1), 24, '0')"
        elif isinstance(a, str) and "/p/1/" in a:
            left, right = a.split("/p/1/", 1)
            expr = "(%s || :p || %s)" % (sql_literal(left + "/p/"), sql_literal("/" + right))
        elif isinstance(a, str):
            expr = sql_literal(a)
        else:
            expr = json.dumps(a)
        sql = sql.replace("$%d" % n, expr)
    return "\n".join(lines) + "\n" + sql + ";\n", t["sql"]


def rss_mb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0


TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid, children=False):
    """A process's CPU time from /proc (with children: also that of its
    children that have exited and been waited for)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # fields[0] is field 3 (state): utime is field 14, cutime field 16.
    t = int(fields[11]) + int(fields[12])
    if children:
        t += int(fields[13]) + int(fields[14])
    return t / TICK


def postgres_cpu_seconds(data_dir):
    """All of a PostgreSQL server's CPU time: the postmaster's, its live
    processes' (a server's connections stay), and those that exited (a
    pgbench run's backends end with it)."""
    with open(os.path.join(data_dir, "postmaster.pid")) as f:
        postmaster = int(f.readline())
    total = cpu_seconds(postmaster, children=True)
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name) as f:
                if int(f.read().rsplit(")", 1)[1].split()[1]) == postmaster:
                    total += cpu_seconds(int(name))
        except (OSError, ValueError, IndexError):
            pass
    return total


MARKER = "<!-- serve bench: written by Benchmarks/serve_bench.py -->"


def write_markdown(results):
    """The serve section of BENCHMARKS.md (from the marker to the end of the
    file; bench.py keeps it when it rewrites the rest)."""
    rows = ["| database | request | cql serve req/s | p50 | p99 | server CPU µs/req | its PostgreSQL CPU µs/req | pgbench tps (same SQL) | pgbench's PostgreSQL CPU µs/tx | serve ÷ pgbench |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]

    def us(d, key):
        return "%.0f" % d[key] if d and key in d else "—"
    for r in results["rows"]:
        pg = r.get("pgbench")
        rows.append("| %s | %s | %.0f | %.1f ms | %.1f ms | %s | %s | %s | %s | %s |" % (
            r["database"], r["work"], r["serve"]["rps"], r["serve"]["p50_ms"], r["serve"]["p99_ms"],
            us(r["serve"], "server_cpu_us"), us(r["serve"], "postgres_cpu_us"),
            "%.0f" % pg["tps"] if pg else "—", us(pg, "postgres_cpu_us"), "%.2f" % r["ratio"] if "ratio" in r else "—"))
    rss = ", ".join("%s %.0f MB" % kv for kv in results.get("rss_mb", {}).items())
    section = f"""{MARKER}
## `cql serve` under load

Written by `scripts/bench --serve` (Benchmarks/serve_bench.py; figures also in
`Benchmarks/serve-results.json`): {results['objects']:,} comments shaped like a Valine
site's LeanCloud export (Chinese text, `url` among 2,000 pages, `createdAt`, an `ACL` granting
public read), loaded with `cql load --index url`; `wrk -t2 -c{results['connections']}`, {results['seconds']} s per
figure after 3 s of the same requests unmeasured (statements prepared, pages read in), the app key and no session (so every request carries the ACL read condition);
`cql serve --readers 8` on PostgreSQL (its reads wait on the network without a thread: four lanes a loop
to coalesce on), the default 4 on SQLite (each read is CPU work on a thread: eight on two cores gave
more pages a second but a p99 of 18–24 ms against 16–19 ms, alternating runs). pgbench
(`-M prepared`, the same {results['connections']} connections) runs the SQL the server runs for
those requests (`cql run --grantees '*' --explain`), on the same PostgreSQL.

{chr(10).join(rows)}

Server peak RSS: {rss}. Commit {results.get('commit', '?')}, on {os.cpu_count()} CPUs that wrk, pgbench, PostgreSQL and the server share.

What the ratio measures: HTTP parsing, auth, the query pipeline, the round trips through CQLSQL
and JSON output, against PostgreSQL running the same SQL alone. A find the server answered
lately is kept prepared (its query, and its SQL for the last preflight answer: Server.md, "Finds
kept prepared"), and the bench's 2,000 pages all fit, so after the warm-up a page skips the
where-JSON reader, binder, optimizer and SQL generation, as a blog's repeated pages do; a get
names its own object and is never kept. On PostgreSQL each request is one prepared statement: a page's or count's
preflight rides in the statement that reads the rows and checks the SQL it was generated for (a
second statement only when that guess was wrong; pgbench's statement has no such columns), a
page's documents come as one row, one `text[]` in order (`array_agg` over the same statement:
Server.md, "A page as one row"; pgbench reads its ten rows), and the objects are copied from their
stored bytes (Server.md). Under load, the server's concurrent
runs of one statement that wait for a busy connection go to PostgreSQL as one coalesced statement
(arguments as arrays, joined laterally; each caller gets its own rows: Server.md, "Coalesced
reads"), so its PostgreSQL's CPU per request is below pgbench's, which runs one statement per
transaction as an app's own SQL client would. The server, PostgreSQL and wrk share
the machine's CPUs, so on two cores every request's own CPU time shows directly in throughput;
p50 at {results['connections']} connections is about {results['connections']} ÷ throughput (Little's law). This machine's speed
drifts between runs minutes apart (pgbench's page statement ran at 17,847 and 23,396 tps in two
runs half an hour apart): a single run's ratio moves with it. The ACL condition tests the
public's grant by containment first (Server.md, "ACLs and roles"), which made the page's and
count's SQL two to three times cheaper for pgbench and the server alike; with less database work
a request, the server's own cost weighs more in the ratio. A count's p99 under 20 ms is out of
reach at {results['connections']} connections for any client: pgbench's own mean latency is
{results['connections']} ÷ its tps.

CPU per request, from `/proc` over the measured seconds: the server process's, and all of
PostgreSQL's (the postmaster, its live processes and those that exited). Drift slows both alike,
so these compare across runs where throughput does not, and the server's against its
PostgreSQL's is the cost of HTTP, auth, the query pipeline and JSON against the database's own
work for the same requests.
"""
    path = os.path.join(root, "BENCHMARKS.md")
    text = open(path).read() if os.path.exists(path) else "# Benchmarks\n"
    # The serve section runs from the marker to the next section's heading;
    # the sections after it (Measurements, Migration, ...) are kept.
    rest = ""
    if MARKER in text:
        start = text.index(MARKER)
        own = text.find("\n## ", start)
        following = text.find("\n## ", own + 1) if own != -1 else -1
        rest = text[following:] if following != -1 else ""
        text = text[:start]
    with open(path, "w") as f:
        f.write(text.rstrip("\n") + "\n\n" + section + rest)


def main():
    import bench_postgres
    data = os.path.join(work, "export")
    os.makedirs(data)
    print("serve bench: %d comments, %d connections, %d s per figure" % (OBJECTS, CONNECTIONS, SECONDS), flush=True)
    ids = generate(os.path.join(data, "Comment.0.json"), OBJECTS)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True).stdout.strip()
    results = {"objects": OBJECTS, "connections": CONNECTIONS, "seconds": SECONDS, "commit": commit, "rows": []}
    # Readers: SQLite's default (4): each of its reads is CPU work on a
    # thread of its own, and eight on two cores only interleave them (a
    # page's p99 18-24 ms against 16-19 ms at four, alternating wrk runs;
    # more pages a second at eight). PostgreSQL's reads wait on the network
    # without a thread: eight connections, four lanes a loop to coalesce on.
    targets = [("SQLite", ["--sqlite", os.path.join(work, "serve.db")], None)]
    pg = bench_postgres.start()
    if pg:
        targets.append(("PostgreSQL", ["--postgres", pg[0]], 8))
    try:
        for label, db_args, readers in targets:
            t0 = time.time()
            subprocess.run([cql, "load"] + db_args + ["--index", "url", data], check=True, stdout=subprocess.DEVNULL)
            print("  %s: loaded in %.1f s" % (label, time.time() - t0), flush=True)
            for name, text in (("latest", "select * from Comment order by -createdAt limit 10"),
                               ("page", "select * from Comment where url = '/p/1/' order by -createdAt limit 10")):
                plan = subprocess.run([cql, "run"] + db_args + ["--explain", text], capture_output=True, text=True).stdout
                results.setdefault("plans", {}).setdefault(label, {})[name] = plan
            server, port = start_serve(db_args, readers)
            try:
                for kind in ("get", "page", "count"):
                    # Warm-up, not measured: the server's connections prepare
                    # their statements (PostgreSQL plans them generically after
                    # five runs) and the pages the requests touch are read in,
                    # as they are for pgbench, which runs after wrk.
                    wrk(port, lua_script(kind), "%s-%s-warm" % (label, kind), seconds=3)
                    server0 = cpu_seconds(server.pid)
                    pg0 = postgres_cpu_seconds(pg[1].data_dir) if label == "PostgreSQL" else None
                    r = wrk(port, lua_script(kind), "%s-%s" % (label, kind))
                    # CPU per request: what the machine's drift between runs
                    # does not move as it moves throughput (both sides slow
                    # down alike), so runs compare by these.
                    requests = r["rps"] * SECONDS
                    r["server_cpu_us"] = (cpu_seconds(server.pid) - server0) * 1e6 / requests
                    if pg0 is not None:
                        r["postgres_cpu_us"] = (postgres_cpu_seconds(pg[1].data_dir) - pg0) * 1e6 / requests
                    row = {"database": label, "work": kind, "serve": r}
                    if label == "PostgreSQL":
                        script, sql = pgbench_script(kind, len(ids), pg[0])
                        path = os.path.join(work, "pgbench-%s.sql" % kind)
                        with open(path, "w") as f:
                            f.write(script)
                        pg0 = postgres_cpu_seconds(pg[1].data_dir)
                        out = subprocess.run(["pgbench", "-n", "-M", "prepared", "-c", str(CONNECTIONS), "-j", "2", "-T", str(SECONDS),
                                              "-f", path, pg[0]], capture_output=True, text=True)
                        time.sleep(1)  # the backends exit and are waited for
                        pg_cpu = postgres_cpu_seconds(pg[1].data_dir) - pg0
                        if "aborted" in out.stderr or out.returncode != 0:
                            # An aborted client's tps is not a figure: stop, saying why.
                            sys.exit("pgbench %s failed:\n%s" % (kind, out.stderr[-2000:]))
                        out = out.stdout
                        m = re.search(r"tps = ([\d.]+)", out)
                        lat = re.search(r"latency average = ([\d.]+) ms", out)
                        row["pgbench"] = {"tps": float(m.group(1)) if m else None, "avg_ms": float(lat.group(1)) if lat else None, "sql": sql}
                        if m:
                            row["pgbench"]["postgres_cpu_us"] = pg_cpu * 1e6 / (float(m.group(1)) * SECONDS)
                        if m:
                            row["ratio"] = r["rps"] / float(m.group(1))
                    results["rows"].append(row)
                    print("  %-10s %-6s %9.0f req/s  p50 %6.2f ms  p99 %6.2f ms  server %4.0f us/req%s%s" % (
                        label, kind, r["rps"], r["p50_ms"], r["p99_ms"], r["server_cpu_us"],
                        "  postgres %4.0f us/req" % r["postgres_cpu_us"] if "postgres_cpu_us" in r else "",
                        "   pgbench %9.0f tps (postgres %4.0f us/tx)  serve/pgbench %.2f" % (
                            row["pgbench"]["tps"], row["pgbench"]["postgres_cpu_us"], row["ratio"]) if "ratio" in row else ""), flush=True)
                results.setdefault("rss_mb", {})[label] = rss_mb(server.pid)
                print("  %s: server peak RSS %.0f MB" % (label, results["rss_mb"][label]), flush=True)
            finally:
                server.terminate()
                server.wait()
    finally:
        if pg:
            pg[1]()
        shutil.rmtree(work, ignore_errors=True)
    with open(os.path.join(root, "Benchmarks", "serve-results.json"), "w") as f:
        json.dump(results, f, indent=1, ensure_ascii=False)
    write_markdown(results)


if __name__ == "__main__":
    if "--markdown-only" in args:
        # The section again from the last run's figures (no run).
        write_markdown(json.load(open(os.path.join(root, "Benchmarks", "serve-results.json"))))
    else:
        main()
