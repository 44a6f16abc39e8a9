"""The browser tests' fixture: the system's headless Chromium, through Playwright."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gui_support import chromium_path
from playwright.sync_api import Browser, sync_playwright


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Headless Chromium (Debian's ``chromium``; Playwright downloads nothing), one per module."""
    executable = chromium_path()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable)
        yield launched
        launched.close()
