"""The SELECTs both `cql translate --lines` and sqlglot read, and the sqlglot
side of that benchmark (bench.py, bench_sql.py)."""
import random


def generate_queries(path, n):
    """SELECTs in the subset CQL and MySQL share, so both tools read one file."""
    rng = random.Random(3)
    words = ["dennis", "catty", "green", "blue", "alice"]
    templates = [
        lambda: f"select * from GameScore where score > {rng.randrange(1000)} and name = '{rng.choice(words)}' limit {rng.randrange(1, 100)}",
        lambda: f"select name, score from GameScore where level in ({rng.randrange(9)}, {rng.randrange(9)}, {rng.randrange(9)}) and cheatMode = false",
        lambda: f"select * from Player where name regexp '^{rng.choice(words)}' or (score >= {rng.randrange(100)} and level < {rng.randrange(10)})",
        lambda: f"select * from Todo where title like '%{rng.choice(words)}%' and priority != {rng.randrange(5)} order by createdAt desc limit 20",
    ]
    with open(path, "w") as f:
        for i in range(n):
            f.write(templates[i % len(templates)]() + "\n")


# One Python process transpiling every line from MySQL to PostgreSQL.
SQLGLOT_SCRIPT = (
    "import sys, sqlglot, sqlglot.parser\n"
    "compiled = sqlglot.parser.__file__.endswith('.so')\n"
    "out = sys.stdout\n"
    "for line in open(sys.argv[1]):\n"
    "    out.write(sqlglot.transpile(line, read='mysql', write='postgres')[0] + '\\n')\n"
    "sys.stderr.write('compiled=%s\\n' % compiled)\n")
