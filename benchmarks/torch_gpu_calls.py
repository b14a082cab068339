"""Kernel SHAP of a PyTorch MLP (100 inputs, three layers of 1,024) with the explainer's model calls held at fixed
sizes (1,024 to 65,536 rows) or learned (None), on a GPU and on the CPU; and the cost of moving 20,480 rows to the
device. Measured to choose TorchModel.call_rows (benchmarks/results/torch_gpu.md).

    PYTHONPATH=src python benchmarks/torch_gpu_calls.py
"""

from __future__ import annotations

import time

import numpy as np
import torch

import interplay as ip
from interplay.removal._columns import CallSizer
from torch_gpu import network

D, HIDDEN, ROWS, BUDGET = 100, 1024, 4, 2048


def sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def main() -> None:
    rng = np.random.default_rng(0)
    background, X = rng.normal(size=(10, D)), rng.normal(size=(ROWS, D))
    for device in (["cuda"] if torch.cuda.is_available() else []) + ["cpu"]:
        net = network(D, HIDDEN, device)
        sizes: list[int] = []
        net.register_forward_hook(lambda module, inputs, output: sizes.append(len(inputs[0])))
        for rows in (None, 1024, 4096, 16384, 65536):
            ex = ip.Explainer(net, background)
            if rows is not None:
                ex._call_sizer = CallSizer(ex.max_rows, rows=rows)
            ex.shapley(X[:1], method="kernel", budget=BUDGET, random_state=0)  # warm-up
            times = []
            for _ in range(3):
                sizes.clear()
                start = time.perf_counter()
                ex.shapley(X, method="kernel", budget=BUDGET, random_state=0)
                times.append(time.perf_counter() - start)
            print(f"{device} rows {rows} wall per row ms {min(times) / ROWS * 1e3:.1f} calls {len(sizes)} "
                  f"first sizes {sizes[:6]}", flush=True)
        A = rng.normal(size=(20480, D))
        steps = [("torch.tensor f64->f32 dev",
                  lambda: torch.tensor(np.asarray(A, dtype=float), dtype=torch.float32, device=device)),
                 ("from_numpy.to(dev, f32)", lambda: torch.from_numpy(A).to(device, torch.float32)),
                 ("forward 20480", lambda: net(torch.from_numpy(A).to(device, torch.float32)).to("cpu"))]
        for name, step in steps:
            step()
            sync(device)
            start = time.perf_counter()
            for _ in range(10):
                step()
            sync(device)
            print(f"{device} {name} ms {(time.perf_counter() - start) / 10 * 1e3:.2f}", flush=True)


if __name__ == "__main__":
    main()
