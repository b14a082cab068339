"""How much error OddGP's model choice leaves on the table (issue 12: the forest at equal accuracy).

OddGP (:mod:`interplay.estimators.odd_gp`, ``auto``'s Shapley sampler on these games) chooses its model (relevance
power ``gamma``, decay ``rho``, noise, fixed terms, extra prior ``tau``) by leave-one-pair-out error. On the same
sample (the same seed draws the same leverage sample and surrogate as ``ip.shapley(method="odd_gp")``) this
measures, against the true values:

- ``auto``: OddGP as it runs (its own choice);
- ``grid oracle``: every model of the grid (``gamma`` in 0 and :data:`RELEVANCE_POWERS` and 2, ``rho`` in
  :data:`DECAYS`, every noise in :data:`NOISES`, the fixed terms of each term ratio; ``tau`` = 0) fitted on every
  pair, and the one with the least error *by the truth*: what a perfect model choice over that grid would give;
- ``best grid model by leave-one-pair-out score``: OddGP's criterion, but over the whole grid (no walk) and on
  every pair (OddGP chooses on at most :data:`SELECT_UNITS` pairs, and only there considers the design of no
  fixed terms), with and without that design;
- ``top-k average``: the mean of the k best models of that grid by leave-one-pair-out score (model averaging);
- ``oracle relevance``: OddGP with the players' relevance ``r_k`` taken from the true values ``abs(phi_k)`` instead
  of the tree surrogate's spectrum (its own choice otherwise).

The error is the AE of ``sota.py``'s equal-accuracy section (sum over players of |error|, mean over rows and seeds)
and the MSE (mean over players of the squared error). Games: ``sota.py``'s 500-tree forest (30 features, 3 rows,
truth by ``method="tree"``) and, with ``--games``, any other game of ``sota.py``.

    PYTHONPATH=src python benchmarks/odd_gp_headroom.py > benchmarks/results/odd_gp_headroom.md

Cost: about 600 fits of the GP per sample (the grid); a few minutes on 2 cores.
"""

from __future__ import annotations

import os

if __name__ == "__main__":  # one BLAS/OpenMP thread, set before numpy and scikit-learn start their pools
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"):
        os.environ[_var] = "1"

import argparse  # noqa: E402
import itertools  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "src"), str(HERE)]

import interplay as ip  # noqa: E402
from _common import header, table  # noqa: E402
from interplay.estimators import _walsh_gp as wg  # noqa: E402
from interplay.estimators import odd_gp as og  # noqa: E402
from interplay.estimators._leverage import singleton_pairs_first  # noqa: E402
from interplay.estimators._surrogate import resolve_surrogate  # noqa: E402
from interplay.estimators.leverage import draw_leverage_sample  # noqa: E402
from interplay.estimators.odd import rank_odd_terms, surrogate_spectrum  # noqa: E402

GAMMAS = (0.0, *wg.RELEVANCE_POWERS, 2.0)
AVERAGED = (3, 10)


def one_sample(value_fn, n: int, budget: int, seed: int, truth: np.ndarray) -> dict:
    """The errors of OddGP, the grid oracle, top-k averages and the oracle relevance on one seed's sample."""
    auto = ip.shapley(ip.Game(value_fn, n), method="odd_gp", budget=budget, random_state=seed).values
    # the same sample and surrogate as odd_gp_shapley draws with this seed (the same calls in the same order)
    game, rng = ip.Game(value_fn, n), np.random.default_rng(seed)
    sample, values, _, budget = draw_leverage_sample(game, budget, rng, method="odd_gp",
                                                     whole_singletons=singleton_pairs_first(n, budget))
    spectrum, _ = surrogate_spectrum(resolve_surrogate("auto"), sample.coalitions, values, rng)
    S, y, _, w = og.complementary_pairs(game, sample, values, n)
    total = values[1] - values[0]
    ranked = rank_odd_terms(spectrum, limit=max(int(np.ceil(max(r for r in og.TERM_RATIOS if r) * budget)) - n, 0))
    relevance = wg.feature_relevance(spectrum, n)
    root_w, Z = np.sqrt(w), wg.signs(S)
    designs = {ratio: og.fixed_terms(n, budget, ranked, ratio) for ratio in og.TERM_RATIOS}
    scored = []  # (leave-one-pair-out score, values, the design's term ratio)
    for gamma, rho in itertools.product(GAMMAS, wg.DECAYS):
        decays = wg.player_decays(rho, gamma, relevance, n)
        K = wg._scaled_walsh_kernel(Z, decays, -1.0, root_w)
        for noise in wg.NOISES:
            inverse = wg._inverse_at(K, noise * wg.kernel_at_zero(decays, "odd"))
            for ratio, terms in designs.items():
                score = wg._loo_inverse(inverse, root_w[:, None] * wg.design(S, terms), root_w * y, root_w)
                if not np.isfinite(score):
                    continue
                phi, _ = og.gp_fit(S, y, terms, decays, noise, weights=w, std_errors=False)
                phi = phi + (total - phi.sum()) / n
                scored.append((score, phi, ratio))
    scored.sort(key=lambda item: item[0])
    estimates = {"auto (OddGP's own choice)": auto,
                 "grid oracle (best grid model by the truth)": min((p for _, p, _ in scored),
                                                                   key=lambda p: np.sum((p - truth) ** 2)),
                 "best grid model by leave-one-pair-out score, on every pair": scored[0][1],
                 "the same without the design of no fixed terms": next(p for _, p, r in scored if r is not None)}
    for k in AVERAGED:
        estimates[f"top-{k} average by leave-one-pair-out score"] = np.mean([p for _, p, _ in scored[:k]], axis=0)
    surrogate_relevance = og.feature_relevance
    og.feature_relevance = lambda spectrum, n: np.abs(truth)  # the players' true relevance
    try:
        estimates["oracle relevance (r_k = abs(true phi_k))"] = ip.shapley(
            ip.Game(value_fn, n), method="odd_gp", budget=budget, random_state=seed).values
    finally:
        og.feature_relevance = surrogate_relevance
    return {name: (float(np.abs(v - truth).sum()), float(np.mean((v - truth) ** 2))) for name, v in estimates.items()}


def main(games, factors, seeds: int) -> str:
    import sota

    lines = []
    for name in games:
        rows = 3 if name == "forest30" else 1
        built = [sota.build_game(name, r, cache_dir=Path("/tmp/interplay-sota-cache"), log=lambda *a: None)
                 for r in range(rows)]
        for factor in factors:
            budget = factor * built[0].n
            start = time.perf_counter()
            errors: dict[str, list] = {}
            for game in built:
                for seed in range(seeds):
                    for method, error in one_sample(game.value_fn, game.n, budget, seed, game.truth["sv"]).items():
                        errors.setdefault(method, []).append(error)
            base = np.mean([e[1] for e in errors["auto (OddGP's own choice)"]])
            for method, got in errors.items():
                ae, mse = np.mean([e[0] for e in got]), np.mean([e[1] for e in got])
                lines.append({"game": name, "budget": f"{budget} ({factor}n)", "estimate": method, "AE": f"{ae:.4g}",
                              "MSE": f"{mse:.3g}", "MSE / auto": f"{mse / base:.3f}"})
            print(f"  {name} at {budget}: {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    return table(lines, ["game", "budget", "estimate", "AE", "MSE", "MSE / auto"])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", default="forest30", help="comma-separated games of sota.py")
    parser.add_argument("--budgets", default="10,14", help="budget factors x n")
    parser.add_argument("--seeds", type=int, default=5, help="seeds per row (rows: 3 for forest30, else 1)")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    command = "PYTHONPATH=src python benchmarks/odd_gp_headroom.py " + " ".join(sys.argv[1:])
    body = main(args.games.split(","), [int(f) for f in args.budgets.split(",")], args.seeds)
    print(header("OddGP's model choice: how much error is left to a better choice", command.strip()))
    print(body)
