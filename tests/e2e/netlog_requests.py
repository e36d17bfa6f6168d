#!/usr/bin/env python3
# netlog_requests.py NETLOG: the requests a page made, from a Chromium net
# log: URL requests with an initiator (the browser's own update checks have
# "not an origin").  Prints them; exits 1 when there was any.
import json, re, sys
d = json.load(open(sys.argv[1]))
types = {v: k for k, v in d["constants"]["logEventTypes"].items()}
urls = set()
for e in d["events"]:
    p = e.get("params") or {}
    if types.get(e["type"]) == "URL_REQUEST_START_JOB" and "url" in p:
        if p.get("initiator", "not an origin") != "not an origin" and re.match(r"(https?|wss?)://", p["url"]):
            urls.add(p["url"])
for u in sorted(urls):
    print(u)
sys.exit(1 if urls else 0)
