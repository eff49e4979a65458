"""The LeanCloud Python SDK (PyPI `leancloud` 3.0.2) calling cloud functions
and running the hooks of Tests/Clients/leancloud_engine_app.py through
`cql serve --engine`.

Run by Tests/CQLServerTests/CloudCodeTests.swift with LEANCLOUD_API_SERVER
pointing at the server and CQL_APP_ID / CQL_APP_KEY / CQL_MASTER_KEY.
Prints one JSON line per check: {"assert": NAME, "ok": true|false, "detail": ...}.
Any exception ends the script with a non-zero status.

Phases (argv[1]): `functions` (run, rpc with objects out and in, the
caller's user, the engine's errors passed through); `hooks` (every write
hook kind of the engine app on the class API, batch and CQL writes);
`login` (onLogin refusing one user).
"""
import json
import os
import sys
import time

import leancloud
from leancloud import LeanCloudError, Object, Query

leancloud.init(os.environ["CQL_APP_ID"], app_key=os.environ["CQL_APP_KEY"], master_key=os.environ["CQL_MASTER_KEY"])
leancloud.use_master_key(False)

Todo = Object.extend("Todo")
Review = Object.extend("Review")
Log = Object.extend("Log")

PHASE = sys.argv[1] if len(sys.argv) > 1 else "functions"


def check(name, ok, detail=None):
    print(json.dumps({"assert": name, "ok": bool(ok), "detail": detail}, ensure_ascii=False, sort_keys=True), flush=True)


def refused(name, code, call, message=None):
    """`call()` must fail with LeanCloud error `code` (and `message` in its text)."""
    try:
        call()
        check(name, False, "no error")
    except LeanCloudError as e:
        check(name, e.code == code and (message is None or message in e.error), [e.code, e.error])


def functions():
    check("run: a result", leancloud.cloud.run("hello", name="Ann") == "Hello, Ann!")
    check("run: no params", leancloud.cloud.run("hello") == "Hello, world!")
    check("run: anonymous caller", leancloud.cloud.run("whoami") == {"username": None})
    user = leancloud.User()
    user.set_username("fn-user")
    user.set_password("secret")
    user.sign_up()
    # The engine resolves the session the server forwards (GET /1.1/users/me).
    check("run: the caller's user", leancloud.cloud.run("whoami") == {"username": "fn-user"}, leancloud.cloud.run("whoami"))
    user.logout()
    refused("run: the engine's LeanEngineError", 3001, lambda: leancloud.cloud.run("refuse"), "refused by the function")
    refused("run: an exception in the engine", 141, lambda: leancloud.cloud.run("crash"))
    refused("run: no such function", 404, lambda: leancloud.cloud.run("nope"))
    todo = leancloud.cloud.rpc("makeTodo", title="from rpc")
    check("rpc: an object back", isinstance(todo, Todo) and todo.id and todo.get("title") == "from rpc", repr(todo))
    stored = Query(Todo).get(todo.id)
    check("rpc: the engine saved it through the server", stored.get("title") == "from rpc")
    seen = leancloud.cloud.rpc("titleOf", todo=stored)
    check("rpc: an object in", seen == {"title": "from rpc", "className": "Todo", "id": todo.id}, seen)


def hooks():
    # beforeSave changes fields; afterSave writes elsewhere and updates the object (no loop).
    review = Review(stars=4, content="a review longer than twenty characters")
    review.save()
    fetched = Query(Review).get(review.id)
    check("beforeSave: its changes saved", fetched.get("content") == "a review longer than" and fetched.get("checked") is True,
          [fetched.get("content"), fetched.get("checked")])
    logs = []
    for _ in range(50):
        logs = Query(Log).equal_to("review", review.id).find()
        if logs and Query(Review).get(review.id).get("seen"):
            break
        time.sleep(0.1)
    check("afterSave: wrote elsewhere", [l.get("kind") for l in logs] == ["afterSave"], [l.get("kind") for l in logs])
    check("afterSave: its update of the object ran no hook again", Query(Review).get(review.id).get("seen") is True)
    before = Query(Review).count()
    refused("beforeSave: a refusal is 142", 142, lambda: Review(stars=9, content="bad").save(), "stars must be 1 to 5")
    check("beforeSave: nothing written", Query(Review).count() == before)
    # beforeUpdate refuses; afterUpdate runs.
    fetched.set("stars", 7)
    refused("beforeUpdate: a refusal is 142", 142, lambda: fetched.save(), "stars must stay 1 to 5")
    check("beforeUpdate: nothing written", Query(Review).get(review.id).get("stars") == 4)
    again = Query(Review).get(review.id)
    again.set("stars", 5)
    again.save()
    time.sleep(0.3)
    kinds = sorted(l.get("kind") for l in Query(Log).equal_to("review", review.id).find())
    check("afterUpdate: ran once", kinds == ["afterSave", "afterUpdate"], kinds)
    # beforeDelete refuses a locked review.
    locked = Review(stars=3, content="locked", locked=True)
    locked.save()
    refused("beforeDelete: a refusal is 142", 142, lambda: locked.destroy(), "a locked review stays")
    check("beforeDelete: nothing deleted", Query(Review).get(locked.id).get("locked") is True)
    review.destroy()
    time.sleep(0.3)
    kinds = sorted(l.get("kind") for l in Query(Log).equal_to("review", review.id).find())
    check("afterDelete: ran", "afterDelete" in kinds, kinds)
    # Batch: each sub-request its own hooks.
    good, bad = Review(stars=2, content="batch good"), Review(stars=0, content="batch bad")
    try:
        Object.save_all([good, bad])
        check("batch: the refused one fails", False, "no error")
    except LeanCloudError as e:
        check("batch: the refused one fails", True, [e.code, e.error])
    check("batch: the good one saved", Query(Review).equal_to("content", "batch good").count() == 1)
    check("batch: the bad one not", Query(Review).equal_to("content", "batch bad").count() == 0)
    # CQL writes go through the hooks too.
    refused("cloudQuery insert: a refusal is 142", 142,
            lambda: Query.do_cloud_query("insert into Review(stars, content) values(?, ?)", 8, "cql bad"))
    result = Query.do_cloud_query("insert into Review(stars, content) values(?, ?)", 3, "cql good and quite long")
    check("cloudQuery insert: beforeSave's changes", Query(Review).equal_to("content", "cql good and quite l").count() == 1)


def login():
    # onLogin refuses one user.
    for name in ["banned", "welcome"]:
        user = leancloud.User()
        user.set_username(name)
        user.set_password("secret")
        user.sign_up()
        user.logout()
    refused("onLogin: a refusal is 142", 142, lambda: leancloud.User().login("banned", "secret"), "this user may not log in")
    welcome = leancloud.User()
    welcome.login("welcome", "secret")
    check("onLogin: another user logs in", welcome.get_session_token() is not None)


{"functions": functions, "hooks": hooks, "login": login}[PHASE]()
