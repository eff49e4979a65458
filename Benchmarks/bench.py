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
with open(os.path.join(root, "Benchmarks", "results.json"), "w") as f:
    json.dump(results, f, indent=2, sort_keys=True)
    f.write("\n")

table = ["| work | cql | other | other's time | cql's speed ÷ other's |", "|---|---:|---|---:|---:|"]
for w, a, t, b, r in rows:
    table.append(f"| {w} | {a:.3f} s | {t} | {b:.3f} s | {r:.2f}× |")
note = (f"Median of {RUNS} runs each ({'`--quick`: ' if quick else ''}{OBJECTS:,} NDJSON objects, {size_mb:.1f} MB; "
        f"{QUERIES:,} queries; {MEMORY_OBJECTS:,} in-memory objects); {os.cpu_count()} CPUs; load average "
        f"{results['machine']['load_average_at_start']:.1f} at start, {results['machine']['load_average_at_end']:.1f} at end.")
print()
print("\n".join(table))
print("\n" + note + " Written to Benchmarks/results.json and BENCHMARKS.md.")

# BENCHMARKS.md: the latest table, the machine, how to run it.
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.processor()) \
    if os.path.exists("/proc/cpuinfo") else platform.processor()
versions = {
    "duckdb": subprocess.run([duckdb, "--version"], capture_output=True, text=True).stdout.strip(),
    "jq": subprocess.run(["jq", "--version"], capture_output=True, text=True).stdout.strip(),
    "sqlglot": subprocess.run([venv_python, "-c", "import sqlglot; print(sqlglot.__version__)"], capture_output=True, text=True).stdout.strip(),
}
# The serve section (Benchmarks/serve_bench.py writes it) is kept as it is.
md_path = os.path.join(root, "BENCHMARKS.md")
serve_marker = "<!-- serve bench: written by Benchmarks/serve_bench.py -->"
old_md = open(md_path).read() if os.path.exists(md_path) else ""
serve_section = old_md[old_md.index(serve_marker):] if serve_marker in old_md else ""
with open(md_path, "w") as f:
    f.write(f"""# Benchmarks

The latest table written by `scripts/bench{' --quick' if quick else ''}` (it rewrites this file and
`Benchmarks/results.json` on every run). Each row times the same work, on the same generated
input, done by `cql` and by what a user would pick instead; the last column is how many times
faster `cql` is (below 1: slower). Whole processes for `eval` and `translate` (start-up
included, output to a file); in-process loops for the in-memory rows (`Benchmarks/cql-bench`).
The tools must agree on the number of matches, or the run stops.

{chr(10).join(table)}

{note}

Machine: {cpu}, {os.cpu_count()} CPUs, {platform.platform()}; DuckDB CLI {versions['duckdb']} (default
threads), {versions['jq']}, sqlglot {versions['sqlglot']} with sqlglotc (compiled) {'loaded' if compiled else 'NOT loaded'}.
The development machine is shared by several builds at once, so single figures move by tens of
percent between runs; compare ratios within one run.

## The work

- `eval count` / `eval written`: `cql eval --data GameScore.ndjson [--count] "select * from GameScore where ..."`
  vs `duckdb -c "select count(*) from read_ndjson_auto(...) where ..."` /
  `copy (select * from read_ndjson_auto(...) where ...) to '...' (format json)`, and
  `jq -n 'reduce (inputs | select(...)) as $o (0; . + 1)'` / `jq -c 'select(...)'`. The filters:
{chr(10).join(f"  - {x['label']}: `{x['cql']}`" for x in results['ndjson']['filters'])}
- `LeanCloud Todo` rows (`Benchmarks/bench_leancloud.py`): the same tools on NDJSON shaped like a
  LeanCloud export of a Chinese app (Chinese and mixed-script text, `createdAt`/`updatedAt`
  strings, typed Dates, Pointers and GeoPoints, an `ACL` and a nested `meta` object on every
  line); DuckDB reads a Date's `iso` member, jq the same. The filters:
{chr(10).join(f"  - {x['label']}: `{x['cql']}`" for x in results.get('leancloud', {}).get('filters', []))}
- How `cql eval` streams an NDJSON file: in blocks of about 1 MiB of whole lines, each cut
  into pieces of about 16 KiB that the cores take one after another (so a held-up core's work
  is taken over), results joined in input order (a query with
  `skip` or `limit` and no `order` runs on one thread, since those count across the file).
  Each line is checked by a structural scan (`JSONLineScan`: a word at a time, no values
  built) and each conjunct of the condition reads the one value it needs from it (a root
  member, or a member of an object member), built alone; other conjuncts read an object of
  the keys the condition reads. UTF-8 text (validated a word at a time) and typed values
  (`{"__type":"Date",...}`, Pointer, GeoPoint, File, Bytes: checked to decode from their
  members' bytes, built only when a conjunct reads them) stay on the scan. A line outside the
  scan's common form (invalid UTF-8, an exponent, a 19-digit integer, a malformed typed value,
  nesting past 32, any error) is read by the JSON reader instead, so results and errors are
  the reader's. A matching line is written
  from its own bytes, its members sorted (the scan's member list, else `JSONCanonicalCopy`), when the result is the object
  as read (no `keys`, no `include`) and the line holds nothing whose written form differs
  from its text (a typed value the writer spells otherwise — each is read alone, written and
  compared —, a non-integer or 19-digit number, `-0`, a string escape the writer spells
  differently such as `\\u00e9` or `\\/`, DEL, a non-ASCII or duplicate key, nesting past 64;
  UTF-8 text is copied as it is, as the writer writes it);
  otherwise it is read whole and re-serialized. Both give the same bytes (`eval` and `run`
  print the same lines), so the choice shows only in the time.
- `translate --lines`: {QUERIES:,} generated SELECTs (in the subset CQL and MySQL share) through
  `cql translate --lines` (to where-JSON; the input is read in 1 MiB blocks whose lines are
  shared out among the cores in pieces and written in input order; `cql translate` in its
  plain forms reads its arguments without argument-parser's reflection, and the release `cql`
  links the Swift runtime statically, at a fixed address)
  vs a Python process running `sqlglot.transpile(line, read="mysql", write="postgres")`
  per line (one core: sqlglot has no parallel mode). The two tools' runs alternate, so a slow
  spell of the machine falls on both.
- in-memory rows: `QueryPlan.run(over:)` over `[[String: Value]]` vs a closure written by hand
  for the same lookups, both doing the same work: the plan returns the matching objects and the
  closure runs as `objects.filter(closure)`, while the `count(*)` row's plan gathers no objects
  and the closure only counts (`reduce`); PCRE2 (JIT, through a plan) vs `NSRegularExpression.firstMatch`;
  `near ... limit 10` vs computing every haversine distance and sorting all of them.

## How to run

    scripts/bench           # full sizes: 400k objects, 20k queries, 1M in-memory objects
    scripts/bench --quick   # 100k / 5k / 200k, 3 runs per figure
    scripts/bench --sql     # only cql run vs hand-written SQL and translate vs sqlglot
    scripts/bench --serve   # only cql serve under wrk beside pgbench (the section below)

The script builds in release mode, installs `duckdb-cli`, `sqlglot` and `sqlglotc` from PyPI
into `.build-bench/venv` on first use, and needs `jq` (`apt-get install jq`).
""")
    if serve_section:
        f.write("\n" + serve_section)
