"""The LeanCloud-shaped rows of bench.py: `cql eval` beside the DuckDB CLI
and jq on NDJSON shaped like a LeanCloud export of a Chinese app.

Why a data set of its own: the GameScore lines of bench.py hold only ASCII
strings and no typed values, the one form every fast path of `cql eval` takes.
A real export has on every line Chinese and mixed-script text, `createdAt` /
`updatedAt` strings, typed Dates, Pointers and GeoPoints (`{"__type": ...}`),
an `ACL` object and nested objects, in the service's own key order; these
rows measure that (issue 23).

Each row is labelled for the work it measures. The regex row's pattern has a
class, an alternation inside a group and `(?i)`, so the regex engine runs
(no literal prefix for the evaluator to turn into byte tests).
"""
import json
import os
import random
import subprocess
import time

# (label, CQL condition, DuckDB SQL condition, jq condition, written too?)
LEANCLOUD_FILTERS = [
    ("count: 2 predicates on an int and a bool (priority >= 4 and done = false)",
     "priority >= 4 and done = false", "priority >= 4 and done = false",
     ".priority >= 4 and .done == false", False),
    ("count: a typed Date range and an array holding a Chinese tag",
     "dueDate >= date('2024-03-01T00:00:00.000Z') and dueDate < date('2024-06-01T00:00:00.000Z') and tags = '旅行'",
     "dueDate.iso >= '2024-03-01T00:00:00.000Z' and dueDate.iso < '2024-06-01T00:00:00.000Z' and list_contains(tags, '旅行')",
     '.dueDate.iso >= "2024-03-01T00:00:00.000Z" and .dueDate.iso < "2024-06-01T00:00:00.000Z" and any(.tags[]; . == "旅行")',
     False),
    ("written: a dotted key, then the regex engine (class, alternation in a group, (?i)) on mixed-script text",
     "meta.source = 'ios' and title regexp '(?i)(trip|美食|café)\\s+[0-9]+'",
     "meta.source = 'ios' and regexp_matches(title, '(?i)(trip|美食|café)\\s+[0-9]+')",
     '.meta.source == "ios" and (.title | test("(trip|美食|café)\\\\s+[0-9]+"; "i"))', True),
]


# The two layouts every row runs on: compact, as LeanCloud's service and
# `JSON.stringify` write, and spaced, as Python's `json.dumps` writes by
# default (a space after every `,` and `:`), as LeanCloud's export examples show.
LAYOUTS = [("compact", (",", ":")), ("spaced", (", ", ": "))]


def generate_leancloud_ndjson(path, n, separators=(",", ":")):
    """Todo objects as a LeanCloud export writes them (keys in the service's
    order, not sorted; non-ASCII text as UTF-8, not escaped); the same
    objects for every `separators`."""
    rng = random.Random(23)
    places = ["北京", "上海", "广州", "深圳", "杭州", "成都", "Beijing", "Shanghai", "東京", "Paris"]
    things = ["旅行", "美食", "Trip", "TRIP", "café", "会议", "读书", "跑步 run", "购物", "电影 movie"]
    tags = ["旅行", "美食", "工作", "家庭", "学习", "健康", "travel", "food", "紧急", "😀"]
    sources = ["ios", "android", "web", "小程序"]
    users = ["%024x" % rng.getrandbits(96) for _ in range(200)]

    def iso(day_offset):
        t = 1_704_067_200 + day_offset  # 2024-01-01T00:00:00Z
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".%03dZ" % rng.randrange(1000)

    with open(path, "w", encoding="utf-8") as f:
        for i in range(n):
            created = rng.randrange(365 * 86400)
            owner = users[rng.randrange(len(users))]
            o = {
                "title": f"{rng.choice(places)} {rng.choice(things)} {rng.randrange(100)} 日记",
                "content": "今天" + rng.choice(places) + "的天气很好，我们去了" + rng.choice(things) + "。" + "Mixed script 内容 " * rng.randrange(3),
                "priority": rng.randrange(6),
                "done": rng.random() < 0.4,
                "tags": rng.sample(tags, rng.randrange(4)),
                "dueDate": {"__type": "Date", "iso": iso(rng.randrange(365 * 86400))},
                "author": {"__type": "Pointer", "className": "_User", "objectId": owner},
                "location": {"__type": "GeoPoint", "latitude": round(rng.uniform(22, 45), 4),
                             "longitude": round(rng.uniform(100, 125), 4)},
                "meta": {"source": rng.choice(sources), "version": rng.randrange(1, 9), "device": {"os": "13.1", "lang": "zh-CN"}},
                "ACL": {"*": {"read": True}, owner: {"read": True, "write": True}},
                "objectId": "%024x" % rng.getrandbits(96),
                "createdAt": iso(created),
                "updatedAt": iso(created + rng.randrange(86400)),
            }
            f.write(json.dumps(o, ensure_ascii=False, separators=separators) + "\n")


def timed_rss(argv, stdout):
    """Wall time and peak resident set (MB) of one process."""
    start = time.perf_counter()
    p = subprocess.Popen(argv, stdout=stdout, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    elapsed = time.perf_counter() - start
    err = p.stderr.read().decode()
    p.stderr.close()
    if status != 0:
        raise SystemExit(f"bench: {' '.join(argv)[:200]} exited {status}: {err[:500]}")
    return elapsed, usage.ru_maxrss / 1024


def leancloud_rows(cql, duckdb, work, objects, runs, add_row, lines):
    """Generates the data in each layout, times each filter with each tool
    (median of `runs`, the tools alternating), checks that they agree, adds
    the rows; returns the JSON summary."""
    summary = {"objects": objects, "filters": [], "cql_peak_rss_mb": 0.0, "layouts": {}}
    for layout, separators in LAYOUTS:
        data = os.path.join(work, f"Todo-{layout}.ndjson")
        generate_leancloud_ndjson(data, objects, separators)
        size_mb = os.path.getsize(data) / 1e6
        summary["layouts"][layout] = {"megabytes": round(size_mb, 2)}
        print(f"bench: LeanCloud-shaped Todo, {objects:,} objects, {layout} lines, {size_mb:.1f} MB of NDJSON", flush=True)
        layout_rows(cql, duckdb, work, data, layout, runs, add_row, lines, summary)
    summary["megabytes"] = summary["layouts"]["compact"]["megabytes"]
    return summary


def layout_rows(cql, duckdb, work, data, layout, runs, add_row, lines, summary):
    """The rows of one layout's file."""
    import statistics
    out = os.path.join(work, "lc-out.ndjson")
    duck_out = os.path.join(work, "lc-duck.ndjson")
    source = f"read_ndjson_auto('{data}')"
    for label, cond, sql, jqcond, written in LEANCLOUD_FILTERS:
        query = f"select * from Todo where {cond}"
        if written:
            tools = {
                "cql": ([cql, "eval", "--data", data, query], out),
                "DuckDB": ([duckdb, "-c", f"copy (select * from {source} where {sql}) to '{duck_out}' (format json)"], None),
                "jq": (["jq", "-c", f"select({jqcond})", data], out),
            }
        else:
            tools = {
                "cql": ([cql, "eval", "--data", data, "--count", query], out),
                "DuckDB": ([duckdb, "-csv", "-noheader", "-c", f"select count(*) from {source} where {sql}"], out),
                "jq": (["jq", "-n", f"reduce (inputs | select({jqcond})) as $o (0; . + 1)", data], out),
            }
        times = {t: [] for t in tools}
        matches = {}
        rss = 0.0
        for _ in range(runs):
            for tool, (argv, path) in tools.items():
                with open(path or os.devnull, "wb") as f:
                    elapsed, peak = timed_rss(argv, f)
                times[tool].append(elapsed)
                if tool == "cql":
                    rss = max(rss, peak)
                if written:
                    matches[tool] = lines(duck_out if tool == "DuckDB" else out)
                else:
                    text = open(out).read().strip()
                    matches[tool] = json.loads(text)["count"] if tool == "cql" else int(text)
            if len(set(matches.values())) != 1:
                raise SystemExit(f"bench: matches differ for {label}: {matches}")
        medians = {t: statistics.median(v) for t, v in times.items()}
        for tool in ("DuckDB", "jq"):
            add_row(f"LeanCloud Todo, {layout} lines, {label} ({matches['cql']:,} matches)", medians["cql"], tool, medians[tool])
        summary["cql_peak_rss_mb"] = max(summary["cql_peak_rss_mb"], rss)
        summary["filters"].append({"label": label, "layout": layout, "cql": query, "duckdb_where": sql, "jq_select": jqcond,
                                   "matches": matches["cql"], "written": written, "seconds": medians, "cql_peak_rss_mb": rss})
        print(f"  {layout}, {label}: {matches['cql']:,} matches; cql {medians['cql']:.3f}s (peak RSS {rss:.0f} MB) "
              f"duckdb {medians['DuckDB']:.3f}s jq {medians['jq']:.3f}s", flush=True)
