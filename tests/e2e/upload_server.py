#!/usr/bin/env python3
"""upload_server.py MODE PORTFILE STOREDIR LOG - a loopback upload server for
tests/e2e/test_share.sh, standard library only.

Binds 127.0.0.1 on a free port and writes the port to PORTFILE.  The token
it accepts comes from the environment (UPLOAD_TOKEN), never from argv.  One
line per request goes to LOG (the request number, method, path, whether the
token and the sha256 header matched; never the token) before the mode acts,
so a test can count attempts even when the server then stalls.

Modes:
  ok              check the bearer token (401 otherwise), Content-Type and the
                  X-Bench-Versions-Sha256 header against the body (400),
                  store the body as STOREDIR/<last path part>, answer 201 with
                  JSON {"url": ..., "id": ...}
  fail-N          500 for the first N requests, then as ok
  always-500      500 every time
  retry-after-N   503 with Retry-After: N for the first request, then as ok
  stall           read the request, never answer
  drop            read the request, send half a status line, close
  short-body      200 with a Content-Length larger than the body sent, close
  reject-CODE     CODE (e.g. 401, 403, 413) with a JSON error that echoes the
                  Authorization header back, as a careless server might
  redirect        302 to another host
  flood           200 with an endless body
"""
import hashlib
import json
import os
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE, PORTFILE, STORE, LOG = sys.argv[1:5]
TOKEN = os.environ.get("UPLOAD_TOKEN", "")
lock = threading.Lock()
count = 0


class Handler(BaseHTTPRequestHandler):
    # HTTP/1.1, so libcurl's "Expect: 100-continue" is answered at once.
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass  # the default would print the request line; LOG is ours

    def answer(self, code, obj, extra=()):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)
        self.close_connection = True

    def do_PUT(self):
        global count
        with lock:
            count += 1
            n = count
        length = self.headers.get("Content-Length")
        body = b""
        if length is not None and MODE != "stall":
            body = self.rfile.read(int(length))
        auth = self.headers.get("Authorization")
        auth_ok = "none" if auth is None else ("ok" if auth == "Bearer " + TOKEN else "bad")
        sha = self.headers.get("X-Bench-Versions-Sha256")
        sha_ok = "-" if sha is None or MODE == "stall" else (
            "ok" if sha == hashlib.sha256(body).hexdigest() else "bad")
        with open(LOG, "a") as f:
            f.write("n=%d %s %s auth=%s len=%s sha=%s type=%s run=%s\n" % (
                n, self.command, self.path, auth_ok, length, sha_ok,
                self.headers.get("Content-Type"), self.headers.get("X-Bench-Versions-Run")))

        mode = MODE
        if mode.startswith("fail-"):
            mode = "always-500" if n <= int(mode[5:]) else "ok"
        if mode.startswith("retry-after-"):
            if n == 1:
                return self.answer(503, {"error": "busy, come back later"},
                                   [("Retry-After", mode[len("retry-after-"):])])
            mode = "ok"

        if mode == "ok":
            if auth_ok != "ok":
                return self.answer(401, {"error": "missing or wrong bearer token"})
            if length is None:
                return self.answer(411, {"error": "Content-Length required"})
            if self.headers.get("Content-Type") != "application/gzip":
                return self.answer(415, {"error": "expected application/gzip"})
            if sha_ok != "ok":
                return self.answer(400, {"error": "X-Bench-Versions-Sha256 does not match the body"})
            name = os.path.basename(self.path) or "upload.tar.gz"
            with open(os.path.join(STORE, name), "wb") as f:
                f.write(body)
            port = self.server.server_address[1]
            return self.answer(201, {"url": "http://127.0.0.1:%d/runs/%s" % (port, name), "id": name})
        if mode == "always-500":
            return self.answer(500, {"error": "storage backend unavailable"})
        if mode == "stall":
            time.sleep(3600)
            return
        if mode == "drop":
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Ty")
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return
        if mode == "short-body":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b'{"url": "http://127.0.0.1/trunc')
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return
        if mode.startswith("reject-"):
            return self.answer(int(mode[7:]), {"error": "rejected; you sent Authorization: %s" % auth})
        if mode == "redirect":
            self.send_response(302)
            self.send_header("Location", "http://198.51.100.7/elsewhere")
            self.send_header("Content-Length", "0")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            return
        if mode == "flood":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Connection", "close")
            self.end_headers()
            chunk = b"x" * 65536
            try:
                while True:
                    self.wfile.write(chunk)
            except OSError:
                pass
            self.close_connection = True
            return
        self.answer(500, {"error": "unknown mode " + MODE})


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(PORTFILE + ".tmp", PORTFILE)
server.serve_forever()
