#!/usr/bin/env python3
"""The benchmark harness behind scripts/bench: cql beside what users would
pick instead, on the same generated inputs, in one run.

  1. `cql eval` over NDJSON vs the DuckDB CLI and jq: count only, and the
     matches written; 1, 3 and 8 predicates (regex, `in`, a dotted path, an
     array field). The three must agree on the number of matches.
  2. `cql translate --lines` vs sqlglot (with its compiled extension,
     sqlglotc) transpiling the same SELECTs from MySQL to PostgreSQL.
  3. The same filters through `cql run` on SQLite (loaded with and without
     `--index`) and on a private PostgreSQL 15 when one can be started,
     beside `cql eval` over the NDJSON; load times.
  4. cql-bench: the in-memory plan vs a hand-written closure, PCRE2 JIT vs
     NSRegularExpression, top-10 `near` vs a full sort.

Every figure is the median wall time of several runs of a whole process (or,
in cql-bench, of the in-process loop). Prints a table with ratios and writes
Benchmarks/results.json. Usage: bench.py CQL CQL_BENCH DUCKDB PYTHON [--quick]
"""
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_postgres import start as start_postgres  # noqa: E402
from bench_leancloud import leancloud_rows  # noqa: E402
from bench_queries import SQLGLOT_SCRIPT, generate_queries  # noqa: E402
from bench_sql import sql_rows  # noqa: E402
import bench_markdown  # noqa: E402

cql, cql_bench, duckdb, venv_python = sys.argv[1:5]
quick = "--quick" in sys.argv
# --only SECTION[,SECTION]: only those sections (ndjson, leancloud), their
# rows printed; BENCHMARKS.md and results.json are left as they are.
ONLY = set(sys.argv[sys.argv.index("--only") + 1].split(",")) if "--only" in sys.argv else set()
RUNS = 3 if quick else 5
# Sizes can be overridden (smoke runs): CQL_BENCH_OBJECTS, CQL_BENCH_QUERIES, CQL_BENCH_MEMORY_OBJECTS.
OBJECTS = int(os.environ.get("CQL_BENCH_OBJECTS", 100_000 if quick else 400_000))
QUERIES = int(os.environ.get("CQL_BENCH_QUERIES", 5_000 if quick else 20_000))
MEMORY_OBJECTS = int(os.environ.get("CQL_BENCH_MEMORY_OBJECTS", 200_000 if quick else 1_000_000))
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if "--markdown-only" in sys.argv:
    # BENCHMARKS.md again from the last run's results; nothing runs.
    with open(os.path.join(root, "Benchmarks", "results.json")) as f:
        bench_markdown.write(json.load(f), root, duckdb, venv_python)
    sys.exit(0)
work = tempfile.mkdtemp(prefix="cql-bench-")


def run(argv, stdout=subprocess.DEVNULL, stdin=None):
    """Wall time of one process; fails loudly on a non-zero exit."""
    start = time.perf_counter()
    p = subprocess.run(argv, stdout=stdout, stdin=stdin, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if p.returncode != 0:
        sys.exit(f"bench: {' '.join(argv)[:200]} exited {p.returncode}: {p.stderr.decode()[:500]}")
    return elapsed


def median_time(make_argv, out_path=None):
    """Median of RUNS runs; stdout to `out_path` (or discarded)."""
    times = []
    for _ in range(RUNS):
        if out_path:
            with open(out_path, "wb") as out:
                times.append(run(make_argv(), stdout=out))
        else:
            times.append(run(make_argv()))
    return statistics.median(times)


def lines(path):
    with open(path, "rb") as f:
        return sum(1 for _ in f)


# MARK: Inputs

def generate_ndjson(path, n):
    rng = random.Random(7)
    names = ["alice", "bob", "carol", "dave", "erin", "frank", "calvin", "alfred"]
    tags = ["red", "green", "blue", "gold"]
    countries = ["fr", "de", "cn", "us", "br"]
    with open(path, "w") as f:
        for i in range(n):
            o = {
                "objectId": f"o{i}",
                "name": names[rng.randrange(len(names))],
                "score": rng.randrange(1000),
                "cheatMode": rng.random() < 0.3,
                "level": rng.randrange(10),
                "tags": rng.sample(tags, rng.randrange(3)),
                "player": {"country": countries[rng.randrange(5)], "rank": rng.randrange(50)},
            }
            f.write(json.dumps(o, separators=(",", ":")) + "\n")


# (label, CQL condition, DuckDB SQL condition, jq condition)
FILTERS = [
    ("1 predicate", "score > 900", "score > 900", ".score > 900"),
    ("3 predicates (regex ^(al|ca): byte-prefix tests, no regex engine runs)",
     "score > 500 and cheatMode = false and name regexp '^(al|ca)'",
     "score > 500 and cheatMode = false and regexp_matches(name, '^(al|ca)')",
     '.score > 500 and .cheatMode == false and (.name | test("^(al|ca)"))'),
    ("8 predicates (regex ^(al|ca|er): byte-prefix tests; in, dotted, array)",
     "score > 100 and score < 900 and cheatMode = false and level in (1, 3, 5, 7) "
     "and name regexp '^(al|ca|er)' and player.country = 'fr' and tags = 'red' and player.rank >= 10",
     "score > 100 and score < 900 and cheatMode = false and level in (1, 3, 5, 7) "
     "and regexp_matches(name, '^(al|ca|er)') and player.country = 'fr' and list_contains(tags, 'red') "
     "and player.rank >= 10",
     '.score > 100 and .score < 900 and .cheatMode == false and (.level | IN(1, 3, 5, 7)) '
     'and (.name | test("^(al|ca|er)")) and .player.country == "fr" and any(.tags[]; . == "red") '
     'and .player.rank >= 10'),
]


# MARK: Runs

results = {"quick": quick, "runs": RUNS, "machine": {
    "cpus": os.cpu_count(), "platform": platform.platform(),
    "load_average_at_start": os.getloadavg()[0]}}
rows = []  # (work, cql figure, other tool, other figure, ratio cql speed / theirs)


def add_row(work_name, cql_s, tool, other_s, unit="s"):
    rows.append((work_name, cql_s, tool, other_s, other_s / cql_s))


data = os.path.join(work, "GameScore.ndjson")
generate_ndjson(data, OBJECTS)
size_mb = os.path.getsize(data) / 1e6
print(f"bench: {OBJECTS:,} objects, {size_mb:.1f} MB of NDJSON; {RUNS} runs per figure (median)", flush=True)
results["ndjson"] = {"objects": OBJECTS, "megabytes": round(size_mb, 2), "filters": []}
out = os.path.join(work, "out.ndjson")

for label, cond, sql, jqcond in (FILTERS if not ONLY or "ndjson" in ONLY else []):
    query = f"select * from GameScore where {cond}"
    source = f"read_ndjson_auto('{data}')"
    # Count only.
    t_cql = median_time(lambda: [cql, "eval", "--data", data, "--count", query], out)
    cql_count = json.load(open(out))["count"]
    t_duck = median_time(lambda: [duckdb, "-csv", "-noheader", "-c", f"select count(*) from {source} where {sql}"], out)
    duck_count = int(open(out).read().strip())
    jq_count_program = f"reduce (inputs | select({jqcond})) as $o (0; . + 1)"
    t_jq = median_time(lambda: ["jq", "-n", jq_count_program, data], out)
    jq_count = int(open(out).read().strip())
    if not (cql_count == duck_count == jq_count):
        sys.exit(f"bench: counts differ for {label}: cql {cql_count}, duckdb {duck_count}, jq {jq_count}")
    add_row(f"eval count, {label} ({cql_count:,} matches)", t_cql, "DuckDB", t_duck)
    add_row(f"eval count, {label}", t_cql, "jq", t_jq)
    # The matches written as NDJSON.
    t_cql_w = median_time(lambda: [cql, "eval", "--data", data, query], out)
    cql_written = lines(out)
    duck_out = os.path.join(work, "duck.ndjson")
    t_duck_w = median_time(lambda: [duckdb, "-c", f"copy (select * from {source} where {sql}) to '{duck_out}' (format json)"])
    duck_written = lines(duck_out)
    t_jq_w = median_time(lambda: ["jq", "-c", f"select({jqcond})", data], out)
    jq_written = lines(out)
    if not (cql_written == duck_written == jq_written == cql_count):
        sys.exit(f"bench: written matches differ for {label}: cql {cql_written}, duckdb {duck_written}, jq {jq_written}")
    add_row(f"eval written, {label}", t_cql_w, "DuckDB", t_duck_w)
    add_row(f"eval written, {label}", t_cql_w, "jq", t_jq_w)
    results["ndjson"]["filters"].append({
        "label": label, "cql": query, "duckdb_where": sql, "jq_select": jqcond, "matches": cql_count,
        "count_s": {"cql": t_cql, "duckdb": t_duck, "jq": t_jq},
        "written_s": {"cql": t_cql_w, "duckdb": t_duck_w, "jq": t_jq_w}})
    print(f"  {label}: {cql_count:,} matches; count cql {t_cql:.3f}s duckdb {t_duck:.3f}s jq {t_jq:.3f}s; "
          f"written cql {t_cql_w:.3f}s duckdb {t_duck_w:.3f}s jq {t_jq_w:.3f}s", flush=True)

# MARK: LeanCloud-shaped NDJSON (Benchmarks/bench_leancloud.py)

if not ONLY or "leancloud" in ONLY:
    results["leancloud"] = leancloud_rows(cql, duckdb, work, OBJECTS, RUNS, add_row, lines)
    print(f"  cql eval peak RSS on it: {results['leancloud']['cql_peak_rss_mb']:.0f} MB", flush=True)
if ONLY:
    print("\n| work | cql | other | other's time | cql's speed ÷ other's |\n|---|---:|---|---:|---:|")
    for w, a, t, b, r in rows:
        print(f"| {w} | {a:.3f} s | {t} | {b:.3f} s | {r:.2f}× |")
    sys.exit(0)

# SQL: the same filters through `cql run` on SQLite (after `cql load`,
# without and with `--index`) and, when a private PostgreSQL 15 can be
# started (as Tests/CQLSQLTests/PostgreSQL/PostgreSQLServer.swift does it),
# on PostgreSQL; each must find the matches `cql eval` finds.
INDEX_KEYS = "score,cheatMode,level,name"


def time_once(argv):
    return run(argv)


sql_targets = []  # (label, the database options of load/run, load seconds)
for label, index in (("SQLite", None), ("SQLite --index", INDEX_KEYS)):
    db = os.path.join(work, "bench-index.db" if index else "bench.db")
    argv = [cql, "load", "--sqlite", db] + (["--index", index] if index else []) + [data]
    sql_targets.append((label, ["--sqlite", db], time_once(argv)))
postgres = start_postgres()
try:
    if postgres:
        url, _ = postgres
        sql_targets.append(("PostgreSQL --index", ["--postgres", url],
                            time_once([cql, "load", "--postgres", url, "--index", INDEX_KEYS, data])))
    results["sql"] = {"index_keys": INDEX_KEYS, "targets": []}
    for target, options, load_s in sql_targets:
        print(f"  {target}: cql load of {OBJECTS:,} objects {load_s:.3f}s", flush=True)
        entry = {"target": target, "load_s": load_s, "filters": []}
        for (label, cond, _, _), measured in zip(FILTERS, results["ndjson"]["filters"]):
            query = f"select * from GameScore where {cond}"
            t_count = median_time(lambda: [cql, "run"] + options + ["--count", query], out)
            n = json.load(open(out))["count"]
            t_written = median_time(lambda: [cql, "run"] + options + [query], out)
            if n != measured["matches"] or lines(out) != n:
                sys.exit(f"bench: {target} finds {n} ({lines(out)} written) for {label}, cql eval {measured['matches']}")
            add_row(f"run {target} count, {label}", t_count, "cql eval (NDJSON)", measured["count_s"]["cql"])
            add_row(f"run {target} written, {label}", t_written, "cql eval (NDJSON)", measured["written_s"]["cql"])
            entry["filters"].append({"label": label, "count_s": t_count, "written_s": t_written, "matches": n})
            print(f"  {target}, {label}: count {t_count:.3f}s, written {t_written:.3f}s", flush=True)
        results["sql"]["targets"].append(entry)
finally:
    if postgres:
        postgres[1]()

# Translation: the same file through both, whole processes.
queries = os.path.join(work, "queries.sql")
generate_queries(queries, QUERIES)
sqlglot_script = SQLGLOT_SCRIPT
# The runs alternate (cql, sqlglot, cql, ...), so a slow spell of this shared
# machine falls on both tools rather than on one tool's runs.
translate_times, sqlglot_times = [], []
translated = sqlglot_translated = None
for _ in range(RUNS):
    with open(out, "wb") as f:
        translate_times.append(run([cql, "translate", "--lines", queries], stdout=f))
    translated = lines(out)
    with open(out, "wb") as f:
        sqlglot_times.append(run([venv_python, "-c", sqlglot_script, queries], stdout=f))
    sqlglot_translated = lines(out)
    if translated != QUERIES or sqlglot_translated != QUERIES:
        sys.exit(f"bench: translation line counts differ: cql {translated}, sqlglot {sqlglot_translated}, input {QUERIES}")
t_translate, t_sqlglot = statistics.median(translate_times), statistics.median(sqlglot_times)
compiled = subprocess.run([venv_python, "-c", "import sqlglot.parser; print(sqlglot.parser.__file__.endswith('.so'))"],
                          capture_output=True, text=True).stdout.strip() == "True"
add_row(f"translate --lines, {QUERIES:,} SELECTs", t_translate, "sqlglot" + (" (sqlglotc)" if compiled else " (pure Python)"), t_sqlglot)
results["translate"] = {"queries": QUERIES, "cql_s": t_translate, "sqlglot_s": t_sqlglot, "sqlglot_compiled": compiled,
                        "cql_queries_per_s": QUERIES / t_translate, "sqlglot_queries_per_s": QUERIES / t_sqlglot}
print(f"  translate: cql {QUERIES / t_translate:,.0f} queries/s, sqlglot {QUERIES / t_sqlglot:,.0f} queries/s "
      f"(compiled extension: {compiled})", flush=True)

# SQL rows of their own (bench_sql.py): `cql run` vs hand-written SQL on
# LeanCloud-shaped objects, translate to each target on one core and on all.
sql_rows(cql, venv_python, work, RUNS, OBJECTS, queries, QUERIES, add_row, results, SQLGLOT_SCRIPT)

# In memory: cql-bench prints `RESULTS {json}` last.
p = subprocess.run([cql_bench, root, "--objects", str(MEMORY_OBJECTS), "--runs", str(RUNS)],
                   capture_output=True, text=True)
if p.returncode != 0:
    sys.exit(f"bench: cql-bench failed: {p.stderr[-1000:]}")
print("\n".join("  " + l for l in p.stdout.splitlines() if not l.startswith("RESULTS ")), flush=True)
mem = json.loads(p.stdout.splitlines()[-1][len("RESULTS "):])
results["cql_bench"] = mem
n_mem = int(mem["memory_objects"])
add_row(f"in-memory 3-predicate filter, {n_mem:,} objects", mem["memory_plan_s"], "hand-written closure (filter)", mem["memory_closure_s"])
add_row(f"in-memory 3-predicate count(*), {n_mem:,} objects", mem["memory_count_plan_s"], "hand-written closure (count)", mem["memory_count_closure_s"])
add_row(f"in-memory 3-predicate filter, {n_mem:,} objects", mem["memory_plan_s"], "Foundation #Predicate (typed structs)", mem["memory_foundation_predicate_s"])
add_row(f"in-memory regex + range, {n_mem:,} objects", mem["memory_regex_plan_s"], "closure with hasPrefix", mem["memory_regex_closure_s"])
add_row(f"in-memory two in-lists, {n_mem:,} objects", mem["memory_in_plan_s"], "closure with Sets", mem["memory_in_closure_s"])
add_row(f"regex over {int(mem['regex_strings']):,} strings (PCRE2 JIT)", mem["regex_pcre2_s"], "NSRegularExpression", mem["regex_nsregex_s"])
add_row(f"top-10 near over {int(mem['near_points']):,} points", mem["near_plan_s"], "distances + full sort", mem["near_sort_s"])

# MARK: Table

results["rows"] = [{"work": w, "cql_s": a, "other": t, "other_s": b, "cql_speed_ratio": r} for w, a, t, b, r in rows]
results["machine"]["load_average_at_end"] = os.getloadavg()[0]
results["machine"]["commit"] = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
with open(os.path.join(root, "Benchmarks", "results.json"), "w") as f:
    json.dump(results, f, indent=2, sort_keys=True)
    f.write("\n")
table, note = bench_markdown.table_and_note(results)
print()
print("\n".join(table))
print("\n" + note + " Written to Benchmarks/results.json and BENCHMARKS.md.")
bench_markdown.write(results, root, duckdb, venv_python)
