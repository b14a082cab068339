"""PyTorch ``nn.Module`` as a model: batched forward passes under ``torch.no_grad`` on the module's device.

Rows arrive as a NumPy ``(N, d)`` array; they are converted once per batch to a tensor of ``dtype`` (default:
the module's parameter dtype, ``float32`` for an ordinary network) on the device of the module's first
parameter (so a model on a GPU runs there), passed through the module in batches of at most ``batch_size``
rows, and returned as a float64 ``(N, K)`` array. Each batch is a new tensor (a module may change its input in
place). A ``dtype`` other than the parameters' works only for a module that converts its input itself; else the
first call's error names ``dtype`` and the parameters' dtype.
The module is not switched to ``eval()`` (that would change the caller's object): do it before explaining a
model with dropout or batch norm.

:meth:`TorchModel.hessian` gives the exact second derivatives of a scalar utility of the output at one input
(autograd), used by SHEAR's cross-contribution (SHEAR paper, Eq. 11). Cost: one forward and ``d`` backward
passes (vectorised with vmap above ``VECTORIZE_ABOVE`` inputs).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .._validation import check_int
from .adapters import ModelFunction

VECTORIZE_ABOVE = 96  # inputs; below this one backward pass per input beats vmap (CPU, torch 2.13)
ACCELERATOR_CALL_ROWS = 16384  # rows per call to start with on a GPU (TorchModel.call_rows)


def _warn_if_training(module: Any, stacklevel: int = 4) -> bool:
    """A module in training mode with dropout or batch norm gives other outputs on every call (and other
    Hessians): the explanation would change from call to call, and batch norm's running statistics are updated
    by the masked rows. Warn, naming the fix (not done here: it would change the caller's object); True when it
    warned. Checked when the model is wrapped and again on its first call in training mode (a module switched to
    ``train()`` after wrapping gave random values silently)."""
    if not getattr(module, "training", False):
        return False
    import torch.nn as nn

    random = (nn.modules.dropout._DropoutNd, nn.modules.batchnorm._BatchNorm)
    layers = [m for m in module.modules() if isinstance(m, random)]
    if not layers:
        return False
    import warnings

    norm = any(isinstance(m, nn.modules.batchnorm._BatchNorm) for m in layers)
    warnings.warn(f"model: {type(module).__name__} is in training mode and has dropout or batch norm layers, "
                  "so its outputs (and the explanation) change from call to call"
                  + (" and explaining it updates its batch norm running statistics" if norm else "")
                  + "; call module.eval() before explaining it", UserWarning, stacklevel=stacklevel)
    return True


def _input_width(module: Any) -> int | None:
    """The number of inputs of an ``nn.Sequential`` whose first layer (through nested Sequentials) is an
    ``nn.Linear``: its ``in_features``; else None (unknown). Only a Sequential says which layer reads the input:
    a custom module may register its layers in any order, or transform the rows before its first Linear."""
    import torch.nn as nn

    while isinstance(module, nn.Sequential) and len(module):
        module = module[0]
    width = int(module.in_features) if isinstance(module, nn.Linear) else 0
    return width if width > 0 else None  # nn.LazyLinear: 0 until its first forward pass


class TorchModel(ModelFunction):
    """Wrap ``module``; ``classifier=True`` declares that its outputs are class probabilities."""

    def __init__(self, module: Any, *, classifier: bool = False, dtype: Any = None,
                 batch_size: int | None = None) -> None:
        import torch

        self.module = module
        if dtype is None:  # the module's own floating-point dtype (float32 for a module without parameters)
            dtype = self._parameter_dtype() or torch.float32
        self.dtype = dtype
        self.batch_size = check_int(batch_size, "batch_size", minimum=1, allow_none=True)
        self._warned_training = _warn_if_training(module)
        super().__init__(fn=self._forward, kind="classifier" if classifier else "regressor",
                         name=f"{type(module).__name__}.forward", source=module, n_inputs=_input_width(module))

    @property
    def device(self) -> Any:
        import torch

        for tensor in list(self.module.parameters()) + list(self.module.buffers()):
            return tensor.device
        return torch.device("cpu")

    @property
    def call_rows(self) -> int | None:
        """On an accelerator (a GPU), calls of :data:`ACCELERATOR_CALL_ROWS` rows to start with: a call's fixed
        cost (the copy to the device and back, the kernel launches) is then paid by many rows (an MLP with 100
        inputs and three layers of 1,024 on an H100: 18.7 ms a row of kernel SHAP with 1,020-row calls, 12.6 with
        16,384; ``benchmarks/results/torch_gpu.md``). On the CPU the explainer's own sizes."""
        return None if self.device.type == "cpu" else ACCELERATOR_CALL_ROWS

    def _parameter_dtype(self) -> Any:
        """The dtype of the module's first floating-point parameter (None without one)."""
        floats = [p.dtype for p in self.module.parameters() if p.is_floating_point()]
        return floats[0] if floats else None

    def _run(self, inputs: Any) -> Any:
        """``module(inputs)``; when it fails and ``dtype`` differs from the module's parameters' (``float64``
        rows into ``float32`` layers: torch's "mat1 and mat2 must have the same dtype"), an error naming both.
        Checked on failure only: a module that converts its input itself may take another dtype."""
        try:
            return self.module(inputs)
        except RuntimeError as error:
            own = self._parameter_dtype()
            if own is None or own == self.dtype:
                raise
            raise ValueError(f"dtype: the rows are passed as {self.dtype} tensors, but the parameters of "
                             f"{type(self.module).__name__} are {own}, and its forward pass failed ({error}); pass "
                             f"dtype={own} (the default: the module's own), or convert the module "
                             f"(module.to({self.dtype})) first") from error

    def _tensor(self, rows: Any) -> Any:
        """The rows as a new tensor (a copy, never a view of ``rows``): a module that changes its input in place
        (``x.mul_(2)``, ``nn.ReLU(inplace=True)`` first) changed the caller's X and the hybrid rows other
        coalitions reuse (wrong values), and a read-only array (a DataFrame's) made torch warn."""
        import torch

        return torch.tensor(np.asarray(rows, dtype=float), dtype=self.dtype, device=self.device)

    def _forward(self, rows: Any) -> np.ndarray:
        import torch

        if not self._warned_training:  # switched to train() after wrapping: warn once (module docstring)
            self._warned_training = _warn_if_training(self.module, stacklevel=5)
        inputs = self._tensor(rows)
        step = self.batch_size or max(len(inputs), 1)
        with torch.no_grad():
            outs = [self._classes(self._run(inputs[start:start + step]))
                    for start in range(0, len(inputs), step)]
        out = torch.cat(outs) if outs else torch.zeros(0)
        return out.detach().to("cpu", torch.float64).numpy()

    def _classes(self, out: Any) -> Any:
        """A binary classifier's one probability column ``p`` (a sigmoid output, ``(N, 1)`` or ``(N,)``) as the
        two columns ``[1 - p, p]`` of classes 0 and 1, as scikit-learn's ``predict_proba`` gives them: the
        positive class is then label 1, the default target (it was reported as 0, and ``target=1`` refused).
        Other outputs unchanged. Differentiable (used by :meth:`hessian` too)."""
        import torch

        if self.kind != "classifier" or out.ndim > 2 or (out.ndim == 2 and out.shape[1] != 1):
            return out
        p = out.reshape(-1, 1)
        return torch.cat([1.0 - p, p], dim=1)

    @property
    def supports_hessian(self) -> bool:
        return True

    def hessian(self, x: np.ndarray, utility: Callable[[Any], Any]) -> np.ndarray:
        """``d^2 utility(module(x)) / dx_i dx_j`` at the single input ``x`` (``(d, d)``, float64).

        ``utility`` maps the module's ``(1, K)`` output tensor to a scalar tensor.
        """
        import torch

        point = self._tensor(np.asarray(x, dtype=float)[None, :])[0]

        def scalar(z):
            return utility(self._classes(self._run(z[None, :]))).reshape(())

        hess = None
        if len(point) > VECTORIZE_ABOVE:  # vmap pays off for many inputs (measured: slower below ~100 on CPU)
            try:
                hess = torch.autograd.functional.hessian(scalar, point, vectorize=True)
            except RuntimeError:  # some layers do not support vmap: one backward pass per input instead
                hess = None
        if hess is None:
            hess = torch.autograd.functional.hessian(scalar, point)
        return hess.detach().to("cpu", torch.float64).numpy()
