#!/usr/bin/env python3
"""A loopback web server that misbehaves on purpose, for tests/e2e/test_faults.sh.

    fault_server.py PORTFILE DIR

Serves the files in DIR on 127.0.0.1 (a free port, written to PORTFILE once
listening).  The first path component picks the behaviour:

    /ok/NAME      the file, as a web server should
    /stall/NAME   reads the request, then says nothing (until the client leaves)
    /drop/NAME    headers for the whole file, half the body, then closes
    /short/NAME   the whole body, but a Content-Length 1000 bytes larger, then closes
    /wrong/NAME   a body of the advertised length that is not the file (bytes flipped)
    /empty/NAME   closes without a response

Every request is logged to stdout as "MODE NAME", so a test can count retries.
Python's standard library only; stopped by the test with SIGTERM.
"""
import http.server
import os
import socket
import sys
import time


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # the request lines below are the log
        pass

    def do_GET(self):
        parts = self.path.lstrip("/").split("/", 1)
        mode, name = (parts + [""])[:2]
        print(mode, name, flush=True)
        path = os.path.join(self.server.root, os.path.basename(name))
        if mode == "stall":
            # Hold the connection open and silent until the client gives up.
            self.connection.settimeout(1)
            deadline = time.time() + 600
            while time.time() < deadline:
                try:
                    if not self.connection.recv(1, socket.MSG_PEEK):
                        break
                except socket.timeout:
                    continue
                except OSError:
                    break
            self.close_connection = True
            return
        if mode == "empty":
            self.close_connection = True
            return
        try:
            body = open(path, "rb").read()
        except OSError:
            self.send_error(404)
            return
        length = len(body)
        if mode == "wrong":
            body = bytes(b ^ 0xFF for b in body)
        elif mode == "drop":
            body = body[: len(body) // 2]
        elif mode == "short":
            length += 1000
        elif mode != "ok":
            self.send_error(400, "unknown mode")
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(length))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()
        self.close_connection = True


def main():
    portfile, root = sys.argv[1:3]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.root = root
    with open(portfile + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(portfile + ".tmp", portfile)
    server.serve_forever()


if __name__ == "__main__":
    main()
