"""A real browser for the tests: Debian's Chromium, headless, driven by Selenium."""

from __future__ import annotations

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
    driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver")))
    driver.set_page_load_timeout(120)
    yield driver
    driver.quit()


WAIT = 60.0
"""Seconds a browser test waits for the state it checks: a busy machine's browser is slow, never
this slow."""


def wait_until(browser: Any, check: Any, timeout: float = WAIT) -> Any:
    """``check()``'s first truthy value, polled until ``timeout``: a state a click or a key
    brings about is waited for, never looked for at once."""
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(browser, timeout).until(lambda _: check())
