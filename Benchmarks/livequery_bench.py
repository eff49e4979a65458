#!/usr/bin/env python3
"""The LiveQuery section of scripts/bench (`scripts/bench --livequery`):
events delivered by two `cql serve --postgres` processes to N subscriptions
while writes come at a fixed rate, beside PostgreSQL's own floor, a bare
LISTEN/NOTIFY round trip measured in the same run on the same cluster.

Set-up: a private PostgreSQL 15 (bench_postgres.py: initdb in a temp dir,
fsync off) and two `cql serve --postgres` processes, A and B, on its one
database (LiveQuery across processes goes through LISTEN/NOTIFY: every
write's changes are sent with pg_notify in its transaction, and each
process matches what it hears).

Subscriptions (default N = 10,000 over C = 100 WebSockets, N/C each, one
installation id a WebSocket; the first C/2 WebSockets on A, the others on
B; the subscriptions of a WebSocket are made through the REST API of its
own process, POST /1.1/LiveQuery/subscribe in the C# SDK's body, anonymous;
frames on the lc.json.3 subprotocol):
  90%  {"room": "r<k>"}: 0.3 N rooms, three subscriptions each, on three
       WebSockets a third of C apart (so usually on both processes): the
       equality the server indexes, so a write looks at three of them.
  10%  {"score": j} for j in 0..0.1 N - 1: a number equality, indexed as
       a string one is, on one WebSocket each (round-robin).
Each write is a create of {"room": "r<k>", "score": j, "w": its number,
"t": its send time, "text": 120 bytes} with k and j uniform at random: it
matches exactly 4 subscriptions (0.04% of 10,000): 4 events.

Writes: Python http.client threads, kept-alive connections, alternately
through A and B (app key, no ACL: public). Fixed-rate phases (--rates,
default 100,200,500 writes/s) are open loop: write i is due at start + i/rate
and sent then (or as soon as a thread is free when the client is behind);
then two saturation phases of --threads threads writing back to back:
through A and B alternately, then all through A (B takes no writes: its
CPU a write is what hearing, matching and delivering costs alone). Each
phase lasts --seconds D, then the subscribers are given until their count
of events stops growing (at most 10 s).

What is measured, per phase:
  writes/s         answered creates (201) / the time from the first send to
                   the last answer.
  events/s         events received by the subscribers / the time from the
                   first send to the last event received.
  commit → frame   for each event, the time its frame was received (in the
                   subscriber process, before JSON decoding) minus the
                   commit time of the write's transaction as PostgreSQL
                   recorded it (the cluster runs with
                   track_commit_timestamp = on; pg_xact_commit_timestamp of
                   the row's xmin, read after the run). Same host, one clock
                   (PostgreSQL's gettimeofday and Python's time.time()).
  send → frame     frame minus the time the writer sent the create: the
                   create's own time in the server included.
  round trip       the create's answer minus its send (p50).
  lost             events expected (each answered write's 4 subscriptions,
                   counted per WebSocket) not received by the end of the
                   drain; extra: received more often than expected.
  RSS              each server's VmRSS after the phase, from /proc; the
                   line above the table has the RSS once the subscriptions
                   are made (idle) and the peak of the run (VmHWM).
  CPU              each server's CPU seconds in the phase, per write.

The floor (before the servers start, the same cluster): asyncpg (PyPI)
connections: two listeners on one channel (as A and B listen), notifiers
sending `SELECT pg_notify(channel, txid_current() || payload)` in
autocommit: one transaction each with an id (as one write has), whose
commit time is looked up afterwards the same way, and a payload of the
size a create's notification has (442 bytes of JSON): at each fixed rate
(open loop as above; commit → receipt and send → receipt, the receipt
being the listener's callback in this process's asyncio loop) and
saturated with --threads notifier connections (notifications delivered to
the two listeners per second).

Delivery alone (after the write phases, the same servers and subscribers):
the notifications a create sends, in the servers' own payload format
(LiveQueryNotifications.payload: the object's stored JSON as "a"), sent
by asyncpg with `SELECT pg_notify('cql_livequery', payload)` in autocommit
— no HTTP, no write path: what A and B hear is what they hear when a
create commits, so this measures LiveQuery's own part (hear, decode, match
10,000 subscriptions, frame, send) against the floor's bare
LISTEN/NOTIFY. Open loop at --delivery-rates (default 1000,2000,4000,8000
NOTIFY/s) for --delivery-seconds (default 10) each, then saturated: the
floor's saturated sender (--threads connections back to back) — the same
sender, PostgreSQL and payload size as the floor's saturated phase, only
the listeners differ; each notification matches 4 subscriptions, as a
create does. Latency is ack → frame: the
frame's receipt minus pg_notify's answer (its commit acknowledged; the
commit itself is a little earlier). "Kept up": every event received, and
the events a second within 5% of 4 × the rate.

Subscriber processes: one Python process for A's WebSockets and one for
B's (this script again, with --subscriber), so the client's reading is not
one process's GIL. Their WebSocket client is this script's own
(LeanWebSocket: RFC 6455's upgrade and frames, no more), and an event's
"w" is found in the frame's text rather than by decoding its JSON: per
message it does about what the floor's asyncpg listeners do per
notification (the correctness of events is the tests' business:
Tests/Clients/livequery_client.py).

The write path alone: before any subscription exists, one saturated
phase of creates (their NOTIFY sent and heard, nothing matching): the
ceiling the writes through A and B have without LiveQuery's delivery.

Usage: livequery_bench.py CQL [--subscriptions N] [--connections C]
       [--rates R1,R2] [--seconds D] [--threads T]
       [--delivery-rates R1,R2] [--delivery-seconds D]
CQL_BENCH_KEEP=1 keeps the temp dir (the servers' logs, the events).
Needs asyncpg in the Python running it (scripts/bench makes
.build-bench/lq-venv). Prints the rows (markdown) for BENCHMARKS.md.
"""
import asyncio
import base64
import http.client
import json
import os
import random
import re
import struct
import subprocess
import shutil
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
KEYS = {"CQL_APP_ID": "bench", "CQL_APP_KEY": "bench-key", "CQL_MASTER_KEY": "bench-master"}
APP_HEADERS = {"X-LC-Id": "bench", "X-LC-Key": "bench-key", "Content-Type": "application/json"}
CLASS = "LQBench"
CHANNEL = "lqbench_floor"
TEXT = "x" * 120


def option(args, name, default):
    return type(default)(args[args.index(name) + 1]) if name in args else default


def pct(xs, q):
    if not xs:
        return float("nan")
    return 1000 * xs[min(len(xs) - 1, int(q * len(xs)))]


# MARK: The subscriber process (one per server)

class LeanWebSocket(asyncio.Protocol):
    """A client WebSocket (RFC 6455) reduced to what the subscribers need:
    the upgrade offering lc.json.3, masked text frames out, and unmasked
    frames in (continuations joined), each message handed to `on_message`
    with the time its bytes were read. Lighter per frame than the
    `websockets` package (no future or task a message), as the floor's
    asyncpg listeners are per notification; the tests use `websockets`."""

    def __init__(self, port, on_message):
        self.port, self.on_message = port, on_message
        self.buf = bytearray()
        self.upgraded = asyncio.get_running_loop().create_future()
        self.parts, self.closed_code, self.transport = [], None, None

    def connection_made(self, transport):
        self.transport = transport
        key = base64.b64encode(os.urandom(16)).decode()
        transport.write((f"GET /livequery HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nUpgrade: websocket\r\n"
                         f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                         f"Sec-WebSocket-Protocol: lc.json.3\r\n\r\n").encode())

    def send_text(self, text):
        self.send(0x1, text.encode())

    def send(self, opcode, data):
        mask = os.urandom(4)
        n = len(data)
        head = bytes([0x80 | opcode]) + (bytes([0x80 | n]) if n < 126 else struct.pack("!BH", 0x80 | 126, n) if n < 65536
                                else struct.pack("!BQ", 0x80 | 127, n))
        masked = bytes(b ^ mask[k & 3] for k, b in enumerate(data))
        self.transport.write(head + mask + masked)

    def data_received(self, data):
        t = time.time()
        buf = self.buf
        buf += data
        if not self.upgraded.done():
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            status = bytes(buf[:end]).split(b"\r\n", 1)[0]
            del buf[:end + 4]
            if b" 101 " not in status:
                self.upgraded.set_exception(SystemExit(f"the upgrade was refused: {status!r}"))
                return
            self.upgraded.set_result(True)
        pos, size = 0, len(buf)
        while size - pos >= 2:
            b0, b1 = buf[pos], buf[pos + 1]
            n, head = b1 & 0x7F, 2
            if n == 126:
                if size - pos < 4:
                    break
                n, head = struct.unpack_from("!H", buf, pos + 2)[0], 4
            elif n == 127:
                if size - pos < 10:
                    break
                n, head = struct.unpack_from("!Q", buf, pos + 2)[0], 10
            if size - pos < head + n:
                break
            payload = bytes(buf[pos + head:pos + head + n])
            pos += head + n
            opcode = b0 & 0x0F
            if opcode in (0, 1, 2):
                self.parts.append(payload)
                if b0 & 0x80:
                    message = b"".join(self.parts) if len(self.parts) > 1 else payload
                    self.parts = []
                    self.on_message(message, t)
            elif opcode == 8:
                self.closed_code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
            elif opcode == 9:
                self.send(0xA, payload)  # the server pings every 60 s and closes (1001) a socket that does not answer
        del buf[:pos]


async def subscriber(port, spec_path, out_path):
    """Opens the WebSockets of spec (installation ids and their where's),
    logs in, subscribes through REST, then records (websocket, w, time) for
    every event until told "stop" on stdin; "count" prints the number so far.
    An event's w is read from the frame's text (each event's object has one
    "w"), not by decoding its JSON: as the floor's listeners, the reader
    does the least a client must."""
    from concurrent.futures import ThreadPoolExecutor
    with open(spec_path) as f:
        spec = json.load(f)
    loop = asyncio.get_running_loop()
    events = []
    sockets = []
    w_pattern = re.compile(rb'"w":(-?[0-9]+)')
    for n, conn in enumerate(spec):
        replies = asyncio.Queue()

        def on_message(message, t, n=n, replies=replies):
            if message.startswith(b'{"cmd":"data"'):
                for w in w_pattern.findall(message):
                    events.append((n, int(w), t))
            elif message != b"{}":
                replies.put_nowait(message)

        _, ws = await loop.create_connection(lambda on_message=on_message: LeanWebSocket(port, on_message), "127.0.0.1", port)
        await ws.upgraded
        ws.send_text(json.dumps({"cmd": "login", "appId": "bench", "i": 1, "installationId": conn["id"], "service": 1}))
        reply = json.loads(await replies.get())
        if reply.get("cmd") != "loggedin":
            raise SystemExit(f"login refused: {reply}")
        sockets.append(ws)

    local = threading.local()

    def subscribe(item):
        conn_id, where = item
        if not hasattr(local, "c"):
            local.c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        body = json.dumps({"query": {"className": CLASS, "where": where}, "id": conn_id,
                           "clientTimestamp": int(time.time() * 1000)})
        for _ in range(3):
            try:
                local.c.request("POST", "/1.1/LiveQuery/subscribe", body, APP_HEADERS)
                r = local.c.getresponse()
                data = r.read()
                return r.status, data
            except (http.client.HTTPException, OSError):
                local.c.close()
                local.c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        return 0, b""

    items = [(conn["id"], where) for conn in spec for where in conn["subs"]]
    began = time.time()
    with ThreadPoolExecutor(8) as pool:
        answers = await asyncio.get_running_loop().run_in_executor(None, lambda: list(pool.map(subscribe, items)))
    failed = [a for a in answers if a[0] != 200]
    subscribe_seconds = time.time() - began

    print(json.dumps({"ready": len(items) - len(failed), "failed": len(failed), "seconds": subscribe_seconds,
                      "first_failure": failed[0][1].decode(errors="replace")[:300] if failed else None}), flush=True)
    while True:
        line = (await loop.run_in_executor(None, sys.stdin.readline)).strip()
        if line == "count":
            closed = [n for n, ws in enumerate(sockets) if ws.closed_code is not None]
            print(json.dumps({"count": len(events), "closed": len(closed)}), flush=True)
        else:
            break
    closed = [(n, ws.closed_code) for n, ws in enumerate(sockets) if ws.closed_code is not None]
    with open(out_path, "w") as f:
        json.dump({"events": events, "closed": closed}, f)
    print(json.dumps({"done": True}), flush=True)
    for ws in sockets:
        ws.transport.close()


# MARK: The benchmark

def proc_status(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_for(port, failure):
    for _ in range(600):
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            c.request("GET", "/1.1/date")
            if c.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise SystemExit(failure)


class Writer:
    """Creates through A and B (alternately), recording each write's send and answer times."""

    def __init__(self, ports, seed):
        self.ports = ports
        self.rng = random.Random(seed)
        self.records = {}   # w -> (room, score, sent, answered) for answered creates
        self.errors = 0
        self.next_w = 0
        self.lock = threading.Lock()

    def run(self, rooms, scores, seconds, threads, rate=None, ports=None):
        """One phase: open loop at `rate` writes/s, else `threads` back to back, through
        `ports` (default: all, alternately); returns the w range."""
        ports = ports or self.ports
        first = self.next_w
        start = time.time() + 0.05
        stop = start + seconds
        total = int(rate * seconds) if rate else None

        def worker():
            conns = {p: http.client.HTTPConnection("127.0.0.1", p, timeout=30) for p in ports}
            while True:
                with self.lock:
                    w = self.next_w
                    if (total is not None and w - first >= total) or (total is None and time.time() >= stop):
                        break
                    self.next_w += 1
                    room, score = self.rng.randrange(rooms), self.rng.randrange(scores)
                if rate:
                    due = start + (w - first) / rate
                    delay = due - time.time()
                    if delay > 0:
                        time.sleep(delay)
                port = ports[w % len(ports)]
                sent = time.time()
                body = json.dumps({"room": f"r{room}", "score": score, "w": w, "t": sent, "text": TEXT})
                try:
                    conns[port].request("POST", f"/1.1/classes/{CLASS}", body, APP_HEADERS)
                    r = conns[port].getresponse()
                    r.read()
                    answered = time.time()
                    ok = r.status == 201
                except (http.client.HTTPException, OSError):
                    conns[port].close()
                    conns[port] = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                    ok = False
                with self.lock:
                    if ok:
                        self.records[w] = (room, score, sent, answered)
                    else:
                        self.errors += 1

        pool = [threading.Thread(target=worker) for _ in range(threads)]
        for t in pool:
            t.start()
        for t in pool:
            t.join()
        return range(first, self.next_w)


class Subscribers:
    def __init__(self, python, script, port, spec, tmp, name):
        self.spec_path = os.path.join(tmp, f"spec-{name}.json")
        self.out_path = os.path.join(tmp, f"events-{name}.json")
        with open(self.spec_path, "w") as f:
            json.dump(spec, f)
        self.p = subprocess.Popen([python, script, "--subscriber", str(port), self.spec_path, self.out_path],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def answer(self, line=None):
        if line:
            self.p.stdin.write(line + "\n")
            self.p.stdin.flush()
        out = self.p.stdout.readline()
        if not out:
            raise SystemExit("a subscriber process ended early")
        return json.loads(out)

    def finish(self):
        self.answer("stop")
        self.p.wait()
        with open(self.out_path) as f:
            return json.load(f)


def payload_like_servers():
    """A notification's payload as `cql serve` sends it for one create (LiveQueryNotifications.payload)."""
    obj = {"room": "r1234", "score": 567, "w": 123456, "t": time.time(), "text": TEXT, "objectId": "65f0c0ffee0123456789abcd",
           "createdAt": "2026-12-02T19:00:00.000Z", "updatedAt": "2026-12-02T19:00:00.000Z",
           "ACL": {"*": {"read": True, "write": True}}}
    return json.dumps({"c": [{"c": CLASS, "i": obj["objectId"], "a": json.dumps(obj, separators=(",", ":"))}]},
                      separators=(",", ":"))


async def send_open_loop(rate, seconds, send):
    """Open loop: send(i) is started at start + i / rate, each as its own
    task, for rate × seconds sends, whatever the answers' pace; returns start."""
    start = time.time() + 0.05
    tasks = []
    for i in range(int(rate * seconds)):
        delay = start + i / rate - time.time()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(send(i)))
    await asyncio.gather(*tasks)
    return start


async def send_back_to_back(pool, connections, seconds, send):
    """Saturated: `connections` connections of `pool`, each awaiting send(c)
    again and again until `seconds` have passed."""
    stop = time.time() + seconds

    async def loop():
        async with pool.acquire() as c:
            while time.time() < stop:
                await send(c)

    await asyncio.gather(*[loop() for _ in range(connections)])


async def floor(url, rates, seconds, threads):
    """Bare LISTEN/NOTIFY on the cluster: rows (label, notifications/s delivered, latency lists)."""
    import asyncpg
    base = payload_like_servers()
    received = [[], []]   # per listener: (seq, time)
    listeners = []
    for n in range(2):
        c = await asyncpg.connect(url)
        await c.add_listener(CHANNEL, lambda _c, _pid, _ch, payload, n=n: received[n].append((payload[:40], time.time())))
        listeners.append(c)
    pool = await asyncpg.create_pool(url, min_size=threads, max_size=threads)
    results = []
    seq = [0]

    def make_payload():
        seq[0] += 1
        return "%012d" % seq[0] + base[33:], seq[0]

    # The payload begins with the transaction's id (20 digits) and the
    # NOTIFY's number (12): txid_current() gives the transaction an id, as a
    # write has, and its commit time is looked up afterwards.
    notify = "SELECT pg_notify($1, lpad(txid_current()::text, 20, '0') || ':' || $2)"

    async def drain(expected):
        deadline = time.time() + 10
        last, since = -1, time.time()
        while time.time() < deadline:
            got = len(received[0]) + len(received[1])
            if got >= expected:
                return
            if got != last:
                last, since = got, time.time()
            elif time.time() - since > 2:
                return
            await asyncio.sleep(0.05)

    for rate in rates:
        sent, acked = {}, {}
        for r in received:
            r.clear()

        async def one(_i):
            p, s = make_payload()
            sent[s] = time.time()
            await pool.execute(notify, CHANNEL, p)
            acked[s] = time.time()

        start = await send_open_loop(rate, seconds, one)
        last_ack = max(acked.values())
        await drain(2 * len(acked))
        results.append(floor_row(f"{rate} NOTIFY/s", sent, acked, await commit_times(listeners[0], received), received, start, last_ack))

    sent, acked = {}, {}
    for r in received:
        r.clear()
    start = time.time()

    async def one_on(c):
        p, s = make_payload()
        sent[s] = time.time()
        await c.execute(notify, CHANNEL, p)
        acked[s] = time.time()

    await send_back_to_back(pool, threads, seconds, one_on)
    last_ack = max(acked.values())
    await drain(2 * len(acked))
    results.append(floor_row(f"saturated, {threads} connections", sent, acked, await commit_times(listeners[0], received), received,
                             start, last_ack))
    await pool.close()
    for c in listeners:
        await c.close()
    return results, len(base)


def server_payload(w, room, score, sent):
    """A create's notification as `cql serve` sends it (payload_like_servers), for write number w."""
    oid = "%024x" % w
    obj = {"room": f"r{room}", "score": score, "w": w, "t": sent, "text": TEXT, "objectId": oid,
           "createdAt": "2026-12-02T19:00:00.000Z", "updatedAt": "2026-12-02T19:00:00.000Z",
           "ACL": {"*": {"read": True, "write": True}}}
    return json.dumps({"c": [{"c": CLASS, "i": oid, "a": json.dumps(obj, separators=(",", ":"))}]}, separators=(",", ":"))


async def deliver(url, rate, seconds, first_w, rooms, scores, connections, rng):
    """Open loop: rate notifications a second on the servers' channel for
    `seconds`; rate None: saturated, `connections` connections sending back
    to back, as the floor's saturated phase does. Returns {w: (room, score, sent, acked)}."""
    import asyncpg
    pool = await asyncpg.create_pool(url, min_size=connections, max_size=connections)
    records = {}
    next_w = [first_w]

    async def one_on(c):
        w = next_w[0]
        next_w[0] += 1
        room, score, sent = rng.randrange(rooms), rng.randrange(scores), time.time()
        await c.execute("SELECT pg_notify('cql_livequery', $1)", server_payload(w, room, score, sent))
        records[w] = (room, score, sent, time.time())

    if rate is None:
        await send_back_to_back(pool, connections, seconds, one_on)
    else:
        await send_open_loop(rate, seconds, lambda _i: one_on(pool))
    await pool.close()
    return records


async def commit_times(conn, received):
    """xid → commit time (s) of the transactions whose notifications were received."""
    xids = sorted({int(p[:20]) for r in received for p, _ in r})
    rows = await conn.fetch("SELECT x, extract(epoch FROM pg_xact_commit_timestamp(x::text::xid))::float8 AS t "
                            "FROM unnest($1::bigint[]) AS x", xids)
    return {r["x"]: r["t"] for r in rows}


def floor_row(label, sent, acked, commits, received, start, last_ack):
    lat_commit, lat_sent, last = [], [], start
    for r in received:
        for p, t in r:
            s = int(p[21:33])
            if s in acked:
                lat_commit.append(t - commits[int(p[:20])])
                lat_sent.append(t - sent[s])
                last = max(last, t)
    lat_commit.sort()
    lat_sent.sort()
    delivered = len(lat_sent)
    trips = sorted(acked[s] - sent[s] for s in acked)
    return {"label": label, "writes": len(acked), "writes_per_s": len(acked) / (last_ack - start),
            "events": delivered, "expected": 2 * len(acked), "events_per_s": delivered / (last - start),
            "p50": pct(lat_commit, .5), "p99": pct(lat_commit, .99), "sent_p50": pct(lat_sent, .5), "sent_p99": pct(lat_sent, .99),
            "trip_p50": pct(trips, .5)}


async def write_commit_times(url):
    """w → commit time (s) of every create (track_commit_timestamp is on)."""
    import asyncpg
    c = await asyncpg.connect(url)
    rows = await c.fetch(f'SELECT (doc->>\'w\')::bigint AS w, extract(epoch FROM pg_xact_commit_timestamp(xmin))::float8 AS t '
                         f'FROM "{CLASS}"')
    await c.close()
    return {r["w"]: r["t"] for r in rows}


def drain(subscribers, expected, seconds):
    """Waits until the subscribers' count of events reaches `expected`, stops growing for 1 s, or `seconds` pass."""
    deadline, last, since = time.time() + seconds, -1, time.time()
    while time.time() < deadline:
        got = sum(s.answer("count")["count"] for s in subscribers)
        if got >= expected:
            return
        if got != last:
            last, since = got, time.time()
        elif time.time() - since > 1:
            return
        time.sleep(0.1)


def tally(want_conns, heard):
    """(lost, extra): the events expected on each WebSocket (a list of WebSocket numbers,
    one per event) against those heard ((websocket, time) pairs)."""
    want, have = {}, {}
    for c in want_conns:
        want[c] = want.get(c, 0) + 1
    for c, _ in heard:
        have[c] = have.get(c, 0) + 1
    lost = sum(max(0, want.get(c, 0) - have.get(c, 0)) for c in set(want) | set(have))
    extra = sum(max(0, have.get(c, 0) - want.get(c, 0)) for c in set(want) | set(have))
    return lost, extra


def main(cql, args):
    import bench_postgres
    subs_total = option(args, "--subscriptions", 10_000)
    conns = option(args, "--connections", 100)
    rates = [int(r) for r in option(args, "--rates", "100,200,500").split(",") if r]
    seconds = option(args, "--seconds", 15.0)
    threads = option(args, "--threads", 16)
    delivery_rates = [int(r) for r in option(args, "--delivery-rates", "1000,2000,4000,8000").split(",") if r]
    delivery_seconds = option(args, "--delivery-seconds", 10.0)
    per_conn = subs_total // conns
    if per_conn > 200:
        raise SystemExit("at most 200 subscriptions an installation id: give more --connections")
    rooms = max(1, int(subs_total * 0.9) // 3)
    scores = subs_total - 3 * rooms
    # The subscriptions of each WebSocket: room k's three copies a third of C apart, scores round-robin.
    spec = [{"id": f"lqbench-{c:05d}", "subs": []} for c in range(conns)]
    for k in range(rooms):
        for copy in range(3):
            spec[(k + copy * max(1, conns // 3)) % conns]["subs"].append({"room": f"r{k}"})
    for j in range(scores):
        spec[j % conns]["subs"].append({"score": j})
    room_conns = {}
    for c, conn in enumerate(spec):
        for where in conn["subs"]:
            if "room" in where:
                room_conns.setdefault(int(where["room"][1:]), []).append(c)
    score_conn = {j: j % conns for j in range(scores)}

    pg = bench_postgres.start("-c track_commit_timestamp=on")
    if pg is None:
        raise SystemExit("livequery bench: no private PostgreSQL 15 could start")
    url, stop_pg = pg
    tmp = tempfile.mkdtemp(prefix="cql-lq-bench-")
    servers, subscribers = [], []
    print(f"LiveQuery bench: {subs_total:,} subscriptions on {conns} WebSockets ({per_conn} each), two cql serve processes, "
          f"PostgreSQL {url}; phases of {seconds:g} s at {rates} writes/s, then saturated ({threads} threads)", flush=True)
    try:
        floor_rows, payload_bytes = asyncio.run(floor(url, rates, seconds, threads))
        for r in floor_rows:
            print(f"  floor {r['label']}: {r['writes_per_s']:,.0f}/s sent, {r['events_per_s']:,.0f}/s delivered, "
                  f"{r['expected'] - r['events']} lost, p50 {r['p50']:.2f} p99 {r['p99']:.2f} ms", flush=True)
        ports = [bench_postgres.free_port(), bench_postgres.free_port()]
        for port in ports:
            servers.append(subprocess.Popen([cql, "serve", "--postgres", url, "--port", str(port)], env={**os.environ, **KEYS},
                                            cwd=tmp, stdout=subprocess.DEVNULL,
                                            stderr=open(os.path.join(tmp, f"serve-{port}.log"), "w")))
        for port in ports:
            wait_for(port, "a cql serve did not start")
        # The class exists before the subscribers come (its first create makes it).
        c = http.client.HTTPConnection("127.0.0.1", ports[0])
        c.request("POST", f"/1.1/classes/{CLASS}", json.dumps({"room": "none", "score": -1, "w": -1}), APP_HEADERS)
        warm = c.getresponse()
        if warm.status != 201:
            raise SystemExit(f"the first create failed: {warm.status} {warm.read()[:300]}")
        # The write path's own ceiling: saturated creates before any subscription
        # exists (the NOTIFY is still sent and heard; nothing matches).
        writer = Writer(ports, seed=42)
        cpu0 = [cpu_seconds(p.pid) for p in servers]
        ws0 = writer.run(rooms, scores, seconds, threads, None, None)
        answered0 = [writer.records[w] for w in ws0 if w in writer.records]
        span0 = max(r[3] for r in answered0) - min(r[2] for r in answered0)
        trips0 = sorted(r[3] - r[2] for r in answered0)
        unsubscribed = {"writes_per_s": len(answered0) / span0, "trip_p50": pct(trips0, .5),
                        "cpu_us": [1e6 * (cpu_seconds(p.pid) - c0) / len(answered0) for p, c0 in zip(servers, cpu0)],
                        "rss": [proc_status(p.pid, "VmRSS") for p in servers]}
        print(f"  phase saturated, no subscriptions: {len(answered0):,} writes answered", flush=True)
        python = sys.executable
        script = os.path.abspath(__file__)
        half = conns // 2
        subscribers.append(Subscribers(python, script, ports[0], spec[:half], tmp, "A"))
        subscribers.append(Subscribers(python, script, ports[1], spec[half:], tmp, "B"))
        offsets = [0, half]
        for name, s in zip("AB", subscribers):
            ready = s.answer()
            print(f"  subscribers on {name}: {ready['ready']:,} subscribed in {ready['seconds']:.1f} s, {ready['failed']} refused"
                  + (f" (first: {ready['first_failure']})" if ready["failed"] else ""), flush=True)
        rss_idle = [proc_status(p.pid, "VmRSS") for p in servers]
        print(f"  RSS with the subscriptions made, idle: A {rss_idle[0]:.0f} MB, B {rss_idle[1]:.0f} MB", flush=True)

        phases = []
        # Fixed rates, saturated through both, then saturated through A only
        # (B then only listens and delivers: its CPU a write is delivery's own).
        for rate, through in [(r, None) for r in rates] + [(None, None), (None, ports[:1])]:
            cpu0 = [cpu_seconds(p.pid) for p in servers]
            began = time.time()
            ws = writer.run(rooms, scores, seconds, threads if rate is None else max(threads, 4), rate, through)
            answered = [w for w in ws if w in writer.records]
            expected = sum(len(room_conns.get(writer.records[w][0], [])) + 1 for w in answered)
            base = sum(p["expected_total"] for p in phases) if phases else 0
            drain(subscribers, base + expected, 10)
            cpu = [cpu_seconds(p.pid) - c0 for p, c0 in zip(servers, cpu0)]
            rss = [proc_status(p.pid, "VmRSS") for p in servers]
            phases.append({"rate": rate, "only_a": through is not None, "ws": ws, "expected_total": base + expected, "began": began, "cpu": cpu, "rss": rss,
                           "answered": len(answered)})
            print(f"  phase {rate or 'saturated'}{' through A' if through else ''}: {len(answered):,} writes answered, {writer.errors} errors so far", flush=True)

        # Delivery alone: the servers' own notifications, no write path.
        deliveries = []
        rng = random.Random(7)
        for rate in delivery_rates + [None]:
            cpu0 = [cpu_seconds(p.pid) for p in servers]
            first_w = 10_000_000 * (len(deliveries) + 1)
            records = asyncio.run(deliver(url, rate, delivery_seconds, first_w, rooms, scores, threads, rng))
            expected = sum(len(room_conns.get(r[0], [])) + 1 for r in records.values())
            drain(subscribers, phases[-1]["expected_total"] + sum(d["expected"] for d in deliveries) + expected, 15)
            cpu = [cpu_seconds(p.pid) - c0 for p, c0 in zip(servers, cpu0)]
            rss = [proc_status(p.pid, "VmRSS") for p in servers]
            deliveries.append({"rate": rate, "records": records, "expected": expected, "cpu": cpu, "rss": rss})
            print(f"  delivery {rate or 'saturated'} NOTIFY/s: {len(records):,} sent", flush=True)

        results = [s.finish() for s in subscribers]
        subscribers = []
        hwm = [proc_status(p.pid, "VmHWM") for p in servers]
        commits = asyncio.run(write_commit_times(url))
        # Events per (WebSocket, w), and their times.
        got = {}
        closed = []
        for offset, res in zip(offsets, results):
            closed += res["closed"]
            for n, w, t in res["events"]:
                got.setdefault(w, []).append((n + offset, t))
        rows = []
        for ph in phases:
            lat_commit, lat_sent, lost, extra, delivered, trips = [], [], 0, 0, 0, []
            first_sent = min((writer.records[w][2] for w in ph["ws"] if w in writer.records), default=ph["began"])
            last_answer = max((writer.records[w][3] for w in ph["ws"] if w in writer.records), default=first_sent)
            last_event = first_sent
            for w in ph["ws"]:
                if w not in writer.records:
                    continue
                room, score, sent, answered = writer.records[w]
                trips.append(answered - sent)
                for c, t in got.get(w, []):
                    lat_commit.append(t - commits[w])
                    lat_sent.append(t - sent)
                    last_event = max(last_event, t)
                    delivered += 1
                lost_w, extra_w = tally(room_conns.get(room, []) + [score_conn[score]], got.get(w, []))
                lost, extra = lost + lost_w, extra + extra_w
            lat_commit.sort()
            trips.sort()
            lat_sent.sort()
            span = last_answer - first_sent
            rows.append({"label": f"{ph['rate']} writes/s" if ph["rate"] else f"saturated, {threads} writer threads"
                         + (", all through A (B only delivers)" if ph["only_a"] else ""),
                         "writes_per_s": ph["answered"] / span if span > 0 else 0, "events": delivered,
                         "events_per_s": delivered / (last_event - first_sent) if last_event > first_sent else 0,
                         "p50": pct(lat_commit, .5), "p99": pct(lat_commit, .99),
                         "trip_p50": pct(trips, .5), "sent_p50": pct(lat_sent, .5),
                         "sent_p99": pct(lat_sent, .99), "lost": lost, "extra": extra,
                         "cpu_us": [1e6 * c / max(1, ph["answered"]) for c in ph["cpu"]], "rss": ph["rss"]})
        delivery_rows = []
        for d in deliveries:
            lat, lost, extra, delivered = [], 0, 0, 0
            records = d["records"]
            first_sent = min(r[2] for r in records.values())
            last_ack = max(r[3] for r in records.values())
            last_event = first_sent
            for w, (room, score, sent, acked) in records.items():
                for c, t in got.get(w, []):
                    lat.append(t - acked)
                    last_event = max(last_event, t)
                    delivered += 1
                lost_w, extra_w = tally(room_conns.get(room, []) + [score_conn[score]], got.get(w, []))
                lost, extra = lost + lost_w, extra + extra_w
            lat.sort()
            sent_per_s = len(records) / (last_ack - first_sent)
            events_per_s = delivered / (last_event - first_sent) if last_event > first_sent else 0
            delivery_rows.append({"rate": d["rate"], "sent_per_s": sent_per_s, "events": delivered, "events_per_s": events_per_s,
                                  "p50": pct(lat, .5), "p99": pct(lat, .99), "lost": lost, "extra": extra,
                                  "cpu_us": [1e6 * c / max(1, len(records)) for c in d["cpu"]], "rss": d["rss"],
                                  "kept_up": lost == 0 and events_per_s >= 0.95 * 4 * sent_per_s})
        print()
        print(f"{subs_total:,} subscriptions ({3 * rooms:,} on a room, {scores:,} on a score), {conns} WebSockets, "
              f"each write matching 4; NOTIFY payload {payload_bytes} bytes; RSS idle with the subscriptions A {rss_idle[0]:.0f} / B "
              f"{rss_idle[1]:.0f} MB, peak (VmHWM) A {hwm[0]:.0f} / B {hwm[1]:.0f} MB"
              + (f"; WebSockets closed by the server: {closed}" if closed else ""))
        print()
        print("| work | writes/s | delivered/s | commit → frame p50 / p99 | send → frame p50 / p99 | write's round trip p50 "
              "| lost | server CPU a write A / B | RSS A / B |")
        print("|---|---|---|---|---|---|---|---|---|")
        for r in floor_rows:
            print(f"| bare NOTIFY, {r['label']}, 2 listeners | {r['writes_per_s']:,.0f} | {r['events_per_s']:,.0f} notifications | "
                  f"{r['p50']:.2f} / {r['p99']:.2f} ms | {r['sent_p50']:.2f} / {r['sent_p99']:.2f} ms | {r['trip_p50']:.2f} ms | "
                  f"{r['expected'] - r['events']} of {r['expected']:,} | | |")
        u = unsubscribed
        print(f"| cql serve ×2, saturated, {threads} writer threads, before any subscription (the write path alone) | "
              f"{u['writes_per_s']:,.0f} | none | | | {u['trip_p50']:.2f} ms | | {u['cpu_us'][0]:,.0f} / {u['cpu_us'][1]:,.0f} µs | "
              f"{u['rss'][0]:.0f} / {u['rss'][1]:.0f} MB |")
        for r in rows:
            print(f"| cql serve ×2, {r['label']} | {r['writes_per_s']:,.0f} | {r['events_per_s']:,.0f} events | "
                  f"{r['p50']:.2f} / {r['p99']:.2f} ms | {r['sent_p50']:.2f} / {r['sent_p99']:.2f} ms | {r['trip_p50']:.2f} ms | "
                  f"{r['lost']} of {r['events'] - r['extra'] + r['lost']:,}" + (f" (+{r['extra']} extra)" if r["extra"] else "")
                  + f" | {r['cpu_us'][0]:,.0f} / {r['cpu_us'][1]:,.0f} µs | {r['rss'][0]:.0f} / {r['rss'][1]:.0f} MB |")
        print()
        print("Delivery alone: the servers' own notifications sent with pg_notify (no HTTP, no write path), heard by A and B:")
        print()
        print("| work | NOTIFY/s sent | events/s delivered | ack → frame p50 / p99 | lost | kept up | server CPU a notification A / B | RSS A / B |")
        print("|---|---|---|---|---|---|---|---|")
        for r in delivery_rows:
            label = f"{r['rate']:,} NOTIFY/s" if r["rate"] else f"saturated, {threads} connections"
            print(f"| cql serve ×2, delivery alone, {label} | {r['sent_per_s']:,.0f} | {r['events_per_s']:,.0f} | "
                  f"{r['p50']:.2f} / {r['p99']:.2f} ms | {r['lost']} of {r['events'] - r['extra'] + r['lost']:,}"
                  + (f" (+{r['extra']} extra)" if r["extra"] else "")
                  + f" | {'yes' if r['kept_up'] else 'no'} | {r['cpu_us'][0]:,.0f} / {r['cpu_us'][1]:,.0f} µs | "
                  f"{r['rss'][0]:.0f} / {r['rss'][1]:.0f} MB |")
        # The goals of issue 42, item 8, as this run found them.
        print()
        at500 = next((r for r in rows if r["label"] == "500 writes/s"), None)
        if at500:
            print(f"- p99 under 50 ms at 500 writes/s: commit → frame p99 {at500['p99']:.1f} ms at {at500['writes_per_s']:,.0f} "
                  f"writes/s achieved: {'met' if at500['p99'] < 50 and at500['writes_per_s'] >= 490 else 'not met'}")
        cql_max, pg_max = rows[-2], floor_rows[-1]
        print(f"- through creates (saturated): {cql_max['writes_per_s']:,.0f} writes/s ({cql_max['events_per_s']:,.0f} events/s) "
              f"with the 10,000 subscriptions, {unsubscribed['writes_per_s']:,.0f} writes/s before any: the write path's ceiling "
              f"({cql_max['writes_per_s'] / unsubscribed['writes_per_s']:.2f} of it kept), against {pg_max['writes_per_s']:,.0f} "
              f"NOTIFY/s ({pg_max['events_per_s']:,.0f} notifications/s): events/notifications "
              f"{cql_max['events_per_s'] / pg_max['events_per_s']:.2f}")
        saturated = next((r for r in delivery_rows if r["rate"] is None), None)
        if saturated:
            ratio = saturated["events_per_s"] / pg_max["events_per_s"]
            print(f"- event throughput at least half of bare NOTIFY's (delivery alone, saturated, the floor's sender and "
                  f"connections; two cql serve and their WebSockets instead of two asyncpg listeners): "
                  f"{saturated['events_per_s']:,.0f} events/s delivered against the floor's {pg_max['events_per_s']:,.0f} "
                  f"notifications/s delivered: {ratio:.2f}, {'met' if ratio >= 0.5 and saturated['lost'] == 0 else 'not met'} "
                  f"({saturated['lost']} lost; by NOTIFY/s sent, {saturated['sent_per_s']:,.0f} against {pg_max['writes_per_s']:,.0f}: "
                  f"{saturated['sent_per_s'] / pg_max['writes_per_s']:.2f}, each notification making 4 events here and 2 deliveries there)")
        print(f"- server RSS under 300 MB: peak A {hwm[0]:.0f} MB, B {hwm[1]:.0f} MB: {'met' if max(hwm) < 300 else 'not met'}")
    finally:
        for s in subscribers:
            s.p.kill()
        for p in servers:
            p.terminate()
        for p in servers:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
        stop_pg()
        if os.environ.get("CQL_BENCH_KEEP"):
            print(f"  kept {tmp} (server logs, events)")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    if sys.argv[1] == "--subscriber":
        asyncio.run(subscriber(int(sys.argv[2]), sys.argv[3], sys.argv[4]))
    else:
        main(sys.argv[1], sys.argv[2:])
