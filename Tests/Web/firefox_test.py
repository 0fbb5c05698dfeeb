"""The web app in Firefox (run by web-test.sh after the Chromium steps, issue 32 §3).

Debian's firefox-esr, driven over WebDriver BiDi by its own Remote Agent (Tests/Web/bidi.py;
there is no geckodriver package and nothing is downloaded). Alice and Bob each run `confab up`
with its defaults on their host of the namespace LAN; Firefox runs headless beside Alice's
node, in her namespace, with a private profile that sends nothing anywhere. This script runs
in Alice's namespace too, as the Remote Agent listens on loopback only. Bob uses his CLI.
"""
import argparse
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from bidi import ENTER, BiDiError, Firefox  # noqa: E402
import waiting  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--confab", required=True)
parser.add_argument("--alice", required=True, help="Alice's namespace (this script runs in it)")
parser.add_argument("--bob", required=True, help="Bob's namespace")
parser.add_argument("--artifacts", required=True)
args = parser.parse_args()
ARTIFACTS = pathlib.Path(args.artifacts)
WAIT = 20
ROOT = tempfile.mkdtemp(prefix="confab-firefox-")

LOG = '[role="log"][aria-label="Messages"]'
LIST = '[role="list"][aria-label="Conversations"]'


def wait_until(what, condition, timeout=WAIT):
    return waiting.wait_until(what, condition, timeout, transient=BiDiError)


class Node:
    def __init__(self, name, namespace):
        self.name = name
        self.namespace = namespace
        self.data = os.path.join(ROOT, name.lower())
        self.process = None
        self.cli("init", "--name", name)
        self.id = json.loads(self.cli("whoami", "--json"))["id"]

    def cli(self, *words):
        out = subprocess.run(["ip", "netns", "exec", self.namespace, args.confab, "--data", self.data, *words],
                             capture_output=True, text=True)
        if out.returncode != 0:
            raise AssertionError(f"confab {' '.join(words)} ({self.name}) failed: {out.stderr.strip()}")
        return out.stdout

    def status(self):
        try:
            return json.loads(self.cli("status", "--json") or "{}")
        except AssertionError:
            return {}

    def start(self):
        log = open(os.path.join(self.data, "up.log"), "a")
        self.process = subprocess.Popen(
            ["ip", "netns", "exec", self.namespace, args.confab, "--data", self.data, "up"], stdout=log, stderr=log)

    def stop(self):
        if self.process:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None


alice = bob = firefox = None
conversation = None
steps = []


def step(name):
    def register(function):
        steps.append((name, function))
        return function
    return register


# What Alice sees in Firefox.
def row(name):
    """The conversation list's row for `name`: its button (an element) and its text."""
    return firefox.call("""(list, name) => {
        const button = [...document.querySelectorAll(list + ' li button.row-main')]
          .find((b) => (b.getAttribute('aria-label') || '').startsWith(name));
        return button ? [button, button.closest('li').textContent] : null;
      }""", LIST, name)


def press(what, find):
    """Clicks `find()` once it is there; the list and the log redraw on events, so an element
    gone in between is found again."""
    def attempt():
        element = find()
        if element:
            firefox.click(element)
            return True
    wait_until(what, attempt)


def bubbles():
    """The messages' texts in the log, with their statuses (none for someone else's)."""
    return firefox.call("""(log) => [...document.querySelectorAll(log + ' .bubble')].map((b) => [
        (b.querySelector('.text') || b).textContent, (b.querySelector('.status') || {}).textContent || null])""", LOG)


def status_of(text):
    return next((status for said, status in bubbles() if text in said), None)


def background():
    return firefox.call("() => getComputedStyle(document.body).backgroundColor")


def luminance(css):
    red, green, blue = (int(part) for part in css[css.index("(") + 1:].rstrip(")").split(",")[:3])
    return (0.2126 * red + 0.7152 * green + 0.0722 * blue) / 255


@step("Firefox signs in with the login link and lists a conversation that exists")
def sign_in():
    link = alice.cli("open", "--print").strip().splitlines()[-1].strip()
    firefox.navigate(link)
    wait_until("signed in, at the app", lambda: firefox.call("() => location.pathname") == "/"
               and "token=" not in firefox.call("() => location.href"))
    wait_until("Bob's conversation in the list, with his message",
               lambda: "are you on Firefox?" in (row("Bob") or [None, ""])[1])


@step("opening it shows the other node's message in the log")
def open_conversation():
    press("Bob's row", lambda: (row("Bob") or [None])[0])
    wait_until("the chat named Bob", lambda: firefox.call(
        "() => document.getElementById('chat-name').textContent.trim()") == "Bob")
    wait_until("Bob's message in the log", lambda: any("Hello from Bob" in text for text, _ in bubbles()))
    assert status_of("Hello from Bob") is None  # his, not mine: no status


@step("a message typed in the box and sent with Enter shows sending…, then sent, and the other node has it")
def send():
    text = "Hi Bob, this is Firefox"
    # Every status the bubble shows is recorded as it changes, so a quick "sending…" is seen.
    firefox.call("""(log, text) => {
        window.statuses = [];
        const look = () => {
          for (const bubble of document.querySelectorAll(log + ' .bubble')) {
            const status = bubble.querySelector('.status');
            if ((bubble.querySelector('.text') || bubble).textContent.includes(text) && status
                && window.statuses[window.statuses.length - 1] !== status.textContent) {
              window.statuses.push(status.textContent);
            }
          }
        };
        new MutationObserver(look).observe(document.querySelector(log), { subtree: true, childList: true, characterData: true });
      }""", LOG, text)
    press("the box labelled Message", lambda: firefox.call(
        """() => document.querySelector('textarea[aria-label="Message"]')"""))
    wait_until("the box focused", lambda: firefox.call(
        """() => document.activeElement && document.activeElement.getAttribute('aria-label') === 'Message'"""))
    firefox.type(text)
    wait_until("the text in the box", lambda: firefox.call(
        """() => document.querySelector('textarea[aria-label="Message"]').value""") == text)
    firefox.type(ENTER)
    wait_until("sent or delivered", lambda: status_of(text) in ("sent", "delivered", "read"))
    seen = firefox.call("() => window.statuses")
    assert seen and seen[0] == "sending…", f"the bubble's statuses: {seen}"
    assert firefox.call("""() => document.querySelector('textarea[aria-label="Message"]').value""") == ""
    wait_until("the message in Bob's history",
               lambda: any(m.get("text") == text and not m.get("mine")
                           for m in json.loads(bob.cli("history", conversation, "--json", "--no-mark-read"))))


@step("dark and light follow prefers-color-scheme")
def dark_mode():
    # BiDi's own override of prefers-color-scheme came after this ESR; Firefox's content
    # override preference does the same (0 dark, 1 light, 2 the system's).
    pref = "layout.css.prefers-color-scheme.content-override"
    firefox.set_pref(pref, 1)
    wait_until("light", lambda: not firefox.call("() => matchMedia('(prefers-color-scheme: dark)').matches"))
    light = wait_until("a light background", lambda: luminance(background()) > 0.5 and background())
    firefox.set_pref(pref, 0)
    wait_until("a dark background", lambda: luminance(background()) < 0.5)
    assert firefox.call("() => matchMedia('(prefers-color-scheme: dark)').matches")
    firefox.set_pref(pref, 1)
    wait_until("the light background again", lambda: background() == light)


def main():
    global alice, bob, firefox, conversation
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    passed = failed = 0
    try:
        alice = Node("Alice", args.alice)
        bob = Node("Bob", args.bob)
        firefox = Firefox(args.alice, os.path.join(ROOT, "firefox"),
                          log=open(os.path.join(ROOT, "firefox.log"), "w"))
        for node in (alice, bob):
            node.start()
        firefox.start()
        firefox.set_viewport(1100, 760)
        wait_until("Alice's web app", lambda: alice.status().get("web"))
        wait_until("Alice and Bob in session", lambda: alice.status().get("sessions") and bob.status().get("sessions"))
        # A conversation that exists before the browser looks: Bob started it from his terminal.
        conversation = json.loads(bob.cli("new", alice.id, "--message", "Hello from Bob, are you on Firefox?",
                                          "--json"))["id"]
        for name, function in steps:
            try:
                function()
                passed += 1
                print(f"ok    {name}")
            except Exception:
                failed += 1
                print(f"FAIL  {name}")
                traceback.print_exc()
                shot = ARTIFACTS / f"firefox-{function.__name__}.png"
                try:
                    firefox.screenshot(shot)
                    print(f"      screenshot: {shot}")
                except Exception as error:
                    print(f"      no screenshot: {error}")
                break
    except Exception:
        failed += 1
        print("FAIL  setting up Firefox and the nodes")
        traceback.print_exc()
        log = os.path.join(ROOT, "firefox.log")
        if os.path.exists(log):
            print("      firefox.log: " + open(log).read()[-2000:])
    finally:
        for action in (lambda: firefox and firefox.stop(), lambda: alice and alice.stop(), lambda: bob and bob.stop()):
            try:
                action()
            except Exception:
                traceback.print_exc()
        shutil.rmtree(ROOT, ignore_errors=True)
    print(f"firefox: {passed} passed, {failed} failed in {time.monotonic() - started:.0f} s")
    sys.exit(1 if failed else 0)


main()
