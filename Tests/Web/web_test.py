"""The web app driven by a real Chromium, as two people use it (run by web-test.sh).

Alice and Bob each run `confab up` with its defaults on their own host of a namespace LAN,
and each has a Chromium on that host, opening the app at its default address through the
login link `confab open` prints. This script runs on a third host of the LAN and drives both
browsers through chromedriver. Carol, on a fourth host, has a node and no browser: she is
started only for the steps that add her to a group. Every wait is for something a person would see; a check
that something did NOT happen first waits for something that proves the path worked.
"""
import argparse
import json
import os
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import struct
import sys
import tempfile
import threading
import time
import traceback
import zlib

import waiting

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.file_detector import UselessFileDetector

parser = argparse.ArgumentParser()
parser.add_argument("--confab", required=True)
parser.add_argument("--alice", required=True, help="Alice's namespace")
parser.add_argument("--bob", required=True, help="Bob's namespace")
parser.add_argument("--carol", required=True, help="Carol's namespace (a node, no browser)")
parser.add_argument("--laptop", required=True, help="the namespace of the machines Alice links (nodes, no browser)")
parser.add_argument("--subnet", required=True)
parser.add_argument("--artifacts", required=True)
parser.add_argument("--screenshot", help="save Alice's chat here once the conversation is under way")
args = parser.parse_args()
ARTIFACTS = pathlib.Path(args.artifacts)
HERE = pathlib.Path(__file__).resolve().parent
WAIT = 30


def wait_until(what, condition, timeout=WAIT):
    return waiting.wait_until(what, condition, timeout, transient=WebDriverException)


def settled(read, tries=5):
    """`read()` again if the page redrew the nodes it was reading (an event came)."""
    for attempt in range(tries):
        try:
            return read()
        except StaleElementReferenceException:
            if attempt == tries - 1:
                raise


def check(what, read):
    """Asserts what the page shows now (no waiting), read again over a redraw."""
    value = settled(read)
    assert value, f"{what} (saw {value!r})"


class Person:
    """One person: a data directory, a node in a namespace, a browser beside it."""

    def __init__(self, name, namespace, host_index, fresh=False):
        self.name = name
        self.namespace = namespace
        self.address = f"{args.subnet}.{host_index}"
        self.data = tempfile.mkdtemp(prefix=f"confab-web-{name.lower()}-")
        self.node = None
        self.chromedriver = None
        self.browser = None
        self.profile = tempfile.mkdtemp(prefix=f"chromium-{name.lower()}-")
        # A fresh person has no identity: her node's web app asks her name (the first run).
        self.id = None
        if not fresh:
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
        if self.id:
            wait_until(f"{self.name}'s web app", lambda: self.status().get("web"))
        else:
            wait_until(f"{self.name}'s first-run page", lambda: os.path.exists(os.path.join(self.data, "web-welcome")))

    def stop_node(self):
        self.node.send_signal(signal.SIGTERM)
        self.node.wait(timeout=30)
        self.node = None

    def status(self):
        out = self.run(args.confab, "--data", self.data, "status", "--json", capture_output=True, text=True)
        return json.loads(out.stdout) if out.returncode == 0 and out.stdout.strip() else {}

    def login_link(self):
        return self.cli("open", "--print").strip().splitlines()[-1].strip()

    def start_browser(self, port=9515):
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
        # chromedriver's own command for the DevTools protocol (a remote driver has no shortcut).
        self.browser.command_executor._commands["cdp"] = ("POST", "/session/$sessionId/goog/cdp/execute")

    def cdp(self, command, params):
        return self.browser.execute("cdp", {"cmd": command, "params": params})["value"]

    def stop(self):
        for action in (lambda: self.browser and self.browser.quit(),
                       lambda: self.chromedriver and (self.chromedriver.terminate(), self.chromedriver.wait(10)),
                       lambda: self.node and (self.node.terminate(), self.node.wait(30)),
                       lambda: shutil.rmtree(self.data, ignore_errors=True),
                       lambda: shutil.rmtree(self.profile, ignore_errors=True)):
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

    def item(self, text):
        """The log entry (bubble and reactions) of the message whose own text holds `text`,
        not a reply that quotes it."""
        for item in self.find('[role="log"][aria-label="Messages"] .item'):
            if any(text in t.text for t in self.find(".bubble > .text", item)):
                return item
        return None

    def message_texts(self):
        """What the log's messages say, top to bottom, without their statuses (which move on)."""
        return [t.text for t in self.find('[role="log"][aria-label="Messages"] .bubble > .text')]

    def inside(self, element, css):
        """`css` under `element`, none if there is no element (rather than the whole page)."""
        return self.find(css, element) if element else []

    def chat_name(self):
        # A group's name follows a "#".
        return self.browser.find_element(By.ID, "chat-name").text.lstrip("#").strip()

    def rows(self):
        """The names in the conversation list, top to bottom."""
        return [r.text.lstrip("#").strip() for r in self.find('[aria-label="Conversations"] li.row .row-name')]

    def row_item(self, name):
        row = self.row(name)
        return row.find_element(By.XPATH, "./ancestor::li[1]") if row else None

    def press(self, what, target):
        """Clicks `target()` once it is there; the list and the log redraw on events, so a
        node gone stale in between is found again."""
        def attempt():
            element = target()
            if element:
                element.click()
                return True
        wait_until(what, attempt)

    def hover_and_press(self, what, target, button_css):
        """Points at `target()` and presses its `button_css`: options buttons only show under
        the pointer, as for a person with a mouse."""
        def attempt():
            element = target()
            if element:
                ActionChains(self.browser).move_to_element(element).perform()
                element.find_element(By.CSS_SELECTOR, button_css).click()
                return True
        wait_until(what, attempt)

    def message_menu(self, text):
        self.hover_and_press(f"{self.name}'s options of “{text}”", lambda: self.item(text), ".msg-options")

    def row_menu(self, name):
        self.hover_and_press(f"{self.name}'s options of the row {name}", lambda: self.row_item(name), ".row-more")

    def choose(self, label):
        """Presses the open menu's item named `label` (its text or its accessible name)."""
        def item():
            for button in self.find('[role="menu"] [role="menuitem"]'):
                if label in (button.text.strip(), button.get_attribute("aria-label")):
                    return button
        self.press(f"{label} in {self.name}'s menu", item)

    def dialog_button(self, label):
        self.press(f"{label} in {self.name}'s dialog", lambda: self.find_xpath(
            f'//dialog[@open]//button[normalize-space()="{label}"]'))

    def file_item(self, name):
        """The log entry of the file message named `name`."""
        for item in self.find('[role="log"][aria-label="Messages"] .item'):
            if any(n.text == name for n in self.find(".file-name, figcaption a", item)):
                return item
        return None

    def find_xpath(self, xpath):
        found = self.browser.find_elements(By.XPATH, xpath)
        return found[0] if found else None

    def in_log_view(self, element):
        """Where `element` is against the log's scrolled pane: above, in, below or partly."""
        return self.browser.execute_script("""
            const r = arguments[0].getBoundingClientRect(), pane = document.getElementById('log').getBoundingClientRect();
            return r.bottom <= pane.top ? 'above' : r.top >= pane.bottom ? 'below'
                 : r.top >= pane.top - 1 && r.bottom <= pane.bottom + 1 ? 'in' : 'partly';""", element)

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


alice = bob = carol = None
steps = []


def step(name):
    def register(function):
        steps.append((name, function))
        return function
    return register


@step("first run in the browser: no identity yet, the page asks the name (a key-like one refused), then the app")
def first_run():
    alice.browser.get(alice.login_link())
    field = wait_until("the name field", lambda: alice.find("form.welcome input#name"))[0]
    assert "token=" not in alice.browser.current_url
    check("nothing but the form before the name", lambda: not alice.find('[role="list"]'))
    field.send_keys("deadbeef01")
    alice.press("Start", lambda: alice.find_xpath('//button[normalize-space()="Start"]'))
    wait_until("a key-like name refused", lambda: any(
        "taken for a key" in e.text for e in alice.find('.form-error[role="alert"]')))
    field = alice.find("form.welcome input#name")[0]
    field.clear()
    field.send_keys("Alice")
    alice.press("Start", lambda: alice.find_xpath('//button[normalize-space()="Start"]'))
    wait_until("the app, signed in, with her name", lambda: alice.find("#me-name")
               and alice.browser.find_element(By.ID, "me-name").text == "Alice", timeout=60)
    wait_until("the empty list", lambda: "No conversations yet" in alice.browser.page_source)
    alice.id = json.loads(alice.cli("whoami", "--json"))["id"]
    check("no welcome address left behind", lambda: not os.path.exists(os.path.join(alice.data, "web-welcome")))


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
    if args.screenshot:
        # The README's picture: Alice's chat with the conversation under way.
        alice.screenshot("readme")


@step("a message edited, reacted to and replied to changes live on the other side; its quote leads back to it")
def edit_react_reply():
    # Halfway through writing something else, Alice edits an earlier message.
    alice.composer().click()
    alice.composer().send_keys("Shall I book")
    alice.message_menu("lunch at noon")
    alice.choose("Edit")
    wait_until("Alice's composer editing", lambda: "Editing message" in alice.browser.find_element(By.ID, "composer").text)
    box = alice.composer()
    assert box.get_attribute("value") == "Hi Bob, lunch at noon?", box.get_attribute("value")
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys("Hi Bob, lunch at one?", Keys.ENTER)
    wait_until("the new text, marked edited, in Bob's chat",
               lambda: [e.text for e in bob.inside(bob.item("lunch at one"), ".meta .edited")] == ["edited"])
    check("the old text gone from Bob's chat", lambda: not bob.item("lunch at noon"))
    assert box.get_attribute("value") == "Shall I book", f"Alice's draft is not back: {box.get_attribute('value')!r}"
    box.send_keys(Keys.CONTROL, "a", Keys.DELETE)

    bob.message_menu("lunch at one")
    bob.choose("React 👍")
    reactions = lambda: alice.inside(alice.item("lunch at one"), ".reactions .reaction")
    wait_until("Bob's 👍 under Alice's message, on her screen", lambda: [r.text for r in reactions()] == ["👍 1"])
    check("the reaction names Bob", lambda: "Bob" in reactions()[0].get_attribute("aria-label"))

    # A long message in between pushes hers out of Alice's view, so the quote has somewhere
    # to take her.
    bob.cli("send", "Alice", "\n".join(["Things to bring:"] + [f"{i}. something" for i in range(1, 31)]))
    wait_until("Bob's long message in Alice's chat", lambda: alice.item("Things to bring"))
    bob.message_menu("lunch at one")
    bob.choose("Reply")
    wait_until("Bob's composer replying", lambda: "Replying to Alice" in bob.browser.find_element(By.ID, "composer").text)
    bob.type_and_send("One works, see you there")
    quote = lambda: (alice.inside(alice.item("One works"), ".quote") or [None])[0]
    wait_until("Bob's reply quoting Alice's message, in her chat",
               lambda: any("lunch at one" in q.text for q in alice.inside(quote(), ".quote-text")))
    original = lambda: alice.item("lunch at one")
    key = settled(lambda: original().get_attribute("data-key"))
    check("Alice's message out of view before the quote is pressed", lambda: alice.in_log_view(original()) == "above")
    # The highlight lasts 1.6 s: a watcher records it, so a slow poll cannot miss it.
    alice.browser.execute_script("""
        window.flashed = [];
        new MutationObserver((changes) => changes.forEach((c) => {
          if (c.target.classList.contains('flash')) window.flashed.push(c.target.dataset.key);
        })).observe(document.getElementById('log'), { subtree: true, attributes: true, attributeFilter: ['class'] });""")
    alice.press("the quote", quote)
    wait_until("Alice's message highlighted", lambda: key in alice.browser.execute_script("return window.flashed"))
    wait_until("Alice's message in view", lambda: alice.in_log_view(original()) == "in")


@step("a message deleted for everyone shows as deleted in its place on the other side")
def delete_for_everyone():
    before = settled(bob.message_texts)
    place = before.index("Are you still there?")
    expected = before[:place] + ["This message was deleted"] + before[place + 1:]
    alice.message_menu("still there")
    alice.choose("Delete for everyone")
    alice.dialog_button("Delete")
    # In its place: the messages around it are as they were.
    wait_until("the deleted mark in Bob's chat, in its place", lambda: bob.message_texts() == expected)
    wait_until("the deleted mark in Alice's chat", lambda: "This message was deleted" in alice.message_texts())


@step("a second conversation arrives live; pin, archive, mark unread, search, and delete (Cancel, then Delete)")
def list_actions():
    plans = json.loads(bob.cli("new", alice.id, "--title", "Plans", "--message", "second thread", "--json"))["id"]
    wait_until("Plans in Alice's list, unread",
               lambda: alice.rows() == ["Plans", "Bob"] and alice.inside(alice.row_item("Plans"), ".badge"))

    # Pin: the older conversation goes first, marked.
    alice.row_menu("Bob")
    alice.choose("Pin")
    wait_until("Bob pinned first", lambda: alice.rows() == ["Bob", "Plans"])
    check("the pin mark on Bob's row only", lambda: alice.inside(alice.row_item("Bob"), '.mark[title="Pinned"]')
          and not alice.inside(alice.row_item("Plans"), '.mark[title="Pinned"]'))

    # Archive: out of the list, in the Archived view, and back.
    alice.row_menu("Plans")
    alice.choose("Archive")
    wait_until("Plans out of the list", lambda: alice.rows() == ["Bob"])
    archived = alice.browser.find_element(By.ID, "archived-btn")
    archived.click()
    wait_until("the Archived view with Plans", lambda: alice.rows() == ["Plans"] and archived.get_attribute("aria-pressed") == "true")
    alice.row_menu("Plans")
    alice.choose("Unarchive")
    wait_until("the Archived view empty", lambda: "No archived conversations" in alice.browser.find_element(By.ID, "list-area").text)
    archived.click()
    wait_until("Plans back in the list", lambda: alice.rows() == ["Bob", "Plans"])

    # Mark as unread, on a read conversation that is not open; opening it clears the mark.
    alice.press("Plans' row", lambda: alice.row("Plans"))
    wait_until("Plans open", lambda: alice.chat_name() == "Plans" and alice.item("second thread"))
    wait_until("Plans read", lambda: alice.row_item("Plans") and not alice.inside(alice.row_item("Plans"), ".badge, .dot"))
    wait_until("Bob's conversation read", lambda: alice.row_item("Bob") and not alice.inside(alice.row_item("Bob"), ".badge, .dot"))
    alice.row_menu("Bob")
    alice.choose("Mark as unread")
    wait_until("the unread mark on Bob's row", lambda: alice.inside(alice.row_item("Bob"), ".dot")
               and "marked unread" in alice.row("Bob").get_attribute("aria-label"))
    alice.press("Bob's row", lambda: alice.row("Bob"))
    wait_until("Bob's conversation open", lambda: alice.chat_name() == "Bob" and alice.item("One works"))
    wait_until("the unread mark gone", lambda: alice.row_item("Bob") and not alice.inside(alice.row_item("Bob"), ".dot, .badge"))

    # Search: the message, its match marked; pressing it opens its conversation.
    search = alice.browser.find_element(By.ID, "search")
    search.send_keys("second")
    hits = lambda: alice.find('[aria-label="Search results"] li button')
    # Typed key by key, the box may search "sec" first: wait for the answer to the word.
    wait_until("the search result, its match marked",
               lambda: [([n.text for n in alice.find(".row-name", h)], [m.text for m in alice.find("mark", h)])
                        for h in hits()] == [(["Plans"], ["second"])])
    check("the result shows the message", lambda: "second thread" in hits()[0].text)
    alice.press("the search result", lambda: (hits() or [None])[0])
    wait_until("Plans open from the search", lambda: alice.chat_name() == "Plans" and alice.item("second thread"))
    search.send_keys(Keys.ESCAPE)
    wait_until("the list back", lambda: alice.rows() == ["Bob", "Plans"])

    # Delete: Cancel keeps it, Delete removes it from this computer.
    alice.row_menu("Plans")
    alice.choose("Delete")
    alice.dialog_button("Cancel")
    wait_until("the dialog closed", lambda: not alice.find("dialog[open]"))
    # Reading it from the node again, after the dialog closed, proves it is still there.
    alice.press("Bob's row", lambda: alice.row("Bob"))
    wait_until("Bob's conversation open", lambda: alice.chat_name() == "Bob")
    alice.press("Plans' row", lambda: alice.row("Plans"))
    wait_until("Plans still there", lambda: alice.chat_name() == "Plans" and alice.item("second thread"))
    check("Plans still listed", lambda: alice.rows() == ["Bob", "Plans"])
    alice.row_menu("Plans")
    alice.choose("Delete")
    alice.dialog_button("Delete")
    wait_until("Plans gone from the list", lambda: alice.rows() == ["Bob"])
    wait_until("its chat closed", lambda: alice.browser.find_element(By.ID, "chat-empty").is_displayed())
    ids = [c["id"] for c in json.loads(alice.cli("list", "--all", "--json"))]
    assert plans not in ids, ids


@step("a message that comes while a conversation is opening shows once it is open")
def event_while_opening():
    # A slow network for one request: the answer with the conversation's first page is held
    # until released, so the message's events come after the page was read, before it is drawn.
    alice.browser.execute_script("""
        const fetch = window.fetch;
        window.held = 'waiting';
        window.fetch = async (url, options) => {
          const answer = await fetch(url, options);
          if (String(url).endsWith('/api/v1/history') && window.held === 'waiting') {
            window.held = 'holding';
            while (window.held === 'holding') await new Promise((go) => setTimeout(go, 50));
          }
          return answer;
        };""")
    alice.press("Bob's row", lambda: alice.row("Bob"))
    wait_until("the first page's answer held", lambda: alice.browser.execute_script("return window.held") == "holding")
    one = next(c["id"] for c in json.loads(alice.cli("list", "--json")) if c["name"] == "Bob")
    alice.cli("send", one, "Sent from the terminal")
    # The list (not held) shows it: the page has had the message's events.
    wait_until("the message in Alice's list", lambda: "Sent from the terminal" in alice.row("Bob").text)
    alice.browser.execute_script("window.held = 'released'")
    wait_until("the conversation drawn", lambda: alice.item("One works"))
    wait_until("the message in the open conversation", lambda: alice.item("Sent from the terminal"))
    wait_until("its status, read by Bob", lambda: alice.status_of("Sent from the terminal") == "read")


def png(width, height):
    """A real PNG: a gradient, so the browser has something to decode."""
    rows = b"".join(b"\x00" + b"".join(bytes((x * 255 // width, y * 255 // height, 160)) for x in range(width))
                    for y in range(height))
    chunk = lambda kind, data: (struct.pack(">I", len(data)) + kind + data
                                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


@step("files sent with the Attach button arrive: a picture as a thumbnail, a hostile name as text")
def files():
    folder = pathlib.Path(tempfile.mkdtemp(prefix="confab-web-files-"))
    picture = folder / "sunset.png"
    picture.write_bytes(png(320, 200))
    hostile = folder / '"><img src=x onerror=alert(1)>.txt'
    hostile.write_text("just text\n")
    alice.press("Bob's row", lambda: alice.row("Bob"))
    wait_until("Alice's conversation with Bob open", lambda: alice.item("Sent from the terminal"))
    picker = alice.browser.find_element(By.CSS_SELECTOR, '#composer input[type="file"]')
    # The browser runs on this machine: it reads the paths itself (no upload through WebDriver).
    alice.browser.file_detector = UselessFileDetector()
    picker.send_keys(f"{picture}\n{hostile}")
    # Bob's page draws the picture once his node holds it whole: decoded, not a broken image.
    bob.press("Alice's row", lambda: bob.row("Alice"))
    image = wait_until("the picture in Bob's chat", lambda: bob.find('[role="log"] figure.image img[alt="sunset.png"]'))[0]
    wait_until("the picture decoded", lambda: bob.browser.execute_script(
        "return arguments[0].complete && arguments[0].naturalWidth", image) == 320)
    name = '"><img src=x onerror=alert(1)>.txt'
    link = wait_until("the hostile file's link", lambda: [a for a in bob.find('[role="log"] a.file-name') if a.text == name])
    assert link[0].get_attribute("download") is not None
    # Both files arrived and were drawn: no element came out of the name.
    assert not bob.find('[role="log"] img[src="x"]')
    shutil.rmtree(folder, ignore_errors=True)


@step("my file's bubble shows how much of it the recipient holds, up to ✓ Bob")
def file_progress():
    folder = pathlib.Path(tempfile.mkdtemp(prefix="confab-web-progress-"))
    notes = folder / "field-notes.bin"
    notes.write_bytes(os.urandom(3_000_000))
    alice.press("Bob's row", lambda: alice.row("Bob"))
    wait_until("Alice's conversation with Bob open", lambda: alice.chat_name().rstrip(" ✓") == "Bob")
    # What Alice's bubble showed on the way (a fast LAN may go from nothing to whole at once).
    alice.browser.execute_script("""
        window.recipientBars = [];
        new MutationObserver(() => document.querySelectorAll('#log .file-recipients progress').forEach((p) => {
          const label = p.getAttribute('aria-label');
          if (!window.recipientBars.includes(label)) window.recipientBars.push(label);
        })).observe(document.getElementById('log'), { subtree: true, childList: true });""")
    picker = alice.browser.find_element(By.CSS_SELECTOR, '#composer input[type="file"]')
    alice.browser.file_detector = UselessFileDetector()
    picker.send_keys(str(notes))
    recipients = lambda: alice.inside(alice.file_item("field-notes.bin"), ".file-recipients")
    wait_until("✓ Bob under the file in Alice's chat", lambda: [r.text for r in recipients()] == ["✓ Bob"], timeout=60)
    # Bob's node said it holds the file whole: so it does.
    bob.press("Alice's row", lambda: bob.row("Alice"))
    wait_until("the file whole in Bob's chat", lambda: [a for a in bob.find('[role="log"] a.file-name')
                                                       if a.text == "field-notes.bin"])
    bars = alice.browser.execute_script("return window.recipientBars")
    assert all(b.startswith("Bob has ") and b.endswith("%") for b in bars), bars
    print(f"      Alice's bubble showed on the way: {bars or 'no bar (it was whole at once)'}")
    shutil.rmtree(folder, ignore_errors=True)


@step("two tabs and the CLI on one node stay consistent")
def two_tabs():
    first = alice.browser.current_window_handle
    alice.browser.switch_to.new_window("tab")
    second = alice.browser.current_window_handle
    try:
        alice.browser.get("http://127.0.0.1:7462/")
        wait_until("Alice's second tab's list", lambda: alice.row("Bob"))
        # Written in the second tab: the first shows it, with its status moving on.
        alice.press("Bob's row in the second tab", lambda: alice.row("Bob"))
        alice.type_and_send("Written in my second tab")
        alice.browser.switch_to.window(first)
        wait_until("the message in the first tab", lambda: alice.item("Written in my second tab"))
        wait_until("read, in the first tab", lambda: alice.status_of("Written in my second tab") == "read")
        # Written by the CLI on the same node: both tabs show it.
        one = next(c["id"] for c in json.loads(alice.cli("list", "--json")) if c["name"] == "Bob")
        alice.cli("send", one, "Written from the terminal")
        wait_until("the CLI's message in the first tab", lambda: alice.item("Written from the terminal"))
        alice.browser.switch_to.window(second)
        wait_until("the CLI's message in the second tab", lambda: alice.item("Written from the terminal"))
    finally:
        alice.browser.switch_to.window(second)
        alice.browser.close()
        alice.browser.switch_to.window(first)


@step("People: verifying a peer shows the safety number both sides compute, then marks the key verified")
def verify_peer():
    expected = json.loads(alice.cli("verify", bob.id, "--json"))["safetyNumber"]
    assert expected == json.loads(bob.cli("verify", alice.id, "--json"))["safetyNumber"]
    alice.press("People", lambda: alice.find_xpath('//button[normalize-space()="People"]'))
    alice.press("Verify, beside Bob", lambda: alice.find_xpath(
        '//dialog[@open]//li[.//*[normalize-space()="Bob"]]//button[normalize-space()="Verify"]'))
    shown = wait_until("the safety number", lambda: [p.text for p in alice.find("dialog.confirm[open] p")
                                                       if expected in p.text])
    assert shown, expected
    # The confirmation's own button, not the row's Verify in the People dialog beneath it.
    alice.press("Verify in the confirmation", lambda: alice.find_xpath(
        '//dialog[contains(@class, "confirm")][@open]//button[normalize-space()="Verify"]'))
    wait_until("Bob verified", lambda: any(p["trust"] == "verified" for p in json.loads(alice.cli("peers", "--json"))
                                           if p["id"] == bob.id))
    alice.browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
    wait_until("the People dialog closed", lambda: not alice.find("dialog[open]"))


@step("by keyboard alone: New conversation opens its dialog and Escape closes it")
def keyboard():
    body = alice.browser.find_element(By.TAG_NAME, "body")
    body.click()
    # Tab from the page's start until the focus is on the button a person wants.
    def focused_label():
        return alice.browser.execute_script(
            "const e = document.activeElement; return e ? (e.getAttribute('aria-label') || e.textContent).trim() : ''")
    for _ in range(40):
        if focused_label() == "New conversation":
            break
        alice.browser.switch_to.active_element.send_keys(Keys.TAB)
    assert focused_label() == "New conversation", focused_label()
    alice.browser.switch_to.active_element.send_keys(Keys.ENTER)
    wait_until("the dialog open", lambda: alice.find("dialog[open]"))
    alice.browser.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait_until("the dialog closed", lambda: not alice.find("dialog[open]"))


@step("360 px wide shows one pane at a time; dark and light follow the system")
def narrow_and_dark():
    def background():
        return alice.browser.execute_script("return getComputedStyle(document.body).backgroundColor")
    light = background()
    alice.cdp("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    wait_until("a dark background", lambda: background() != light)
    alice.cdp("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "light"}]})
    wait_until("the light background again", lambda: background() == light)
    alice.browser.set_window_size(360, 740)
    try:
        def visible(css):
            return alice.browser.execute_script(
                "const e = document.querySelector(arguments[0]); if (!e) return false;"
                "const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && r.right <= innerWidth + 1",
                css)
        alice.browser.get("http://127.0.0.1:7462/")
        wait_until("the list alone", lambda: visible('[aria-label="Conversations"]') and not visible('#chat-view'))
        alice.press("Bob's row", lambda: alice.row("Bob"))
        wait_until("the chat alone", lambda: visible('[role="log"]') and not visible('[aria-label="Conversations"]'))
        assert alice.browser.execute_script("return document.documentElement.scrollWidth <= innerWidth")
        alice.press("back", lambda: alice.find('button[aria-label="Back to conversations"]')[0])
        wait_until("the list again", lambda: visible('[aria-label="Conversations"]'))
    finally:
        alice.browser.set_window_size(1100, 760)


def member_names(person, heading="Members"):
    """The names in the open Members panel's list (`heading`: Members, or Former members)."""
    if heading == "Members":
        css = 'dialog[open] ul[aria-label="Members"] .person-name'
    else:
        css = 'dialog[open] ul.former .person-name'
    return [n.text.replace("admin", "").replace("✓", "").strip() for n in person.find(css)]


def carol_reads(conversation, text):
    """Carol's node holds the conversation and can read `text` in it."""
    listed = [c["id"] for c in json.loads(carol.cli("list", "--all", "--json"))]
    if conversation not in listed:
        return False
    return text in carol.cli("history", conversation, "--no-mark-read")


@step("Members: the admin adds a known peer from the panel, with the history, and removes her (confirmed); "
      "the other member sees both and has no Remove button")
def members_add_remove():
    carol.start_node()
    try:
        wait_until("Carol known to Alice's node",
                   lambda: any(p["id"] == carol.id for p in json.loads(alice.cli("peers", "--json"))))
        trip = json.loads(alice.cli("new", bob.id, "--title", "Trip", "--message", "Trip planning starts here",
                                    "--json"))["id"]
        for person in (alice, bob):
            person.press(f"Trip in {person.name}'s list", lambda: person.row("Trip"))
            # Bob is verified and the only other one yet: the name carries his ✓.
            wait_until(f"Trip open for {person.name}",
                       lambda: person.chat_name().rstrip(" ✓") == "Trip" and person.item("Trip planning"))

        # Alice made the group: she is its admin. She adds Carol, giving her the history.
        alice.press("Members", lambda: alice.find_xpath('//button[normalize-space()="Members"]'))
        wait_until("Alice's Members panel", lambda: member_names(alice) == ["Alice (you)", "Bob"])
        alice.dialog_button("Add people")
        carol_box = wait_until("Carol among the people to add",
                               lambda: alice.find('dialog[open] input[type="checkbox"][aria-label="Carol"]'))[0]
        check("Bob not offered (he is a member)",
              lambda: not alice.find('dialog[open] input[type="checkbox"][aria-label="Bob"]'))
        carol_box.click()
        alice.press("the history box", lambda: alice.find_xpath(
            '//dialog[@open]//label[contains(normalize-space(), "history too")]//input'))
        alice.dialog_button("Add")
        wait_until("Carol in Alice's panel", lambda: member_names(alice) == ["Alice (you)", "Bob", "Carol"])
        wait_until("Carol in Alice's header", lambda: "Carol" in alice.browser.find_element(By.ID, "chat-sub").text)
        wait_until("the change in Bob's chat", lambda: any(
            "Alice added Carol" in e.text for e in bob.find('[role="log"] .system')))
        wait_until("Carol in Bob's header", lambda: "Carol" in bob.browser.find_element(By.ID, "chat-sub").text)
        wait_until("Carol's node reads the earlier message", lambda: carol_reads(trip, "Trip planning starts here"))

        # Bob is a member, not the admin: he sees Carol and no Remove button.
        bob.press("Members", lambda: bob.find_xpath('//button[normalize-space()="Members"]'))
        wait_until("Carol in Bob's panel", lambda: member_names(bob) == ["Alice", "Bob (you)", "Carol"])
        check("no Remove button for Bob", lambda: not bob.find_xpath(
            '//dialog[@open]//button[normalize-space()="Remove" or starts-with(@aria-label, "Remove")]'))
        check("Add people offered to Bob", lambda: bob.find_xpath('//dialog[@open]//button[normalize-space()="Add people"]'))
        bob.browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
        wait_until("Bob's panel closed", lambda: not bob.find("dialog[open]"))

        # Alice has Remove beside the others, not beside herself; Carol's asks first.
        check("Remove beside Bob and Carol only", lambda: [
            b.get_attribute("aria-label") for b in alice.find('dialog[open] ul[aria-label="Members"] button')]
            == ["Remove Bob", "Remove Carol"])
        alice.press("Remove Carol", lambda: alice.find_xpath('//dialog[@open]//button[@aria-label="Remove Carol"]'))
        alice.press("Remove in the confirmation", lambda: alice.find_xpath(
            '//dialog[contains(@class, "confirm")][@open]//button[normalize-space()="Remove"]'))
        wait_until("Carol a former member in Alice's panel", lambda: member_names(alice) == ["Alice (you)", "Bob"]
                   and member_names(alice, "Former members") == ["Carol"])
        wait_until("the removal in Bob's chat", lambda: any(
            "Alice removed Carol" in e.text for e in bob.find('[role="log"] .system')))
        wait_until("Carol gone from Bob's header", lambda: "Carol" not in bob.browser.find_element(By.ID, "chat-sub").text
                   and "Alice" in bob.browser.find_element(By.ID, "chat-sub").text)
        alice.browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
        wait_until("Alice's panel closed", lambda: not alice.find("dialog[open]"))
        wait_until("Carol gone from Alice's header", lambda: "Carol" not in alice.browser.find_element(By.ID, "chat-sub").text)
    finally:
        if carol.node:
            carol.stop_node()


@step("Settings: a new display name reaches the other side live; People: add by key, and the network check's findings")
def settings_and_people():
    # Bob renames himself; Alice's open chat and list follow without a reload.
    alice.press("Bob in Alice's list", lambda: alice.row("Bob"))
    wait_until("Bob's chat open for Alice", lambda: alice.chat_name().rstrip(" ✓") == "Bob")
    bob.press("Settings", lambda: bob.find_xpath('//button[normalize-space()="Settings" or @aria-label="Settings"]'))
    field = wait_until("the Display name field", lambda: bob.find('dialog[open] input#set-name'))[0]
    check("Bob's key shown for adding by hand", lambda: bob.id in bob.find("dialog[open] code.key")[0].text)
    check("the network tag shown", lambda: any("Network tag" in p.text for p in bob.find("dialog[open] p.hint")))
    field.clear()
    field.send_keys("Robert <b>B</b>")
    bob.dialog_button("Save")
    wait_until("Bob's own name in his page", lambda: bob.browser.find_element(By.ID, "me-name").text == "Robert <b>B</b>")
    wait_until("the new name in Alice's list", lambda: alice.row("Robert <b>B</b>"))
    wait_until("the new name in Alice's open chat", lambda: alice.chat_name().rstrip(" ✓") == "Robert <b>B</b>")
    check("the name is text, not markup", lambda: not alice.find("#chat-name b, [aria-label=\"Conversations\"] b"))
    bob.browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
    wait_until("Bob's Settings closed", lambda: not bob.find("dialog[open]"))

    # Alice adds a key her node has never seen, by hand, under a name of her choosing.
    dave = tempfile.mkdtemp(prefix="confab-web-dave-")
    alice.run(args.confab, "--data", dave, "init", "--name", "Dave", check=True, capture_output=True)
    dave_id = json.loads(alice.run(args.confab, "--data", dave, "whoami", "--json", check=True,
                                   capture_output=True, text=True).stdout)["id"]
    shutil.rmtree(dave, ignore_errors=True)
    alice.press("People", lambda: alice.find_xpath('//button[normalize-space()="People"]'))
    key = wait_until("the Key field", lambda: alice.find("dialog[open] input#add-key"))[0]
    key.send_keys("not a key")
    alice.find("dialog[open] input#add-name")[0].send_keys("Dave from sales")
    alice.dialog_button("Add")
    wait_until("a wrong key refused", lambda: any("64 hex" in e.text for e in alice.find("dialog[open] .add-by-key .form-error")))
    key.clear()
    key.send_keys(dave_id)
    alice.dialog_button("Add")
    wait_until("Dave in the store under Alice's name for him", lambda: any(
        p["id"] == dave_id and p["name"] == "Dave from sales" for p in json.loads(alice.cli("peers", "--json"))))
    wait_until("Dave in the People list", lambda: any(
        n.text.strip() == "Dave from sales" for n in alice.find('dialog[open] ul[aria-label="Known peers"] .person-name')))

    # The node checks its network as confab doctor does: Bob is connected.
    alice.dialog_button("Check network")
    wait_until("the verdict", lambda: any("reaches peers" in p.text for p in alice.find("dialog[open] .doctor-verdict")),
               timeout=60)
    check("a finding says a peer is connected", lambda: any(
        "connected" in f.text for f in alice.find('dialog[open] ul[aria-label="Findings"] > li')))
    alice.browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
    wait_until("the People dialog closed", lambda: not alice.find("dialog[open]"))


class Interactive:
    """A confab command that asks y/N on its standard input, its output read as it comes (a
    prompt ends no line)."""

    def __init__(self, namespace, data, *words):
        self.process = subprocess.Popen(
            ["ip", "netns", "exec", namespace, args.confab, "--data", data, *words],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env={**os.environ, "NO_COLOR": "1"})
        self.chunks = []
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        while True:
            data = os.read(self.process.stdout.fileno(), 4096)
            if not data:
                return
            self.chunks.append(data)

    @property
    def output(self):
        return b"".join(self.chunks).decode("utf-8", "replace")

    def wait_for(self, text):
        wait_until(f"“{text}” from confab", lambda: text in self.output)

    def answer(self, line):
        self.process.stdin.write((line + "\n").encode())
        self.process.stdin.flush()

    def finish(self):
        code = self.process.wait(timeout=WAIT)
        assert code == 0, self.output

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)


def link_device(name, data):
    """Links a new machine to Alice's as a person does: `confab devices link` on hers (her node
    running), `confab init --link CODE` on the laptop's host, both saying yes to the same words."""
    offer = Interactive(alice.namespace, alice.data, "devices", "link", "--no-discovery")
    join = None
    try:
        offer.wait_for("Waiting for the new machine")
        code = re.search(r"Link code: ([0-9A-Z]{5}-[0-9A-Z]{5})", offer.output).group(1)
        port = re.search(r"--peer \S+:(\d+)", offer.output).group(1)
        join = Interactive(args.laptop, data, "init", "--link", code, "--peer", f"{alice.address}:{port}", "--name", name)
        join.wait_for("[y/N]")
        offer.wait_for("[y/N]")
        words = re.search(r"Words: ([a-z ]+)\n", join.output).group(1)
        assert f"Words: {words}\n" in offer.output, offer.output
        join.answer("y")
        offer.answer("y")
        join.finish()
        offer.finish()
    finally:
        for process in (join, offer):
            if process:
                process.stop()


def bobs_thread_with_alice():
    return next(c["id"] for c in json.loads(bob.cli("list", "--all", "--json")) if c["name"] == "Alice")


def bob_holds_line(sentence):
    history = json.loads(bob.cli("history", bobs_thread_with_alice(), "--json", "--no-mark-read"))
    return any(sentence in (m.get("system") or "") for m in history)


def system_lines(person):
    return [e.text for e in person.find('[role="log"] .system')]


def open_devices(person):
    """Settings, then Show devices: the Your devices dialog, read once its list is drawn."""
    person.press("Settings", lambda: person.find_xpath('//button[normalize-space()="Settings" or @aria-label="Settings"]'))
    person.dialog_button("Show devices")
    wait_until(f"{person.name}'s devices", lambda: person.find('dialog[open] ul[aria-label="Your devices"] li'))


def devices_shown(person):
    """Each device of the open list: its name line, presence and buttons."""
    return [(settled(lambda: (li.find_element(By.CSS_SELECTOR, ".person-name").text,
                              li.find_element(By.CSS_SELECTOR, ".presence").text,
                              [b.text for b in li.find_elements(By.CSS_SELECTOR, "button")])))
            for li in person.find('dialog[open] ul[aria-label="Your devices"] li')]


def close_dialogs(person):
    while person.find("dialog[open]"):
        person.browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
        time.sleep(0.2)


@step("Your devices: a laptop Alice links shows in Bob's history with her; Alice sees it online in her devices, "
      "removes it there (confirmed), and the laptop and Bob learn it")
def devices_link_and_remove():
    data = os.path.join(tempfile.mkdtemp(prefix="confab-web-laptop-"), "data")
    link_device("laptop", data)
    laptop_node = None
    try:
        # The laptop runs its node (no web app): Alice's list shows it online.
        log = open(data + ".log", "a")
        laptop_node = subprocess.Popen(["ip", "netns", "exec", args.laptop, args.confab, "--data", data, "up", "--no-web"],
                                       stdout=log, stderr=log)
        # The line, read with the history (a page loaded after it came, not a live event):
        # the history's shape names the machine `deviceName`, the events' `name`.
        wait_until("the device line in Bob's store", lambda: bob_holds_line("Alice linked a new device: laptop"))
        bob.browser.get("http://127.0.0.1:7462/")
        bob.press("Alice in Bob's list", lambda: bob.row("Alice"))
        wait_until("the device line in Bob's chat", lambda: any(
            re.fullmatch(r"Alice linked a new device: laptop \([0-9a-f]{4} [0-9a-f]{4}\)", t) for t in system_lines(bob)))

        open_devices(alice)
        wait_until("Alice's two devices, the laptop online", lambda: devices_shown(alice) == [
            ("Alice this device", "online", []), ("laptop", "online", ["Remove"])])
        check("each with its fingerprint", lambda: len(alice.find('dialog[open] ul[aria-label="Your devices"] .fingerprint')) == 2)
        alice.press("Remove laptop", lambda: alice.find_xpath('//dialog[@open]//button[@aria-label="Remove laptop"]'))
        # Cancel keeps it; then Remove.
        alice.press("Cancel in the confirmation", lambda: alice.find_xpath(
            '//dialog[contains(@class, "confirm")][@open]//button[normalize-space()="Cancel"]'))
        wait_until("the confirmation closed", lambda: not alice.find("dialog.confirm[open]"))
        check("the laptop still listed", lambda: len(devices_shown(alice)) == 2)
        alice.press("Remove laptop", lambda: alice.find_xpath('//dialog[@open]//button[@aria-label="Remove laptop"]'))
        alice.press("Remove in the confirmation", lambda: alice.find_xpath(
            '//dialog[contains(@class, "confirm")][@open]//button[normalize-space()="Remove"]'))
        wait_until("the outcome", lambda: any(
            p.text.startswith("Removed laptop.") and "moved to a new key" in p.text
            for p in alice.find("dialog[open] .device-outcome")))
        wait_until("the laptop gone from the list", lambda: devices_shown(alice) == [("Alice this device", "online", [])])
        check("the store agrees", lambda: [d["name"] for d in json.loads(alice.cli("devices", "--json"))["devices"]] == ["Alice"])
        # Through her node at once: the laptop holds the removal, Bob shows the line live.
        wait_until("the laptop knows it was removed", lambda: "This device was removed from Alice's devices" in alice.run(
            args.confab, "--data", data, "devices", capture_output=True, text=True).stdout)
        wait_until("the removal in Bob's open chat", lambda: any(
            t.startswith("Alice removed a device: laptop") for t in system_lines(bob)))
        close_dialogs(alice)
    finally:
        if laptop_node:
            laptop_node.terminate()
            laptop_node.wait(timeout=30)
        shutil.rmtree(os.path.dirname(data), ignore_errors=True)


@step("a device named with markup shows as text in Alice's devices and in Bob's chat, and runs nothing")
def hostile_device_name():
    hostile = "<img src=x onerror=alert(1)>"
    data = os.path.join(tempfile.mkdtemp(prefix="confab-web-hostile-"), "data")
    try:
        link_device(hostile, data)
        open_devices(alice)
        wait_until("the device, named as text", lambda: [d[0] for d in devices_shown(alice)] == ["Alice this device", hostile])
        wait_until("its line in Bob's open chat, as text", lambda: any(
            t.startswith(f"Alice linked a new device: {hostile} (") for t in system_lines(bob)))
        # Drawn on both pages: had any of it been markup, it would have run by now.
        for person in (alice, bob):
            check(f"no image made on {person.name}'s page", lambda: not person.find('img[src="x"]'))
            try:
                person.browser.switch_to.alert
                raise AssertionError(f"an alert opened on {person.name}'s page")
            except NoAlertPresentException:
                pass
        close_dialogs(alice)
    finally:
        shutil.rmtree(os.path.dirname(data), ignore_errors=True)


def looks(person, label):
    """Screenshots of what `person`'s page shows now, light and dark, wide and narrow (390 px),
    for a person to look at (kept in the artifacts, never compared)."""
    try:
        for scheme in ("light", "dark"):
            person.cdp("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
            for width in (1100, 390):
                person.browser.set_window_size(width, 760)
                time.sleep(0.3)
                person.browser.save_screenshot(str(ARTIFACTS / f"look-{label}-{scheme}-{width}.png"))
    finally:
        person.cdp("Emulation.setEmulatedMedia", {"features": []})
        person.browser.set_window_size(1100, 760)


def link_dialog(person):
    """Link a new machine in the open Your devices: the offer's code and where it listens, once shown."""
    person.dialog_button("Link a new machine")
    code = wait_until("the offer's code", lambda: [e.text for e in person.find("dialog.link[open] .link-code")])[0]
    command = wait_until("the command", lambda: [e.text for e in person.find("dialog.link[open] code")])[0]
    peer = re.fullmatch(rf"confab init --link {code} --peer (\S+)", command).group(1)
    return code, peer


def link_text(person):
    return " ".join(settled(lambda: [e.text for e in person.find("dialog.link[open] .dialog-body > *")]))


@step("Link a new machine in Alice's web app: the code and its QR code in the dialog, the same words on the "
      "laptop's `init --link`, Yes on both links it; a No in the dialog links nothing; closing the dialog ends the offer")
def web_link():
    hostile = "<img src=y onerror=alert(2)>"
    root = tempfile.mkdtemp(prefix="confab-web-weblink-")
    join = None
    try:
        open_devices(alice)
        before = [d[0] for d in devices_shown(alice)]
        looks(alice, "devices")
        code, peer = link_dialog(alice)
        assert re.fullmatch(r"[0-9A-Z]{5}-[0-9A-Z]{5}", code), code
        check("a QR code of the command", lambda: len(alice.find("dialog.link[open] svg.qr path")) == 1)
        check("how long it stays valid", lambda: re.search(r"Valid for [45]:\d\d", link_text(alice)))
        looks(alice, "link-code")
        # The QR code as a camera reads it off the screen: the command the dialog prints.
        command = alice.find("dialog.link[open] code")[0].text
        for shot in ("light-1100", "dark-390"):
            read = subprocess.run(["/usr/bin/zbarimg", "-q", "--raw", str(ARTIFACTS / f"look-link-code-{shot}.png")],
                                  capture_output=True, text=True)
            assert read.stdout.strip() == command, f"zbarimg read {read.stdout!r} ({read.stderr.strip()}) off {shot}"

        data = os.path.join(root, "laptop")
        join = Interactive(args.laptop, data, "init", "--link", code, "--peer", peer, "--name", hostile)
        join.wait_for("[y/N]")
        words = re.search(r"Words: ([a-z ]+)\n", join.output).group(1)
        shown = wait_until("the words in the dialog", lambda: [e.text for e in alice.find("dialog.link[open] .link-words")])[0]
        assert shown == words, f"the dialog shows {shown!r}, the laptop {words!r}"
        check("the name it asks for, as text", lambda: f"“{hostile}”" in link_text(alice))
        looks(alice, "link-words")
        alice.dialog_button("Yes, they match")
        join.answer("y")
        join.finish()
        wait_until("linked, in the dialog", lambda: f"Linked {hostile}" in link_text(alice))
        # The list under the dialog read again by itself.
        wait_until("the laptop in the list", lambda: [d[0] for d in devices_shown(alice)] == before + [hostile])
        check("no image made from its name", lambda: not alice.find('img[src="y"]'))
        close_dialogs(alice)
        open_devices(alice)

        # A No in the dialog, after the words (the path to a link worked): the laptop hears the
        # refusal and writes nothing, and the list is as it was.
        listed = [d[0] for d in devices_shown(alice)]
        code, peer = link_dialog(alice)
        data = os.path.join(root, "refused")
        join = Interactive(args.laptop, data, "init", "--link", code, "--peer", peer, "--name", "refused")
        join.wait_for("[y/N]")
        wait_until("the words in the dialog", lambda: alice.find("dialog.link[open] .link-words"))
        alice.dialog_button("No")
        code_back = join.process.wait(timeout=WAIT)
        assert code_back != 0 and "refused" in join.output and "nothing was linked" in join.output, join.output
        wait_until("the dialog says nothing was linked",
                   lambda: "You answered no: nothing was linked" in link_text(alice))
        assert not os.path.exists(data), "the refused laptop wrote its data directory"
        check("nobody added", lambda: [d[0] for d in devices_shown(alice)] == listed)

        # Closing the dialog ends the offer on the node: a new one opens at once (one at a
        # time), and the closed one's code reaches nothing.
        close_dialogs(alice)
        open_devices(alice)
        code, peer = link_dialog(alice)
        close_dialogs(alice)
        open_devices(alice)
        again, _ = link_dialog(alice)
        assert again != code
        gone = alice.run(args.confab, "--data", os.path.join(root, "late"), "init", "--link", code, "--peer", peer,
                         capture_output=True, text=True)
        assert gone.returncode != 0 and "cannot reach the offer" in gone.stderr + gone.stdout, gone.stdout + gone.stderr
        assert not os.path.exists(os.path.join(root, "late"))
        close_dialogs(alice)
    finally:
        if join:
            join.stop()
        close_dialogs(alice)
        shutil.rmtree(root, ignore_errors=True)


@step("a new machine's first run links it to Alice's devices: her offer's code and address, the words the offer "
      "shows, Yes on both, then her conversation")
def first_run_link():
    # The new machine is in Alice's namespace: her offer and her node on its loopback, its own
    # node on other ports, discovery off.
    laptop = Person("Laptop", args.alice, 1, fresh=True)
    text = "for the laptop, from Alice"
    alice.cli("send", bob.id, text)
    offer = subprocess.Popen(
        ["ip", "netns", "exec", alice.namespace, args.confab, "--data", alice.data, "devices", "link",
         "--no-discovery", "--no-qr", "--timeout", "120"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
    printed = []
    reader = threading.Thread(target=lambda: printed.extend(iter(offer.stdout.readline, "")), daemon=True)
    reader.start()
    try:
        wait_until("the offer's code", lambda: any("Waiting for the new machine" in line for line in printed))
        code = next(line.split()[2] for line in printed if line.startswith("Link code: "))
        port = next(line.rsplit(":", 1)[1].strip() for line in printed if "--peer " in line)
        log = open(os.path.join(laptop.data, "up.log"), "a")
        laptop.node = subprocess.Popen(
            ["ip", "netns", "exec", laptop.namespace, args.confab, "--data", laptop.data, "up", "--no-discovery",
             "--listen", "127.0.0.1:0", "--web", "127.0.0.1:7463", "--peer", f"{alice.id}@127.0.0.1:7461"],
            stdout=log, stderr=log)
        wait_until("the laptop's first-run page", lambda: os.path.exists(os.path.join(laptop.data, "web-welcome")))
        laptop.start_browser(port=9516)
        laptop.browser.get(laptop.login_link())
        field = wait_until("the code field", lambda: laptop.find("form.welcome input#code"))[0]
        looks(laptop, "first-run-link")
        field.send_keys(code.lower())
        laptop.find("form.welcome input#address")[0].send_keys(f"127.0.0.1:{port}")
        laptop.press("Link", lambda: laptop.find_xpath('//button[normalize-space()="Link"]'))
        words = wait_until("the words", lambda: laptop.find(".link-words"))[0].text.strip()
        looks(laptop, "first-run-words")
        # Its question "[y/N] " ends no line: the words line before it is read.
        wait_until("the offer's words", lambda: any(line.startswith("Words: ") for line in printed))
        offered = next(line[len("Words: "):].strip() for line in printed if line.startswith("Words: "))
        assert words == offered, f"the page shows {words!r}, the offer {offered!r}"
        assert len(words.split()) == 5, words
        # The offer says yes first: the page's Yes then waits only for the grant (a click
        # waits for the page it loads).
        offer.stdin.write("y\n")
        offer.stdin.flush()
        laptop.press("Yes", lambda: laptop.find_xpath('//button[normalize-space()="Yes, they match"]'))
        assert offer.wait(timeout=30) == 0, "".join(printed)
        wait_until("the app, signed in as Alice's device", lambda: laptop.find("#me-name"), timeout=60)
        wait_until("Alice's conversation with her message, from her desktop",
                   lambda: text in laptop.browser.page_source, timeout=60)
        whoami = json.loads(laptop.cli("whoami", "--json"))
        assert whoami.get("person") == alice.id and whoami["id"] != alice.id, whoami
    finally:
        if offer.poll() is None:
            offer.kill()
        if laptop.browser:
            laptop.screenshot("first_run_link")
        laptop.stop()


def main():
    global alice, bob, carol
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    alice = Person("Alice", args.alice, 1, fresh=True)
    bob = Person("Bob", args.bob, 2)
    # Her node starts in the members step (a third peer online would change earlier steps).
    carol = Person("Carol", args.carol, 4)
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
            shutil.copy(ARTIFACTS / "readme-alice.png", args.screenshot)
    finally:
        for person in (alice, bob, carol):
            if person:
                person.stop()
    print(f"web: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


main()
