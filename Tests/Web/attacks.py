"""The browser's own attacks on the web app, from the app's own machine (run inside the
node's namespace by web_test.py): each refused, and each beside the same request done right,
which passes, so a refusal is the guard's and not a broken route.

  attacks.py LOGIN_LINK CONFAB DATA_DIR
"""
import base64
import http.client
import json
import os
import socket
import subprocess
import sys
import urllib.parse

link, confab, data = sys.argv[1:4]
url = urllib.parse.urlsplit(link)
HOST, PORT = url.hostname, url.port
OWN = f"http://{HOST}:{PORT}"
results = []


def request(method, path, headers=None, body=None):
    connection = http.client.HTTPConnection(HOST, PORT, timeout=10)
    connection.request(method, path, body=body, headers=headers or {})
    response = connection.getresponse()
    payload = response.read()
    connection.close()
    return response.status, payload


def check(name, condition, detail=""):
    results.append((name, bool(condition), detail))


def typing_setting():
    out = subprocess.run([confab, "--data", data, "typing", "--json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["typingIndicators"]


def websocket(headers):
    """The status line a WebSocket upgrade is answered with."""
    key = base64.b64encode(os.urandom(16)).decode()
    lines = [
        "GET /api/v1/events HTTP/1.1", f"Host: {HOST}:{PORT}", "Upgrade: websocket", "Connection: Upgrade",
        f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13",
    ] + [f"{k}: {v}" for k, v in headers.items()]
    with socket.create_connection((HOST, PORT), timeout=10) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        return sock.recv(4096).split(b"\r\n", 1)[0].decode()


# The login link: a wrong token sets nothing; the right one sets the session cookie.
wrong = url._replace(query="token=" + "0" * 64)
status, _ = request("GET", urllib.parse.urlunsplit(wrong)[len(OWN):])
check("a wrong login token is 401", status == 401, status)
connection = http.client.HTTPConnection(HOST, PORT, timeout=10)
connection.request("GET", link[len(OWN):])
response = connection.getresponse()
response.read()
set_cookie = response.getheader("Set-Cookie") or ""
check("the login link signs in", response.status == 303 and "HttpOnly" in set_cookie and "SameSite=Strict" in set_cookie,
      set_cookie)
SIGNED_IN = set_cookie.split(";", 1)[0]

# No cookie, no data: every route, and the WebSocket.
for path in ["/", "/index.html", "/js/main.js", "/app.css"]:
    status, body = request("GET", path)
    check(f"no cookie: GET {path} is 401", status == 401, status)
    check(f"no cookie: GET {path} has no app script", b"/js/main.js" not in body)
status, _ = request("POST", "/api/v1/conversations", {"Content-Type": "application/json"}, "{}")
check("no cookie: an operation is 401", status == 401, status)
check("no cookie: the WebSocket is refused", " 101 " not in websocket({"Origin": OWN}), "")
status, _ = request("GET", "/", {"Cookie": SIGNED_IN})
check("with the cookie: GET / is 200", status == 200, status)
check("with the cookie and the app's origin: the WebSocket upgrades", " 101 " in websocket({"Origin": OWN, "Cookie": SIGNED_IN}))

# DNS rebinding: the attacker's name in Host, even with the cookie a rebinding could not
# carry anyway.
status, _ = request("GET", "/", {"Host": f"rebind.example:{PORT}", "Cookie": SIGNED_IN})
check("a rebound name in Host is refused", status == 403, status)
status, _ = request("POST", "/api/v1/status", {"Host": "attacker.example", "Cookie": SIGNED_IN}, "{}")
check("a rebound name in Host is refused on the API", status == 403, status)

# A cross-site form post, and a fetch from another site: the cookie is SameSite=Strict, and
# even with it the foreign Origin is refused, and nothing changes.
before = typing_setting()
form = {"Content-Type": "application/x-www-form-urlencoded", "Origin": "http://evil.example",
        "Sec-Fetch-Site": "cross-site", "Cookie": SIGNED_IN}
status, _ = request("POST", "/api/v1/typing_setting", form, "value=false")
check("a cross-site form post is refused", status == 403, status)
status, _ = request("POST", "/api/v1/typing_setting",
                    {"Content-Type": "application/json", "Origin": "http://evil.example", "Cookie": SIGNED_IN},
                    json.dumps({"value": not before}))
check("a cross-site fetch is refused", status == 403, status)
status, _ = request("POST", "/api/v1/typing_setting", {"Content-Type": "application/json"},
                    json.dumps({"value": not before}))
check("without the cookie the change is 401", status == 401, status)
check("nothing changed by the refused requests", typing_setting() == before)
status, _ = request("POST", "/api/v1/typing_setting",
                    {"Content-Type": "application/json", "Origin": OWN, "Cookie": SIGNED_IN},
                    json.dumps({"value": not before}))
check("the app's own origin changes it", status == 200 and typing_setting() == (not before), status)
request("POST", "/api/v1/typing_setting", {"Content-Type": "application/json", "Origin": OWN, "Cookie": SIGNED_IN},
        json.dumps({"value": before}))

# A page elsewhere opening a link offer, to link its own machine as this person's: refused
# as a form and as a fetch. One offer runs at a time, so the app's own request opening one
# afterwards proves the refused ones opened none.
status, _ = request("POST", "/api/v1/link_offer", form, "")
check("a cross-site form post cannot open a link offer", status == 403, status)
status, _ = request("POST", "/api/v1/link_offer",
                    {"Content-Type": "application/json", "Origin": "http://evil.example", "Cookie": SIGNED_IN}, "{}")
check("a cross-site fetch cannot open a link offer", status == 403, status)
own = {"Content-Type": "application/json", "Origin": OWN, "Cookie": SIGNED_IN}
status, body = request("POST", "/api/v1/link_offer", own, "{}")
offer = (json.loads(body).get("result") or {}) if status == 200 else {}
check("the app's own origin opens one, so the refused requests opened none", status == 200 and offer.get("code"),
      (status, body[:200]))
if offer:
    status, body = request("POST", "/api/v1/link_cancel", own, json.dumps({"id": offer["id"]}))
    check("and cancels it", status == 200, (status, body[:200]))

# Cross-site WebSocket hijacking: a page elsewhere opening the event stream.
check("a WebSocket from another origin is refused",
      " 101 " not in websocket({"Origin": "http://evil.example", "Cookie": SIGNED_IN}))
check("a WebSocket from another port of this machine is refused",
      " 101 " not in websocket({"Origin": f"http://{HOST}:8080", "Cookie": SIGNED_IN}))

# Framing and sniffing: the headers that forbid them, on the app's page.
connection = http.client.HTTPConnection(HOST, PORT, timeout=10)
connection.request("GET", "/", headers={"Cookie": SIGNED_IN})
response = connection.getresponse()
response.read()
policy = response.getheader("Content-Security-Policy") or ""
check("CSP allows no inline script", "script-src 'self'" in policy and "unsafe-inline" not in policy, policy)
check("CSP forbids framing", "frame-ancestors 'none'" in policy, policy)
check("nosniff", response.getheader("X-Content-Type-Options") == "nosniff")
check("no referrer", response.getheader("Referrer-Policy") == "no-referrer")

failed = [r for r in results if not r[1]]
for name, ok, detail in results:
    print(("  ok    " if ok else "  FAIL  ") + name + ("" if ok else f" ({detail})"))
sys.exit(1 if failed else 0)
