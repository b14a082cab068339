"""Gaussian processes over the Walsh basis with relevance (product) prior weights, shared by OddGP (Shapley
values, :mod:`.odd_gp`) and the pair GP (order-2 SII and BII, :mod:`.pair_gp`).

In the Walsh basis ``chi_T(S) = prod_{k in T} (+1 if k in S else -1)`` a game is ``v = sum_T a_T chi_T``; a set
of odd size changes sign under ``S -> N - S`` and an even one does not, so over complementary pairs the odd part
``(v(S) - v(N - S)) / 2`` holds exactly the odd ``a_T`` and the even part ``(v(S) + v(N - S)) / 2`` the even ones.
Each part is modelled as fixed terms (a flat prior: universal kriging) plus a Gaussian process over every other
``a_T`` of its parity, a priori ``N(0, w_T)`` with

    w_T = prod_{k in T} rho_k / prod_{k in N} (1 + rho_k),      rho_k = rho (r_k / max_j r_j)^gamma,

where ``r_k`` is player ``k``'s share of a tree surrogate's exact Fourier spectrum (:func:`feature_relevance`;
``gamma = 0``: one ``rho`` for all players). Its kernel has a closed form (expand
``prod_k (1 +- rho_k z_k z'_k)``, ``z = +-1`` the memberships, ``r_k = (1 - rho_k) / (1 + rho_k)``):

    k(S, S') = sum_{T of the parity} w_T chi_T(S) chi_T(S') = (prod_{k: S, S' differ} r_k -+ prod_{k: agree} r_k) / 2

(``-`` odd, ``+`` even; for one ``rho`` it is ``(r^h -+ r^(n - h)) / 2`` in the Hamming distance ``h``). The
posterior mean is ``X beta + sum_u alpha_u k(., S_u)``, whose Walsh coefficients are ``beta`` on the fixed terms
plus ``w_T sum_u alpha_u chi_T(S_u)``: every index that is linear in the ``a_T`` is a readout of ``(beta, alpha)``
(:func:`readout`); the estimators give the weights. Sums like ``sum_{U} prod_{k in U} rho_k z_k / (|U| + 1)`` are
``int_0^1 prod_k (1 + t rho_k z_k) dt`` restricted to a parity, computed by Gauss-Legendre (:func:`node_products`).

Model choice (:func:`select`), by leave-one-pair-out error (closed form: ``e_u = (P y)_u / P_uu`` with
``P = A^-1 - A^-1 X (X' A^-1 X)^-1 X' A^-1``, ``A = K + lambda I``; Dubrule 1983): ``gamma`` in
:data:`RELEVANCE_POWERS` (0 without a surrogate), ``rho`` in :data:`DECAYS` and the noise ``lambda / k(S, S)`` in
:data:`NOISES` with the first candidate design (for each ``gamma`` a walk along the ``rho`` grid from its middle
towards the better neighbour while the error falls), then the designs and the noise at those (a design of no
fixed terms, whose best ``rho`` is often lower than the first design's, also walks along the ``rho`` grid for each
``gamma`` at that noise from the best ``rho``, then searches the noise at its own best); on at most
:data:`SELECT_UNITS` pairs, or twice the smallest set of fixed terms and 3 more. Cost: one Cholesky factorisation
and inverse per ``(gamma, rho, noise)`` tried: the first model's noise by a walk up the noise grid from the smallest
while the error falls (every model gets one while none of the first design's could be scored), then the walks
hold the noise at the best model's, which is then searched at the best ``(gamma, rho)`` (the walks go once more
where it moved). A
design with a pair that cannot be left out (its leverage in the fixed terms is 1: without it they are not
identified) is not scored at all (:func:`_identified`). Against one eigendecomposition per ``(gamma, rho)`` (every
noise at once): 0.55-0.85x OddGP's
time per explanation on the benchmark's games at 16-30 players and 10n-40n, its error 1.004-1.006x as a geometric
mean over them and at most 1.05x (a review helper's runs, 2 rows, 20-30 seeds each). The first model's noise had
been chosen by an eigendecomposition (every noise at once; 2.5-3 ms at 210 pairs, about six
factorisations): the walk from the smallest noise (two factorisations where the smallest is the best, as in 35 of
45 fits on the 30-feature forest) chose the same models in 87 of 90 fits on four of the benchmark's games (the
other 3 on the 20-feature network, each with less error); with the tau walk below, the benchmark's error over
64 cells (forest30, gbm30, mlp20, moebius16; Shapley values, SII, BII and Bivariate matrices; 5n-40n, 10 seeds)
was 0.9995x as a geometric mean (at most 1.004x, 60 cells the same), in 0.80-0.85x of OddGP's time per
explanation on the forest at 300-420 evaluations (with the tau walk).

With a surrogate, the largest design's terms beyond the first design's are also tried with finite prior variances
``D_T = tau k(S, S) a_T^2 / sum a^2`` (``a_T`` the surrogate's coefficient; the sum over all its interactions of the
part's parity, sizes 3 and up (odd) or 2 and up (even), so the surrogate sets the scale of ``tau``), ``tau`` in
:data:`EXTRA_TAUS` (one Cholesky factorisation each, at the best ``(gamma, rho)`` and noise so far): terms of the
process, added to its kernel, whose posterior means ``D_T sum_u alpha_u chi_T(S_u)`` follow
``beta``. A continuous step between the first design (``tau = 0``) and the flat prior (``tau = inf``). On the
benchmark's 20-feature network, where the flat designs were chosen too often (a dense spectrum), the Bivariate
matrix's error fell 7-11% at 10n-20n; 20 seeds of the benchmark's games before and after: Shapley values 0.94 as a
geometric mean over cells (none worse), the matrix 0.97 (5n at most 1.07 worse), SII and BII 0.97 (at most 1.07);
about 1.1-1.3x the time (then three more eigendecompositions per part; since 4a260fd three Cholesky
factorisations at the best noise). The taus are walked up from the first design's score (``tau = 0``) while the
score falls: on the 30-feature forest, where no tau was chosen, the first (0.1) already scored worse, and the
other two factorisations were skipped (the same models in 90 of 90 fits against trying all three).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

DECAYS = (0.003, 0.01, 0.03, 0.1, 0.3, 0.6)  # rho: the most relevant player's factor in a term's prior variance
# gamma: rho_k = rho (r_k / max r)^gamma. gamma = 0 (one rho for all) was chosen in 8 of 360 fits on the
# benchmark's games; without it and with rho = 0.6 the error was the same (geometric mean 1.005 over 30 cells)
# in 13% less time. It is still used without a surrogate (no relevance).
RELEVANCE_POWERS = (0.5, 1.0)
NOISES = 10.0 ** np.arange(-7, 1)  # noise variance / process variance at a point (on a pair of weight 1)
SELECT_UNITS = 250  # pairs the choice of the model is made on
MOST_PAIRS = 0.5  # budget_term_sets' most_pairs_only designs: only where the choice sees this share of the pairs
# tau: the largest design's terms beyond the first design's as part of the process with prior variances
# tau k(S, S) a_T^2 / sum a^2 (module docstring); tau = 0 is the first design, tau = inf the largest
EXTRA_TAUS = (0.1, 1.0, 10.0)
PARITIES = ("odd", "even")


def signs(S: np.ndarray) -> np.ndarray:
    """``+1`` where a player is in the coalition, ``-1`` where not."""
    return np.where(S, 1.0, -1.0)


def _sign(parity: str) -> float:
    if parity not in PARITIES:
        raise ValueError(f"parity: expected one of {list(PARITIES)}, got {parity!r}")
    return -1.0 if parity == "odd" else 1.0


def walsh_kernel(S: np.ndarray, S2: np.ndarray, rho, parity: str = "odd") -> np.ndarray:
    """``sum_T w_T chi_T(S) chi_T(S')`` over the sets ``T`` of the parity, for the rows of ``S`` and ``S2`` (module
    docstring); ``rho``: a number or one per player, each in ``[0, 1)``."""
    return _walsh_kernel_signs(signs(S), signs(S2), rho, _sign(parity))


def _walsh_kernel_signs(Z: np.ndarray, Z2: np.ndarray, rho, sign: float, rows: np.ndarray | None = None,
                        columns: np.ndarray | None = None) -> np.ndarray:
    """:func:`walsh_kernel` from the memberships' signs ``Z``, ``Z2`` (``sign``: -1 odd, +1 even), optionally times
    ``rows[u] columns[u']`` (the same numbers as scaling after: the final halving is exact)."""
    rho = np.broadcast_to(np.asarray(rho, dtype=float), (Z.shape[1],))
    half_log_r = np.arctanh(rho)  # -log r_k / 2
    # half the sum over agreeing k minus the sum over differing k of -log r_k; the same numbers as halving after
    # (a power of two), computed in place: fresh (units x units) temporaries made this 2-3x slower
    agree = (Z * half_log_r) @ Z2.T
    half_total = half_log_r.sum()
    out = np.subtract(agree, half_total)
    np.exp(out, out=out)  # prod_{k: differ} r_k
    np.negative(agree, out=agree)
    agree -= half_total
    np.exp(agree, out=agree)  # prod_{k: agree} r_k
    if sign < 0:
        out -= agree
    else:
        out += agree
    if rows is None:
        out *= 0.5
    else:  # (0.5 k) r_u c_u' = k (0.5 r_u) c_u': halving is exact
        out *= (0.5 * rows)[:, None]
        if columns is not None:
            out *= columns[None, :]
    return out


def _scaled_walsh_kernel(Z: np.ndarray, rho, sign: float, root_w: np.ndarray) -> np.ndarray:
    """``root_w[u] k(S_u, S_u') root_w[u']`` for the model choice (:func:`select`), from the memberships' signs:
    ``k = exp(-sum_k atanh(rho_k)) sinh(a)`` (odd; ``cosh`` even) with ``a`` the agreement matrix of
    :func:`walsh_kernel` (its two exponentials' difference, written as one ``sinh``: one pass fewer, and no
    cancellation where ``a`` is small). The same kernel as :func:`walsh_kernel` but for rounding; the fit of the
    chosen model computes its own (:func:`walsh_kernel`)."""
    rho = np.broadcast_to(np.asarray(rho, dtype=float), (Z.shape[1],))
    half_log_r = np.arctanh(rho)
    half_total = float(half_log_r.sum())
    if half_total > 300.0:  # sinh(a) <= sinh(half_total) could overflow: the two exponentials (each <= 1)
        return _walsh_kernel_signs(Z, Z, rho, sign, root_w, root_w)
    out = (Z * half_log_r) @ Z.T
    if sign < 0:
        np.sinh(out, out=out)
    else:
        np.cosh(out, out=out)
    out *= (np.exp(-half_total) * root_w)[:, None]
    out *= root_w[None, :]
    return out


def kernel_at_zero(rho, parity: str = "odd") -> float:
    """``k(S, S) = (1 -+ prod_k r_k) / 2``."""
    return float(0.5 * (1.0 + _sign(parity) * np.exp(-2.0 * np.sum(np.arctanh(np.asarray(rho, dtype=float))))))


def node_products(S: np.ndarray, rho) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Gauss-Legendre on ``[0, 1]`` with ``n // 2 + 2`` nodes (exact for polynomials of degree ``n + 1``):
    ``(t, weights, plus, minus)`` with ``plus[u, j] = prod_k (1 + t_j rho_k z_uk) / prod_k (1 + rho_k)`` and
    ``minus`` the same with ``1 - t_j rho_k z_uk`` (each at most 1: no overflow at any ``n``)."""
    Z = signs(S)
    n = Z.shape[1]
    rho = np.broadcast_to(np.asarray(rho, dtype=float), (n,))
    nodes, weights = _gauss_legendre(n // 2 + 2)
    t = (nodes + 1.0) / 2.0
    tr = t[:, None] * rho[None, :]  # (nodes, n)
    # log prod_k (1 +- t rho_k z_k) = sum_k log sqrt(1 - (t rho_k)^2) +- sum_k z_k atanh(t rho_k)
    base = 0.5 * np.sum(np.log1p(tr) + np.log1p(-tr), axis=1) - np.sum(np.log1p(rho))
    linear = Z @ np.arctanh(tr).T  # (units, nodes)
    return t, weights / 2.0, np.exp(base + linear), np.exp(base - linear)


_GAUSS_LEGENDRE: dict = {}


def _gauss_legendre(degree: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.polynomial.legendre.leggauss(degree)``, computed once per degree (read-only copies)."""
    got = _GAUSS_LEGENDRE.get(degree)
    if got is None:
        got = np.polynomial.legendre.leggauss(degree)
        for a in got:
            a.setflags(write=False)
        _GAUSS_LEGENDRE[degree] = got
    return got


def node_factors(S: np.ndarray, rho):
    """Per Gauss-Legendre node of :func:`node_products`: ``(t, w P+ / 2, w P- / 2, D+, D-)`` with
    ``D+-[u, k] = 1 / (1 +- t rho_k z_uk)``, the factor that divides player ``k``'s own term out of ``P+-``."""
    Z = signs(S)
    rho = np.broadcast_to(np.asarray(rho, dtype=float), (Z.shape[1],))
    t, weights, plus, minus = node_products(S, rho)
    for j, tj in enumerate(t):
        yield (tj, weights[j] * plus[:, j] / 2.0, weights[j] * minus[:, j] / 2.0, 1.0 / (1.0 + tj * rho * Z),
               1.0 / (1.0 - tj * rho * Z))


def poisson_binomial(q: np.ndarray) -> np.ndarray:
    """Distribution of the number of successes of independent Bernoulli(``q_k``) trials: ``(len(q) + 1,)``."""
    pmf = np.zeros(len(q) + 1)
    pmf[0] = 1.0
    for k, qk in enumerate(q):
        pmf[1:k + 2] = pmf[1:k + 2] * (1.0 - qk) + pmf[:k + 1] * qk
        pmf[0] *= 1.0 - qk
    return pmf


def without_each(pmf: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``out[..., i, m]``: the distribution ``pmf[..., m]`` with trial ``i`` removed (one less success count),
    by ``P_-i(m) = (P(m) - q_i P_-i(m - 1)) / (1 - q_i)``: stable while ``q_i <= 1 / 2`` (errors shrink by
    ``q_i / (1 - q_i)`` a step)."""
    size = pmf.shape[-1] - 1
    out = np.zeros(pmf.shape[:-1] + (len(q), size))
    previous = np.zeros(pmf.shape[:-1] + (len(q),))
    for m in range(size):
        previous = np.maximum((pmf[..., m, None] - q * previous) / (1.0 - q), 0.0)
        out[..., m] = previous
    return out


def feature_relevance(spectrum, n: int) -> np.ndarray:
    """``r_k = sqrt(sum_{T ni k} a_T^2)`` over a (surrogate's) Fourier spectrum ``{T: a_T}`` (one array pass per
    set size; a :class:`._surrogate.Spectrum`'s own arrays, else the sets grouped by size first)."""
    by_size = getattr(spectrum, "by_size", None)
    if by_size is None:
        grouped: dict[int, tuple[list, list]] = {}
        for T, c in spectrum.items():
            if T:
                keys, coefficients = grouped.setdefault(len(T), ([], []))
                keys.append(T)
                coefficients.append(c)
        by_size = [(size, np.asarray(keys, dtype=np.int64), np.asarray(coefficients, dtype=float))
                   for size, (keys, coefficients) in grouped.items()]
    relevance = np.zeros(n)
    for size, sets, coefficients in by_size:
        if size:
            np.add.at(relevance, sets.ravel(), np.repeat(np.square(coefficients), size))
    return np.sqrt(relevance)


def player_decays(rho: float, gamma: float, relevance: np.ndarray | None, n: int) -> np.ndarray:
    """``rho_k = rho (r_k / max r)^gamma`` (the same ``rho`` for every player when ``gamma = 0`` or without a
    relevance)."""
    if gamma == 0 or relevance is None or relevance.max() <= 0:
        return np.full(n, rho)
    return rho * (relevance / relevance.max()) ** gamma


def term_shares(spectrum: dict | None, sizes):
    """``T -> a_T^2 / sum a^2`` over the terms of the (surrogate's) spectrum whose size is in ``sizes`` (None
    without a spectrum or when they are all zero), read with ``.get(T, default)``. A :class:`._surrogate.Spectrum`
    is read from its arrays (:class:`TermShares`), not from its ``{T: a_T}`` dictionary of every set, whose
    building made an OddGP explanation at 30 players and 420 evaluations about 10% slower (52-56 against 48 ms
    of CPU) for the few terms ever looked up. Same shares, bit for bit."""
    if spectrum is None:
        return None
    by_size = getattr(spectrum, "by_size", None)
    if by_size is not None:
        kept = [(size, sets, coefficients) for size, sets, coefficients in by_size if size in sizes]
        # the same sum, in the same order, as over the dictionary below (zeros add nothing)
        total = sum(np.square(np.concatenate([c for _, _, c in kept] + [np.zeros(0)])).tolist())
        return TermShares(kept, total) if total > 0 else None
    kept = {T: float(c) ** 2 for T, c in spectrum.items() if len(T) in sizes and c != 0}
    total = sum(kept.values())
    return {T: v / total for T, v in kept.items()} if total > 0 else None


class TermShares:
    """:func:`term_shares` of a :class:`._surrogate.Spectrum`: ``get(T, default)`` finds ``T`` among the sets of
    its size by a binary search of their integer codes (each set's players as digits; the sets are unique and
    ascending, so are their codes), computed for a size when first looked up."""

    def __init__(self, by_size: list, total: float) -> None:
        self._by_size = {size: (sets, coefficients) for size, sets, coefficients in by_size}
        self._codes: dict = {}
        self._total = total

    def get(self, T, default=0.0):
        sets, coefficients = self._by_size.get(len(T), (None, None))
        if sets is None or not len(sets):
            return default
        if len(T) not in self._codes:
            base = int(sets.max()) + 1
            digits = base ** np.arange(len(T) - 1, -1, -1, dtype=np.int64) if base ** len(T) < 2**62 else None
            self._codes[len(T)] = (base, digits, None if digits is None else sets @ digits)
        base, digits, codes = self._codes[len(T)]
        if digits is None:  # too many digits for one integer: compare every set
            hits = np.flatnonzero(np.all(sets == np.asarray(T, dtype=sets.dtype), axis=1))
            at = int(hits[0]) if len(hits) else -1
        else:
            if min(T) < 0 or max(T) >= base:
                return default  # a player in no set (and not a digit of this base)
            code = int(np.asarray(T, dtype=np.int64) @ digits)
            at = int(np.searchsorted(codes, code))
            at = at if at < len(codes) and codes[at] == code else -1
        if at < 0 or coefficients[at] == 0:
            return default
        return float(coefficients[at]) ** 2 / self._total

    def get_many(self, terms: list) -> np.ndarray:
        """``get(T, 0.0)`` for each ``T``, the sets of one size looked up at once (the same numbers)."""
        out = np.zeros(len(terms))
        by_size: dict[int, list[int]] = {}
        for k, T in enumerate(terms):
            by_size.setdefault(len(T), []).append(k)
        for size, at in by_size.items():
            sets, coefficients = self._by_size.get(size, (None, None))
            if sets is None or not len(sets):
                continue
            if size == 0:
                out[at] = [self.get(terms[k]) for k in at]
                continue
            if size not in self._codes:
                self.get(terms[at[0]])  # the size's codes
            base, digits, codes = self._codes[size]
            wanted = np.array([terms[k] for k in at], dtype=np.int64)
            if digits is None or wanted.min() < 0:
                out[at] = [self.get(terms[k]) for k in at]
                continue
            inside = wanted.max(axis=1) < base
            code = np.where(inside, wanted % base @ digits, -1)
            hit = np.minimum(np.searchsorted(codes, code), len(codes) - 1)
            found = inside & (codes[hit] == code)
            for k, h, ok in zip(at, hit.tolist(), found.tolist()):
                if ok and coefficients[h] != 0:
                    out[k] = float(coefficients[h]) ** 2 / self._total
        return out


def design(S: np.ndarray, terms: list) -> np.ndarray:
    """``chi_T(S)`` for every row ``S`` and term ``T`` (the empty term: 1): ``(rows, terms)`` of +-1."""
    Z = signs(S)
    out = np.empty((len(S), len(terms)))
    by_size: dict[int, list[int]] = {}
    for t, T in enumerate(terms):
        by_size.setdefault(len(T), []).append(t)
    for size, at in by_size.items():  # one gather per set size (products of +-1 are exact in any order)
        if size == 0:
            out[:, at] = 1.0
            continue
        members = np.array([terms[t] for t in at], dtype=np.int64)  # (terms of this size, size)
        out[:, at] = Z[:, members[:, 0]] if size == 1 else np.prod(Z[:, members], axis=2)
    return out


def _identified(X: np.ndarray) -> bool:
    """Whether every pair can be left out of the fixed terms ``X`` (rows scaled by any positive weights): no row's
    leverage ``x_u' (X'X)^+ x_u`` is 1. A pair of leverage 1 leaves the terms unidentified without it, so its
    leave-one-out residual is undefined (``P_uu`` is zero whatever the kernel and noise); decided on
    the design alone, not by a threshold on ``P~_uu``, whose rounding after a Cholesky inverse at the smallest noise
    reached 1e-9 of ``(A~^-1)_uu`` (a review's runs). Cost ``O(rows terms^2)``."""
    import scipy.linalg

    if X.shape[1] == 0:
        return True
    gram = X.T @ X
    factor, info = scipy.linalg.lapack.dpotrf(gram, lower=1, clean=1)
    pivots = np.diag(factor) ** 2 if info == 0 else None
    if pivots is not None and pivots.min() > 1e-8 * np.diag(gram).max():  # well conditioned: x_u' (X'X)^-1 x_u
        half = scipy.linalg.solve_triangular(factor, X.T, lower=True, check_finite=False)
        leverage = np.einsum("ij,ij->j", half, half)
    else:  # (nearly) singular: terms the design cannot separate, by the pseudo-inverse
        leverage = np.einsum("ij,ij->i", X @ np.linalg.pinv(gram, hermitian=True), X)
    return bool(np.all(leverage < 1.0 - 1e-8))


def _inverse_at(scaled_K: np.ndarray, lam: float, out: np.ndarray | None = None):
    """``(scaled_K + lam I)^-1`` as ``(L^-1, its diagonal)`` with ``L`` the lower Cholesky factor (LAPACK ``potrf``,
    then :func:`_invert_lower`; None where the factorisation fails): one noise for about a sixth of
    an eigendecomposition's time. ``L^-1`` is written in ``out`` when given (a Fortran-ordered array of the same
    shape; a fresh one page-faults: about 2 us a page here). Against LAPACK's ``potri`` (``L^-1``, then
    ``L^-T L^-1``): 0.25 against 0.43 ms at 210 pairs."""
    import scipy.linalg

    if out is None:
        A = np.array(scaled_K, order="F")
    else:
        A = out
        A[...] = scaled_K
    A.flat[::len(A) + 1] += lam
    factor, info = scipy.linalg.lapack.dpotrf(A, lower=1, clean=1, overwrite_a=1)
    if info != 0 or not _invert_lower(factor):
        return None
    return factor, np.einsum("ij,ij->j", factor, factor)  # (A^-1)_jj = sum_i (L^-1)_ij^2


def _invert_lower(L: np.ndarray) -> bool:
    """Invert a lower triangular matrix (zeros above the diagonal) in place, by halves: ``[[A, 0], [B, C]]^-1 =
    [[A^-1, 0], [-C^-1 B A^-1, C^-1]]`` (LAPACK ``trtri`` below 64 rows, two BLAS ``trmm`` a level: about 0.6x
    ``trtri``'s time at 210 rows); False where a diagonal entry is zero."""
    import scipy.linalg

    m = len(L)
    if m <= 64:
        inverse, info = scipy.linalg.lapack.dtrtri(L, lower=1)
        if info != 0:
            return False
        L[...] = inverse
        return True
    h = m // 2
    if not (_invert_lower(L[:h, :h]) and _invert_lower(L[h:, h:])):
        return False
    blas = scipy.linalg.blas
    right = blas.dtrmm(1.0, L[:h, :h], L[h:, :h], side=1, lower=1)  # B A^-1
    L[h:, :h] = blas.dtrmm(-1.0, L[h:, h:], right, side=0, lower=1)  # -C^-1 B A^-1
    return True


def _loo_inverse(inverse, Xs: np.ndarray, ys: np.ndarray, root_w: np.ndarray) -> float:
    """The weighted mean squared leave-one-pair-out residual of the universal-kriging fit (module docstring) at
    one noise, from ``A~^-1`` (:func:`_inverse_at`'s ``(L^-1, diagonal)``; ``A~ = D^1/2 K D^1/2 + lam I`` with
    ``D`` the pairs' weights, ``root_w`` their square roots; ``Xs``, ``ys``: the design and values scaled by
    ``root_w``): pair ``u``'s residual is ``(P~ y~)_u / (P~_uu root_w_u)``. ``inf`` where ``X' A^-1 X`` is singular,
    or where leaving a pair out leaves the fixed terms unidentified: ``P~_uu`` is then zero but for rounding, and
    is taken as zero below ``1e-9`` of ``(A~^-1)_uu`` (healthy pairs keep a large share of it: 0.4 or more in a
    review's runs, where the unidentified ones had 2e-16 or less). Tested against refitting without each pair."""
    import scipy.linalg

    if inverse is None:
        return np.inf
    lower_inverse, p_whole = inverse
    blas = scipy.linalg.blas
    M = np.empty((len(ys), 1 + Xs.shape[1]), order="F")
    M[:, 0] = ys
    M[:, 1:] = Xs
    half = blas.dtrmm(1.0, lower_inverse, M, side=0, lower=1)  # L^-1 [y X]
    both = blas.dtrmm(1.0, lower_inverse, half, side=0, lower=1, trans_a=1)  # A^-1 [y X]
    alpha, W = both[:, 0], both[:, 1:]
    p_diag = p_whole
    if Xs.shape[1]:
        X_half = half[:, 1:]
        # X' A^-1 X = R' R (upper R): beta = (R' R)^-1 X' A^-1 y, and diag(W (X' A^-1 X)^-1 W') = the column
        # norms of R^-T W' (one triangular solve; no inverse of the small matrix)
        upper, info = scipy.linalg.lapack.dpotrf(X_half.T @ X_half, lower=0, clean=1)
        if info != 0:
            return np.inf
        beta, info = scipy.linalg.lapack.dpotrs(upper, X_half.T @ half[:, 0], lower=0)
        alpha = alpha - W @ beta
        spread = blas.dtrsm(1.0, upper, W.T, side=0, lower=0, trans_a=1)  # R^-T W' (BLAS: no wrapper checks)
        p_diag = p_whole - np.einsum("tr,tr->r", spread, spread)
    if not np.all(p_diag > 1e-9 * p_whole):
        return np.inf
    w = root_w ** 2
    return float(np.sum(w * (alpha / (p_diag * root_w)) ** 2) / np.sum(w))


def budget_term_sets(budget: int, ratios: tuple, terms_for, minimum: int, most_pairs_only: tuple = ()):
    """``term_sets`` for :func:`select`: for each ratio the fixed terms ``terms_for(scaled budget, ratio)`` (each
    size once), the budget scaled by the share of the pairs the choice is made on (at least ``minimum``); the
    ratios in ``most_pairs_only`` only while that share is at least :data:`MOST_PAIRS`."""
    def sets(scale: float):
        scaled = max(minimum, int(budget * scale))
        out, sizes = [], set()
        for ratio in ratios:
            if ratio in most_pairs_only and scale < MOST_PAIRS:
                continue
            terms = terms_for(scaled, ratio)
            if len(terms) not in sizes:
                sizes.add(len(terms))
                out.append((ratio, terms))
        return out
    return sets


@dataclass
class Choice:
    """The model :func:`select` chose: the key of its fixed terms, ``gamma``, ``rho``, ``noise``, its
    leave-one-out ``score`` and the number of pairs it was chosen on."""

    terms: object
    gamma: float
    rho: float
    noise: float
    score: float
    units: int = 0
    tau: float | None = None  # None: the terms beyond the first design's have a flat prior; else this tau
    base: object = None  # the key of the first design (the flat-prior terms when tau is not None)


def select(S: np.ndarray, y: np.ndarray, w: np.ndarray, term_sets, relevance: np.ndarray | None, parity: str,
           rng: np.random.Generator, extra_weights: dict | None = None) -> Choice:
    """The model with the smallest leave-one-pair-out error (module docstring). ``term_sets(scale)``: the
    candidate fixed terms as ``[(key, terms), ...]`` for the budget times ``scale`` (the share of the pairs the
    choice is made on); the first is fitted with each ``gamma`` along a walk over ``rho`` (module docstring), the
    others at the best of those. The pair in row 0 is always kept."""
    n = S.shape[1]
    units = len(S)
    # enough pairs to fit the smallest set of fixed terms with as many to spare (the singletons: 2n + 3 pairs for
    # 124 players and more; from 248, no set fitted on 250 pairs, and the model was never chosen)
    smallest = min((len(terms) for _, terms in term_sets(1.0) if terms), default=0)
    subset = max(SELECT_UNITS, 2 * smallest + 3)
    if units > subset:
        keep = np.concatenate([[0], np.sort(rng.choice(np.arange(1, units), subset - 1, replace=False))])
        S, y, w = S[keep], y[keep], w[keep]
    sets = [(key, terms) for key, terms in term_sets(len(S) / units) if len(terms) < len(S) - 2]
    designs = [design(S, terms) for _, terms in sets]
    identified = [_identified(X) for X in designs]  # else never scored: a pair cannot be left out
    root_w = np.sqrt(w)
    Z = signs(S)
    # the designs with their rows scaled by root_w (every score reads them so)
    candidates = [(key, root_w[:, None] * X) for (key, _), X in zip(sets, designs)]
    powers = RELEVANCE_POWERS if relevance is not None and relevance.max() > 0 else (0.0,)
    ys = root_w * y
    kernels, inverses, scored = {}, {}, {}
    spare = []  # the arrays of inverses no longer kept (only the best (gamma, rho)'s are reused), written over
    noise_at = None  # the index in NOISES of the best model's noise, once one is scored
    best = Choice(candidates[0][0] if candidates else None, powers[0], DECAYS[0], float(NOISES[0]), np.inf, len(S))

    def kernel(gamma: float, rho: float):
        if (gamma, rho) not in kernels:
            decays = player_decays(rho, gamma, relevance, n)
            scaled_K = _scaled_walsh_kernel(Z, decays, _sign(parity), root_w)
            kernels[gamma, rho] = (scaled_K, kernel_at_zero(decays, parity))
        return kernels[gamma, rho]

    def at_noise(X: np.ndarray, gamma: float, rho: float, j: int) -> float:
        """The score at noise NOISES[j] (one Cholesky factorisation per (gamma, rho, noise), kept)."""
        scaled_K, at_zero = kernel(gamma, rho)
        if (gamma, rho, j) not in inverses:
            inverses[gamma, rho, j] = _inverse_at(scaled_K, NOISES[j] * at_zero, spare.pop() if spare else None)
        return _loo_inverse(inverses[gamma, rho, j], X, ys, root_w)

    def release() -> None:
        """Hand the inverses of every (gamma, rho) but the best's to ``spare``: only the best's are asked for
        again (by the other designs; a walk scores each (gamma, rho) once at a noise)."""
        for key in [key for key in inverses if key[:2] != (best.gamma, best.rho)]:
            inverse = inverses.pop(key)
            if inverse is not None:
                spare.append(inverse[0])

    def consider(key, X: np.ndarray, gamma: float, rho: float, how: str) -> float:
        """Score a model: while no model has a score, up the noise grid from the smallest noise while the score
        falls (past noises that cannot be scored); else at the "best" noise so far (one factorisation: the walk
        over rho) or "near" it (its neighbours, then outwards while an edge is the best)."""
        nonlocal best, noise_at
        if noise_at is None:
            got = {0: at_noise(X, gamma, rho, 0)}
            k = 0
            while k + 1 < len(NOISES):
                got[k + 1] = at_noise(X, gamma, rho, k + 1)
                if np.isfinite(got[k]) and not got[k + 1] < got[k]:
                    break
                k += 1
            j = min(got, key=got.get)
            score_j = float(got[j])
        elif how == "best":
            j = noise_at
            score_j = at_noise(X, gamma, rho, j)
        else:
            lo, hi = max(noise_at - 1, 0), min(noise_at + 1, len(NOISES) - 1)
            got = {k: at_noise(X, gamma, rho, k) for k in range(lo, hi + 1)}
            while True:
                j = min(got, key=got.get)
                if j == lo and lo > 0 and np.isfinite(got[j]):
                    lo -= 1
                    got[lo] = at_noise(X, gamma, rho, lo)
                elif j == hi and hi < len(NOISES) - 1 and np.isfinite(got[j]):
                    hi += 1
                    got[hi] = at_noise(X, gamma, rho, hi)
                else:
                    break
            score_j = float(got[j])
        if score_j < best.score:
            best = Choice(key, gamma, rho, float(NOISES[j]), score_j, len(S))
        if np.isfinite(best.score):
            noise_at = int(np.argmin(np.abs(np.log(NOISES / best.noise))))
        release()
        return score_j

    def score(walker: int, gamma: float, rho: float) -> float:
        if not identified[walker]:
            return np.inf
        key = (walker, gamma, rho, noise_at)
        if key not in scored:
            scored[key] = consider(*candidates[walker], gamma, rho, "best")
            if key[3] is None and noise_at is not None:  # the first model scored (every noise) set the noise:
                scored[walker, gamma, rho, noise_at] = scored[key]  # its score there, not computed again
        return scored[key]

    def walk(walker: int, gamma: float, at: int) -> None:
        """Along the ordered rho grid from ``at`` towards the better neighbour while the error falls."""
        sides = [score(walker, gamma, DECAYS[k]) if 0 <= k < len(DECAYS) else np.inf for k in (at - 1, at + 1)]
        step = -1 if sides[0] < sides[1] else 1
        current = score(walker, gamma, DECAYS[at])
        while 0 <= at + step < len(DECAYS) and score(walker, gamma, DECAYS[at + step]) < current:
            at += step
            current = score(walker, gamma, DECAYS[at])

    # a walk along the ordered rho grid for each gamma (from the middle), with the first candidate design (with
    # the next one if that could not be scored anywhere: every pair's removal leaves its terms unidentified). The
    # first model scored gets a walk over the noises (from the smallest); the walk then holds the noise at the best
    # one's (coordinate descent: one Cholesky factorisation a model), then the noise is searched at the best
    # (gamma, rho), and where it moved the walks go once more from there at the new noise
    walker = -1
    for walker in range(len(candidates)):
        for gamma in powers:
            walk(walker, gamma, len(DECAYS) // 2)
        if np.isfinite(best.score):
            break
    if candidates and np.isfinite(best.score):
        before = noise_at
        consider(*candidates[walker], best.gamma, best.rho, "near")
        if noise_at != before:
            for gamma in powers:
                walk(walker, gamma, DECAYS.index(best.rho))
            consider(*candidates[walker], best.gamma, best.rho, "near")
    first = best.terms
    base = sets[walker][1] if candidates else []
    for k in range(walker + 1, len(candidates)):  # the other designs at the best (gamma, rho), noises near the best
        if identified[k]:
            consider(*candidates[k], best.gamma, best.rho, "near")
    empty = [k for k, (_, terms) in enumerate(sets) if not terms and k != walker]
    if empty and np.isfinite(best.score):  # no fixed terms: a walk of its own over rho, then its noise
        k, start = empty[0], DECAYS.index(best.rho)
        for gamma in powers:
            walk(k, gamma, start)
        own = {key: value for key, value in scored.items() if key[0] == k and key[3] is not None}
        if own:
            consider(*candidates[k], *min(own, key=own.get)[1:3], "near")
    wider = [k for k, (_, terms) in enumerate(sets) if _extends(base, terms)] if extra_weights else []
    if wider and np.isfinite(best.score):  # the largest design's extra terms with finite prior variances
        widest = max(wider, key=lambda k: len(sets[k][1]))
        key, terms = sets[widest]
        fixed = set(base)
        at = [t for t, T in enumerate(terms) if T not in fixed]
        v = _shares(extra_weights, [terms[t] for t in at])
        gamma, rho = best.gamma, best.rho
        scaled_K, at_zero = kernel(gamma, rho)
        X0 = candidates[walker][1]
        R = root_w[:, None] * designs[widest][:, at]
        scaled_extra = (R * (at_zero * v)) @ R.T
        noise = best.noise  # the best noise so far (one factorisation per tau)
        work = spare.pop() if spare else np.empty_like(scaled_K, order="F")
        # tau = 0: the first design at this model (its inverse kept: the best (gamma, rho)'s)
        previous = at_noise(X0, gamma, rho, int(np.argmin(np.abs(np.log(NOISES / noise)))))
        for tau in EXTRA_TAUS:  # up the tau grid while the score falls
            np.multiply(scaled_extra, tau, out=work)
            work += scaled_K  # scaled_K + tau * scaled_extra, in a reused array
            score_tau = _loo_inverse(_inverse_at(work, noise * at_zero, work), X0, ys, root_w)
            if score_tau < best.score:
                best = Choice(key, gamma, rho, float(noise), float(score_tau), len(S), float(tau))
            if not score_tau < previous:
                break
            previous = score_tau
    best.base = first
    return best


def _shares(extra_weights, terms: list) -> np.ndarray:
    """``extra_weights.get(T, 0.0)`` for each term (a :class:`TermShares` all at once)."""
    many = getattr(extra_weights, "get_many", None)
    if many is not None:
        return many(terms)
    return np.array([extra_weights.get(T, 0.0) for T in terms])


def _extends(base: list, terms: list) -> bool:
    """Whether ``terms`` holds every term of ``base`` and more."""
    return len(terms) > len(base) and set(base) <= set(terms)


@dataclass
class Fit:
    """A universal-kriging fit: the fixed terms' ``beta``, the pairs' ``alpha``, the factor of
    ``A = K + noise``, the design ``X``, ``(X' A^-1 X)^-1`` and the process variance estimate ``scale``."""

    beta: np.ndarray
    alpha: np.ndarray
    factor: tuple
    X: np.ndarray
    gram_inverse: np.ndarray
    scale: float
    extra_X: np.ndarray | None = None  # the design of the terms with finite prior variances (after X's in beta)
    extra_var: np.ndarray | None = None  # their prior variances (in the kernel's units)


def fit(S: np.ndarray, y: np.ndarray, X: np.ndarray, rho, noise: float, parity: str, *,
        weights: np.ndarray | None = None, extra: tuple | None = None) -> Fit:
    """The universal-kriging fit of ``y`` on the pairs ``S`` (one Cholesky factorisation). ``extra``: ``(design,
    prior variances)`` of terms with finite prior variances, added to the kernel; their posterior means follow
    ``beta``'s fixed terms."""
    import scipy.linalg

    rho = np.broadcast_to(np.asarray(rho, dtype=float), (S.shape[1],))
    A = walsh_kernel(S, S, rho, parity)
    if extra is not None and extra[0].shape[1]:  # X_e diag(var) X_e', the lower triangle (all the factorisation reads)
        A += scipy.linalg.blas.dsyrk(1.0, np.asfortranarray(extra[0] * np.sqrt(extra[1])), lower=1)
    A[np.diag_indices_from(A)] += noise * kernel_at_zero(rho, parity) / (1.0 if weights is None else weights)
    factor = scipy.linalg.cho_factor(A, lower=True, check_finite=False)
    a_y = scipy.linalg.cho_solve(factor, y, check_finite=False)
    if X.shape[1]:
        W = scipy.linalg.cho_solve(factor, X, check_finite=False)
        gram_inverse = np.linalg.pinv(X.T @ W, hermitian=True)  # pseudo-inverse: terms the sample cannot separate
        beta = gram_inverse @ (W.T @ y)
        alpha = a_y - W @ beta
    else:
        gram_inverse, beta, alpha = np.zeros((0, 0)), np.zeros(0), a_y
    scale = float(y @ alpha) / max(len(y) - X.shape[1], 1)  # process variance (REML-type estimate)
    if extra is None:
        return Fit(beta, alpha, factor, X, gram_inverse, scale)
    beta = np.concatenate([beta, extra[1] * (extra[0].T @ alpha)])
    return Fit(beta, alpha, factor, X, gram_inverse, scale, extra[0], np.asarray(extra[1], dtype=float))


def readout(fitted: Fit, membership: np.ndarray, G: np.ndarray, prior: np.ndarray | None):
    """Values ``membership' beta + G' alpha`` of a linear index of the posterior mean (``membership``: the
    index's weights on the fixed terms, ``(terms, outputs)``; ``G``: on the kernel sections ``k(., S_u)``,
    ``(units, outputs)``) and, with its prior variances ``prior``, its posterior standard deviations (None
    without)."""
    import scipy.linalg

    values = membership.T @ fitted.beta + G.T @ fitted.alpha
    if prior is None:
        return values, None
    if fitted.extra_X is not None:  # terms with finite prior variances: part of the process
        p = fitted.X.shape[1]
        extra = fitted.extra_var[:, None] * membership[p:]
        G = G + fitted.extra_X @ extra
        prior = prior + np.sum(extra * membership[p:], axis=0)
        membership = membership[:p]
    lower = fitted.factor[0]  # A = L L': G' A^-1 G and X' A^-1 G from one triangular solve with G
    half = scipy.linalg.solve_triangular(lower, G, lower=True, check_finite=False)
    var = prior - np.sum(half * half, axis=0)
    if fitted.X.shape[1]:
        X_half = scipy.linalg.solve_triangular(lower, fitted.X, lower=True, check_finite=False)
        R = membership - X_half.T @ half  # (terms, outputs)
        var = var + np.sum(R * (fitted.gram_inverse @ R), axis=0)
    return values, np.sqrt(np.maximum(var, 0.0) * max(fitted.scale, 0.0))


@dataclass
class Part:
    """One fitted part of the game (``parity`` odd or even) on the pairs ``S``: its fixed ``terms``, the players'
    ``decays``, the chosen model and the fit."""

    parity: str
    S: np.ndarray
    terms: list
    decays: np.ndarray
    choice: Choice
    fitted: Fit

    def info(self) -> dict:
        """What ``info`` records of the part."""
        c = self.choice
        return {"decay": c.rho, "relevance_power": c.gamma, "noise": c.noise, "loo": c.score, "extra_prior": c.tau,
                "n_terms": len(self.terms), "n_interaction_terms": sum(len(T) > 1 for T in self.terms),
                "selection_units": c.units}


def fit_part(S: np.ndarray, y: np.ndarray, w: np.ndarray, parity: str, term_sets, terms_for,
             relevance: np.ndarray | None, rng: np.random.Generator, extra_weights: dict | None = None) -> Part:
    """Choose the model (:func:`select`; ``term_sets`` as there, ``terms_for(key)`` the fixed terms of the chosen
    key on the whole sample) and fit it on every pair."""
    n = S.shape[1]
    choice = select(S, y, w, term_sets, relevance, parity, rng, extra_weights)
    decays = player_decays(choice.rho, choice.gamma, relevance, n)
    terms, fitted = fit_choice(S, y, w, choice, terms_for, decays, parity, extra_weights)
    return Part(parity, S, terms, decays, choice, fitted)


def fit_choice(S: np.ndarray, y: np.ndarray, w: np.ndarray, choice: Choice, terms_for, decays: np.ndarray,
               parity: str, extra_weights: dict | None) -> tuple[list, Fit]:
    """The chosen model fitted on the pairs ``S``: its terms (flat-prior ones first, then those with finite prior
    variances when ``choice.tau`` is set, whose means follow in ``beta``) and the fit."""
    terms = terms_for(choice.terms)
    if choice.tau is None:
        return terms, fit(S, y, design(S, terms), decays, choice.noise, parity, weights=w)
    base = terms_for(choice.base)
    fixed = set(base)
    extra = [T for T in terms if T not in fixed]
    variances = choice.tau * kernel_at_zero(decays, parity) * np.array([extra_weights.get(T, 0.0) for T in extra])
    return base + extra, fit(S, y, design(S, base), decays, choice.noise, parity, weights=w,
                             extra=(design(S, extra), variances))
