"""The LeanCloud Python SDK (PyPI `leancloud` 3.0.2) against `cql serve`.

Run by Tests/CQLServerTests/PythonSDKTests.swift with LEANCLOUD_API_SERVER
pointing at a fresh server and CQL_APP_ID / CQL_APP_KEY / CQL_MASTER_KEY.
Prints one JSON line per check:
  {"query": NAME, "className": C, "params": <the SDK's own query.dump()>, "ids": [...], "count": N}
      the Swift test evaluates params with the in-memory evaluator (what
      `cql eval` runs) over the same objects and compares the ids (in order);
  {"assert": NAME, "ok": true|false, "detail": ...}
      a check of an SDK call's outcome.
Any exception ends the script with a non-zero status.

Phases, one run each (argv[1]): `queries` saves the objects and runs
every query (the test then reads the objects the queries saw); `writes`
runs the ops, conditional saves, scan and destroy_all on them; `users`
(on a fresh server) the user flows; `files` the file flows; `acl` ACLs
and roles as the SDK sets them (users' sessions, a role with members);
`compat` the flows where LeanCloud's answers were matched (a stale cached
session, anonymous login then registration, a relation's query on an
object the SDK does not know the relation of).
"""
import datetime
import json
import os
import sys

import leancloud
from leancloud import LeanCloudError, Object, Query, GeoPoint

leancloud.init(os.environ["CQL_APP_ID"], app_key=os.environ["CQL_APP_KEY"], master_key=os.environ["CQL_MASTER_KEY"])
leancloud.use_master_key(False)

Todo = Object.extend("Todo")
Person = Object.extend("Person")


def emit(obj):
    print(json.dumps(obj, ensure_ascii=False, sort_keys=True), flush=True)


def check(name, ok, detail=None):
    emit({"assert": name, "ok": bool(ok), "detail": detail})


def record(name, query):
    ids = [o.id for o in query.find()]
    emit({"query": name, "className": query._query_class._class_name, "params": query.dump(), "ids": ids, "count": query.count()})


PHASE = sys.argv[1] if len(sys.argv) > 1 else "queries"


def refused(name, code, call):
    """`call()` must fail with LeanCloud error `code`."""
    try:
        call()
        check(name, False)
    except LeanCloudError as e:
        check(name, e.code == code, e.code)


def refused_save(name, cls, object_id, key, value, code):
    """Saving `key = value` on the object `object_id` must fail with `code`."""
    change = cls.create_without_data(object_id)
    change.set(key, value)
    refused(name, code, change.save)


def q():
    return Query(Todo)


if PHASE == "queries":
    # save, save_all, fetch
    ann = Person(name="Ann", age=31)
    ann.save()
    bob = Person(name="Bob", age=25)
    carl = Person(name="Carl", age=40)
    Person.save_all([bob, carl])
    check("save_all gives ids", bob.id and carl.id, [bob.id, carl.id])

    base = datetime.datetime(2026, 11, 1, tzinfo=datetime.timezone.utc)
    todos = []
    titles = ["买牛奶", "写代码", "Write tests", "read a book", "寄快递", "call mom", "Pay bills", "学习 Swift", "Bob", "买菜"]
    for i, title in enumerate(titles):
        t = Todo()
        t.set("title", title)
        t.set("priority", i % 5)
        t.set("done", i % 3 == 0)
        t.set("tags", ["home", "shop"][: (i % 3)])
        t.set("due", base + datetime.timedelta(days=i))
        t.set("location", GeoPoint(30 + i * 0.1, 120 + i * 0.1))
        t.set("owner", [ann, bob, carl][i % 3])
        if i % 4 == 0:
            t.set("note", "注意 %d" % i)
        todos.append(t)
    Todo.save_all(todos)
    first = todos[0]

    fetched = Todo.create_without_data(first.id)
    fetched.fetch()
    check("fetch", fetched.get("title") == "买牛奶" and fetched.get("priority") == 0, fetched.get("title"))
    check("fetch typed date", isinstance(fetched.get("due"), datetime.datetime), str(fetched.get("due")))
    check("fetch pointer", fetched.get("owner").id == ann.id, fetched.get("owner").id)
    got = Query(Todo).get(first.id)
    check("query get", got.get("title") == "买牛奶", got.get("title"))
    # An unknown id answers {}: the SDK's get gives an object with no data.
    missing = Query(Todo).get("000000000000000000000000")
    check("get missing is empty", missing.get("title") is None and missing.created_at is None, missing.get("title"))
    try:
        Query(Todo).equal_to("title", "no such title").first()
        check("first of nothing raises", False)
    except LeanCloudError as e:
        check("first of nothing raises", e.code == 101, e.code)


    record("equal_to", q().equal_to("priority", 2))
    record("not_equal_to", q().not_equal_to("priority", 2).ascending("priority").add_ascending("title"))
    record("less_than", q().less_than("priority", 2).descending("due"))
    record("less_than_or_equal_to", q().less_than_or_equal_to("priority", 2).ascending("due"))
    record("greater_than", q().greater_than("due", base + datetime.timedelta(days=4)).ascending("due"))
    record("greater_than_or_equal_to", q().greater_than_or_equal_to("priority", 3).add_descending("priority").add_ascending("title"))
    record("contained_in", q().contained_in("title", ["买牛奶", "Bob", "nothing"]).ascending("title"))
    record("not_contained_in", q().not_contained_in("priority", [0, 1]).ascending("title"))
    record("contains_all", q().contains_all("tags", ["home", "shop"]).ascending("title"))
    record("exists", q().exists("note").ascending("title"))
    record("does_not_exist", q().does_not_exist("note").ascending("title"))
    record("size_equal_to", q().size_equal_to("tags", 1).ascending("title"))
    record("startswith", q().startswith("title", "买").ascending("title"))
    record("endswith", q().endswith("title", "s").ascending("title"))
    record("contains", q().contains("title", "a").ascending("title"))
    record("matched", q().matched("title", "^w", ignore_case=True).ascending("title"))
    record("near", q().near("location", GeoPoint(30.5, 120.5)).limit(3))
    record("within_kilometers", q().within_kilometers("location", GeoPoint(30, 120), 50).ascending("title"))
    record("within_geo_box", q().within_geo_box("location", GeoPoint(30.15, 120.15), GeoPoint(30.55, 120.55)).ascending("title"))
    record("or_", Query.or_(q().equal_to("priority", 1), q().equal_to("done", True)).ascending("title"))
    record("and_", Query.and_(q().greater_than("priority", 0), q().equal_to("done", False)).ascending("title"))
    record("limit_skip", q().ascending("due").skip(2).limit(3))
    record("select", q().select("title", "priority").ascending("title").limit(4))
    adults = Query(Person).greater_than("age", 30)
    record("matches_query", q().matches_query("owner", adults).ascending("title"))
    record("does_not_match_query", q().does_not_match_query("owner", adults).ascending("title"))
    record("matches_key_in_query", q().matches_key_in_query("title", "name", Query(Person)).ascending("title"))
    record("does_not_match_key_in_query", q().does_not_match_key_in_query("title", "name", Query(Person)).ascending("title"))


elif PHASE == "writes":
    first = Query(Todo).equal_to("title", "买牛奶").first()
    ann = Query(Person).equal_to("name", "Ann").first()
    todos = Query(Todo).ascending("due").find()
    # include: the pointer comes back as a whole object
    inc = q().include("owner").equal_to("objectId", first.id).first()
    check("include", inc.get("owner").get("name") == "Ann", inc.get("owner").get("name"))
    check("count", q().equal_to("done", True).count() == 4, q().equal_to("done", True).count())
    check("first", q().ascending("due").first().id == first.id)

    # cloud queries
    r = Query.do_cloud_query("select * from Todo where priority = ? order by title", 1)
    check("cloud query pvalues", [o.get("title") for o in r.results] == sorted(t.get("title") for t in todos if t.get("priority") == 1), [o.get("title") for o in r.results])
    check("cloud query className", r.class_name == "Todo", r.class_name)
    r = Query.do_cloud_query("select count(*) from Todo where done = ?", True)
    check("cloud query count", r.count == 4, r.count)
    try:
        Query.do_cloud_query("select * frm Todo")
        check("cloud query syntax error", False)
    except LeanCloudError as e:
        check("cloud query syntax error", e.code == 300 and "1:" in e.error, [e.code, e.error])

    # ops
    t = Todo.create_without_data(first.id)
    t.increment("priority", 5)
    t.add("tags", "work")
    t.save(fetch_when_save=True)
    check("increment with fetch_when_save", t.get("priority") == 5 and t.get("tags") == ["work"], [t.get("priority"), t.get("tags")])
    t = Todo.create_without_data(first.id)
    t.add_unique("tags", "home")
    t.add_unique("tags", "work")
    t.save()
    t.fetch()
    check("add_unique", t.get("tags") == ["work", "home"], t.get("tags"))
    t = Todo.create_without_data(first.id)
    t.remove("tags", "work")
    t.unset("note")
    t.save()
    t.fetch()
    check("remove and unset", t.get("tags") == ["home"] and t.get("note") is None, [t.get("tags"), t.get("note")])

    # conditional save: 305 when the condition does not hold
    t = Todo.create_without_data(first.id)
    t.increment("priority", 1)
    try:
        t.save(where=Query(Todo).less_than("priority", 5))
        check("conditional save refused", False)
    except LeanCloudError as e:
        check("conditional save refused", e.code == 305, e.code)
    t = Todo.create_without_data(first.id)
    t.increment("priority", 1)
    t.save(where=Query(Todo).greater_than_or_equal_to("priority", 5), fetch_when_save=True)
    check("conditional save", t.get("priority") == 6, t.get("priority"))

    # scan (master key) visits every object once
    leancloud.use_master_key(True)
    seen = [o.id for o in Query(Todo).scan(batch_size=3)]
    check("scan", sorted(seen) == sorted(x.id for x in todos) and len(seen) == len(set(seen)), len(seen))
    leancloud.use_master_key(False)

    # destroy_all
    Todo.destroy_all(todos[-2:])
    check("destroy_all", q().count() == len(todos) - 2, q().count())
    check("server date", isinstance(leancloud.client.get_server_time(), datetime.datetime))

if PHASE == "users":
    # A third phase: the SDK's user flows (sign-up, login, become, current
    # user, update own user, refresh token, update password, logout).
    from leancloud import User

    ann = User()
    ann.set_username("ann")
    ann.set_password("pw-ann")
    ann.set_email("ann@example.com")
    ann.sign_up()
    token = ann.get_session_token()
    check("sign_up gives a session", bool(ann.id) and bool(token), [ann.id, token])
    check("sign_up makes the current user", User.get_current() is not None and User.get_current().id == ann.id)
    check("sign_up keeps no password", ann.get("password") is None)
    try:
        User().sign_up("ann", "other")
        check("taken username", False)
    except LeanCloudError as e:
        check("taken username", e.code == 202, e.code)

    User.set_current(None)
    refused("wrong password", 210, lambda: User().login("ann", "wrong"))
    refused("no such user", 211, lambda: User().login("nobody", "x"))
    me = User()
    me.login("ann", "pw-ann")
    check("login", me.id == ann.id and me.get_session_token() and me.get_session_token() != token, me.id)
    by_email = User()
    by_email.login(email="ann@example.com", password="pw-ann")
    check("login by email", by_email.id == ann.id)

    became = User.become(token)
    check("become", became.id == ann.id and became.get_username() == "ann" and became.get_session_token() == token)
    check("is_authenticated", became.is_authenticated())

    # update own user (the current user's session goes with the request)
    became.set("nickname", "Annie")
    became.save()
    fetched = Query(User).get(ann.id)
    check("update own user", fetched.get("nickname") == "Annie", fetched.get("nickname"))

    # another user cannot change ann
    bob = User()
    bob.sign_up("bob", "pw-bob")
    refused_save("another user cannot change ann", User, ann.id, "nickname", "hacked", 206)

    # refresh: the old token stops working
    became = User.become(token)
    became.refresh_session_token()
    fresh = became.get_session_token()
    check("refresh gives a new token", fresh and fresh != token, fresh)
    try:
        User.become(token)
        check("old token retired", False)
    except LeanCloudError as e:
        check("old token retired", e.code == 211, e.code)
    check("new token works", User.become(fresh).id == ann.id)

    # update password: a new token, the new password logs in, the old does not
    current = User.become(fresh)
    try:
        current.update_password("wrong", "pw-new")
        check("update_password with a wrong old password", False)
    except LeanCloudError as e:
        check("update_password with a wrong old password", e.code == 210, e.code)
    current.update_password("pw-ann", "pw-new")
    check("update_password gives a token", current.get_session_token() and current.get_session_token() != fresh)
    check("after update_password the session works", User.become(current.get_session_token()).id == ann.id)
    refused("old password refused", 210, lambda: User().login("ann", "pw-ann"))
    again = User()
    again.login("ann", "pw-new")
    check("new password logs in", again.id == ann.id)

    # logout: the SDK forgets the user; requests are anonymous again
    again.logout()
    check("logout", User.get_current() is None)
    check("anonymous after logout", Query(User).count() == 2)

if PHASE == "files":
    # A fourth phase: the SDK's file flows (upload as provider s3, fetch, a
    # File inside an object, an external URL, destroy).
    import time

    import requests
    from leancloud import File

    data = b"hello, files \xe4\xbd\xa0\xe5\xa5\xbd"
    f = File("hello.txt", data, "text/plain")
    f.save()
    check("file saved", bool(f.id) and bool(f.url), [f.id, f.url])
    r = requests.get(f.url)
    check("file bytes served", r.status_code == 200 and r.content == data, r.status_code)
    g = File.create_without_data(f.id)
    g.fetch()
    check("file fetch", g.name == "hello.txt" and g.url == f.url, [g.name, g.url])
    Doc = Object.extend("Doc")
    d = Doc(attachment=f)
    d.save()
    back = Query(Doc).get(d.id).get("attachment")
    check("file inside an object", back is not None and back.url == f.url and back.id == f.id, back and back.url)
    ext = File.create_with_url("logo.png", "https://example.com/logo.png")
    ext.save()
    e = File.create_without_data(ext.id)
    e.fetch()
    check("external file", e.url == "https://example.com/logo.png", e.url)
    leancloud.use_master_key(True)
    f.destroy()
    leancloud.use_master_key(False)
    check("destroy", requests.get(f.url).status_code == 404)
    time.sleep(0.3)  # the SDK posts fileCallback from a thread of its own

if PHASE == "acl":
    # A fifth phase: ACLs and roles as the SDK sets them. Ann keeps a
    # private note and shares one with role:staff (Cat holds it); Bob, an
    # anonymous caller and Cat learn of the private note nothing, and
    # cannot change it; Cat reads the shared one.
    from leancloud import ACL, Role, User

    Note = Object.extend("Note")

    def sign_up(name):
        u = User()
        u.sign_up(name, "pw-" + name)
        return u

    cat = sign_up("cat")
    bob = sign_up("bob")
    ann = sign_up("ann")  # the current user from here on
    private = ACL()
    private.set_read_access(ann.id, True)
    private.set_write_access(ann.id, True)
    secret = Note(text="ann's secret")
    secret.set_acl(private)
    secret.save()
    shared_acl = ACL()
    shared_acl.set_read_access(ann.id, True)
    shared_acl.set_write_access(ann.id, True)
    shared_acl.set_role_read_access("staff", True)
    shared = Note(text="for staff")
    shared.set_acl(shared_acl)
    shared.save()
    Note(text="hello").save()  # no ACL: public
    check("the owner reads her notes", Query(Note).count() == 3, Query(Note).count())
    back = Query(Note).include_acl(True).equal_to("objectId", secret.id).first()
    check("the ACL comes back to its owner", back.get_acl() is not None and back.get_acl().get_read_access(ann.id)
          and not back.get_acl().get_public_read_access(), back.get_acl() and back.get_acl().dump())

    leancloud.use_master_key(True)
    role_acl = ACL()
    role_acl.set_public_read_access(True)
    staff = Role("staff", role_acl)
    staff.get_users().add(cat)
    staff.save()
    leancloud.use_master_key(False)
    check("role saved", bool(staff.id))

    def learns_nothing(who):
        texts = sorted(n.get("text") for n in Query(Note).find())
        check(who + ": find shows only public notes", texts == ["hello"], texts)
        check(who + ": count shows only public notes", Query(Note).count() == 1)
        # get fetches: the server's {} for a missing object leaves it empty.
        got = Query(Note).get(secret.id)
        check(who + ": get of the private note is empty", got.get("text") is None and got.get("ACL") is None, got.dump())
        try:
            Query(Note).equal_to("objectId", secret.id).first()
            check(who + ": first of the private note", False)
        except LeanCloudError as e:
            check(who + ": first of the private note", e.code == 101, e.code)
        cql = leancloud.Query.do_cloud_query("select count(*) from Note where text = ?", "ann's secret")
        check(who + ": cloud query count", cql.count == 0, cql.count)
        refused_save(who + ": update of the private note", Note, secret.id, "text", "pwned", 101)

    User.become(bob.get_session_token())
    learns_nothing("bob")
    User.set_current(None)
    learns_nothing("anonymous")

    User.become(cat.get_session_token())
    texts = sorted(n.get("text") for n in Query(Note).find())
    check("cat reads through her role", texts == ["for staff", "hello"], texts)
    refused_save("cat may not write the shared note", Note, shared.id, "text", "edited", 403)

    User.become(ann.get_session_token())
    check("nothing changed", Query(Note).get(secret.id).get("text") == "ann's secret")

if PHASE == "compat":
    import uuid
    from leancloud import User

    # A stale cached session: the current user is deleted elsewhere, and
    # the app (still holding its token) can read, sign up and log in.
    gone = User()
    gone.sign_up("gone", "pw-gone")
    leancloud.use_master_key(True)
    Query(User).get(gone.id).destroy()
    leancloud.use_master_key(False)
    User.set_current(gone)
    check("stale session: a find answers", Query(Todo).count() >= 0)
    other = User()
    other.sign_up("after-stale", "pw-after")
    check("stale session: sign-up", bool(other.id))
    User.set_current(gone)
    again = User()
    again.login("after-stale", "pw-after")
    check("stale session: login", again.id == other.id)

    # Anonymous login, then registration with a username and password.
    User.set_current(None)
    device = str(uuid.uuid4())
    anon = User.login_with("anonymous", {"id": device})
    check("anonymous login makes a user", bool(anon.id) and bool(anon.get_session_token()), anon.id)
    same = User.login_with("anonymous", {"id": device})
    check("the same device logs in as the same user", same.id == anon.id, [same.id, anon.id])
    same.set_username("registered")
    same.set_password("pw-registered")
    same.save()
    User.set_current(None)
    registered = User()
    registered.login("registered", "pw-registered")
    check("the anonymous user registered", registered.id == anon.id, registered.id)

    # A relation's query on an object made without data: the server finds its target class.
    member = User()
    member.sign_up("member", "pw-member")
    post = Todo()
    post.set("title", "with likes")
    post.relation("likes").add(member)
    post.save()
    found = Todo.create_without_data(post.id).relation("likes").query.find()
    check("relation query on a fresh object", [o.id for o in found] == [member.id], [o.id for o in found])
