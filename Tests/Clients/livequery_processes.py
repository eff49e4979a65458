#!/usr/bin/env python3
"""LiveQuery across two `cql serve --postgres` processes on one database.

Usage: livequery_processes.py events|resume
Subscribers connect to and subscribe through process A ($LEANCLOUD_API_SERVER);
every write goes through process B ($CQL_WRITE_SERVER). Keys in $CQL_APP_ID,
$CQL_APP_KEY, $CQL_MASTER_KEY. The WebSocket and commands are
livequery_client.py's (the JavaScript SDK's lc.protobuf2.3 frames).

events: create / update / delete reach A's subscribers with their content, a
large object (its notification spilled to a table) too, and a private object
(ACL for alice only) reaches alice and no one else.
resume: after the listener's connection was lost (the test terminated it or
restarted PostgreSQL), a subscriber on A hears B's writes again.

Prints one JSON line per check: {"assert": name, "ok": bool, "detail": ...}.
"""
import asyncio
import json
import os
import sys
import time
import urllib.error
import urllib.request
import uuid

import websockets

import livequery_client as lq
from livequery_client import check, Client

WRITER = os.environ["CQL_WRITE_SERVER"]
WIRE = "lc.protobuf2.3"


def rest_b(method, path, body=None, master=True):
    """A request to process B (the writer)."""
    headers = {"X-LC-Id": lq.APP_ID, "X-LC-Key": lq.MASTER_KEY + ",master" if master else lq.APP_KEY,
               "Content-Type": "application/json"}
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(WRITER + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=lq.WAIT) as r:
            return r.status, json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def write(method, path, body=None):
    s, r = rest_b(method, path, body)
    if s not in (200, 201):
        check("write through B " + method + " " + path, False, [s, r])
    return r


def route():
    s, r = lq.rest("GET", "/v1/route?appId=%s&secure=1" % lq.APP_ID)
    return r.get("server", "")


async def events():
    tag = uuid.uuid4().hex[:8]
    cls = "LP" + tag
    started = time.monotonic()
    url = route()

    def user(name):
        s, u = rest_b("POST", "/1.1/users", {"username": name + tag, "password": "pw-" + tag}, master=False)
        return u["objectId"], u["sessionToken"]

    alice_id, alice = user("alice")
    bob_id, bob = user("bob")
    a = Client(WIRE, "a-" + tag, alice)
    b = Client(WIRE, "b-" + tag, bob)
    p = Client(WIRE, "p-" + tag)
    for client in [a, b, p]:
        await client.connect(url)
        reply, _ = await client.login()
        check("loggedin on A " + client.id[0], reply.get("cmd") == "loggedin", reply)
        s, answer = client.subscribe(cls, {"list": "L"})
        check("subscribed on A " + client.id[0], s == 200 and answer.get("query_id"), answer)

    base = "/1.1/classes/" + cls
    t0 = time.monotonic()
    shared = write("POST", base, {"list": "L", "title": "shared", "score": 1})["objectId"]
    write("PUT", base + "/" + shared, {"title": "shared2"})
    private = write("POST", base, {"list": "L", "title": "private", "ACL": {alice_id: {"read": True, "write": True}}})["objectId"]
    big = write("POST", base, {"list": "L", "title": "big", "text": "x" * 9000})["objectId"]
    write("POST", base, {"list": "other", "title": "elsewhere"})
    write("DELETE", base + "/" + shared)
    marker = write("POST", base, {"list": "L", "title": "marker"})["objectId"]
    for client in [a, b, p]:
        check("marker heard on A " + client.id[0], await client.until(lambda e: e["object"]["objectId"] == marker), lq.ops(client))
    elapsed = time.monotonic() - t0

    def heard(client):
        return [(e["op"], e["object"]["objectId"]) for e in client.events]

    everyone = [("create", shared), ("update", shared), ("create", big), ("delete", shared), ("create", marker)]
    with_private = everyone[:2] + [("create", private)] + everyone[2:]
    check("alice heard B's writes, the private one included", heard(a) == with_private, lq.ops(a))
    check("bob heard B's writes, not the private one", heard(b) == everyone, lq.ops(b))
    check("anonymous heard B's writes, not the private one", heard(p) == everyone, lq.ops(p))
    for name, client in [("bob", b), ("anonymous", p)]:
        check(name + ": no trace of the private object", private not in json.dumps(client.events), client.events)
    create = a.events[0]
    check("create's content", create["op"] == "create" and create["object"].get("title") == "shared"
          and create["object"].get("score") == 1 and create["object"].get("className") == cls
          and create["object"].get("createdAt") and "updatedKeys" not in create, create)
    update = a.events[1]
    check("update's content and updatedKeys", update["op"] == "update" and update["object"].get("title") == "shared2"
          and update["object"].get("score") == 1 and update.get("updatedKeys") == ["title"], update)
    private_event = a.events[2]
    check("alice's private create", private_event["object"].get("title") == "private", private_event)
    large = next((e for e in b.events if e["object"]["objectId"] == big), {})
    check("a large object (notification spilled to a table) arrives whole", large.get("object", {}).get("text") == "x" * 9000,
          {k: v for k, v in large.get("object", {}).items() if k != "text"})
    delete = next((e for e in b.events if e["op"] == "delete"), {})
    check("delete's content", delete.get("object", {}).get("objectId") == shared and delete["object"].get("className") == cls, delete)
    # Latency: one write at a time through B, each until its event reaches A.
    probe = write("POST", base, {"list": "L", "title": "probe", "n": 0})["objectId"]
    await p.until(lambda e: e["object"]["objectId"] == probe)
    trips, delays = [], []
    for n in range(1, 31):
        sent = time.monotonic()
        write("PUT", base + "/" + probe, {"n": n})
        answered = time.monotonic()
        if not await p.until(lambda e: e["object"].get("n") == n):
            check("latency probe " + str(n), False, lq.ops(p))
            break
        heard = time.monotonic()
        trips.append(answered - sent)
        delays.append(heard - sent)

    latency_done = time.monotonic()
    # Order: writes to one object alternately through A and B; A's subscriber
    # hears them in commit order (one source: every process's NOTIFY).
    for n in range(31, 51):
        if n % 2:
            s, r = lq.rest("PUT", base + "/" + probe, {"n": n}, master=True)
            if s != 200:
                check("write through A", False, [s, r])
        else:
            write("PUT", base + "/" + probe, {"n": n})
    await p.until(lambda e: e["object"].get("n") == 50)
    order = [e["object"]["n"] for e in p.events if e["object"].get("objectId") == probe and e["object"].get("n", 0) > 30]
    check("writes through A and B heard in commit order", order == list(range(31, 51)), order)
    sections = {"until the latency probe": round(latency_done - started, 2), "order": round(time.monotonic() - latency_done, 2)}

    def pct(xs, q):
        xs = sorted(xs)
        return round(1000 * xs[min(len(xs) - 1, int(q * len(xs)))], 2) if xs else None

    check("timing", len(delays) == 30, {"seconds for 7 writes through B and every event at A": round(elapsed, 3),
                                        "ms from a write sent to B to its event at A, p50/p90/max": [pct(delays, .5), pct(delays, .9), pct(delays, 1)],
                                        "ms of the write's own round trip to B, p50/p90": [pct(trips, .5), pct(trips, .9)],
                                        "seconds": sections})
    for client in [a, b, p]:
        await client.ws.close()


async def resume():
    """A subscriber on A hears B's writes again (the listener reconnected).
    A connection made before the listener was back is closed (4409): it then
    connects and subscribes again, as the SDKs do."""
    tag = uuid.uuid4().hex[:8]
    cls = "LR" + tag
    base = "/1.1/classes/" + cls
    deadline = time.monotonic() + 20
    attempts, got, closes = 0, None, []
    while got is None and time.monotonic() < deadline:
        attempts += 1
        c = Client(WIRE, "r-" + tag)
        try:
            await c.connect(route())
            await c.login()
            s, answer = c.subscribe(cls, {"n": attempts})
            if s != 200:
                await asyncio.sleep(0.3)
                continue
            s, r = rest_b("POST", base, {"n": attempts, "title": "after"})
            if s != 201:
                await asyncio.sleep(0.3)
                continue
            if await c.until(lambda e: e["object"].get("n") == attempts, timeout=2):
                got = next(e for e in c.events if e["object"].get("n") == attempts)
            await c.ws.close()
        except websockets.ConnectionClosed as e:
            closes.append(e.rcvd.code if e.rcvd else None)
        except (OSError, asyncio.TimeoutError) as e:
            closes.append(str(e))
            await asyncio.sleep(0.3)
    check("events resume after the listener's outage", got is not None and got["op"] == "create"
          and got["object"].get("title") == "after",
          {"attempts": attempts, "closes": closes, "event": got, "seconds": round(time.monotonic() - deadline + 20, 2)})


if __name__ == "__main__":
    try:
        asyncio.run({"events": events, "resume": resume}[sys.argv[1]]())
    except Exception:
        import traceback
        check("client ran", False, traceback.format_exc())
        sys.exit(1)
