"""Optional dependencies: whether one is installed, without importing it."""

from __future__ import annotations

import importlib.util

TREES_MISSING = "interplay's tree algorithms (method='tree', tree surrogates) need numba: pip install interplay[trees]"


def installed(module: str) -> bool:
    """Whether ``module`` can be imported (found on the path; not imported)."""
    return importlib.util.find_spec(module) is not None


def require(module: str, why: str, extra: str) -> None:
    """Raise ImportError saying ``why`` and what to install when ``module`` is missing (instead of "No module
    named ...")."""
    if not installed(module):
        raise ImportError(f"{why}: pip install 'interplay[{extra}]'")
