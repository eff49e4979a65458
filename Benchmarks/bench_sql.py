#!/usr/bin/env python3
"""The SQL rows of the benchmarks (issue 23, parts 2-4), in a section of their own.

  1. `cql run` beside the hand-written SQL of the same filter, on the same
     database file (SQLite, through the sqlite3 CLI) and the same private
     PostgreSQL 15 (through psql), over LeanCloud-shaped objects (Chinese and
     mixed-script strings, typed Dates / Pointers / GeoPoints, ACL and nested
     objects), no index: count and the matches written. Both sides must find
     the same number of matches. The hand-written SQL is what a careful
     engineer writes (`json_extract`, `->>`), not exactly the evaluator's
     semantics (it does not look into arrays nor bracket types): the data
     holds no value where the two differ.
  2. `cql translate --lines` to SQL (both dialects) and to where-JSON, on one
     core (`taskset -c 0`) and on all cores, beside sqlglot (compiled,
     sqlglotc) transpiling the same SELECTs from MySQL to PostgreSQL, which
     runs on one core whatever it is given.

bench.py calls `sql_rows` (scripts/bench); `scripts/bench --sql` runs only
this section: bench_sql.py CQL PYTHON [--quick].
"""
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_postgres import start as start_postgres  # noqa: E402

WORDS = ["学习", "工作", "购物", "旅行", "阅读", "健身", "会议", "报告", "Café", "naïve", "meeting", "家庭"]
TAGS = ["重要", "紧急", "个人", "work", "家庭", "学习"]


def generate_leancloud(path, n):
    """Todo objects shaped like a LeanCloud export of a Chinese app."""
    rng = random.Random(11)
    with open(path, "w") as f:
        for i in range(n):
            day = 1 + rng.randrange(28)
            o = {"objectId": f"t{i:07d}", "title": f"{rng.choice(WORDS)} {rng.choice(WORDS)} {i}",
                 "priority": rng.randrange(6), "done": rng.random() < 0.4, "tags": rng.sample(TAGS, rng.randrange(3)),
                 "createdAt": f"2024-03-{day:02d}T10:{rng.randrange(60):02d}:00.000Z",
                 "updatedAt": f"2024-04-{day:02d}T10:{rng.randrange(60):02d}:00.000Z",
                 "due": {"__type": "Date", "iso": f"2024-05-{day:02d}T08:00:00.000Z"},
                 "owner": {"__type": "Pointer", "className": "_User", "objectId": f"u{rng.randrange(1000)}"},
                 "location": {"__type": "GeoPoint", "latitude": rng.uniform(20, 45), "longitude": rng.uniform(100, 125)},
                 "ACL": {"*": {"read": True}, f"u{rng.randrange(1000)}": {"read": True, "write": True}},
                 "meta": {"source": rng.choice(["ios", "android", "web"]), "version": rng.randrange(10)}}
            f.write(json.dumps(o, ensure_ascii=False, separators=(",", ":")) + "\n")


# (label, CQL condition, SQLite condition, PostgreSQL condition), over "Todo" AS t.
FILTERS = [
    ("priority >= 4 and done = false", "priority >= 4 and done = false",
     "json_extract(t.doc, '$.priority') >= 4 AND json_extract(t.doc, '$.done') = 0",
     "(t.doc->>'priority')::numeric >= 4 AND t.doc->'done' = 'false'::jsonb"),
    ("meta.source = 'ios' and tags = '重要' (an array)", "meta.source = 'ios' and tags = '重要'",
     "json_extract(t.doc, '$.meta.source') = 'ios' AND EXISTS (SELECT 1 FROM json_each(t.doc, '$.tags') AS e WHERE e.value = '重要')",
     "t.doc->'meta'->>'source' = 'ios' AND t.doc->'tags' ? '重要'"),
]


def timed(argv, out_path):
    """Wall time of one process, stdout to `out_path`; fails loudly."""
    with open(out_path, "wb") as out:
        start = time.perf_counter()
        p = subprocess.run(argv, stdout=out, stderr=subprocess.PIPE)
        elapsed = time.perf_counter() - start
    if p.returncode != 0:
        sys.exit(f"bench: {' '.join(argv)[:200]} exited {p.returncode}: {p.stderr.decode()[:500]}")
    return elapsed


def alternating(runs, out_path, *argvs):
    """Median wall time of each command, the runs alternating (a slow spell of
    a shared machine falls on every tool), and each one's last output."""
    times = [[] for _ in argvs]
    outputs = [None] * len(argvs)
    for _ in range(runs):
        for i, argv in enumerate(argvs):
            times[i].append(timed(argv, out_path))
            with open(out_path, "rb") as f:
                outputs[i] = f.read()
    return [statistics.median(t) for t in times], outputs


def run_rows(cql, work, runs, objects, add_row, results):
    """`cql run` vs the hand-written SQL, SQLite then PostgreSQL."""
    data = os.path.join(work, "Todo.ndjson")
    generate_leancloud(data, objects)
    out = os.path.join(work, "sql-out")
    db = os.path.join(work, "todo.db")
    subprocess.run([cql, "load", "--sqlite", db, data], check=True, stdout=subprocess.DEVNULL)
    targets = [("SQLite", ["--sqlite", db], lambda sql: ["sqlite3", db, sql], 2,
                "hand-written json_extract (sqlite3 CLI)")]
    postgres = start_postgres()
    try:
        if postgres:
            url, _ = postgres
            subprocess.run([cql, "load", "--postgres", url, data], check=True, stdout=subprocess.DEVNULL)
            targets.append(("PostgreSQL", ["--postgres", url], lambda sql: ["psql", url, "-Atc", sql], 3,
                            "hand-written ->> (psql)"))
        results["sql_vs_hand"] = []
        for target, options, client, column, tool in targets:
            for label, cond, *hand in FILTERS:
                where = hand[column - 2]
                query = f"select * from Todo where {cond}"
                (t_cql, t_hand), (a, b) = alternating(
                    runs, out, [cql, "run"] + options + ["--count", query],
                    client(f'SELECT count(*) FROM "Todo" AS t WHERE {where}'))
                n_cql, n_hand = json.loads(a)["count"], int(b.strip())
                (t_cql_w, t_hand_w), (a, b) = alternating(
                    runs, out, [cql, "run"] + options + [query],
                    client(f'SELECT {"t.doc" if column == 2 else "t.raw"} FROM "Todo" AS t WHERE {where} ORDER BY '
                           + ("t.rowid" if column == 2 else "t.seq")))
                w_cql, w_hand = a.count(b"\n"), b.count(b"\n")
                if not (n_cql == n_hand == w_cql == w_hand):
                    sys.exit(f"bench: {target} {label}: cql {n_cql} ({w_cql} written), hand-written {n_hand} ({w_hand})")
                add_row(f"run {target} count, LeanCloud-shaped, no index, {label} ({n_cql:,} matches)", t_cql, tool, t_hand)
                add_row(f"run {target} written, LeanCloud-shaped, no index, {label}", t_cql_w, tool, t_hand_w)
                results["sql_vs_hand"].append({"target": target, "label": label, "cql": query, "hand_where": where,
                                               "matches": n_cql, "count_s": {"cql": t_cql, "hand": t_hand},
                                               "written_s": {"cql": t_cql_w, "hand": t_hand_w}})
                print(f"  {target}, {label}: count cql {t_cql:.3f}s hand {t_hand:.3f}s; "
                      f"written cql {t_cql_w:.3f}s hand {t_hand_w:.3f}s", flush=True)
    finally:
        if postgres:
            postgres[1]()


def translate_rows(cql, venv_python, queries, n, runs, add_row, results, sqlglot_script):
    """`translate --lines` to each target, on one core and on all, vs sqlglot."""
    out = queries + ".out"
    one = ["taskset", "-c", "0"] if shutil.which("taskset") else None
    targets = [("--to sql --dialect sqlite", ["--to", "sql", "--dialect", "sqlite"]),
               ("--to sql --dialect postgres", ["--to", "sql", "--dialect", "postgres"]),
               ("--to where", [])]
    results["translate_targets"] = []
    for label, flags in targets:
        for cores, prefix in (("one core", one), (f"{os.cpu_count()} cores", [])):
            if prefix is None:
                continue
            (t_cql, t_glot), (a, b) = alternating(
                runs, out, prefix + [cql, "translate", "--lines", queries] + flags,
                prefix + [venv_python, "-c", sqlglot_script, queries])
            got, glot = a.count(b"\n"), b.count(b"\n")
            if got != n or glot != n:
                sys.exit(f"bench: translate {label}: {got} lines, sqlglot {glot}, input {n}")
            add_row(f"translate --lines {label}, {n:,} SELECTs, {cores}", t_cql, f"sqlglot mysql→postgres, {cores}", t_glot)
            results["translate_targets"].append({"target": label, "cores": cores, "cql_s": t_cql, "sqlglot_s": t_glot})
            print(f"  translate {label}, {cores}: cql {n / t_cql:,.0f} queries/s, sqlglot {n / t_glot:,.0f}", flush=True)


def sql_rows(cql, venv_python, work, runs, objects, queries, n_queries, add_row, results, sqlglot_script):
    """Both groups of rows (bench.py's entry point)."""
    run_rows(cql, work, runs, objects, add_row, results)
    translate_rows(cql, venv_python, queries, n_queries, runs, add_row, results, sqlglot_script)


if __name__ == "__main__":
    # Only this section: bench_sql.py CQL PYTHON [--quick]; prints its rows.
    cql, venv_python = sys.argv[1:3]
    quick = "--quick" in sys.argv
    work = tempfile.mkdtemp(prefix="cql-bench-sql-")
    rows, results = [], {}
    from bench_queries import SQLGLOT_SCRIPT, generate_queries
    n = int(os.environ.get("CQL_BENCH_QUERIES", 5_000 if quick else 20_000))
    queries = os.path.join(work, "queries.sql")
    generate_queries(queries, n)
    sql_rows(cql, venv_python, work, 3 if quick else 5, int(os.environ.get("CQL_BENCH_OBJECTS", 100_000 if quick else 400_000)),
             queries, n, lambda w, a, t, b: rows.append((w, a, t, b, b / a)), results, SQLGLOT_SCRIPT)
    print("| work | cql | other | other's time | cql's speed ÷ other's |\n|---|---:|---|---:|---:|")
    for w, a, t, b, r in rows:
        print(f"| {w} | {a:.3f} s | {t} | {b:.3f} s | {r:.2f}× |")
    with open(os.path.join(work, "results.json"), "w") as f:
        json.dump(results, f, indent=2)
    shutil.rmtree(work, ignore_errors=True)
