"""The Bivariate Shapley matrix from the Gaussian-process fits of the odd and even parts (``method="gp"``).

One leverage sample of complementary pairs; the odd part fitted by OddGP (:mod:`.odd_gp`: the Shapley values),
the even part by the pair GP's model (:mod:`.pair_gp`); the matrix is read from both fits in closed form. In the
Walsh basis a term ``a_T chi_T`` adds to ``adjacency[i, j]`` (``j in T``; Bivariate Shapley paper Eq. 6, as
:func:`.spectral.bivariate_from_fourier`) ``a_T / |T|`` or ``a_T / (|T| + 1)`` (``i`` outside ``T``, ``|T|`` odd or
even) and ``a_T / (|T| - 1)`` or ``a_T / |T|`` (``i`` in ``T``, ``|T|`` even or odd). Summed over the kernel section
``k(., S_u)`` of a part (``z = +-1`` the memberships of ``S_u``, ``w_T`` the prior weights of :mod:`._walsh_gp`):

    adjacency[i, j] = rho_j z_j (A_ij + rho_i z_i B_ij) / prod_k (1 + rho_k),

with ``E(t)``, ``O(t)`` the even and odd parts of ``prod_{k != i, j} (1 + t rho_k z_k)``, ``A = int_0^1 E``,
``B = int_0^1 t O`` for the odd part and ``A = int_0^1 t O``, ``B = int_0^1 E`` for the even part (Gauss-Legendre,
exact: four matrix products per node). Prior variances: with ``q = rho / (1 + rho)`` and ``P_-ij`` the
Poisson-binomial distribution of the other ``q_k``, ``q_j (1 - q_i) sum_m P_-ij(m) c_out(m)^2 + q_i q_j sum_m
P_-ij(m) c_in(m)^2`` over the sizes ``m`` of the rest of ``T`` that give the part's parity.

A term of odd size adds ``a_T / |T|`` to column ``j in T`` of every row, so the odd part's matrix is ``phi_j / 2``
in each row: it is read from the Shapley values after their efficiency shift (the ``univariate`` values; the
kernel sections' readout gave the unshifted ones), with their posterior variances over 4. On the benchmark's
20-feature network, 40 seeds at 5n-40n: 0.2-0.7% less error, no odd readout of the matrix.

Sample: OddGP's leverage sample (the same seed, the same Shapley values); with at most
:data:`._leverage.SINGLETON_PAIRS_UP_TO` (3) sampled pairs per player (budgets up to ``6n + 2``) every pair
``{i}``, ``N - {i}`` is taken first (:func:`._leverage.singleton_pairs_first`; the other sizes share the rest
equally), in OddGP's Shapley values' sample too. With the grand pair, pair ``{i}`` holds
``sum_{T even, i in T} a_T`` and ``sum_{T odd, i in T} a_T`` exactly: close to the matrix's column means
(``phi_j / 2`` plus the even part's), which carry most of its error at small budgets (on the benchmark's
20-feature network at 5n, 95%: the Shapley values' error and the even part's column means', whose errors went
together, correlation 0.6). Error at 5n, 40 seeds: 0.47-0.59 of the leverage sample's on the benchmark's
Moebius (16 players), network (20), boosting and forest (30) games; 0.26-0.63 at 3n-6n (20-40 seeds); at 7n-10n
it was 0.47-0.91 on three of them but 0.98-1.39 on boosting (the other sizes' fewer pairs), hence the
threshold. For OddGP's Shapley values at 5n: 0.68-0.89 of the error on five of the benchmark's games, 1.00 on
the 40-player Moebius game, 1.17 on the 30-feature forest (20-40 seeds); taken there too, so that
``bivariate(x).univariate`` stays ``shapley(x)`` of the same seed.

Biased (regularised fits), exact at full budget (exact enumeration). Standard errors: posterior standard
deviations (the two parts independent) while ``n^2`` times the sampled pairs stay within :data:`MAX_SE_CELLS`
(else none, said in ``info``).

Cost: ``2 + 2 * floor((budget - 2) / 2)`` evaluations (at most ``2**n``); one surrogate fit; the two model choices
and Cholesky factorisations of :mod:`.pair_gp`; the even part's readout ``O(units n^3)``.
"""

from __future__ import annotations

import numpy as np

from ..games import Game
from ..results import Attribution, BivariateExplanation
from ._leverage import singleton_pairs_first
from ._registry import register
from ._sampling import resolve_budget
from ._surrogate import resolve_surrogate
from ._walsh_gp import Part, node_factors, poisson_binomial, readout, signs, without_each
from .kernel import minimum_budget
from .odd import surrogate_spectrum
from .odd_gp import _odd_readout, fit_odd
from .pair_gp import _sample, fit_even
from .spectral import bivariate_from_fourier

MAX_SE_CELLS = 4_000_000  # standard errors while n^2 x sampled pairs stay within this


def _terms(S: np.ndarray, rho, parity: str):
    """Per Gauss-Legendre node, the matrix of each kernel section as a sum of outer products ``left[u, i]
    right[u, j]`` (module docstring; ``C+- = rho z D+-``): for the odd part ``A = int E``, ``B = int t O``, for the
    even part ``A = int t O``, ``B = int E``."""
    Z = signs(S)
    rho = np.broadcast_to(np.asarray(rho, dtype=float), (Z.shape[1],))
    sign = 1.0 if parity == "odd" else -1.0  # E adds the P- products, O subtracts them
    for t, plus, minus, Dp, Dm in node_factors(S, rho):
        Cp, Cm = rho * Z * Dp, rho * Z * Dm
        a, b = (1.0, t) if parity == "odd" else (t, 1.0)  # the weights of A's and B's integrands
        # A's integrand (the D factors) and B's (the C factors) share their right factors: two products a node
        yield [(plus[:, None] * (a * Dp + b * Cp), Cp), ((sign * minus)[:, None] * (a * Dm - b * Cm), Cm)]


def bivariate_values(S: np.ndarray, rho, parity: str, alpha: np.ndarray) -> np.ndarray:
    """``sum_u alpha_u adjacency(k(., S_u))`` for the part's kernel (module docstring): ``(n, n)``, zero diagonal;
    ``O(units n^2)`` memory-light work per node."""
    n = S.shape[1]
    out = np.zeros((n, n))
    for pairs in _terms(S, rho, parity):
        for left, right in pairs:
            out += (left * alpha[:, None]).T @ right
    np.fill_diagonal(out, 0.0)
    return out


def bivariate_weights(S: np.ndarray, rho, parity: str) -> np.ndarray:
    """``(units, n * n)``: the matrix of each kernel section ``k(., S_u)``, row-major (for standard errors), by one
    batched product of the stacked outer-product factors."""
    units, n = S.shape
    terms = [pair for pairs in _terms(S, rho, parity) for pair in pairs]
    left = np.stack([lt for lt, _ in terms], axis=1)  # (units, terms, n)
    right = np.stack([rt for _, rt in terms], axis=1)
    out = np.matmul(left.transpose(0, 2, 1), right)
    out[:, np.arange(n), np.arange(n)] = 0.0
    return out.reshape(units, n * n)


def bivariate_prior_variance(rho, parity: str) -> np.ndarray:
    """Prior variance of each entry of the part's matrix (module docstring): ``(n * n,)``, zero diagonal."""
    rho = np.asarray(rho, dtype=float)
    n = len(rho)
    q = rho / (1.0 + rho)
    others = without_each(without_each(poisson_binomial(q), q), q)  # (n, n, n - 1): [i, j, m]
    m = np.arange(others.shape[2])
    one, two = 1.0 / (m + 1.0) ** 2, 1.0 / (m + 2.0) ** 2
    even_m, odd_m = m % 2 == 0, m % 2 == 1
    if parity == "odd":  # i outside: |T| = m + 1 odd; inside: |T| = m + 2 odd
        outside, inside = np.where(even_m, one, 0.0), np.where(odd_m, two, 0.0)
    else:
        outside, inside = np.where(odd_m, two, 0.0), np.where(even_m, one, 0.0)
    var = q[None, :] * (1.0 - q[:, None]) * (others @ outside) + q[:, None] * q[None, :] * (others @ inside)
    np.fill_diagonal(var, 0.0)
    return var.reshape(n * n)


def _part_matrix(part: Part, std_errors: bool):
    """The part's matrix (fixed terms and kernel) and, with ``std_errors``, its posterior standard deviations
    squared (``(n, n)`` each)."""
    n = part.S.shape[1]
    matrix = bivariate_from_fourier(dict(zip(part.terms, part.fitted.beta.tolist())), n)[0]
    matrix += bivariate_values(part.S, part.decays, part.parity, part.fitted.alpha)
    if not std_errors:
        return matrix, None
    membership = np.zeros((len(part.terms), n, n))  # bivariate_from_fourier({T: 1}) for each term T
    for t, T in enumerate(part.terms):
        if T:
            k, columns = len(T), list(T)
            outside = 1.0 / k if k % 2 else 1.0 / (k + 1)
            membership[t][:, columns] = outside
            membership[t][np.ix_(columns, columns)] = 1.0 / (k - 1) if k % 2 == 0 else 1.0 / k
    membership[:, np.arange(n), np.arange(n)] = 0.0
    membership = membership.reshape(len(part.terms), n * n)
    G = bivariate_weights(part.S, part.decays, part.parity)
    _, std = readout(part.fitted, membership, G, bivariate_prior_variance(part.decays, part.parity))
    return matrix, (std ** 2).reshape(n, n)


@register("bivariate", "gp")
def gp_bivariate(game: Game, *, budget: int | None = None, rng: np.random.Generator, surrogate="auto",
                 std_errors: bool = True) -> BivariateExplanation:
    """The Bivariate Shapley matrix and the Shapley values of the odd and even Gaussian-process fits (module
    docstring); cost ``min(budget, 2**n)`` evaluations (up to one less when the budget is odd)."""
    n = game.n_players
    budget = resolve_budget(budget, n, minimum_budget(n), "gp")
    if n < 63 and budget >= 2**n:
        from .exact import exact_bivariate

        result = exact_bivariate(game, budget=budget)
        info = {"budget": budget, "enumerated": True}
        univariate = Attribution(result.univariate.values, result.univariate.baseline, game.feature_names,
                                 result.n_evaluations, "gp", np.zeros(n) if std_errors else None, info)
        return BivariateExplanation(result.adjacency, univariate, game.feature_names, result.n_evaluations, "gp",
                                    np.zeros((n, n)) if std_errors else None, info)
    kind = resolve_surrogate(surrogate)
    rows, values, S, y_odd, y_even, w, info = _sample(game, budget, rng, "sizes",
                                                      whole_singletons=singleton_pairs_first(n, budget))
    spectrum, seconds = surrogate_spectrum(kind, rows, values, rng) if kind is not None else (None, 0.0)
    odd = fit_odd(S, y_odd, w, budget, spectrum, rng)
    even = fit_even(S, y_even, w, budget, spectrum, rng)
    with_errors = bool(std_errors) and len(S) * n * n <= MAX_SE_CELLS
    phi, std_phi = readout(odd.fitted, *_odd_readout("shapley", S, odd.terms, odd.decays, n, bool(std_errors)))
    phi = phi + (values[1] - values[0] - phi.sum()) / n  # efficiency, exactly
    even_matrix, var_even = _part_matrix(even, with_errors)
    adjacency = phi[None, :] / 2.0 + even_matrix
    np.fill_diagonal(adjacency, 0.0)
    std_adj = None
    if with_errors:
        var_odd = np.broadcast_to(std_phi[None, :] ** 2 / 4.0, (n, n)).copy()
        np.fill_diagonal(var_odd, 0.0)
        std_adj = np.sqrt(var_odd + var_even)
    info.update(surrogate=kind if isinstance(kind, str) or kind is None else type(kind).__name__,
                surrogate_seconds=seconds, odd=odd.info(), even=even.info(), std_errors=bool(std_errors))
    if std_errors and not with_errors:
        info["std_errors"] = f"matrix: not computed ({n * n} entries x {len(S)} sampled pairs exceed {MAX_SE_CELLS:,})"
    used = len(values)
    univariate = Attribution(phi, float(values[0]), game.feature_names, used, "gp", std_phi, info)
    return BivariateExplanation(adjacency, univariate, game.feature_names, used, "gp", std_adj, info)
