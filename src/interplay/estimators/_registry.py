"""Which function computes which (kind, method): one table, so the public API stays four small functions."""

from __future__ import annotations

from typing import Callable

KINDS = ("shapley", "banzhaf", "interactions", "bivariate")
NOT_EFFICIENT = frozenset({"shear", "l-shapley", "c-shapley"})  # Shapley methods whose values need not sum up
_REGISTRY: dict[str, dict[str, Callable]] = {kind: {} for kind in KINDS}


def register(kind: str, method: str) -> Callable[[Callable], Callable]:
    """Decorator: make ``fn`` the estimator for ``kind`` (one of :data:`KINDS`) with ``method=``."""

    def decorate(fn: Callable) -> Callable:
        _REGISTRY[kind][method] = fn
        return fn

    return decorate


def get_estimator(kind: str, method: str) -> Callable:
    """The estimator registered for ``kind`` and ``method``; a clear error listing the methods otherwise."""
    methods = _REGISTRY[kind]
    if not isinstance(method, str) or method not in methods:
        raise ValueError(f"method: expected one of {sorted(methods)} for {kind}, got {method!r}")
    return methods[method]


def available_methods(kind: str) -> list[str]:
    """Names of the methods available for ``kind`` ("shapley", "banzhaf", "interactions" or "bivariate"; an
    ``Explainer`` adds "tree" for tree models)."""
    if kind not in _REGISTRY:
        raise ValueError(f"kind: expected one of {sorted(_REGISTRY)}, got {kind!r} (the interaction indices, e.g. "
                         "'sii', are the index= of ip.interactions; their methods: available_methods('interactions'))")
    return sorted(_REGISTRY[kind])
