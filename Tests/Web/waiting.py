"""Waiting for what a person would see, shared by the browser suites (Chromium and Firefox)."""
import time


def wait_until(what, condition, timeout, transient=()):
    """`condition()`'s first truthy value, asked every 0.1 s for at most `timeout` seconds.

    An exception of a `transient` type (the page redrawing under the driver) counts as not yet;
    the last one is named if time runs out.
    """
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            value = condition()
            if value:
                return value
        except transient as error:
            last = error
        time.sleep(0.1)
    reason = getattr(last, "msg", None) or last
    raise AssertionError(f"timed out waiting for {what}" + (f" (last error: {reason})" if last else ""))
