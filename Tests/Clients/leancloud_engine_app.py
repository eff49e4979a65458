"""A LeanEngine app on the LeanCloud Python SDK (PyPI `leancloud` 3.0.2):
`leancloud.Engine`, served as the WSGI app it is by the standard library's
`wsgiref` (one thread a request), beside `cql serve`.

Started by Tests/CQLServerTests/CloudCodeTests.swift (and scripts/bench)
with the variables an engine app gets: LEANCLOUD_APP_ID, LEANCLOUD_APP_KEY,
LEANCLOUD_APP_MASTER_KEY, LEANCLOUD_APP_HOOK_KEY, LEANCLOUD_APP_PORT (0: a
free port) and LEANCLOUD_API_SERVER, the server it calls back. It prints
{"port": N} once it listens. Without LEANCLOUD_API_SERVER it reads the
server's URL from its first line of standard input (a test's server listens
on a port known only after the engine's is).

Its functions: hello, whoami (the caller's user, which the engine asks the
server for: GET /1.1/users/me), refuse (a LeanEngineError), crash (an
exception), slow (sleeps), makeTodo and titleOf (RPC: objects out and in),
noop. Its hooks, on Review: beforeSave (refuses stars outside 1..5, cuts
content to 20 characters, sets checked), afterSave (writes a Log, and
updates the review itself: marked so that no hook runs again), beforeUpdate
(refuses stars above 5), afterUpdate and afterDelete (a Log each),
beforeDelete (refuses a locked review); on Bench (scripts/bench) a no-op
beforeSave, and on BenchBoth a no-op beforeSave and afterSave; _User
beforeSave (refuses the username "reserved", sets greeted), beforeUpdate
(refuses the nickname "forbidden") and onLogin (refuses the user "banned").
"""
import json
import os
import sys
import time
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import leancloud
from leancloud import LeanEngineError


def not_found(environ, start_response):
    start_response("404 Not Found", [("Content-Type", "application/json")])
    return [b'{"code":404,"error":"not an engine route"}']


engine = leancloud.Engine(not_found)
# As LeanEngine's Python template does: the master key known, calls back with the app key (and the hook key).
leancloud.init(os.environ["LEANCLOUD_APP_ID"], app_key=os.environ["LEANCLOUD_APP_KEY"],
               master_key=os.environ["LEANCLOUD_APP_MASTER_KEY"])
leancloud.use_master_key(False)

Todo = leancloud.Object.extend("Todo")
Log = leancloud.Object.extend("Log")


@engine.define
def hello(name="world", **_):
    return "Hello, {}!".format(name)


@engine.define
def whoami(**_):
    user = engine.current.user
    return {"username": user.get("username") if user else None}


@engine.define
def refuse(**_):
    raise LeanEngineError(3001, "refused by the function")


@engine.define
def crash(**_):
    raise RuntimeError("boom")


@engine.define
def slow(seconds=2, **_):
    time.sleep(seconds)
    return "late"


@engine.define
def noop(**_):
    return "ok"


@engine.define
def makeTodo(title, **_):
    todo = Todo(title=title)
    todo.save()
    return todo


@engine.define
def titleOf(todo, **_):
    todo.fetch()  # the SDK sends an object as a Pointer
    return {"title": todo.get("title"), "className": todo._class_name, "id": todo.id}


@engine.before_save("Review")
def review_before_save(review):
    stars = review.get("stars")
    if not isinstance(stars, int) or not 1 <= stars <= 5:
        raise LeanEngineError(message="stars must be 1 to 5")
    review.set("content", (review.get("content") or "")[:20])
    review.set("checked", True)


@engine.after_save("Review")
def review_after_save(review):
    Log(kind="afterSave", review=review.id).save()
    # The hook's own object comes marked (__ignore_hooks: the after-hooks): no afterUpdate, no loop.
    review.set("seen", True)
    review.save()


@engine.before_update("Review")
def review_before_update(review):
    if "stars" in (getattr(review, "updated_keys", None) or []) and (review.get("stars") or 0) > 5:
        raise LeanEngineError(message="stars must stay 1 to 5")


@engine.after_update("Review")
def review_after_update(review):
    Log(kind="afterUpdate", review=review.id).save()


@engine.before_delete("Review")
def review_before_delete(review):
    if review.get("locked"):
        raise LeanEngineError(message="a locked review stays")


@engine.after_delete("Review")
def review_after_delete(review):
    Log(kind="afterDelete", review=review.id).save()


@engine.before_save("Bench")
def bench_before_save(obj):
    pass


@engine.before_save("BenchBoth")
def bench_both_before_save(obj):
    pass


@engine.after_save("BenchBoth")
def bench_both_after_save(obj):
    pass


@engine.before_save("_User")
def user_before_save(user):
    if user.get("username") == "reserved":
        raise LeanEngineError(message="that username is reserved")
    user.set("greeted", True)


@engine.before_update("_User")
def user_before_update(user):
    if user.get("nickname") == "forbidden":
        raise LeanEngineError(message="not that nickname")


@engine.on_login
def on_login(user):
    if user.get("username") == "banned":
        raise LeanEngineError(message="this user may not log in")


class ThreadingServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class QuietHandler(WSGIRequestHandler):
    def log_message(self, *args):
        pass


if __name__ == "__main__":
    server = make_server("127.0.0.1", int(os.environ.get("LEANCLOUD_APP_PORT", "0")), engine,
                         server_class=ThreadingServer, handler_class=QuietHandler)
    print(json.dumps({"port": server.server_port}), flush=True)
    if not os.environ.get("LEANCLOUD_API_SERVER"):
        # The SDK reads the variable at every call.
        os.environ["LEANCLOUD_API_SERVER"] = sys.stdin.readline().strip()
    server.serve_forever()
