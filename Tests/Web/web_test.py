"""The web app driven by a real Chromium, as two people use it (run by web-test.sh).

Alice and Bob each run `confab up` with its defaults on their own host of a namespace LAN,
and each has a Chromium on that host, opening the app at its default address through the
login link `confab open` prints. This script runs on a third host of the LAN and drives both
browsers through chromedriver. Every wait is for something a person would see; a check
that something did NOT happen first waits for something that proves the path worked.
"""
import argparse
import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

parser = argparse.ArgumentParser()
parser.add_argument("--confab", required=True)
parser.add_argument("--alice", required=True, help="Alice's namespace")
parser.add_argument("--bob", required=True, help="Bob's namespace")
parser.add_argument("--subnet", required=True)
parser.add_argument("--artifacts", required=True)
parser.add_argument("--screenshot", help="save Alice's chat here once the conversation is under way")
args = parser.parse_args()
ARTIFACTS = pathlib.Path(args.artifacts)
HERE = pathlib.Path(__file__).resolve().parent
WAIT = 30


def wait_until(what, condition, timeout=WAIT):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            value = condition()
            if value:
                return value
        except WebDriverException as error:
            last = error
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}" + (f" (last error: {last.msg})" if last else ""))


class Person:
    """One person: a data directory, a node in a namespace, a browser beside it."""

    def __init__(self, name, namespace, host_index):
        self.name = name
        self.namespace = namespace
        self.address = f"{args.subnet}.{host_index}"
        self.data = tempfile.mkdtemp(prefix=f"confab-web-{name.lower()}-")
        self.node = None
        self.chromedriver = None
        self.browser = None
        self.profile = tempfile.mkdtemp(prefix=f"chromium-{name.lower()}-")
        self.cli("init", "--name", name)
        self.id = json.loads(self.cli("whoami", "--json"))["id"]

    def run(self, *command, **options):
        return subprocess.run(["ip", "netns", "exec", self.namespace, *command], **options)

    def cli(self, *words):
        out = self.run(args.confab, "--data", self.data, *words, capture_output=True, text=True)
        if out.returncode != 0:
            raise AssertionError(f"confab {' '.join(words)} ({self.name}) failed: {out.stderr.strip()}")
        return out.stdout

    def start_node(self):
        log = open(os.path.join(self.data, "up.log"), "a")
        # The defaults a person gets: discovery by beacons, the app on 127.0.0.1:7462.
        self.node = subprocess.Popen(
            ["ip", "netns", "exec", self.namespace, args.confab, "--data", self.data, "up"],
            stdout=log, stderr=log)
        wait_until(f"{self.name}'s web app", lambda: self.status().get("web"))

    def stop_node(self):
        self.node.send_signal(signal.SIGTERM)
        self.node.wait(timeout=30)
        self.node = None

    def status(self):
        out = self.run(args.confab, "--data", self.data, "status", "--json", capture_output=True, text=True)
        return json.loads(out.stdout) if out.returncode == 0 and out.stdout.strip() else {}

    def login_link(self):
        return self.cli("open", "--print").strip().splitlines()[-1].strip()

    def start_browser(self):
        port = 9515
        self.chromedriver = subprocess.Popen(
            ["ip", "netns", "exec", self.namespace, "chromedriver", f"--port={port}",
             f"--allowed-ips={args.subnet}.3", "--allowed-origins=*", "--log-level=WARNING"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until(f"{self.name}'s chromedriver", lambda: port_open(self.address, port))
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium")
        for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     f"--user-data-dir={self.profile}", "--window-size=1100,760", "--no-first-run"]:
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.browser = webdriver.Remote(command_executor=f"http://{self.address}:{port}", options=options)

    def stop(self):
        for action in (lambda: self.browser and self.browser.quit(),
                       lambda: self.chromedriver and (self.chromedriver.terminate(), self.chromedriver.wait(10)),
                       lambda: self.node and (self.node.terminate(), self.node.wait(30))):
            try:
                action()
            except Exception:
                pass

    # What the person sees.
    def find(self, css, root=None):
        return (root or self.browser).find_elements(By.CSS_SELECTOR, css)

    def row(self, name):
        rows = self.find('[aria-label="Conversations"] li button.row-main')
        return next((r for r in rows if (r.get_attribute("aria-label") or "").startswith(name)), None)

    def log_texts(self):
        return [b.text for b in self.find('[role="log"][aria-label="Messages"] .bubble')]

    def bubble(self, text):
        for bubble in self.find('[role="log"][aria-label="Messages"] .bubble'):
            if text in bubble.text:
                return bubble
        return None

    def status_of(self, text):
        bubble = self.bubble(text)
        statuses = self.find(".status", bubble) if bubble else []
        return statuses[0].text if statuses else None

    def composer(self):
        return self.browser.find_element(By.CSS_SELECTOR, 'textarea[aria-label="Message"]')

    def type_and_send(self, text):
        box = self.composer()
        box.click()
        box.send_keys(text)
        box.send_keys(Keys.ENTER)

    def banner(self):
        found = self.find("#net-banner")
        return found[0].text if found else ""

    def screenshot(self, label):
        if self.browser:
            path = ARTIFACTS / f"{label}-{self.name.lower()}.png"
            self.browser.save_screenshot(str(path))
            return path


def port_open(host, port):
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


alice = bob = None
steps = []


def step(name):
    def register(function):
        steps.append((name, function))
        return function
    return register


@step("the browser's own attacks are refused (wrong Host, foreign Origin, no cookie, cross-site form and WebSocket)")
def attacks():
    out = alice.run(sys.executable, str(HERE / "attacks.py"), alice.login_link(), args.confab, alice.data,
                    capture_output=True, text=True)
    print(out.stdout, end="")
    assert out.returncode == 0, out.stderr or "an attack was not refused"


@step("a new person sees the empty list")
def empty_state():
    for person in (alice, bob):
        person.browser.get(person.login_link())
        wait_until(f"{person.name}'s empty list", lambda: "No conversations yet" in person.browser.page_source)
        # Signed in: the address bar no longer holds the token.
        assert "token=" not in person.browser.current_url
    wait_until("Alice and Bob in session", lambda: alice.status().get("sessions") and bob.status().get("sessions"))
    wait_until("Alice's peer count", lambda: "online" in alice.banner())


@step("a new conversation with its first message appears live in the other's list, unread")
def new_conversation():
    alice.browser.find_element(By.XPATH, '//button[normalize-space()="New conversation"]').click()
    checkbox = wait_until("Bob in the new-conversation dialog",
                          lambda: alice.find('dialog[open] input[type="checkbox"][aria-label="Bob"]'))[0]
    checkbox.click()
    alice.browser.find_element(By.CSS_SELECTOR, "dialog[open] #new-first").send_keys("Hi Bob, lunch at noon?")
    alice.browser.find_element(By.XPATH, '//dialog[@open]//button[normalize-space()="Create"]').click()
    wait_until("Alice's message in her chat", lambda: alice.bubble("lunch at noon"))
    row = wait_until("the conversation in Bob's list", lambda: bob.row("Alice"))
    assert "lunch at noon" in row.text, row.text
    wait_until("Bob's unread badge", lambda: bob.find('[aria-label="Conversations"] li .badge'))
    wait_until("Alice's message delivered", lambda: alice.status_of("lunch at noon") in ("delivered", "read"))


@step("opening it marks it read, and the sender sees read")
def read_receipt():
    bob.row("Alice").click()
    wait_until("the message in Bob's chat", lambda: bob.bubble("lunch at noon"))
    wait_until("Alice sees read", lambda: alice.status_of("lunch at noon") == "read")
    wait_until("Bob's badge gone", lambda: not bob.find('[aria-label="Conversations"] li .badge'))


@step("typing shows on the other side")
def typing():
    bob.composer().click()
    bob.composer().send_keys("Sure")
    wait_until("Bob is typing, on Alice's screen", lambda: "typing" in alice.browser.find_element(By.ID, "chat-sub").text)


@step("a message is sent at once as sending…, and a script in a message is shown as text")
def script_as_text():
    hostile = '<img src=x onerror="document.title=\'owned\'"><script>document.title="owned"</script>'
    bob.composer().send_keys(Keys.ENTER)
    wait_until("Bob's reply", lambda: alice.bubble("Sure"))
    bob.type_and_send(hostile)
    bubble = wait_until("the hostile message, as text", lambda: alice.bubble("<img src=x"))
    assert hostile in bubble.text, bubble.text
    # The message arrived and was drawn: had any of it been markup, it would have run by now.
    assert not alice.find('[role="log"] img[src="x"]') and not alice.find('[role="log"] script')
    assert alice.browser.title != "owned"
    try:
        alice.browser.switch_to.alert
        raise AssertionError("an alert opened")
    except NoAlertPresentException:
        pass


@step("with the recipient's node stopped a message stays sending… under the offline banner, then is sent")
def offline_then_sent():
    bob.stop_node()
    wait_until("Alice's offline banner",
               lambda: "Offline — messages will be sent when a peer is reachable" in alice.banner())
    alice.type_and_send("Are you still there?")
    wait_until("Alice's message", lambda: alice.status_of("still there") == "sending…")
    bob.start_node()
    wait_until("the message sent once Bob is back", lambda: alice.status_of("still there") in ("sent", "delivered", "read"))
    # Bob's tab lost its node and reconnected: it catches up without a reload.
    wait_until("the message in Bob's open tab", lambda: bob.bubble("still there"), timeout=60)


def main():
    global alice, bob
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    alice = Person("Alice", args.alice, 1)
    bob = Person("Bob", args.bob, 2)
    passed = failed = 0
    try:
        for person in (alice, bob):
            person.start_node()
            person.start_browser()
        for name, function in steps:
            try:
                function()
                passed += 1
                print(f"ok    {name}")
            except Exception:
                failed += 1
                print(f"FAIL  {name}")
                traceback.print_exc()
                label = function.__name__
                for person in (alice, bob):
                    shot = person.screenshot(label)
                    if shot:
                        print(f"      screenshot: {shot}")
                    try:
                        for entry in person.browser.get_log("browser")[-10:]:
                            print(f"      {person.name}'s console: {entry['message']}")
                    except Exception:
                        pass
                break
        if args.screenshot and not failed:
            shutil.copy(alice.screenshot("readme"), args.screenshot)
    finally:
        for person in (alice, bob):
            if person:
                person.stop()
    print(f"web: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


main()
