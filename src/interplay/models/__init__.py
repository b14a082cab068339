"""Model adapters: anything that predicts becomes ``rows (N, d) -> outputs (N, K)`` with checked outputs.

``TorchModel`` and ``booster_model`` are loaded on first use, so importing interplay never imports torch,
xgboost or lightgbm.
"""

from .adapters import ModelFunction, as_model

__all__ = ["ModelFunction", "TorchModel", "as_model", "booster_model"]


def __getattr__(name: str):
    if name == "TorchModel":
        from .torch import TorchModel

        return TorchModel
    if name == "booster_model":
        from .boosters import booster_model

        return booster_model
    raise AttributeError(f"module 'interplay.models' has no attribute {name!r}")
