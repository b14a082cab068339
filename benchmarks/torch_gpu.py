"""A PyTorch network on the CPU and on a GPU: the same explanations, their wall time and where it goes.

For each device: one ``Explainer(module, background).shapley(X, method="kernel", budget=2048)`` over a few rows
(marginal removal over 10 background rows: 20,480 model rows a row), the module alone on the same number of rows,
and SHEAR's autograd Hessian (SHEAR Eq. 11). The values on the GPU are checked against the CPU's (float32 products
round differently: about 1e-6 apart). Wall-clock times (the GPU works asynchronously; every call here ends with
the values copied back to the CPU, which waits for it).

    PYTHONPATH=src python benchmarks/torch_gpu.py [--features 100] [--hidden 1024] [--rows 4]
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np
import torch

import interplay as ip

BUDGET = 2048
N_BACKGROUND = 10


def network(d: int, hidden: int, device: str) -> torch.nn.Module:
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(d, hidden), torch.nn.GELU(), torch.nn.Linear(hidden, hidden),
                              torch.nn.GELU(), torch.nn.Linear(hidden, hidden), torch.nn.GELU(),
                              torch.nn.Linear(hidden, 1))
    return net.to(device).eval()


def wall(f, repeats: int = 3) -> float:
    f()  # warm-up (CUDA context, kernels, caches)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(device: str, d: int, hidden: int, rows: int) -> dict:
    rng = np.random.default_rng(0)
    background, X = rng.normal(size=(N_BACKGROUND, d)), rng.normal(size=(rows, d))
    net = network(d, hidden, device)
    ex = ip.Explainer(net, background)
    values = {}

    def explain():
        values["shapley"] = ex.shapley(X, method="kernel", budget=BUDGET, random_state=0).values

    total = wall(explain)
    model_rows = rng.normal(size=(rows * BUDGET * N_BACKGROUND, d))

    def model_alone():
        with torch.no_grad():
            for start in range(0, len(model_rows), 20480):
                chunk = torch.tensor(model_rows[start:start + 20480], dtype=torch.float32, device=device)
                net(chunk).to("cpu").numpy()

    alone = wall(model_alone)

    def hessian():
        values["hessian"] = ex.cross_contribution(X[0])

    hess = wall(hessian)
    return {"device": device, "total_s": total, "model_s": alone, "hessian_s": hess, **values}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--features", type=int, default=100)
    parser.add_argument("--hidden", type=int, default=1024)
    parser.add_argument("--rows", type=int, default=4)
    args = parser.parse_args()
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    results = [measure(dev, args.features, args.hidden, args.rows) for dev in devices]
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "none"
    print(f"# torch {torch.__version__}, Python {platform.python_version()}, GPU: {gpu}, CPU threads: "
          f"{torch.get_num_threads()}")
    print(f"MLP {args.features}-{args.hidden}-{args.hidden}-{args.hidden}-1 (GELU), {args.rows} rows, kernel SHAP "
          f"budget {BUDGET}, marginal removal over {N_BACKGROUND} background rows ({BUDGET * N_BACKGROUND:,} model "
          "rows a row)\n")
    print("| device | explanation s | a row ms | module alone s | total / module | SHEAR Hessian ms |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in results:
        print(f"| {r['device']} | {r['total_s']:.3f} | {r['total_s'] / args.rows * 1e3:.1f} | {r['model_s']:.3f} | "
              f"{r['total_s'] / r['model_s']:.2f} | {r['hessian_s'] * 1e3:.1f} |")
    if len(results) == 2:
        cpu, cuda = results
        gap = np.max(np.abs(cuda["shapley"] - cpu["shapley"]))
        hessian_gap = np.max(np.abs(cuda["hessian"] - cpu["hessian"]))
        print(f"\nmax |GPU - CPU|: Shapley values {gap:.2e} (largest |value| {np.max(np.abs(cpu['shapley'])):.2e}); "
              f"Hessian {hessian_gap:.2e}")


if __name__ == "__main__":
    main()
