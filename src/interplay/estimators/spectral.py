"""Sparse Fourier regression on a tree surrogate's support: SII and BII of any order ("spectral").

Butler et al. 2025 (ProxySPEX): a game that a few interactions explain has a sparse Fourier (Walsh) spectrum.
In the basis ``chi_T(S) = prod_{k in T} (+1 if k in S else -1)`` (as :mod:`._surrogate`), ``v = sum_T a_T chi_T``.
A gradient-boosted tree model fitted on the sampled coalitions has an exactly known spectrum
(:func:`._surrogate.fourier_spectrum`); its largest coefficients name the support, and the coefficients on that
support are re-fitted to the game's values by least squares.

The indices of ``chi_T`` in closed form (derived here; checked against enumeration in the tests). The discrete
derivative of ``chi_T`` over ``K subset T`` is ``2^|K| chi_{T - K}`` and 0 for ``K`` not inside ``T``, so

- BII (the BII paper, Eq. 2: a uniform mean over ``S subset N - K``): ``E[chi_{T-K}(S)] = 0`` unless
  ``T = K``, hence ``BII_K = 2^|K| a_K`` (``|K| = 1``: Banzhaf values);
- SII (Grabisch & Roubens' weights ``(n-s-k)! s! / (n-k+1)!``): the weights are those of a set that takes each
  player independently with a probability ``t ~ U(0, 1)``, so ``E[chi_M(S)] = E[(2t - 1)^|M|] = 1 / (|M| + 1)`` for
  even ``|M|`` and 0 for odd, hence ``SII_K = 2^|K| sum_{T >= K, |T - K| even} a_T / (|T - K| + 1)``
  (``|K| = 1``: Shapley values, OddSHAP's ``2 a_T / |T|``).

Procedure: ``v(empty)``, ``v(N)`` and ``budget - 2`` distinct coalitions in complementary pairs (a pair makes
the odd and even columns orthogonal), drawn ``sampling="uniform"`` (each player in with probability 1/2: the
measure of BII, the default for it) or ``"sizes"`` (each player in with probability ``k / n``, ``k`` uniform in
``1..n-1``: closer to SII's weights, which are those of a probability ``t ~ U(0, 1)``; the default for SII); the surrogate (:mod:`._surrogate`, ``surrogate="auto"``) fitted on them; its terms
ranked: the empty set, every singleton, then its coefficients by size up to ``energy`` of its non-constant energy
and at most ``terms_ratio`` times the rows; nested supports along that ranking (the first ``n + 1`` terms and
1/16, 1/8, 1/4, 1/2 and all of the others) fitted by ridge regression, each with the penalty that minimises
generalised cross-validation (Golub, Heath & Wahba 1979), and the support with the lowest score kept
(``fit="refit"``). Terms outside the support count as 0: the estimate is biased when the game is not sparse, and
exact when the game's spectrum lies in the support. A smooth, dense game (a neural network) is better served by
the surrogate's own spectrum, read whole (``fit="surrogate"``, ProxySHAP's estimate); ``fit="auto"`` picks the
one of the two that predicts held-out coalitions better in 3-fold cross-validation (complementary pairs kept
together; three more surrogate fits). At ``budget >= 2**n`` it is exact
enumeration. Without a surrogate library the support is every term of size at most ``order`` (plain regression).

Standard errors: sandwich over the sampled pairs, conditional on the chosen support and penalty (they do not
include the selection's variability); NaN for the surrogate's read, which has no sampling-error estimate;
``std_errors=False`` skips them.

Cost: ``min(budget, 2**n)`` evaluations; fitting and reading the surrogate cost none (``info["surrogate_seconds"]``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from .._validation import check_choice, check_int
from ..games import Game
from ..results import Attribution, BivariateExplanation, Interactions
from ._registry import register
from .exact import enumerated_interactions
from ._sampling import _keys, resolve_budget
from ._surrogate import fit_surrogate, fourier_spectrum, resolve_surrogate

INDICES = ("sii", "bii")
FITS = ("auto", "refit", "surrogate")


def index_from_fourier(coefficients: dict[tuple[int, ...], float], index: str,
                       order: int, n: int) -> dict[tuple[int, ...], float]:
    """SII or BII of every subset of size ``1..order`` from Fourier coefficients (module docstring's formulas)."""
    out = {K: 0.0 for k in range(1, order + 1) for K in combinations(range(n), k)}
    for T, a in coefficients.items():
        if a != 0.0:
            for K, w in _contributions(T, index, order):
                out[K] += w * a
    return out


def _contributions(T: tuple[int, ...], index: str, order: int):
    """``(K, index_K(chi_T))`` for the subsets ``K`` of size ``1..order`` on which ``chi_T`` has a nonzero index."""
    if not T:
        return
    if index == "bii":
        if len(T) <= order:
            yield T, 2.0 ** len(T)
        return
    for k in range(1, min(order, len(T)) + 1):
        rest = len(T) - k
        if rest % 2 == 0:
            for K in combinations(T, k):
                yield K, 2.0**k / (rest + 1)


def bivariate_from_fourier(coefficients: dict[tuple[int, ...], float], n: int) -> tuple[np.ndarray, np.ndarray]:
    """The Bivariate Shapley matrix and the Shapley values from Fourier coefficients (module docstring).

    ``adjacency[i, j]`` sums the Shapley-weighted marginal contributions of ``j`` over the coalitions that contain
    ``i`` (Bivariate Shapley paper, Eq. 6, as :func:`interplay.estimators.exact.bivariate_from_values`): with a
    coalition that takes each player with probability ``t ~ U(0, 1)``, ``i`` present with probability ``t``, and
    ``d_j chi_T = 2 chi_{T-j}`` for ``j in T``, a term ``a_T chi_T`` with ``|T| = k`` adds
    ``2 a_T E[t (2t - 1)^m]`` with ``m = k - 2`` if ``i in T`` and ``m = k - 1`` if not; ``E[t (2t-1)^m]`` is
    ``1 / (2 (m + 1))`` for even ``m`` and ``1 / (2 (m + 2))`` for odd ``m``.
    """
    adjacency = np.zeros((n, n))
    phi = np.zeros(n)
    for T, a in coefficients.items():
        if not T or a == 0.0:
            continue
        k = len(T)
        columns = list(T)
        if k % 2:
            phi[columns] += 2.0 * a / k
        outside = a / k if k % 2 else a / (k + 1)          # i not in T: m = k - 1
        inside = a / (k - 1) if k % 2 == 0 else a / k       # i in T: m = k - 2
        adjacency[:, columns] += outside
        adjacency[np.ix_(columns, columns)] += inside - outside
    np.fill_diagonal(adjacency, 0.0)
    return adjacency, phi


def draw_uniform_pairs(n: int, n_rows: int, rng: np.random.Generator, *, sizes: bool = False) -> np.ndarray:
    """``n_rows`` distinct coalitions, neither empty nor full, uniform over subsets, in complementary pairs (one
    unpaired row when ``n_rows`` is odd); ``n_rows <= 2**n - 2``."""
    chosen = np.zeros((0, n), dtype=bool)
    seen: set = set()
    n_pairs, odd = divmod(n_rows, 2)
    while len(chosen) < 2 * n_pairs:
        m = 2 * (n_pairs - len(chosen) // 2) + 8
        draw = rng.random((m, n)) < (rng.integers(1, n, size=(m, 1)) / n if sizes else 0.5)
        canonical = np.where(draw[:, :1], ~draw, draw)  # the pair's member without player 0
        canonical = canonical[canonical.any(axis=1)]
        fresh = []
        for row, key in zip(canonical, _keys(canonical).tolist()):
            if key not in seen:
                seen.add(key)
                fresh.append(row)
            if len(chosen) // 2 + len(fresh) == n_pairs:
                break
        if fresh:
            block = np.array(fresh)
            chosen = np.concatenate([chosen, np.stack([block, ~block], axis=1).reshape(-1, n)])
    if odd:  # one more row whose complement is not in the sample either (exists since n_rows <= 2**n - 2)
        while True:
            row = rng.random((1, n)) < 0.5
            canonical = ~row if row[0, 0] else row
            if canonical.any() and _keys(canonical).tolist()[0] not in seen:
                chosen = np.concatenate([chosen, row])
                break
    return chosen


def _design(coalitions: np.ndarray, terms: list[tuple[int, ...]]) -> np.ndarray:
    """``chi_T(S)`` for every row ``S`` and term ``T`` (the empty term: 1), by one product: ``chi_T(S)`` is
    ``(-1)^{|T - S|}`` and ``|T - S| = |T| - |T & S|``."""
    members = np.zeros((len(terms), coalitions.shape[1]))
    for t, T in enumerate(terms):
        members[t, list(T)] = 1.0
    missing = members.sum(axis=1) - coalitions.astype(float) @ members.T  # exact small integers
    return 1.0 - 2.0 * (np.rint(missing).astype(np.int64) & 1)


_PENALTIES = np.concatenate([[0.0], np.logspace(-10, 2, 49)])  # relative to the largest eigenvalue


def _gcv(eig: np.ndarray, proj: np.ndarray, centred: float, rows: int) -> tuple[float, float]:
    """Lowest generalised cross-validation score over the penalty grid and its penalty, for a ridge fit whose
    centred Gram matrix has eigenvalues ``eig`` and ``proj = V' X' y / sqrt(eig)`` (Golub, Heath & Wahba 1979)."""
    top = eig[-1] if len(eig) and eig[-1] > 0 else 1.0
    best = (np.inf, 0.0)
    for alpha in _PENALTIES * top:
        shrink = eig / (eig + alpha) if alpha > 0 else (eig > top * 1e-10).astype(float)
        dof = shrink.sum() + 1.0
        if dof >= rows:
            continue
        rss = centred - np.sum((2 * shrink - shrink**2) * proj**2)
        if rss <= 1e-12 * centred:  # an exact fit up to rounding: a tie at 0, so the smallest penalty is kept
            rss = 0.0
        score = rss / rows / (1.0 - dof / rows) ** 2
        if score < best[0] * (1 - 1e-12):
            best = (score, float(alpha))
    if not np.isfinite(best[0]):  # more terms than rows: a penalty that leaves degrees of freedom
        best = (np.inf, float(top * 1e-2))
    return best


def _eig(gram: np.ndarray, xty: np.ndarray):
    eig, V = np.linalg.eigh(gram)
    eig = np.clip(eig, 0.0, None)
    proj = np.divide(V.T @ xty, np.sqrt(eig), out=np.zeros_like(eig), where=eig > eig[-1] * 1e-12)
    return eig, V, proj


def _gram(Xc: np.ndarray) -> np.ndarray:
    """``Xc' Xc`` by BLAS ``syrk`` (half the products of a general multiplication), both triangles filled."""
    from scipy.linalg.blas import dsyrk

    upper = dsyrk(1.0, np.asfortranarray(Xc), trans=1)
    return np.triu(upper) + np.triu(upper, 1).T


def ridge_path(X: np.ndarray, y: np.ndarray, sizes: list[int], *, linear: bool = True):
    """Ridge fits of the nested column sets ``X[:, :size]`` (first column constant, unpenalised), each with the
    penalty that minimises generalised cross-validation; keeps the size with the lowest score. One Gram matrix
    serves every size. Returns ``(size, coefficients, the map y -> coefficients, penalty)``; the map (a
    ``size x rows`` matrix, for standard errors) is None unless ``linear``."""
    rows = len(X)
    x_mean, y_mean = X[:, 1:].mean(axis=0), y.mean()
    Xc = X[:, 1:] - x_mean
    gram, xty = _gram(Xc), Xc.T @ (y - y_mean)
    centred = float(np.sum((y - y_mean) ** 2))
    best = None
    for size in sizes:
        eig, V, proj = _eig(gram[: size - 1, : size - 1], xty[: size - 1])
        score, alpha = _gcv(eig, proj, centred, rows)
        if best is None or score < best[0]:
            best = (score, size, alpha, eig, V)
    _, size, alpha, eig, V = best
    top = eig[-1] if len(eig) and eig[-1] > 0 else 1.0
    inverse = np.divide(1.0, eig + alpha, out=np.zeros_like(eig), where=(eig + alpha) > top * 1e-10)
    slopes = V @ (inverse * (V.T @ xty[: size - 1]))
    coef = np.concatenate([[y_mean - x_mean[: size - 1] @ slopes], slopes])
    if not linear:
        return size, coef, None, alpha
    slopes_map = (V * inverse) @ (V.T @ Xc[:, : size - 1].T)            # (size - 1, rows), on centred y
    slopes_map = slopes_map - slopes_map.mean(axis=1, keepdims=True)  # = the same map on raw y
    intercept_map = np.full(rows, 1.0 / rows) - x_mean[: size - 1] @ slopes_map
    return size, coef, np.vstack([intercept_map, slopes_map]), alpha


def _support(spectrum: dict[tuple[int, ...], float], n: int, energy: float, max_terms: int) -> list[tuple[int, ...]]:
    """The empty set, the singletons, then the spectrum's larger terms by decreasing |coefficient| until ``energy``
    of its non-constant energy or ``max_terms`` terms."""
    terms: list[tuple[int, ...]] = [()] + [(i,) for i in range(n)]
    ranked = sorted(((T, c) for T, c in spectrum.items() if len(T) >= 2 and c != 0.0), key=lambda tc: -abs(tc[1]))
    total = sum(c * c for T, c in spectrum.items() if T) or 1.0
    kept = sum(spectrum.get((i,), 0.0) ** 2 for i in range(n))
    for T, c in ranked:
        if len(terms) >= max_terms or kept >= energy * total:
            break
        terms.append(T)
        kept += c * c
    return terms


def _nested_sizes(n: int, total: int) -> list[int]:
    extra = total - (n + 1)
    return sorted({n + 1 + int(round(extra * f)) for f in (0.0, 1 / 16, 1 / 8, 1 / 4, 1 / 2, 1.0)})


def _cross_validate(coalitions, values, kind, n, energy, max_terms, rng, folds: int = 3) -> dict[str, float]:
    """Held-out squared error of the two fits, surrogate and re-fitted support, by ``folds``-fold
    cross-validation (complementary pairs stay in one fold)."""
    from ._surrogate import surrogate_values

    unit = np.concatenate([[0, 0], np.arange(len(coalitions) - 2) // 2])
    fold = rng.permutation(unit.max() + 1)[unit] % folds
    errors = {"surrogate": 0.0, "refit": 0.0}
    for k in range(folds):
        test = fold == k
        train = ~test
        ensemble = fit_surrogate(kind, coalitions[train], values[train], rng)
        errors["surrogate"] += float(np.sum((values[test] - surrogate_values(ensemble, coalitions[test])) ** 2))
        terms = _support(fourier_spectrum(ensemble), n, energy, max(n + 1, int(max_terms * (folds - 1) / folds)))
        X = _design(coalitions, terms)
        size, coef, _, _ = ridge_path(X[train], values[train], _nested_sizes(n, len(terms)), linear=False)
        errors["refit"] += float(np.sum((values[test] - X[test, :size] @ coef) ** 2))
    return errors


def minimum_budget(n: int) -> int:
    """Fewest evaluations the fit takes: ``v(empty)``, ``v(N)`` and ``n + 1`` pairs (or every coalition)."""
    return min(2**n, 2 * n + 4) if n < 63 else 2 * n + 4


def _check_options(energy, terms_ratio, sampling, fit) -> None:
    if not (isinstance(energy, (int, float)) and 0 < energy <= 1):
        raise ValueError(f"energy: expected a number in (0, 1], got {energy!r}")
    if not (isinstance(terms_ratio, (int, float)) and 0 < terms_ratio < 1):
        raise ValueError(f"terms_ratio: expected a number in (0, 1), got {terms_ratio!r}")
    check_choice(sampling, "sampling", ("auto", "uniform", "sizes"))
    check_choice(fit, "fit", FITS)


@dataclass
class SpectralFit:
    """A fitted Fourier expansion of the game: ``coefficients`` (the re-fitted support, or the surrogate's whole
    spectrum when ``info["fit"] == "surrogate"``) and, for the standard errors of a re-fit, the support ``terms``,
    its design ``X`` and the linear map ``linear`` from the values to the coefficients."""

    coefficients: dict
    terms: list
    X: np.ndarray
    linear: np.ndarray
    coef: np.ndarray
    values: np.ndarray
    info: dict


def fit_spectrum(game: Game, budget: int, rng: np.random.Generator, *, surrogate, energy: float,
                 terms_ratio: float, sampling: str, fit: str, low_order: int, std_errors: bool = True) -> SpectralFit:
    """Sample, fit the surrogate, choose the support and the fit (module docstring); ``budget < 2**n``."""
    n = game.n_players
    kind = resolve_surrogate(surrogate)
    ends = np.zeros((2, n), dtype=bool)
    ends[1] = True
    coalitions = np.concatenate([ends, draw_uniform_pairs(n, budget - 2, rng, sizes=sampling == "sizes")])
    values = np.asarray(game(coalitions), dtype=float)
    max_terms = max(n + 1, int(terms_ratio * len(coalitions)))
    start = time.perf_counter()
    spectrum = None
    if kind is None:
        terms = [()] + [T for k in range(1, low_order + 1) for T in combinations(range(n), k)]
        terms = terms[:max_terms]
        sizes = [len(terms)]
    else:
        ensemble = fit_surrogate(kind, coalitions, values, rng)
        spectrum = fourier_spectrum(ensemble)
        terms = _support(spectrum, n, energy, max_terms)
        sizes = _nested_sizes(n, len(terms))
    X = _design(coalitions, terms)
    cv_errors = None
    if kind is None and fit == "surrogate":
        raise ValueError("fit: 'surrogate' reads a tree surrogate, and none is installed (pip install "
                         "interplay[xgboost] and interplay[trees]); use fit='auto' or 'refit'")
    if kind is None:
        fit = "refit"
    elif fit == "auto":
        cv_errors = _cross_validate(coalitions, values, kind, n, energy, max_terms, rng)
        fit = min(cv_errors, key=cv_errors.get)
    size, coef, linear, alpha = ridge_path(X, values, sizes, linear=std_errors and fit != "surrogate")
    terms, X = terms[:size], X[:, :size]
    coefficients = spectrum if fit == "surrogate" else dict(zip(terms, coef))
    info = {"budget": budget, "surrogate": kind if isinstance(kind, str) or kind is None else type(kind).__name__,
            "n_terms": len(terms), "max_size": max(len(T) for T in terms), "ridge_penalty": alpha,
            "surrogate_seconds": time.perf_counter() - start, "energy": energy, "terms_ratio": terms_ratio,
            "sampling": sampling, "candidate_sizes": sizes, "fit": fit, "cv_errors": cv_errors}
    if fit == "surrogate":  # said where the errors are read (NaN), as gp says why it has none
        info["std_errors"] = "NaN: the cross-validation chose the surrogate's own read, which has no sampling error"
    return SpectralFit(coefficients, terms, X, linear, coef, values, info)


def _std_errors(fitted: SpectralFit, weights: np.ndarray) -> np.ndarray:
    """Sandwich standard errors of ``weights @ coefficients`` over the sampled pairs (module docstring), in
    blocks of outputs; NaN for the surrogate's read."""
    if fitted.info["fit"] == "surrogate":
        return np.full(len(weights), np.nan)
    per_row = fitted.linear * (fitted.values - fitted.X @ fitted.coef)  # (terms, rows): each row's influence
    ends, body = per_row[:, :2], per_row[:, 2:]
    pairs = body[:, : (body.shape[1] // 2) * 2].reshape(len(per_row), -1, 2).sum(axis=2)
    units = np.concatenate([pairs, body[:, pairs.shape[1] * 2:]], axis=1)
    m = units.shape[1]
    scale = m / max(m - len(fitted.terms), 1)
    out = np.empty(len(weights))
    for lo in range(0, len(weights), 256):
        w = weights[lo:lo + 256]
        out[lo:lo + 256] = np.sqrt(((w @ ends) ** 2).sum(axis=1) + ((w @ units) ** 2).sum(axis=1) * scale)
    return out


def _efficient(phi: np.ndarray, fitted: SpectralFit, n: int) -> np.ndarray:
    """Shapley values of the fit moved onto ``sum phi = v(N) - v(empty)`` (the sampled ends) by the smallest
    change (the gap split equally; the ridge fit does not interpolate the ends: it summed to 0.31 where the total
    was 2.19 on a random 12-player game at budget 600). The gap is recorded in ``info["efficiency_gap"]``."""
    gap = float(fitted.values[1] - fitted.values[0] - phi.sum())
    fitted.info["efficiency_gap"] = gap
    return phi + gap / n


@register("interactions", "spectral")
def spectral_interactions(game: Game, *, index: str = "bii", order: int = 2, budget: int | None = None,
                          rng: np.random.Generator, surrogate="auto", energy: float = 0.9999,
                          terms_ratio: float = 0.5, sampling: str = "auto", fit: str = "auto",
                          std_errors: bool = True) -> Interactions:
    """SII or BII of every subset of size ``1..order`` by sparse Fourier regression (module docstring); cost
    ``min(budget, 2**n)`` evaluations."""
    check_choice(index, "index", INDICES)
    n = game.n_players
    order = check_int(order, "order", minimum=1, maximum=n)
    _check_options(energy, terms_ratio, sampling, fit)
    if sampling == "auto":
        sampling = "sizes" if index == "sii" else "uniform"
    budget = resolve_budget(budget, n, minimum_budget(n), "spectral")
    if n < 63 and budget >= 2**n:
        return enumerated_interactions(game, index, order, budget, "spectral", bool(std_errors))
    fitted = fit_spectrum(game, budget, rng, surrogate=surrogate, energy=energy, terms_ratio=terms_ratio,
                          sampling=sampling, fit=fit, low_order=order, std_errors=bool(std_errors))
    estimate = index_from_fourier(fitted.coefficients, index, order, n)
    if index == "sii":  # SII of single players are Shapley values: made efficient (see _efficient)
        phi = _efficient(np.array([estimate[(i,)] for i in range(n)]), fitted, n)
        estimate.update({(i,): float(phi[i]) for i in range(n)})
    errors = None
    if std_errors:
        keys = list(estimate)
        position = {K: r for r, K in enumerate(keys)}
        weights = np.zeros((len(keys), len(fitted.terms)))  # index = weights @ coefficients
        for t, T in enumerate(fitted.terms):
            for K, w in _contributions(T, index, order):
                weights[position[K], t] = w
        errors = dict(zip(keys, _std_errors(fitted, weights)))
    return Interactions(estimate, index, order, float(fitted.values[0]), game.feature_names, len(fitted.values),
                        "spectral", errors, fitted.info)


spectral_interactions.indices = INDICES

MAX_SE_CELLS = 4_000_000  # bivariate standard errors only while their weight matrix (n^2 + n) x terms fits this


@register("bivariate", "spectral")
def spectral_bivariate(game: Game, *, budget: int | None = None, rng: np.random.Generator, surrogate="auto",
                       energy: float = 0.9999, terms_ratio: float = 0.5, sampling: str = "sizes", fit: str = "auto",
                       std_errors: bool = True) -> BivariateExplanation:
    """The Bivariate Shapley matrix and the Shapley values of the same Fourier fit (module docstring,
    :func:`bivariate_from_fourier`); cost ``min(budget, 2**n)`` evaluations. Standard errors while the weights of
    the ``n^2 + n`` outputs on the fitted terms have at most ``MAX_SE_CELLS`` cells (else none, said in ``info``)."""
    n = game.n_players
    _check_options(energy, terms_ratio, sampling, fit)
    if sampling == "auto":
        sampling = "sizes"
    budget = resolve_budget(budget, n, minimum_budget(n), "spectral")
    if n < 63 and budget >= 2**n:
        from .exact import exact_bivariate

        result = exact_bivariate(game, budget=budget)
        zeros = np.zeros((n, n)) if std_errors else None
        univariate = Attribution(result.univariate.values, result.univariate.baseline, game.feature_names,
                                 result.n_evaluations, "spectral", np.zeros(n) if std_errors else None,
                                 {"budget": budget, "enumerated": True})
        return BivariateExplanation(result.adjacency, univariate, game.feature_names, result.n_evaluations,
                                    "spectral", zeros, {"budget": budget, "enumerated": True})
    fitted = fit_spectrum(game, budget, rng, surrogate=surrogate, energy=energy, terms_ratio=terms_ratio,
                          sampling=sampling, fit=fit, low_order=2, std_errors=bool(std_errors))
    adjacency, phi = bivariate_from_fourier(fitted.coefficients, n)
    phi = _efficient(phi, fitted, n)
    info = dict(fitted.info)
    std_adj = std_phi = None
    if std_errors and (n * n + n) * len(fitted.terms) > MAX_SE_CELLS:
        info["std_errors"] = f"not computed: {n * n + n} outputs x {len(fitted.terms)} terms exceed {MAX_SE_CELLS:,}"
    elif std_errors:
        weights = np.zeros((n * n + n, len(fitted.terms)))  # rows: adjacency (row-major), then phi
        for t, T in enumerate(fitted.terms):
            if T:
                unit_adj, unit_phi = bivariate_from_fourier({T: 1.0}, n)
                weights[: n * n, t] = unit_adj.ravel()
                weights[n * n:, t] = unit_phi
        errors = _std_errors(fitted, weights)
        std_adj, std_phi = errors[: n * n].reshape(n, n), errors[n * n:]
        np.fill_diagonal(std_adj, 0.0)
    used = len(fitted.values)
    univariate = Attribution(phi, float(fitted.values[0]), game.feature_names, used, "spectral", std_phi, info)
    return BivariateExplanation(adjacency, univariate, game.feature_names, used, "spectral", std_adj, info)
