"""Model adapters: anything that predicts becomes ``rows (N, d) -> outputs (N, K)`` with checked outputs."""

from .adapters import ModelFunction, as_model

__all__ = ["ModelFunction", "as_model"]
