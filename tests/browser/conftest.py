"""The browser tests' fixture: the system's headless Chromium, through Playwright."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright

WAIT_MS = 90_000
"""How long a page's waits and clicks may take unless the test says otherwise: the suite runs
on 8 workers on 2 cores, beside engines, Dask clusters and other browsers, where an engine's
start or a page's answer can take far longer than Playwright's default 30 s allows for."""

expect.set_options(timeout=WAIT_MS)


@pytest.fixture(scope="session")
def browser(chromium_executable: str) -> Iterator[Browser]:
    """Headless Chromium (Debian's, ``chromium_executable``; Playwright downloads nothing), one per test
    process (a launch costs Chromium and Playwright's driver about 2 s of CPU; each test takes a
    fresh context or page, whose cookies and storage are its own); its pages and contexts wait
    up to :data:`WAIT_MS`."""
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium_executable)
        new_page, new_context = launched.new_page, launched.new_context

        def patient_page(*args: Any, **kwargs: Any) -> Page:
            page = new_page(*args, **kwargs)
            page.set_default_timeout(WAIT_MS)
            return page

        def patient_context(*args: Any, **kwargs: Any) -> BrowserContext:
            context = new_context(*args, **kwargs)
            context.set_default_timeout(WAIT_MS)
            return context

        launched.new_page = patient_page  # type: ignore[method-assign]
        launched.new_context = patient_context  # type: ignore[method-assign]
        yield launched
        launched.close()
