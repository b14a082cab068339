"""Fixtures shared by the test modules: a headless Chromium page (report tests) and closing matplotlib figures."""

from __future__ import annotations

import sys

import pytest


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """One headless Chromium per module (tests/_chromium.py); the test is skipped without chromium."""
    from _chromium import Browser, find_chromium

    exe = find_chromium()
    if exe is None:
        pytest.skip("chromium is not installed (apt-get install chromium)")
    b = Browser(exe, str(tmp_path_factory.mktemp("chromium-profile")))
    yield b
    b.close()


@pytest.fixture(autouse=True)
def close_figures():
    """Every matplotlib figure a test opened is closed after it (when pyplot was imported at all)."""
    yield
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.close("all")
