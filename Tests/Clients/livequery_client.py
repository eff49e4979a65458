#!/usr/bin/env python3
"""A LiveQuery client of LeanCloud's wire protocol, against `cql serve`.

Usage: livequery_client.py <subprotocol>   (lc.protobuf2.3, lc.proto2base64.3, lc.json.3)
The server is $LEANCLOUD_API_SERVER; keys in $CQL_APP_ID, $CQL_APP_KEY, $CQL_MASTER_KEY.

It speaks what LeanCloud's SDKs send: GET /v1/route, a WebSocket with the
subprotocol, login (cmd 8 with appId, i, installationId, service 1), then
the REST subscribe (the JS body for protobuf, Java's for base64 — where as a
string, returnACL "true" — and C#'s for JSON, the session in the body). The
protobuf messages are declared here from the field numbers of LeanCloud's
protocol (not from the server's .proto), so both sides are checked.

Prints one JSON line per check: {"assert": name, "ok": bool, "detail": ...}.
"""
import asyncio
import base64
import json
import os
import sys
import time
import urllib.error
import urllib.request
import uuid

import websockets
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

SERVER = os.environ["LEANCLOUD_API_SERVER"]
APP_ID = os.environ["CQL_APP_ID"]
APP_KEY = os.environ["CQL_APP_KEY"]
MASTER_KEY = os.environ["CQL_MASTER_KEY"]
WAIT = 10.0


def messages():
    f = descriptor_pb2.FileDescriptorProto(name="lq_client.proto", package="push_server.messages2", syntax="proto2")
    e = f.enum_type.add(name="CommandType")
    for name, number in [("session", 0), ("ack", 3), ("error", 7), ("login", 8), ("data", 9), ("echo", 14),
                         ("loggedin", 15), ("logout", 16), ("loggedout", 17), ("goaway", 21)]:
        e.value.add(name=name, number=number)
    T = descriptor_pb2.FieldDescriptorProto
    opt, req, rep = T.LABEL_OPTIONAL, T.LABEL_REQUIRED, T.LABEL_REPEATED

    def message(name, fields):
        m = f.message_type.add(name=name)
        for fname, number, ftype, label, type_name in fields:
            field = m.field.add(name=fname, number=number, type=ftype, label=label)
            if type_name:
                field.type_name = ".push_server.messages2." + type_name

    message("JsonObjectMessage", [("data", 1, T.TYPE_STRING, req, None)])
    message("DataCommand", [("ids", 1, T.TYPE_STRING, rep, None), ("msg", 2, T.TYPE_MESSAGE, rep, "JsonObjectMessage"),
                            ("offline", 3, T.TYPE_BOOL, opt, None)])
    message("ErrorCommand", [("code", 1, T.TYPE_INT32, req, None), ("reason", 2, T.TYPE_STRING, req, None)])
    message("AckCommand", [("ids", 10, T.TYPE_STRING, rep, None)])
    message("GenericCommand", [
        ("cmd", 1, T.TYPE_ENUM, opt, "CommandType"), ("appId", 3, T.TYPE_STRING, opt, None),
        ("i", 5, T.TYPE_INT32, opt, None), ("installationId", 6, T.TYPE_STRING, opt, None),
        ("service", 8, T.TYPE_INT32, opt, None), ("serverTs", 9, T.TYPE_INT64, opt, None),
        ("clientTs", 10, T.TYPE_INT64, opt, None),
        ("dataMessage", 101, T.TYPE_MESSAGE, opt, "DataCommand"), ("errorMessage", 103, T.TYPE_MESSAGE, opt, "ErrorCommand"),
        ("ackMessage", 105, T.TYPE_MESSAGE, opt, "AckCommand")])
    pool = descriptor_pool.DescriptorPool()
    pool.Add(f)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("push_server.messages2.GenericCommand"))


GenericCommand = messages()
CMD_NAMES = {v.number: v.name for v in GenericCommand.DESCRIPTOR.fields_by_name["cmd"].enum_type.values}
CMD_NUMBERS = {name: number for number, name in CMD_NAMES.items()}

results = []


def check(name, ok, detail=None):
    line = {"assert": name, "ok": bool(ok), "detail": detail}
    results.append(line)
    print(json.dumps(line), flush=True)


def rest(method, path, body=None, session=None, master=False):
    headers = {"X-LC-Id": APP_ID, "X-LC-Key": MASTER_KEY + ",master" if master else APP_KEY, "Content-Type": "application/json"}
    if session:
        headers["X-LC-Session"] = session
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(SERVER + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=WAIT) as r:
            return r.status, json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


class Client:
    """One WebSocket, as an SDK holds it: one installation id, its subscriptions."""

    def __init__(self, wire, installation_id, session=None):
        self.wire = wire
        self.id = installation_id
        self.session = session
        self.serial = 0
        self.events = []

    async def connect(self, url):
        self.ws = await websockets.connect(url, subprotocols=[self.wire], max_size=None)
        return self.ws.subprotocol

    async def send(self, **fields):
        if self.wire == "lc.json.3":
            await self.ws.send(json.dumps(fields))
            return
        c = GenericCommand()
        for k, v in fields.items():
            if k == "cmd":
                c.cmd = CMD_NUMBERS[v]
            elif k == "ackMessage":
                c.ackMessage.ids.extend(v["ids"])
            else:
                setattr(c, k, v)
        raw = c.SerializeToString()
        await self.ws.send(raw if self.wire == "lc.protobuf2.3" else base64.b64encode(raw).decode())

    def decode(self, frame):
        if self.wire == "lc.json.3":
            if isinstance(frame, bytes):
                raise ValueError("a binary frame on lc.json.3")
            d = json.loads(frame)
            if d.get("cmd") == "data":
                d["events"] = d["dataMessage"]["msg"]
            return d
        if self.wire == "lc.protobuf2.3":
            if not isinstance(frame, bytes):
                raise ValueError("a text frame on lc.protobuf2.3")
            raw = frame
        else:
            if isinstance(frame, bytes):
                raise ValueError("a binary frame on lc.proto2base64.3")
            raw = base64.b64decode(frame)
        c = GenericCommand()
        c.ParseFromString(raw)
        d = {"cmd": CMD_NAMES.get(c.cmd)}
        for k in ["i", "installationId", "service", "appId"]:
            if c.HasField(k):
                d[k] = getattr(c, k)
        if c.HasField("errorMessage"):
            d["errorMessage"] = {"code": c.errorMessage.code, "reason": c.errorMessage.reason}
        if c.HasField("dataMessage"):
            d["ids"] = list(c.dataMessage.ids)
            d["events"] = [json.loads(m.data) for m in c.dataMessage.msg]
        return d

    async def command(self, timeout=WAIT):
        """The next command that is not data (data is kept in self.events)."""
        deadline = time.monotonic() + timeout
        while True:
            frame = await asyncio.wait_for(self.ws.recv(), max(0.01, deadline - time.monotonic()))
            if frame == "{}" and self.wire == "lc.json.3":
                return {"keepAlive": True}
            d = self.decode(frame)
            if d.get("cmd") == "data":
                await self.received(d)
                continue
            return d

    async def received(self, d):
        if d.get("installationId") != self.id:
            check("data routed by installationId", False, d)
        self.events.extend(d["events"])
        if self.wire != "lc.json.3" and d.get("ids"):
            # The JS SDK acks every data command; delivery never waits for it.
            await self.send(cmd="ack", appId=APP_ID, installationId=self.id, service=1, ackMessage={"ids": d["ids"]})

    async def login(self):
        self.serial += 1
        await self.send(cmd="login", appId=APP_ID, i=self.serial, installationId=self.id, service=1)
        return await self.command(), self.serial

    async def until(self, predicate, timeout=WAIT):
        """Reads data until some event satisfies predicate; True when one did."""
        deadline = time.monotonic() + timeout
        while not any(predicate(e) for e in self.events):
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            try:
                frame = await asyncio.wait_for(self.ws.recv(), left)
            except asyncio.TimeoutError:
                return False
            d = self.decode(frame)
            if d.get("cmd") == "data":
                await self.received(d)
        return True

    def subscribe(self, class_name, where, keys=None, include=None):
        """The REST subscribe, in the body shape of this subprotocol's SDK."""
        if self.wire == "lc.protobuf2.3":  # JavaScript: session header, where an object
            query = {"className": class_name, "where": where, "returnACL": False}
            if keys:
                query["keys"] = keys
            if include:
                query["include"] = include
            return rest("POST", "/1.1/LiveQuery/subscribe", {"query": query, "id": self.id}, session=self.session)
        if self.wire == "lc.proto2base64.3":  # Java: where a JSON string, returnACL "true"
            query = {"className": class_name, "where": json.dumps(where), "limit": "100", "returnACL": "true"}
            body = {"query": query, "id": self.id}
        else:  # C#: the session and clientTimestamp in the body
            body = {"query": {"className": class_name, "where": where}, "id": self.id, "clientTimestamp": int(time.time() * 1000)}
        if include:  # Java, C# and Swift send include as "a,b.c"; the JS SDK too
            body["query"]["include"] = include
        if self.session:
            body["sessionToken"] = self.session
        return rest("POST", "/1.1/LiveQuery/subscribe", body)


def ops(client, query_id=None):
    return [(e["op"], e["object"].get("title") or e["object"]["objectId"]) for e in client.events
            if query_id is None or e["query_id"] == query_id]


async def main(wire):
    tag = uuid.uuid4().hex[:8]
    cls = "LQ" + tag
    status, route = rest("GET", "/v1/route?appId=%s&secure=1&features=&server=&_t=1" % APP_ID)
    url = route.get("server", "")
    check("route", status == 200 and url.startswith("ws://") and "ttl" in route and "secondary" in route, route)

    def user(name):
        s, u = rest("POST", "/1.1/users", {"username": name + tag, "password": "pw-" + tag})
        return u["objectId"], u["sessionToken"]

    alice_id, alice = user("alice")
    bob_id, bob = user("bob")
    carol_id, carol = user("carol")
    s, role = rest("POST", "/1.1/roles", {"name": "staff" + tag, "ACL": {"*": {"read": True}},
                                          "users": {"__op": "AddRelation", "objects": [
                                              {"__type": "Pointer", "className": "_User", "objectId": carol_id}]}}, master=True)
    check("role made", s == 201, role)

    a = Client(wire, "a-" + tag, alice)
    b = Client(wire, "b-" + tag, bob)
    c = Client(wire, "c-" + tag, carol)
    p = Client(wire, "p-" + tag)
    for client in [a, b, c, p]:
        chosen = await client.connect(url)
        reply, i = await client.login()
        check("loggedin " + client.id[0], chosen == wire and reply.get("cmd") == "loggedin" and reply.get("i") == i
              and reply.get("service") == 1, reply)
    subs = {}
    for client in [a, b, c, p]:
        s, answer = client.subscribe(cls, {"list": "L"})
        subs[client.id[0]] = answer.get("query_id")
        check("subscribe " + client.id[0], s == 200 and answer.get("query_id"), answer)
    s, answer = a.subscribe(cls, {"score": {"$gt": 10}})
    high = answer.get("query_id")
    check("second subscription", s == 200 and high and high != subs["a"], answer)

    def write(method, path, body):
        s, r = rest(method, path, body, master=True)
        if s not in (200, 201):
            check("write " + path, False, r)
        return r

    base = "/1.1/classes/" + cls
    o1 = write("POST", base, {"list": "L", "title": "shared", "score": 1})["objectId"]
    write("PUT", base + "/" + o1, {"title": "shared2"})
    write("PUT", base + "/" + o1, {"score": 20})   # a's second: enter
    write("PUT", base + "/" + o1, {"score": 5})    # a's second: leave
    write("POST", base, {"list": "L", "title": "private", "ACL": {alice_id: {"read": True, "write": True}}})
    write("POST", base, {"list": "L", "title": "staff", "ACL": {"role:staff" + tag: {"read": True}}})
    write("POST", base, {"list": "other", "title": "elsewhere"})
    # o1 moves out of everyone's reach but alice's.
    write("PUT", base + "/" + o1, {"title": "secret", "ACL": {alice_id: {"read": True, "write": True}}})
    write("DELETE", base + "/" + o1, None)
    marker = write("POST", base, {"list": "L", "title": "marker"})["objectId"]
    for client in [a, b, c, p]:
        check("marker " + client.id[0], await client.until(lambda e: e["object"]["objectId"] == marker), ops(client))

    check("alice heard", ops(a, subs["a"]) == [("create", "shared"), ("update", "shared2"), ("update", "shared2"), ("update", "shared2"),
                                                ("create", "private"), ("update", "secret"), ("delete", "secret"), ("create", "marker")],
          ops(a, subs["a"]))
    check("alice's second heard enter and leave", [e["op"] for e in a.events if e["query_id"] == high] == ["enter", "leave"],
          [e for e in a.events if e["query_id"] == high])
    enter = next((e for e in a.events if e["query_id"] == high), {})
    check("enter carries updatedKeys and the object", enter.get("updatedKeys") == ["score"] and enter["object"].get("score") == 20
          and enter["object"].get("className") == cls, enter)
    create = a.events[0]
    check("create has no updatedKeys", "updatedKeys" not in create and create["object"].get("createdAt") is not None, create)
    update = a.events[1]
    check("update's updatedKeys", update.get("updatedKeys") == ["title"], update)
    expected_outside = [("create", "shared"), ("update", "shared2"), ("update", "shared2"), ("update", "shared2"), ("leave", o1),
                        ("create", "marker")]
    check("bob heard nothing private", ops(b) == expected_outside, ops(b))
    check("anonymous heard nothing private", ops(p) == expected_outside, ops(p))
    check("carol heard the role's", ops(c) == expected_outside[:4] + [("create", "staff"), ("leave", o1), ("create", "marker")], ops(c))
    leave = next(e for e in b.events if e["op"] == "leave")
    check("leave without its new content", set(leave["object"].keys()) == {"className", "objectId"} and leave.get("updatedKeys") == [],
          leave)
    if wire == "lc.proto2base64.3":
        check("returnACL as Java sends it", all("ACL" in e["object"] for e in b.events if e["op"] != "leave"), b.events[0])
    else:
        check("no ACL unless asked", all("ACL" not in e["object"] for e in b.events), b.events[0])

    # Carol leaves the role: the role's object is hers no more (nothing about it
    # reaches her), and what stays public still does, in order.
    staff = next(e["object"]["objectId"] for e in c.events if e["object"].get("title") == "staff")
    c.events.clear()
    s, r = rest("PUT", "/1.1/roles/" + role["objectId"], {"users": {"__op": "RemoveRelation", "objects": [
        {"__type": "Pointer", "className": "_User", "objectId": carol_id}]}}, master=True)
    check("role left", s == 200, r)
    write("PUT", base + "/" + staff, {"title": "staff2"})
    write("PUT", base + "/" + marker, {"title": "after-role"})
    check("roles computed again", await c.until(lambda e: e["object"].get("title") == "after-role")
          and ops(c) == [("update", "after-role")], ops(c))
    for client in [a, b, p]:
        await client.until(lambda e: e["object"].get("title") == "after-role")
        client.events.clear()

    # Keep-alives: echo (JS), a WebSocket ping (Swift, Java), C#'s {}.
    a.serial += 1
    await a.send(cmd="echo", i=a.serial)
    reply = await a.command()
    check("echo", reply.get("cmd") == "echo" and reply.get("i") == a.serial, reply)
    pong = await a.ws.ping()
    await asyncio.wait_for(pong, WAIT)
    check("ping", True)
    if wire == "lc.json.3":
        await a.ws.send("{}")
        check("C# keep-alive", await a.command() == {"keepAlive": True})
    # Malformed input is an error command, and the connection lives on.
    await a.ws.send(b"\xff\xff\xff" if wire == "lc.protobuf2.3" else "%%%not a command")
    reply = await a.command()
    check("malformed frame", reply.get("cmd") == "error" and reply["errorMessage"]["code"] == 4300, reply)

    # Unsubscribe the second query: no more enter for it.
    s, answer = rest("POST", "/1.1/LiveQuery/unsubscribe", {"id": a.id, "query_id": high})
    check("unsubscribe", s == 200 and answer == {}, answer)
    a.events.clear()
    write("PUT", base + "/" + marker, {"score": 50, "title": "marker2"})
    check("after unsubscribe", await a.until(lambda e: e["object"].get("title") == "marker2")
          and [e["op"] for e in a.events] == ["update"], a.events)

    # Reconnect: a new WebSocket, login, the same subscribe again (same query id), no duplicates.
    await p.ws.close()
    p.events.clear()
    await p.connect(url)
    reply, _ = await p.login()
    s, answer = p.subscribe(cls, {"list": "L"})
    check("re-subscribe after reconnect: same query_id", s == 200 and answer.get("query_id") == subs["p"], answer)
    s, answer = p.subscribe(cls, {"list": "L"})
    write("PUT", base + "/" + marker, {"title": "marker3"})
    check("events after reconnect, once", await p.until(lambda e: e["object"].get("title") == "marker3")
          and ops(p) == [("update", "marker3")], ops(p))

    # The old renew ping: 200 while it exists, 404 once gone.
    s1, _ = rest("POST", "/1.1/LiveQuery/subscribe/ping", {"id": p.id, "query_id": subs["p"]})
    rest("POST", "/1.1/LiveQuery/unsubscribe", {"id": p.id, "query_id": subs["p"]})
    s2, _ = rest("POST", "/1.1/LiveQuery/subscribe/ping", {"id": p.id, "query_id": subs["p"]})
    check("renew ping", s1 == 200 and s2 == 404, [s1, s2])

    # What LiveQuery cannot serve is refused by name.
    s, answer = a.subscribe(cls, {"owner": {"$inQuery": {"className": "_User", "where": {}}}})
    check("inner query refused", s == 400 and answer.get("code") == 102, answer)

    # include: each event's pointed objects as that subscriber's find reads
    # them (a private one stays a bare Pointer, a user without secrets).
    icls, tcls = "LQI" + tag, "LQT" + tag

    def ptr(c, i):
        return {"__type": "Pointer", "className": c, "objectId": i}

    t_private = write("POST", "/1.1/classes/" + tcls, {"title": "alice's", "ACL": {alice_id: {"read": True}}})["objectId"]
    t_public = write("POST", "/1.1/classes/" + tcls, {"title": "everyone's", "inner": ptr(tcls, t_private)})["objectId"]
    inc = {}
    for client in [a, b]:
        s, answer = client.subscribe(icls, {"kind": "inc"}, include="author,open.inner,closed")
        inc[client.id[0]] = answer.get("query_id")
        check("subscribe with include " + client.id[0], s == 200 and answer.get("query_id"), answer)
    made = write("POST", "/1.1/classes/" + icls, {"kind": "inc", "title": "with-include", "author": ptr("_User", alice_id),
                                                  "open": ptr(tcls, t_public), "closed": ptr(tcls, t_private)})["objectId"]
    # What each subscriber's own find with the same include answers now.
    acl = "&returnACL=true" if wire == "lc.proto2base64.3" else ""
    finds = {client.id[0]: rest("GET", "/1.1/classes/%s/%s?include=author,open.inner,closed%s" % (icls, made, acl), session=client.session)[1]
             for client in [a, b]}
    write("PUT", "/1.1/classes/" + icls + "/" + made, {"title": "with-include2"})
    write("DELETE", "/1.1/classes/" + icls + "/" + made, None)

    def included(client):
        return [e for e in client.events if e.get("query_id") == inc[client.id[0]]]

    for client in [a, b]:
        heard = await client.until(lambda e: e.get("query_id") == inc[client.id[0]] and e["op"] == "delete")
        check("include: create, update, delete " + client.id[0], heard and [e["op"] for e in included(client)] == ["create", "update", "delete"],
              included(client))
    for client, reads_private in [(a, True), (b, False)]:
        created = next((e["object"] for e in included(client) if e["op"] == "create"), {})
        check("include as the subscriber's find " + client.id[0],
              {k: v for k, v in created.items() if k != "className"} == finds[client.id[0]], [created, finds[client.id[0]]])
        for e in included(client):
            o = e["object"]
            author, opened, closed = o.get("author", {}), o.get("open", {}), o.get("closed", {})
            check("included user without secrets " + client.id[0] + " " + e["op"],
                  author.get("__type") == "Pointer" and author.get("className") == "_User" and author.get("objectId") == alice_id
                  and author.get("username") == "alice" + tag and not {"password", "salt", "sessionToken"} & set(author), author)
            check("included public object " + client.id[0] + " " + e["op"],
                  opened.get("__type") == "Pointer" and opened.get("title") == "everyone's", opened)
            if reads_private:
                check("included private object, its reader " + client.id[0] + " " + e["op"],
                      closed.get("title") == "alice's" and opened.get("inner", {}).get("title") == "alice's", o)
            else:
                check("private object a bare Pointer " + client.id[0] + " " + e["op"],
                      closed == ptr(tcls, t_private) and opened.get("inner") == ptr(tcls, t_private), o)

    # logout: loggedout with the same i.
    a.serial += 1
    await a.send(cmd="logout", i=a.serial)
    reply = await a.command()
    check("logout", reply.get("cmd") == "loggedout" and reply.get("i") == a.serial, reply)

    # A wrong app id: error, then close code 4100 (fatal to the JS SDK).
    bad = Client(wire, "x-" + tag)
    await bad.connect(url)
    await bad.send(cmd="login", appId="not-the-app", i=1, installationId=bad.id, service=1)
    reply = await bad.command()
    try:
        await asyncio.wait_for(bad.ws.recv(), WAIT)
        code = None
    except websockets.ConnectionClosed as e:
        code = e.rcvd.code if e.rcvd else None
    check("wrong appId", reply.get("cmd") == "error" and reply["errorMessage"]["code"] == 4100 and code == 4100, [reply, code])

    # A frame over the limit closes the connection (1009), the server lives on.
    big = Client(wire, "y-" + tag)
    await big.connect(url)
    try:
        await big.ws.send(("x" * 70000) if wire != "lc.protobuf2.3" else b"\x00" * 70000)
        await asyncio.wait_for(big.ws.recv(), WAIT)
        code = None
    except websockets.ConnectionClosed as e:
        code = e.rcvd.code if e.rcvd else None
    check("oversized frame closed", code == 1009, code)
    s, _ = rest("GET", "/v1/route?appId=" + APP_ID)
    check("server alive", s == 200)

    for client in [a, b, c, p]:
        await client.ws.close()


if __name__ == "__main__":
    try:
        asyncio.run(main(sys.argv[1]))
    except Exception as e:  # a failure is an assert, with what happened
        import traceback
        check("client ran", False, traceback.format_exc())
        sys.exit(1)
