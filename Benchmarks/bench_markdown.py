"""BENCHMARKS.md from a run's results (Benchmarks/results.json): the table,
the machine, what each row measures, how to run it. bench.py calls `write`
after a run; `scripts/bench --markdown-only` rewrites the file from the
last results without running anything (the serve section, written by
serve_bench.py, is kept as it is either way)."""
import os
import platform
import subprocess


def table_and_note(results):
    """The table's lines and the note under it."""
    rows = [(x["work"], x["cql_s"], x["other"], x["other_s"], x["cql_speed_ratio"]) for x in results["rows"]]
    table = ["| work | cql | other | other's time | cql's speed ÷ other's |", "|---|---:|---|---:|---:|"]
    for w, a, t, b, r in rows:
        table.append(f"| {w} | {a:.3f} s | {t} | {b:.3f} s | {r:.2f}× |")
    quick = results["quick"]
    machine = results["machine"]
    note = (f"Median of {results['runs']} runs each ({'`--quick`: ' if quick else ''}{results['ndjson']['objects']:,} NDJSON objects, "
            f"{results['ndjson']['megabytes']:.1f} MB; {results['translate']['queries']:,} queries; "
            f"{int(results['cql_bench']['memory_objects']):,} in-memory objects); {machine['cpus']} CPUs; load average "
            f"{machine['load_average_at_start']:.1f} at start, {machine['load_average_at_end']:.1f} at end.")
    if machine.get("commit"):
        note += f" Commit {machine['commit']}."
    return table, note


def write(results, root, duckdb, venv_python):
    """Rewrites BENCHMARKS.md (keeping its serve section)."""
    table, note = table_and_note(results)
    quick = results["quick"]
    QUERIES = results["translate"]["queries"]
    compiled = results["translate"]["sqlglot_compiled"]
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.processor()) \
        if os.path.exists("/proc/cpuinfo") else platform.processor()
    versions = {
        "duckdb": subprocess.run([duckdb, "--version"], capture_output=True, text=True).stdout.strip(),
        "jq": subprocess.run(["jq", "--version"], capture_output=True, text=True).stdout.strip(),
        "sqlglot": subprocess.run([venv_python, "-c", "import sqlglot; print(sqlglot.__version__)"], capture_output=True, text=True).stdout.strip(),
    }
    md_path = os.path.join(root, "BENCHMARKS.md")
    serve_marker = "<!-- serve bench: written by Benchmarks/serve_bench.py -->"
    old_md = open(md_path).read() if os.path.exists(md_path) else ""
    serve_section = old_md[old_md.index(serve_marker):] if serve_marker in old_md else ""
    # Composed first, written after: a failure leaves the old file whole.
    text = f"""# Benchmarks

The latest table written by `scripts/bench{' --quick' if quick else ''}` (it rewrites this file and
`Benchmarks/results.json` on every run). Each row times the same work, on the same generated
input, done by `cql` and by what a user would pick instead; the last column is how many times
faster `cql` is (below 1: slower). Whole processes for `eval` and `translate` (start-up
included, output to a file); in-process loops for the in-memory rows (`Benchmarks/cql-bench`).
The tools must agree on the number of matches, or the run stops.

{chr(10).join(table)}

{note}

Machine: {cpu}, {results['machine']['cpus']} CPUs, {results['machine']['platform']}; DuckDB CLI {versions['duckdb']} (default
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
  line); DuckDB reads a Date's `iso` member, jq the same. Each filter runs on the same objects
  in two layouts: `compact` lines (as the service and `JSON.stringify` write them) and
  `spaced` lines (a space after every `,` and `:`, as Python's `json.dumps` writes by default).
  The filters:
{chr(10).join(f"  - {x['label']}: `{x['cql']}`" for x in results.get('leancloud', {}).get('filters', []) if x.get('layout', 'compact') == 'compact')}
- How `cql eval` streams an NDJSON file: in blocks of about 1 MiB of whole lines, each cut
  into pieces of about 16 KiB that the cores take one after another (so a held-up core's work
  is taken over), results joined in input order (a query with
  `skip` or `limit` and no `order` runs on one thread, since those count across the file).
  Each line is checked by a structural scan (`JSONLineScan`: a word at a time, no values
  built) and each conjunct of the condition reads the one value it needs from it (a root
  member, or a member of an object member), built alone; other conjuncts read an object of
  the keys the condition reads. UTF-8 text (validated a word at a time) and typed values
  (`{{"__type":"Date",...}}`, Pointer, GeoPoint, File, Bytes: checked to decode from their
  members' bytes, built only when a conjunct reads them — a Date from the milliseconds its
  check parsed, a Pointer or GeoPoint from its members' bytes, an array of plain strings,
  integers and literals from its bytes) stay on the scan. A line outside the
  scan's common form (invalid UTF-8, an exponent, a 19-digit integer, a malformed typed value,
  nesting past 32, any error) is read by the JSON reader instead, so results and errors are
  the reader's. A matching line is written
  from its own bytes, its members sorted (the scan's member list; a member whose own text is
  not the writer's, such as a nested object out of key order, re-copied alone by
  `JSONCanonicalCopy`), when the result is the object
  as read (no `keys`, no `include`) and the line holds nothing whose written form differs
  from its text (a typed value the writer spells otherwise — a Date, Pointer or GeoPoint is
  judged from its layout, read in one pass by the scan, any other read alone, written and
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
- `translate --lines --to sql --dialect sqlite|postgres` and `--to where`, each on one core
  (both tools under `taskset -c 0`) and on all cores, against the same sqlglot run: the SQL
  generator writes each leaf's shape (type guards, the array branch, the JSON path or jsonpath
  argument) into one byte buffer and each translation's `{{"arguments","sql"}}` JSON straight
  into the output; SQLite's text is then scanned once for its parenthesis depth (its parser's
  stack). The output is about 2.5 KB (SQLite) and 2.1 KB (PostgreSQL) of SQL per query, against
  sqlglot's one line of SQL, so these rows also measure writing 20 times more text.
- `run SQLite` / `run PostgreSQL` rows (`Benchmarks/bench_sql.py`): `cql run --count` and
  `cql run` (the matches written as NDJSON) against the hand-written query of the same filter
  (`sqlite3` with `json_extract`, `psql -At` with `->>`/`->`, the same rows in the same
  order), on 400,000 LeanCloud-shaped Todos loaded by `cql load` without `--index` (GeoPoints
  with the 16 and 17 digits a device writes). SQLite: the conjuncts no index serves are one
  `cql_match(doc, ?)` per row, the evaluator's structural scan over the document text.
  PostgreSQL: one preflight statement asks which keys have an index and whether the class has
  the document index; then a range on a key without an index is one `doc @? jsonpath` test
  and an equality reads the key once (`doc -> 'done' @> 'false'`, which also holds for an
  array with that element). Both copy each stored text (`raw`) to the writer's form through
  the structural scan (a typed value in the writer's spelling read in one pass, a GeoPoint's
  numbers proved to be the writer's text in exact integer arithmetic), as `eval` writes lines.
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
    scripts/bench --markdown-only   # this file again from Benchmarks/results.json, nothing run

The script builds in release mode, installs `duckdb-cli`, `sqlglot` and `sqlglotc` from PyPI
into `.build-bench/venv` on first use, and needs `jq` (`apt-get install jq`).
"""
    if serve_section:
        text += "\n" + serve_section
    with open(md_path, "w") as f:
        f.write(text)
