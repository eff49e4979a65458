#!/usr/bin/env bash
# Benchmarks, side by side in one run (never part of the tests):
#  1. cql-bench: front-end throughput over the corpus queries; the evaluator's
#     3-predicate filter over 1M in-memory objects beside a hand-written closure.
#  2. `cql translate --lines` over every corpus query (wall time of the command).
#  3. with --big: `cql eval` streaming a ~1 GB NDJSON file: peak RSS and throughput
#     (needs /usr/bin/time: apt-get install time).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product cql 2>&1 | tail -1
swift build -c release --product cql-bench 2>&1 | tail -1
bin=.build/release

echo "== cql-bench"
"$bin/cql-bench" "$PWD"

echo "== cql translate --lines over the corpus queries"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
grep -h '^query: ' Corpus/cql/*.cases | sed 's/^query: //' > "$tmp/queries.txt"
for _ in $(seq 1 200); do cat "$tmp/queries.txt"; done > "$tmp/many.txt"
now() { date +%s.%N; }
start=$(now)
"$bin/cql" translate --lines "$tmp/queries.txt" > /dev/null 2>&1 || true
end=$(now)
echo "  the corpus once: $(wc -l < "$tmp/queries.txt") queries in $(python3 -c "print(f'{$end-$start:.3f}')") s wall (process start included)"
start=$(now)
"$bin/cql" translate --lines "$tmp/many.txt" > /dev/null 2>&1 || true
end=$(now)
python3 -c "n=$(wc -l < "$tmp/many.txt"); t=$end-$start; print(f'  corpus x200: {n} lines in {t:.2f} s = {n/t:,.0f} queries/s in one process (bad lines included)')"

if [ "${1:-}" = "--big" ]; then
  echo "== cql eval streaming a ~1 GB NDJSON file"
  python3 - "$tmp/GameScore.ndjson" <<'PY'
import sys, random
random.seed(7)
names = ["alice", "bob", "carol", "dave", "eve", "frank"]
pad = "x" * 120
with open(sys.argv[1], "w") as f:
    size, i = 0, 0
    while size < 1_000_000_000:
        line = ('{"objectId":"o%d","name":"%s","score":%d,"cheatMode":%s,"tags":["a","b"],'
                '"createdAt":"2017-11-11T07:19:15.549Z","note":"%s"}\n'
                % (i, names[i % 6], random.randrange(100000), "true" if i % 3 else "false", pad))
        f.write(line)
        size += len(line)
        i += 1
PY
  bytes=$(stat -c %s "$tmp/GameScore.ndjson")
  lines=$(wc -l < "$tmp/GameScore.ndjson")
  start=$(now)
  /usr/bin/time -f "%M" -o "$tmp/rss" "$bin/cql" eval --data "$tmp/GameScore.ndjson" \
    "select * from GameScore where score > 99990 and cheatMode = false" > "$tmp/matches.ndjson"
  end=$(now)
  python3 -c "b=$bytes; n=$lines; t=$end-$start; print(f'  {b/1e9:.2f} GB, {n:,} objects, {$(wc -l < "$tmp/matches.ndjson")} matches: peak RSS {$(cat "$tmp/rss")/1024:.1f} MB, {t:.1f} s, {b/1e6/t:.0f} MB/s, {n/t:,.0f} objects/s')"
fi
