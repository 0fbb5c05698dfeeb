"""A small WebDriver BiDi client for Firefox's own Remote Agent (used by firefox_test.py).

Debian has no geckodriver, and nothing is downloaded at test time: Firefox ESR speaks WebDriver
BiDi itself. `Firefox.start` runs `firefox-esr --headless --remote-debugging-port=PORT` with a
private profile in a network namespace, and this module talks to ws://127.0.0.1:PORT/session,
so its caller must run in that same namespace (the Remote Agent listens on loopback only).

Only what the test needs: navigate, run a function in the page, pointer and key actions, a
screenshot, and one preference set from the browser's own (chrome) scope, which needs
`--remote-allow-system-access` — BiDi's own prefers-color-scheme override came after 153 ESR.
"""
import base64
import json
import os
import signal
import subprocess
import time

import websocket  # python3-websocket (websocket-client)

# A profile that sends nothing anywhere: no updates, telemetry, studies, captive portal or
# connectivity checks, safe browsing or tracking-protection lists, remote settings, push,
# network prediction or prefetching, search engine updates, add-on checks, first-run pages.
# The namespaces have only loopback and the test's subnet anyway; these make sure nothing
# even tries.
PREFS = {
    "app.update.auto": False,
    "app.update.checkInstallTime": False,
    "app.update.disabledForTesting": True,
    "app.update.enabled": False,
    "app.normandy.enabled": False,
    "app.normandy.api_url": "",
    "app.shield.optoutstudies.enabled": False,
    "browser.aboutwelcome.enabled": False,
    "browser.discovery.enabled": False,
    "browser.newtabpage.enabled": False,
    "browser.newtabpage.activity-stream.feeds.section.topstories": False,
    "browser.newtabpage.activity-stream.feeds.snippets": False,
    "browser.newtabpage.activity-stream.feeds.telemetry": False,
    "browser.newtabpage.activity-stream.telemetry": False,
    "browser.ping-centre.telemetry": False,
    "browser.safebrowsing.blockedURIs.enabled": False,
    "browser.safebrowsing.downloads.enabled": False,
    "browser.safebrowsing.downloads.remote.enabled": False,
    "browser.safebrowsing.malware.enabled": False,
    "browser.safebrowsing.phishing.enabled": False,
    "browser.safebrowsing.provider.google.updateURL": "",
    "browser.safebrowsing.provider.google4.updateURL": "",
    "browser.safebrowsing.provider.mozilla.updateURL": "",
    "browser.search.geoSpecificDefaults": False,
    "browser.search.update": False,
    "browser.sessionstore.resume_from_crash": False,
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage": "about:blank",
    "browser.startup.homepage_override.mstone": "ignore",
    "browser.startup.page": 0,
    "browser.tabs.warnOnClose": False,
    "browser.topsites.contile.enabled": False,
    "browser.urlbar.quicksuggest.enabled": False,
    "browser.urlbar.speculativeConnect.enabled": False,
    "browser.warnOnQuit": False,
    "datareporting.healthreport.uploadEnabled": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "datareporting.policy.firstRunURL": "",
    "dom.push.connection.enabled": False,
    "dom.push.enabled": False,
    "extensions.blocklist.enabled": False,
    "extensions.getAddons.cache.enabled": False,
    "extensions.systemAddon.update.enabled": False,
    "extensions.update.enabled": False,
    "geo.provider.network.url": "",
    "media.gmp-gmpopenh264.enabled": False,
    "media.gmp-manager.url": "",
    "messaging-system.rsexperimentloader.enabled": False,
    "nimbus.rollouts.enabled": False,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "network.dns.disablePrefetch": True,
    "network.http.speculative-parallel-limit": 0,
    "network.predictor.enabled": False,
    "network.prefetch-next": False,
    "network.proxy.type": 0,
    "network.trr.mode": 5,
    "privacy.trackingprotection.enabled": False,
    "services.settings.server": "data:,#remote-settings-dummy/v1",
    "services.sync.enabled": False,
    "startup.homepage_welcome_url": "",
    "toolkit.startup.max_resumed_crashes": -1,
    "toolkit.telemetry.archive.enabled": False,
    "toolkit.telemetry.enabled": False,
    "toolkit.telemetry.server": "",
    "toolkit.telemetry.unified": False,
    "toolkit.telemetry.updatePing.enabled": False,
}

ENTER = "\ue007"


class BiDiError(Exception):
    pass


class Firefox:
    """A headless Firefox in `namespace`, with a fresh profile under `home`, driven over BiDi."""

    def __init__(self, namespace, home, port=9222, log=None):
        self.namespace = namespace
        self.home = home
        self.port = port
        self.profile = os.path.join(home, "profile")
        self.process = None
        self.socket = None
        self.context = None
        self.next_id = 0
        self.log = log or open(os.devnull, "w")

    # The browser.
    def start(self, timeout=30):
        os.makedirs(self.profile, exist_ok=True)
        with open(os.path.join(self.profile, "user.js"), "w") as prefs:
            for name, value in PREFS.items():
                prefs.write(f"user_pref({json.dumps(name)}, {json.dumps(value)});\n")
        # HOME and the XDG folders too, so nothing is read from or left in the real ones.
        # MOZ_DISABLE_NONLOCAL_CONNECTIONS, as Firefox's own test harnesses set it: Necko
        # refuses any connection but to loopback, and (with it) the remote settings server
        # above is honoured by a release build instead of its built-in one.
        env = dict(os.environ, HOME=self.home, XDG_CACHE_HOME=os.path.join(self.home, "cache"),
                   XDG_CONFIG_HOME=os.path.join(self.home, "config"), MOZ_CRASHREPORTER_DISABLE="1",
                   MOZ_DISABLE_NONLOCAL_CONNECTIONS="1")
        self.process = subprocess.Popen(
            ["ip", "netns", "exec", self.namespace, "firefox-esr", "--headless", "--no-remote", "--new-instance",
             f"--remote-debugging-port={self.port}", "--remote-allow-system-access",
             "--profile", self.profile, "about:blank"],
            stdout=self.log, stderr=self.log, env=env, start_new_session=True)
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise BiDiError(f"firefox-esr exited with {self.process.returncode}")
            try:
                self.socket = websocket.create_connection(
                    f"ws://127.0.0.1:{self.port}/session", timeout=timeout, suppress_origin=True)
                break
            except (OSError, websocket.WebSocketException):
                if time.monotonic() > deadline:
                    raise BiDiError("Firefox's Remote Agent did not listen")
                time.sleep(0.1)
        self.command("session.new", {"capabilities": {"alwaysMatch": {"acceptInsecureCerts": False}}})
        self.context = self.command("browsingContext.getTree", {"maxDepth": 0})["contexts"][0]["context"]

    def stop(self):
        if self.socket:
            try:
                self.command("browser.close", {}, timeout=10)
            except Exception:
                pass
            self.socket.close()
            self.socket = None
        if self.process:
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                # Its own process group (start_new_session): Firefox and the content
                # processes it started, and nothing else.
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
            self.process = None

    # The protocol.
    def command(self, method, params, timeout=30):
        self.next_id += 1
        wanted = self.next_id
        self.socket.settimeout(timeout)
        self.socket.send(json.dumps({"id": wanted, "method": method, "params": params}))
        while True:
            answer = json.loads(self.socket.recv())
            if answer.get("id") != wanted:
                continue  # an event (none are subscribed) or a late answer
            if answer.get("type") == "error":
                raise BiDiError(f"{method}: {answer.get('error')}: {answer.get('message')}")
            return answer["result"]

    def call(self, function, *arguments, context=None):
        """Runs the JavaScript function `function` in the page with `arguments` (JSON values, or
        elements as returned by an earlier call) and returns its result: JSON values as Python
        ones, an element as {"sharedId": …}."""
        result = self.command("script.callFunction", {
            "functionDeclaration": function,
            "arguments": [serialize(a) for a in arguments],
            "target": {"context": context or self.context},
            "awaitPromise": True,
            "serializationOptions": {"maxDomDepth": 0, "maxObjectDepth": 8},
        })
        if result["type"] == "exception":
            details = result["exceptionDetails"]
            raise BiDiError(f"script: {details.get('text')}")
        return deserialize(result["result"])

    def navigate(self, url):
        return self.command("browsingContext.navigate", {"context": self.context, "url": url, "wait": "complete"})

    def set_viewport(self, width, height):
        self.command("browsingContext.setViewport",
                     {"context": self.context, "viewport": {"width": width, "height": height}})

    def click(self, element):
        """A real click at the middle of `element`, as a mouse does it."""
        self.command("input.performActions", {"context": self.context, "actions": [{
            "type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
            "actions": [
                {"type": "pointerMove", "x": 0, "y": 0, "origin": {"type": "element", "element": element}},
                {"type": "pointerDown", "button": 0},
                {"type": "pointerUp", "button": 0},
            ]}]})

    def type(self, text):
        """Keys pressed one by one into whatever has the focus (ENTER for the Enter key)."""
        keys = []
        for key in text:
            keys += [{"type": "keyDown", "value": key}, {"type": "keyUp", "value": key}]
        self.command("input.performActions", {"context": self.context, "actions": [
            {"type": "key", "id": "keyboard", "actions": keys}]})
        self.command("input.releaseActions", {"context": self.context})

    def screenshot(self, path):
        data = self.command("browsingContext.captureScreenshot", {"context": self.context})["data"]
        with open(path, "wb") as file:
            file.write(base64.b64decode(data))

    def set_pref(self, name, value):
        """Sets a preference from the browser's chrome scope (needs --remote-allow-system-access)."""
        tree = self.command("browsingContext.getTree", {"maxDepth": 0, "moz:scope": "chrome"})
        chrome = tree["contexts"][0]["context"]
        setter = {bool: "setBoolPref", int: "setIntPref", str: "setStringPref"}[type(value)]
        self.command("script.callFunction", {
            "functionDeclaration": f"(name, value) => Services.prefs.{setter}(name, value)",
            "arguments": [serialize(name), serialize(value)],
            "target": {"context": chrome}, "awaitPromise": False})


def serialize(value):
    if isinstance(value, dict) and "sharedId" in value:
        return {"sharedId": value["sharedId"]}
    if value is None:
        return {"type": "null"}
    if isinstance(value, bool):
        return {"type": "boolean", "value": value}
    if isinstance(value, (int, float)):
        return {"type": "number", "value": value}
    if isinstance(value, str):
        return {"type": "string", "value": value}
    if isinstance(value, (list, tuple)):
        return {"type": "array", "value": [serialize(v) for v in value]}
    raise TypeError(f"cannot pass {value!r} to the page")


def deserialize(remote):
    kind = remote["type"]
    if kind in ("undefined", "null"):
        return None
    if kind in ("string", "boolean"):
        return remote["value"]
    if kind == "number":
        value = remote["value"]
        return float("nan") if value == "NaN" else value
    if kind in ("array", "set"):
        return [deserialize(v) for v in remote.get("value", [])]
    if kind == "object":
        return {(k if isinstance(k, str) else deserialize(k)): deserialize(v) for k, v in remote.get("value", [])}
    if kind == "node":
        return {"sharedId": remote["sharedId"]}
    return remote
