"""A real browser for the tests: Debian's Chromium, headless, driven by Selenium."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.conftest import require, require_module


def chromium(profile: Path, *, width: int = 1024, height: int = 900) -> Iterator[Any]:
    """A headless Chromium with its own profile in ``profile``; quit afterwards."""
    require_module("selenium", "dev")
    require(
        bool(shutil.which("chromium")) and bool(shutil.which("chromedriver")),
        "no Chromium: scripts/browser.sh installs Debian's chromium and chromium-driver",
    )
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--window-size={width},{height}",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    # The page's console and its network requests, read by `activity` when a wait fails.
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver")))
    driver.set_page_load_timeout(120)
    yield driver
    driver.quit()


def activity(browser: Any, *, hosts: tuple[str, ...] = ()) -> str:
    """What the page logged and which requests it made (to ``hosts``, else all) since last read.

    Each request as ``METHOD URL -> status`` and whether it ended (``done``, ``failed: why``) or
    is still open: a wait that fails says whether the page's request was sent and answered.
    """
    console = [f"console {e['level']}: {e['message'][:300]}" for e in browser.get_log("browser")]
    requests: dict[str, list[str]] = {}
    for entry in browser.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        method, params = message.get("method", ""), message.get("params", {})
        if method == "Network.requestWillBeSent":
            request = params["request"]
            if not hosts or any(host in request["url"] for host in hosts):
                requests[params["requestId"]] = [f"{request['method']} {request['url']}", "open"]
        elif (found := requests.get(params.get("requestId", ""))) is not None:
            if method == "Network.responseReceived":
                found[0] += f" -> {params['response']['status']}"
            elif method == "Network.loadingFinished":
                found[1] = "done"
            elif method == "Network.loadingFailed":
                found[1] = f"failed: {params.get('errorText', '')}"
    sent = [f"request {what} ({state})" for what, state in requests.values()]
    return "\n".join(console[-20:] + sent[-40:])


WAIT = 60.0
"""Seconds a browser test waits for the state it checks: a busy machine's browser is slow, never
this slow."""


def wait_until(browser: Any, check: Any, timeout: float = WAIT) -> Any:
    """``check()``'s first truthy value, polled until ``timeout``: a state a click or a key
    brings about is waited for, never looked for at once."""
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(browser, timeout).until(lambda _: check())
