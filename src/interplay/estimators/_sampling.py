"""Shared pieces of the sampling estimators: budgets, permutation prefixes, the KernelSHAP sample and solve.

Everything is built as arrays and sent to the game in one call per estimator (the game splits it by its own
``batch_size``), so results never depend on how the game batches its calls.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np

from .._bits import masks_of_size
from .._validation import check_int
from ..games import Game, _packed_keys, unique_keys
from ..removal._compiled import gram_kernel


def default_budget(n: int) -> int:
    """Budget used when ``budget=None``: ``2048 + 2 n`` evaluations (shap's ``nsamples="auto"``)."""
    return 2048 + 2 * n


# Most coalition cells (budget x players) a sampler builds: 2**30 booleans, about 1 GiB, plus the float work.
MAX_CELLS = 2**30


def resolve_budget(budget: int | None, n: int, minimum: int, method: str, *, capped: bool = True) -> int:
    """The budget to use: ``budget`` (or the default), checked against the method's ``minimum`` and refused at
    once when its coalitions alone would not fit in memory (``budget * n > MAX_CELLS``). A sampler that stops at
    ``2**n`` coalitions (``capped``) is only refused when ``2**n`` itself is too large; one whose arrays grow
    with the budget (permutations, MSR draws) is refused on the budget."""
    budget = default_budget(n) if budget is None else check_int(budget, "budget", minimum=1)
    if budget < minimum:
        raise ValueError(
            f"budget: method={method!r} needs at least {minimum} coalition evaluations for {n} players, got {budget}"
        )
    useful = min(budget, 2**n) if capped and n < 63 else budget
    if useful * n > MAX_CELLS:
        raise ValueError(
            f"budget: {budget:,} coalitions of {n} players would need about {useful * n / 2**30:.3g} GiB for the "
            f"coalitions alone; at most {MAX_CELLS // n:,} for {n} players (sample in several calls and average)")
    return budget


def std_errors_of_mean(samples: np.ndarray) -> np.ndarray | None:
    """Standard error of the mean over the first axis, from centred data (``None`` with fewer than two samples)."""
    if len(samples) < 2:
        return None
    return samples.std(axis=0, ddof=1) / np.sqrt(len(samples))


class RunningMoments:
    """Mean and centred sum of squares over chunks of samples (first axis), merged exactly.

    Each chunk is centred on its own mean and merged with the pairwise update of Chan, Golub & LeVeque (1979),
    so the variance does not cancel when the mean is large against the spread (``sum x**2 - k mean**2`` does).
    """

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.count = 0
        self.mean = np.zeros(shape)
        self.m2 = np.zeros(shape)

    def add(self, chunk: np.ndarray) -> None:
        """Merge the samples ``chunk[0], chunk[1], ...``."""
        k = len(chunk)
        if k == 0:
            return
        mean = chunk.mean(axis=0)
        centred = chunk - mean
        m2 = np.einsum("p...,p...->...", centred, centred)
        total = self.count + k
        delta = mean - self.mean
        self.mean = self.mean + delta * (k / total)
        self.m2 = self.m2 + m2 + delta**2 * (self.count * k / total)
        self.count = total

    def std_errors(self) -> np.ndarray | None:
        """Standard error of the mean (``None`` with fewer than two samples)."""
        if self.count < 2:
            return None
        return np.sqrt(self.m2 / (self.count - 1) / self.count)


# ---------------------------------------------------------------------------------------------- permutations
def permutation_cost(n_permutations: int, n: int) -> int:
    """Evaluations of ``n_permutations`` permutations: ``n - 1`` proper prefixes each, plus empty and full once."""
    return 2 + n_permutations * (n - 1) if n > 1 else 2


def draw_permutations(n_permutations: int, n: int, rng: np.random.Generator, *, antithetic: bool) -> np.ndarray:
    """``(n_permutations, n)`` random permutations; with ``antithetic`` rows ``2k+1`` reverse rows ``2k``."""
    if antithetic:
        half = np.argsort(rng.random((n_permutations // 2, n)), axis=1)
        out = np.empty((2 * len(half), n), dtype=np.int64)
        out[0::2] = half
        out[1::2] = half[:, ::-1]
        return out
    return np.argsort(rng.random((n_permutations, n)), axis=1)


@dataclass(frozen=True)
class PermutationSample:
    """Marginal contributions along permutations.

    ``positions[p, i]`` is the position of player ``i`` in permutation ``p``; ``deltas[p, i]`` is player ``i``'s
    marginal contribution ``v(Pre_i + i) - v(Pre_i)`` there; ``empty``/``full`` are ``v(empty)``/``v(N)``.
    """

    positions: np.ndarray
    deltas: np.ndarray
    empty: float
    full: float
    n_evaluations: int


def evaluate_permutations(game: Game, permutations: np.ndarray) -> PermutationSample:
    """Evaluate every prefix of every permutation in one game call (cost :func:`permutation_cost`)."""
    n_perm, n = permutations.shape
    rows = np.arange(n_perm)[:, None]
    positions = np.empty_like(permutations)
    positions[rows, permutations] = np.arange(n)[None, :]
    lengths = np.arange(1, n)
    prefixes = positions[:, None, :] < lengths[None, :, None]  # (P, n-1, n): prefix of length k has pos < k
    ends = np.zeros((2, n), dtype=bool)
    ends[1] = True
    values = game(np.concatenate([ends, prefixes.reshape(-1, n)]))
    empty, full = values[0], values[1]
    chain = np.empty((n_perm, n + 1))
    chain[:, 0], chain[:, n] = empty, full
    chain[:, 1:n] = values[2:].reshape(n_perm, n - 1)
    steps = chain[:, 1:] - chain[:, :-1]  # steps[p, k]: contribution of the player at position k
    deltas = steps[rows, positions]
    return PermutationSample(positions, deltas, float(empty), float(full), permutation_cost(n_perm, n))


# ---------------------------------------------------------------------------------------------- KernelSHAP
def bivariate_targets(coalitions: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Targets and totals of Algorithm 2 (Bivariate Shapley paper) for ``values = [v(empty), v(N), v(rows)...]``:
    column 0 is ``v - v(empty)`` (total ``v(N) - v(empty)``), column ``1 + i`` is ``u_i(S) = v(S) 1{i in S}``
    (Eq. 5; ``u_i(empty) = 0``, total ``v(N)``)."""
    empty, full, y = values[0], values[1], values[2:]
    n = coalitions.shape[1]
    targets = np.empty((len(coalitions), n + 1))
    targets[:, 0] = y - empty
    # into the preallocated columns: a float column times a bool array into a new array, then stacked, was 10x
    # slower (1.6 against 0.17 ms for 2,048 coalitions of 100 players)
    np.multiply(coalitions, y[:, None], out=targets[:, 1:])
    return targets, np.concatenate([[full - empty], np.full(n, full)])


def split_bivariate(phi: np.ndarray, std: np.ndarray | None):
    """``(univariate, its errors, adjacency, its errors)`` from the ``n + 1`` columns of a solve on
    :func:`bivariate_targets`: row ``i`` of the adjacency is the Shapley values of ``u_i``; the errors' diagonal
    is 0 (the diagonal has no meaning for the graph)."""
    std_adj = None
    if std is not None and std.shape[1] > 1:
        std_adj = std[:, 1:].T.copy()
        np.fill_diagonal(std_adj, 0.0)
    return phi[:, 0], None if std is None else std[:, 0], phi[:, 1:].T.copy(), std_adj


def kernel_size_masses(n: int) -> np.ndarray:
    """Shapley-kernel mass of each coalition size ``s = 1..n-1``: ``(n-1)/(s(n-s))`` normalised to sum 1.

    The kernel of one coalition is ``mu(S) = (n-1) / (C(n,|S|) |S| (n-|S|))`` (lecture, Charnes et al.); a size
    carries ``C(n, s)`` coalitions, hence the mass ``(n-1)/(s(n-s))``.
    """
    s = np.arange(1, n)
    mass = (n - 1) / (s * (n - s))
    return mass / mass.sum()


@dataclass(frozen=True)
class KernelSample:
    """Coalitions (sizes 1..n-1) with their regression weights, and how the sampled part was drawn.

    Rows ``[:n_enumerated]`` are complete size groups (weight = kernel mass / coalitions); the rest are
    ``units`` (a coalition, or a coalition and its complement when paired) drawn i.i.d. from the kernel
    distribution of the sizes not enumerated, deduplicated: ``unit_of_row`` says which unit a sampled row
    belongs to and ``counts[u]`` how often unit ``u`` was drawn among ``n_draws`` draws; ``sampled_mass`` is the
    kernel mass of the sampled sizes and ``width`` the coalitions per unit.

    A stratified sample (:mod:`interplay.estimators._leverage`) also has ``strata`` (the stratum of each unit,
    drawn without replacement within it) and ``stratum_sizes`` (units each stratum holds); its standard errors
    are then the stratified ones.
    """

    coalitions: np.ndarray
    weights: np.ndarray
    n_enumerated: int
    unit_of_row: np.ndarray
    counts: np.ndarray
    n_draws: int
    sampled_mass: float
    width: int
    enumerated_sizes: tuple[int, ...]
    strata: np.ndarray | None = None
    stratum_sizes: np.ndarray | None = None


def _groups(n: int) -> list[tuple[int, ...]]:
    """Size groups ``{g, n-g}`` for ``g = 1..floor(n/2)`` (one size when ``g = n - g``)."""
    return [tuple(sorted({g, n - g})) for g in range(1, n // 2 + 1)]



SUBSET_BLOCK_CELLS = 2**16  # random keys per block of rows (256 KiB of 32-bit keys, sorted in cache)


def _random_subsets(sizes: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random subset of each given size: the ``size`` players with the smallest random keys.

    Keys are independent uniform 32-bit integers, drawn and sorted in blocks of about :data:`SUBSET_BLOCK_CELLS`
    rows x players (sorting 32-bit integers in cache is about 5x faster than float64 keys at 300 players). A row
    whose ``size``-th smallest key ties with another key (probability about ``n / 2**32``) selects too many
    players and is drawn again, until no row does: each subset is exactly uniform, since the keys are
    exchangeable and the redraw condition is symmetric in the players. Cost ``O(rows n log n)``.
    """
    out = np.empty((len(sizes), n), dtype=bool)
    tied = np.zeros(len(sizes), dtype=bool)
    step = max(2, SUBSET_BLOCK_CELLS // max(n, 1)) // 2 * 2  # even: whole raw words per block, as one draw
    for start in range(0, len(sizes), step):
        stop = min(start + step, len(sizes))
        out[start:stop], tied[start:stop] = _smallest_keys(_uint32_keys(rng, stop - start, n), sizes[start:stop])
    tied = np.flatnonzero(tied)
    while len(tied):
        out[tied], again = _smallest_keys(_uint32_keys(rng, len(tied), n), sizes[tied])
        tied = tied[again]
    return out


_RAW_64 = (np.random.PCG64, np.random.PCG64DXSM, np.random.Philox, np.random.SFC64)  # 64-bit raw words


def _uint32_keys(rng: np.random.Generator, rows: int, n: int) -> np.ndarray:
    """``(rows, n)`` independent uniform 32-bit keys. From a bit generator whose raw words have 64 random bits
    (numpy's default PCG64, PCG64DXSM, Philox, SFC64): the halves of its raw words, low half first (on a
    little-endian machine the values of ``rng.integers(0, 2**32, dtype=np.uint32)`` for an even count when no
    half-word is buffered; 1.6x faster). Any other (MT19937's raw words have 32 bits): ``rng.integers``."""
    if type(rng.bit_generator) not in _RAW_64:
        return rng.integers(0, 2**32, size=(rows, n), dtype=np.uint32)
    cells = rows * n
    raw = rng.bit_generator.random_raw((cells + 1) // 2)
    return raw.view(np.uint32)[:cells].reshape(rows, n)


def _smallest_keys(keys: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the players whose key is at most the row's ``size``-th smallest key, and whether that key is
    tied with a larger-ranked one (then the row holds more than ``size`` players: the ``size + 1``-th smallest
    key equals it; read from the sorted keys, not by counting the row)."""
    ranked = np.sort(keys, axis=1)
    kth = np.take_along_axis(ranked, (sizes - 1)[:, None], axis=1)
    after = np.take_along_axis(ranked, np.minimum(sizes, keys.shape[1] - 1)[:, None], axis=1)
    return keys <= kth, ((after == kth) & (sizes < keys.shape[1])[:, None]).ravel()


def _keys(masks: np.ndarray) -> np.ndarray:
    packed = np.packbits(masks, axis=1, bitorder="little")
    return np.ascontiguousarray(packed).view(f"V{packed.shape[1]}").ravel()


def kernel_sample(n: int, n_rows: int, rng: np.random.Generator, *, paired: bool = True) -> KernelSample:
    """At most ``n_rows`` coalitions of sizes ``1..n-1`` for KernelSHAP (shap KernelExplainer's scheme).

    Size groups ``{g, n-g}`` are enumerated completely, smallest ``g`` first, while the rows left afford the
    group's expected share (``rows_left * mass_g / mass_left >= count_g``), and all at once when every remaining
    coalition fits. The rest are drawn from the Shapley-kernel distribution restricted to the remaining groups,
    each draw paired with its complement when ``paired`` (Covert & Lee 2021), until the rows are used up
    (distinct draws only; repeats raise the unit's count, i.e. its weight).
    """
    masses = kernel_size_masses(n)
    groups = _groups(n)
    small = np.arange(1, len(groups) + 1)  # group g = {g, n - g}: its two sizes' masses (one when g = n - g)
    group_mass = masses[small - 1] + np.where(2 * small == n, 0.0, masses[n - small - 1])
    # coalitions per group, capped above any row count (only compared with rows; C(n, s) overflows a float)
    cap = 2 * n_rows + 2
    group_count = np.array(_capped_group_counts(n, groups, cap), dtype=float)
    rows_left, mass_left = n_rows, 1.0
    enumerated: list[np.ndarray] = []
    weights: list[np.ndarray] = []
    done = 0
    for k, g in enumerate(groups):
        fits_all = group_count[k:].sum() <= rows_left
        if not (fits_all or rows_left * group_mass[k] / mass_left >= group_count[k] * (1 - 1e-9)):
            break
        for s in g:
            block = masks_of_size(n, s)
            enumerated.append(block)
            weights.append(np.full(len(block), masses[s - 1] / comb(n, s)))
        rows_left -= int(group_count[k])
        mass_left -= group_mass[k]
        done = k + 1
    enumerated_sizes = tuple(s for g in groups[:done] for s in g)
    width = 2 if paired else 1
    n_units = rows_left // width if done < len(groups) else 0
    units, counts, n_draws = _draw_units(n, groups[done:], group_mass[done:], n_units, rng, paired=paired,
                                         group_units=group_count[done:] / width)
    sampled_mass = float(group_mass[done:].sum()) if n_units else 0.0
    if len(units):
        rows = [units] if width == 1 else [units, ~units]
        unit_rows = np.concatenate(rows)
        unit_of_row = np.tile(np.arange(len(units)), width)
        unit_weights = counts[unit_of_row] * sampled_mass / (width * n_draws)
    else:
        unit_rows, unit_of_row, unit_weights = np.zeros((0, n), dtype=bool), np.zeros(0, np.int64), np.zeros(0)
    n_enum = sum(len(b) for b in enumerated)
    coalitions = np.concatenate(enumerated + [unit_rows]) if enumerated else unit_rows
    all_weights = np.concatenate(weights + [unit_weights]) if weights else unit_weights
    return KernelSample(coalitions, all_weights, n_enum, unit_of_row, counts, n_draws, sampled_mass, width,
                        enumerated_sizes)


def _capped_group_counts(n: int, groups: list[tuple[int, ...]], cap: int) -> list[int]:
    """``min(sum_{s in g} C(n, s), cap)`` per group, without the huge binomials: ``C(n, g)`` grows with ``g``
    up to ``n / 2``, so once it passes ``cap`` every later group is capped (``O(groups)`` small integers)."""
    out, count = [], 1
    for g, sizes in enumerate(groups, start=1):
        count = count * (n - g + 1) // g  # C(n, g), exact
        if count >= cap:
            return out + [cap] * (len(groups) - len(out))
        out.append(min(count * len(sizes), cap))  # C(n, n - g) = C(n, g)
    return out


def _draw_units(n, groups, group_mass, n_units, rng, *, paired, group_units=None):
    """Draw units until ``n_units`` distinct ones (or a cap of draws); return them, their counts and draws.

    Draws come in rounds; the first draws enough for ``n_units`` distinct units with a margin when the groups'
    unit counts ``group_units`` (capped counts are fine) say how many repeats to expect, else 25% more; draws
    past the ``n_units``-th distinct unit are dropped (the sample is the same as from one draw at a time).
    """
    if n_units == 0 or not groups:
        return np.zeros((0, n), dtype=bool), np.zeros(0), 0
    probs = group_mass / group_mass.sum()
    cap = 50 * n_units + 1000
    draws = np.zeros((0, n), dtype=bool)
    smallest = np.array([g[0] for g in groups])
    first_round = _first_round(n_units, probs, group_units)
    while len(draws) < cap:
        k = first_round if len(draws) == 0 else max(n_units + n_units // 4 + 16, 64)
        k = min(cap - len(draws), k)
        group = rng.choice(len(groups), size=k, p=probs)
        pick = rng.random(k) < 0.5
        sizes = smallest[group]
        sizes = np.where(pick, n - sizes, sizes)
        masks = _random_subsets(sizes, n, rng)
        if paired:  # canonical member of the pair {S, N \ S}: the one holding player 0 (flip the others)
            np.not_equal(masks, ~masks[:, :1], out=masks)
        draws = np.concatenate([draws, masks])
        _, first, inverse = unique_keys(_packed_keys(draws))  # any order of the keys: units by first draw below
        if len(first) >= n_units:
            cut = np.sort(first)[n_units - 1] + 1  # the draw that brings the n_units-th distinct unit
            draws, inverse = draws[:cut], inverse.ravel()[:cut]
            kept = first < cut  # units first drawn before the cut (the same unique keys, sorted)
            first, inverse = first[kept], (np.cumsum(kept) - 1)[inverse]
            break
    order = np.argsort(first)  # units in order of first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    counts = np.bincount(rank[inverse.ravel()], minlength=len(order)).astype(float)
    return draws[first[order]], counts, len(draws)


def _first_round(n_units: int, probs: np.ndarray, group_units: np.ndarray | None) -> int:
    """Draws for the first round of :func:`_draw_units`: ``k`` with ``k - E[repeats](k) >= n_units``, plus twice
    the repeats' standard deviation (about their square root) and 8, where ``E[repeats](k) = k - sum_g M_g (1 -
    (1 - 1/M_g)^(k p_g))`` for ``M_g`` units of group ``g`` drawn with probability ``p_g`` (a few fixed-point
    steps). When the groups hold fewer than 1.5 ``n_units`` units (repeats dominate) or nothing is known:
    ``1.25 n_units + 16`` (at least 64), as every later round."""
    fallback = max(n_units + n_units // 4 + 16, 64)
    if group_units is None or group_units.sum() < 1.5 * n_units:
        return fallback
    many = group_units > 1  # a group of one unit gives 1 distinct unit, drawn or not (as the formula's limit)
    rate = probs[many] * np.log1p(-1.0 / group_units[many])  # p_g log(1 - 1/M_g)
    units_many, ones = group_units[many], float(np.count_nonzero(~many))

    def repeats(k: float) -> float:
        return max(k - float(np.dot(units_many, -np.expm1(k * rate))) - ones, 0.0)

    k = float(n_units)
    for _ in range(6):
        k = n_units + repeats(k)
    return min(int(np.ceil(k + 2.0 * np.sqrt(repeats(k)))) + 8, fallback)


def gram_solver(gram: np.ndarray):
    """``b -> gram^+ b`` for a symmetric positive semi-definite ``gram``.

    Cholesky (``O(d^3)``; the inverse formed from the factor by LAPACK's ``potri``, about ``d^3 / 3`` more, so
    that every later solve is one matrix product) when the pivots show the matrix is clearly positive definite
    (smallest pivot above ``1e-10`` times the largest); otherwise the pseudo-inverse, i.e. the minimum-norm
    solution when the sample leaves the design rank-deficient. Only the upper triangle of ``gram`` is read on
    the Cholesky path. The returned function has the inverse as its ``inverse`` attribute.
    """
    inverse = symmetric_inverse(gram)
    solve = lambda b: inverse @ b  # noqa: E731
    solve.inverse = inverse
    return solve


def symmetric_inverse(gram: np.ndarray) -> np.ndarray:
    """``gram^+`` of a symmetric positive semi-definite matrix (see :func:`gram_solver`): Cholesky and ``potri``
    when clearly positive definite, else the pseudo-inverse. Cost ``O(d^3)``."""
    gram = np.asarray(gram, dtype=float)
    # one LAPACK call each: the factor (upper triangle), then the inverse from it; products with the inverse
    # beat triangular solves on many right-hand sides (thread start-up of the solves on small systems)
    factor = _clear_cholesky(gram)
    inverse = None if factor is None else _inverse_from_factor(factor, overwrite=True)
    return _pseudo_inverse(gram) if inverse is None else inverse


def _clear_cholesky(gram: np.ndarray) -> np.ndarray | None:
    """The upper Cholesky factor of ``gram`` (LAPACK ``potrf``; only the upper triangle is read) when its pivots
    show the matrix clearly positive definite (smallest above ``1e-10`` times the largest), else None. Its strict
    lower triangle is zeroed (``clean``), which ``potri`` leaves alone, so one sum makes the inverse symmetric
    (0.8 ms less than masking both triangles at 299 columns)."""
    import scipy.linalg  # imported on first solve, not with interplay

    factor, info = scipy.linalg.lapack.dpotrf(gram, lower=0, clean=1)
    if info == 0:
        pivots = np.diag(factor) ** 2
        if len(pivots) and pivots.min() > 1e-10 * pivots.max():
            return factor
    return None


def _pseudo_inverse(gram: np.ndarray) -> np.ndarray:
    """The pseudo-inverse (the minimum-norm solutions) of a symmetric matrix given by its upper triangle."""
    full = np.triu(gram) + np.triu(gram, 1).T  # symmetric, whichever triangle the caller filled
    return np.linalg.pinv(full, hermitian=True) if len(full) else full


class GramFactor:
    """``gram^+`` applied to right-hand sides, for a symmetric positive semi-definite ``gram`` (upper triangle
    read): the Cholesky factor (LAPACK ``potrf``) with triangular solves (``potrs``) while few right-hand sides
    have been asked for, and the inverse (:func:`symmetric_inverse`'s ``potri``, ``d^3 / 3`` more) once they
    would add up to more than ``d``: a product with the inverse is about 1.4x faster per right-hand side than two
    triangular solves here, so from about ``d`` of them the inverse pays for itself. The pseudo-inverse (and no
    factor) when the pivots do not show the matrix clearly positive definite, as :func:`symmetric_inverse`.

    KernelSHAP's Shapley values with sketched standard errors need ``1 + 1 + 100`` right-hand sides (the solution,
    the eliminated player's row, the sketch's blocks): at 299 unknowns the inverse cost 0.67 ms more than the
    triangular solves save (measured: ``potri`` 0.67 ms, 100 right-hand sides by ``potrs`` 0.42 ms against 0.30
    ms by the inverse), about 1.5% of an explanation of a cheap 300-feature model. The results are the same
    but for rounding (a few units in the last place)."""

    def __init__(self, gram: np.ndarray) -> None:
        gram = np.asarray(gram, dtype=float)
        self.d, self._inverse, self._solved, self._row_sums = len(gram), None, 0, None
        self.factor = _clear_cholesky(gram)
        if self.factor is None:
            self._inverse = _pseudo_inverse(gram)

    @property
    def inverse(self) -> np.ndarray:
        """``gram^+`` (formed from the factor on first use)."""
        if self._inverse is None:
            self._inverse = _inverse_from_factor(self.factor, overwrite=True)
            if self._inverse is None:  # (potri failing after a clear factorisation: not seen)
                raise np.linalg.LinAlgError("potri failed on a clearly positive definite Gram matrix")
            self.factor = None
        return self._inverse

    @classmethod
    def of_inverse(cls, inverse: np.ndarray) -> "GramFactor":
        """A solver from ``gram^+`` itself (products only)."""
        self = cls.__new__(cls)
        self.d, self.factor, self._inverse, self._solved, self._row_sums = len(inverse), None, inverse, 0, None
        return self

    def solve(self, rhs: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """``gram^+ rhs`` for a ``(d, k)`` array ``rhs`` (into ``out`` when given)."""
        import scipy.linalg

        k = rhs.shape[1]
        if self._inverse is None and self._solved + k <= self.d:
            self._solved += k
            solution, info = scipy.linalg.lapack.dpotrs(self.factor, rhs, lower=0)
            if info == 0:
                if out is None:
                    return solution
                out[...] = solution
                return out
        return np.matmul(self.inverse, rhs, out=out)

    def row_sums(self) -> np.ndarray:
        """``gram^+ 1`` (the sums of the inverse's rows; kept)."""
        if self._row_sums is None:
            self._row_sums = (self._inverse.sum(axis=0) if self._inverse is not None else
                              self.solve(np.ones((self.d, 1)))[:, 0])
        return self._row_sums


def _inverse_from_factor(factor: np.ndarray, *, overwrite: bool = False) -> np.ndarray | None:
    """The symmetric inverse from an upper Cholesky factor whose strict lower triangle is zero (``potri``); None
    where ``potri`` fails."""
    import scipy.linalg

    upper, info = scipy.linalg.lapack.dpotri(factor, lower=0, overwrite_c=int(overwrite))
    if info != 0:
        return None
    inverse = upper + upper.T
    inverse.flat[::len(inverse) + 1] = np.diagonal(upper)
    return inverse


def weighted_gram(design: np.ndarray, weights: np.ndarray, *, signs_only: bool = False,
                  membership: np.ndarray | None = None) -> np.ndarray:
    """``design' diag(weights) design`` for non-negative ``weights``, by symmetric rank-k updates (BLAS ``syrk``:
    half the work of a general product). Only the upper triangle is sure to be right (what
    :func:`symmetric_inverse` and :class:`GramFactor` read). Cost ``O(rows * d^2 / 2)``.

    ``signs_only``: the caller guarantees entries in ``{-1, 0, 1}`` (KernelSHAP's reduced design). With at most
    :data:`GRAM_WEIGHT_GROUPS` distinct weights (KernelSHAP: one per enumerated size pair and one per draw count)
    and fewer than ``2**24`` rows, the Gram matrix of every row at the most common weight comes from one
    single-precision product, exact (integer sums of at most ``2**24`` in magnitude, whatever the order of the
    additions), scaled in double precision; the rows of each other weight add the difference of the weights by a
    double ``syrk`` of those rows alone (few: the enumerated sizes, the units drawn more than once). About half
    the time of one double ``syrk`` over every row when the common weight holds most rows (1.2 against 2.3 ms at
    1,023 rows of 299 columns, 12 against 23 ms at 999 columns). The single-precision product is a general one
    (``sgemm``): OpenBLAS's ``ssyrk`` took longer for half the work here (0.97 against 0.88 ms at 1,023 rows of
    299 columns, 0.18 against 0.14 ms at 99).

    ``membership``: the coalitions (``rows x n`` booleans) whose reduced design ``x_u = z_u,<n - z_u,n`` is
    ``design``. Once numba is in use (:func:`interplay.removal._compiled.gram_kernel`) the every-row counts then
    come from their bits instead of the single-precision product, the same integers (25 against 162 us at 1,023
    rows of 99 columns, 120 against 960 us at 299 columns)."""
    import scipy.linalg

    if signs_only and 0 < len(design) < 2**24:
        values = np.unique(weights)
        if len(values) <= GRAM_WEIGHT_GROUPS:
            group = np.searchsorted(values, weights)  # (np.unique's inverse and counts: 3x the time)
            # every row at the most common weight, exactly (integer counts)
            main = int(np.argmax(np.bincount(group, minlength=len(values))))
            count_pairs = None if membership is None else gram_kernel()
            if count_pairs is not None:
                gram = np.empty((design.shape[1], design.shape[1]), order="F")
                count_pairs(np.ascontiguousarray(membership, dtype=bool).view(np.uint8), gram)
            else:
                signs = design.astype(np.float32)
                gram = np.matmul(signs.T, signs).astype(float).T  # symmetric: its transpose is Fortran-ordered
            gram *= values[main]
            for k in np.flatnonzero(np.arange(len(values)) != main):  # the other weights' rows: the difference
                gram = scipy.linalg.blas.dsyrk(values[k] - values[main], design[group == k].T, beta=1.0, c=gram,
                                               trans=0, lower=0, overwrite_c=1)
            return gram
    scaled = design * np.sqrt(weights)[:, None]
    return scipy.linalg.blas.dsyrk(1.0, scaled.T, trans=0, lower=0)


GRAM_WEIGHT_GROUPS = 8  # distinct weights up to which weighted_gram(signs_only=True) sums them in single precision


@dataclass(frozen=True)
class KernelSolution:
    """Solutions of the constrained weighted least squares for one or more targets (columns).

    ``phi[:, t]`` are the ``n`` attributions of target ``t``; ``std_errors[:, t]`` their standard errors
    (zero when every coalition was enumerated; ``None`` when at most ``n - 1`` distinct units were sampled: with
    no residual degrees of freedom the residuals vanish and a standard error would be meaningless).
    """

    phi: np.ndarray
    std_errors: np.ndarray | None
    sketched: bool = False  # the first target's errors from the sign sketch (kernel_solve)


def sketch_info(solution: KernelSolution) -> dict:
    """What ``info`` records about a solve's standard errors: ``{"std_errors_sketched": blocks}`` when the
    Shapley values' errors came from the sign sketch over that many blocks (:func:`sketched_squares`), else
    nothing."""
    return {"std_errors_sketched": SKETCH_GROUPS} if solution.sketched else {}


def kernel_solve(sample: KernelSample, targets: np.ndarray, totals: np.ndarray, *,
                 std_errors: bool | int = True, sketch: bool = True,
                 overwrite_targets: bool = False) -> KernelSolution:
    """Constrained WLS of the lecture (KernelSHAP): for each column ``t`` of ``targets``,

    ``min_phi sum_k w_k (y_k - z_k . phi)^2  s.t.  sum_i phi_i = total_t``,

    with ``y_k`` the target minus its empty-coalition value. The constraint is exact: ``phi_n`` is eliminated as
    ``total - sum_{i<n} phi_i`` and the remaining ``n-1`` unknowns solved with one factorisation of the weighted
    Gram matrix ``X'WX`` (Cholesky; pseudo-inverse if rank-deficient, see :func:`symmetric_inverse`), reused for
    every target (Bivariate Shapley paper, Alg. 2's reused projection) and for the standard errors.
    A sampled pair ``(S, N - S)`` has reduced design rows ``x`` and ``-x`` and equal weights, so the pair enters
    through the difference of its two targets (half the work).

    Standard errors (``std_errors=True``: every target; an int ``k``: the first ``k`` targets): the sandwich
    (delta-method) variance of the sampled part, with the drawn units (pairs) as i.i.d. draws:
    ``Var(phi) = (m/(w T))^2 [sum_u c_u s_u^2 - (sum_u c_u s_u)^2 / T]``, with
    ``s_u = (X'WX)^-1 sum_{k in u} x_k r_k`` the unit's projected residual, ``c_u`` its count, ``T`` the draws,
    ``w`` the coalitions per unit and ``m`` the sampled kernel mass (Covert & Lee 2021 use the same CLT),
    multiplied by the degrees-of-freedom factor ``sqrt(U / (U - (n - 1)))`` for ``U`` distinct sampled units and
    ``n - 1`` free unknowns (the HC1 correction of White's sandwich; without it 95% intervals covered about 0.83
    at ``n = 6`` with 8-11 sampled pairs, with it about 0.93). ``None`` when ``U <= n - 1``. Without enumerated
    sizes the unit weights are proportional to the counts, so the normal equations make ``sum_u c_u s_u`` zero
    and it is not computed. With many units of many players (:func:`use_sketch`: ``U >= 400`` and
    ``U (n - 1)^2 >= 3e6``) and ``sketch`` (the default) the sums over units are estimated by a sign sketch over
    100 blocks of units (:func:`sketched_squares`): unbiased for the exact sums (the variances; the standard
    errors, their square roots, about 0.25% low on average), the standard errors within about 7% of the exact ones
    (relative standard deviation), at ``O(U n + 100 n^2)`` per target instead of ``U n^2``; with more than
    :data:`SKETCH_MAX_TARGETS` targets only the first is sketched. The signs are fixed, so a sample always gives
    the same standard errors. ``sketch=False``: the exact sums (a caller that chooses between its targets by their
    standard errors, as ProxySHAP does, so the choice does not depend on the sketch's noise).

    Cost, for ``R`` rows (``H`` of them before the complements of sampled pairs) and ``T`` targets:
    ``H n^2 / 2`` for the Gram matrix (one ``syrk``), ``n^3`` for its inverse, ``H n T`` for the solutions;
    standard errors add ``U n^2`` (the projected design rows, shared by every target) and ``2 U n T``, or with
    the sketch ``O(U n + 100 n^2)`` per sketched target.

    ``overwrite_targets``: the caller's ``targets`` (float64, C-ordered) may be written over. With many targets
    (Bivariate Shapley's ``n + 1``) the arrays of ``rows x targets`` are megabytes, each fresh one page-faulted
    (about 2 us a page here): their copies made the matrix's solve about 3 ms slower at 100 players.
    """
    coalitions = sample.coalitions
    n = coalitions.shape[1]
    totals = np.asarray(totals, dtype=float).reshape(-1)
    targets = np.asarray(targets, dtype=float).reshape(len(coalitions), len(totals))
    if n == 1:
        return KernelSolution(totals[None, :].copy(), np.zeros((1, len(totals))))
    first, units = sample.n_enumerated, len(sample.counts)
    head = first + units  # rows before the complements of the sampled pairs (only these need a design row)
    last = coalitions[:, -1]
    signs = np.asarray(coalitions, dtype=bool).view(np.int8)  # x = z_{<n} - z_n exactly, in one small-integer pass
    design = np.subtract(signs[:head, :-1], signs[:head, -1:]).astype(float)
    # minus the total where player n is in (np.where on a broadcast mask: 12x slower)
    reduced = targets if overwrite_targets and targets.dtype == float and targets.flags.c_contiguous else \
        targets.copy()
    reduced[last] -= totals
    if sample.width == 2:
        # the pairs' differences, written over their first members' rows (no further use)
        unit_targets = np.subtract(reduced[first:head], reduced[head:], out=reduced[first:head])
        gram_weights = np.concatenate([sample.weights[:first], 2.0 * sample.weights[first:head]])
    else:
        unit_targets = reduced[first:]
        gram_weights = sample.weights
    stacked = unit_targets if first == 0 else np.concatenate([reduced[:first], unit_targets])
    rhs = design.T @ (sample.weights[:head, None] * stacked)
    inverse = GramFactor(weighted_gram(design, gram_weights, signs_only=True,  # one for every target
                                       membership=coalitions[:head]))
    beta = inverse.solve(rhs)
    phi = np.vstack([beta, totals[None, :] - beta.sum(axis=0, keepdims=True)])
    n_se = len(totals) if std_errors is True else int(std_errors)
    if n_se == 0:
        return KernelSolution(phi, None)
    if first == len(coalitions):
        return KernelSolution(phi, np.zeros((n, n_se)))
    if units <= n - 1:  # no residual degrees of freedom: the sampled units can be fitted exactly
        return KernelSolution(phi, None)
    x_units = design[first:head]
    unit_targets, beta = unit_targets[:, :n_se], beta[:, :n_se]
    # residual of the unit: r(S) for a single; r(S) - r(N - S) = t(S) - t(N - S) - 2 x beta for a pair
    unit_residuals = x_units @ beta  # in place from here: the same numbers, no fresh (units x targets) arrays
    unit_residuals *= sample.width
    np.subtract(unit_targets, unit_residuals, out=unit_residuals)
    dof = np.sqrt(units / (units - (n - 1)))  # residuals of a fit with n - 1 unknowns are too small

    def enumerated_scores(columns: slice) -> np.ndarray | None:  # X_e' W_e r_e of the enumerated rows (_exact_std)
        if first == 0 or sample.strata is not None:
            return None
        residuals = reduced[:first, columns] - design[:first] @ beta[:, columns]
        residuals *= sample.weights[:first, None]
        return residuals.T @ design[:first]

    if not (sketch and use_sketch(units, n)):
        return KernelSolution(phi, dof * _exact_std(sample, inverse, x_units, unit_residuals, first, head,
                                                    enumerated_scores(slice(None))))
    # the sandwich's sums of squares by a sign sketch, O(U n + n^2 G) per target instead of U n^2 for all: for a
    # few targets; of many (Bivariate Shapley's), the first (the Shapley values), the others exactly
    sketched = n_se if n_se <= SKETCH_MAX_TARGETS else 1
    std = _sketched_std(sample, inverse, x_units, unit_residuals[:, :sketched], first, head)
    if sketched < n_se:
        std = np.hstack([std, _exact_std(sample, inverse, x_units, unit_residuals[:, sketched:], first, head,
                                         enumerated_scores(slice(sketched, None)))])
    return KernelSolution(phi, dof * std, sketched=True)


def _exact_std(sample: KernelSample, inverse: np.ndarray, x_units: np.ndarray, unit_residuals: np.ndarray,
               first: int, head: int, enumerated_scores: np.ndarray | None = None) -> np.ndarray:
    """The standard errors of :func:`kernel_solve` (before the degrees-of-freedom factor) from every unit's
    projected design row: ``U n^2`` for the projections, shared by the targets, and ``2 U n`` per target.

    ``enumerated_scores``: ``X_e' W_e r_e`` of the enumerated rows, ``(targets, n - 1)``. With unit weights
    ``w_u = K c_u`` the normal equations ``X_e' W_e r_e + X_u' W_u r_u = 0`` give the units' sum
    ``sum_u c_u x_u r_u = -X_e' W_e r_e / K``, from the few enumerated rows instead of a product over every unit
    (Bivariate Shapley's 100 targets at 100 players: 8 instead of 20 million multiply-adds; the same numbers but
    for rounding)."""
    projected = _projected_units(inverse, x_units)  # (n, units): (X'WX)^+ x_u, and the eliminated phi_n
    if sample.strata is not None:
        return _stratified_std(sample, projected, unit_residuals, first, head)
    c = sample.counts[:, None]
    scale = sample.sampled_mass / (sample.width * sample.n_draws)  # K: w_u = K c_u for kernel_sample's units
    if first == 0:  # unit weights are proportional to the counts, so the normal equations X'W r = 0 make
        mean_part = 0.0  # sum_u c_u s_u vanish (up to rounding): one (n x units x targets) product saved
    elif enumerated_scores is not None and np.allclose(sample.weights[first:head], scale * c[:, 0], rtol=1e-12,
                                                       atol=0.0):
        mean_part = _projected_units(inverse, enumerated_scores) * (-1.0 / scale)
    else:
        mean_part = projected @ (c * unit_residuals)
    weighted = np.square(unit_residuals)
    weighted *= c
    square_part = np.square(projected, out=projected) @ weighted  # in place: no further use
    draws = sample.n_draws
    var = np.maximum(square_part - mean_part**2 / draws, 0.0) * draws / max(draws - 1, 1)
    return np.sqrt(var) * sample.sampled_mass / (sample.width * draws)


SKETCH_GROUPS = 100  # blocks of the sign sketch: standard errors within about 1/sqrt(2 G) = 7% of the exact ones
SKETCH_MIN_UNITS = 4 * SKETCH_GROUPS  # the sketch from this many sampled units (4x fewer projections or better)
SKETCH_MIN_WORK = 3_000_000  # and from this many multiply-adds of the exact sum (units (n-1)^2): below, numpy's
# fixed costs of the sketch's dozen small steps outweigh what it saves (measured at 30-300 players, 500-2,000 units)
SKETCH_MAX_TARGETS = 4  # more targets than this: only the first sketched (the others share exact projections)
SKETCH_SEED = 20251126  # the signs are fixed: the same sample gives the same standard errors


def use_sketch(units: int, n: int) -> bool:
    """Whether :func:`kernel_solve` estimates the sandwich's sums of squares by :func:`sketched_squares` (many
    units of many players) rather than projecting every unit."""
    return units >= SKETCH_MIN_UNITS and units * (n - 1) ** 2 >= SKETCH_MIN_WORK


_SIGNS = np.zeros(0)


def sketch_signs(units: int) -> np.ndarray:
    """The sketch's Rademacher signs for ``units`` units: the first ``units`` of one fixed sequence (independent
    of the data; drawn once, longer when needed; any prefix is the same whatever length was drawn). Read-only.
    Thread-safe: the cache is read once, and replaced only by a longer sequence."""
    global _SIGNS
    signs = _SIGNS
    if len(signs) < units:
        signs = np.where(np.random.default_rng(SKETCH_SEED).random(max(units, 2**14)) < 0.5, -1.0, 1.0)
        signs.flags.writeable = False
        if len(signs) > len(_SIGNS):  # another thread may have stored a longer one meanwhile: keep that
            _SIGNS = signs
    return signs[:units]


def sketched_squares(inverse: np.ndarray, x_units: np.ndarray, scale: np.ndarray, signs: np.ndarray,
                     centres: np.ndarray | None = None, centre_scale: np.ndarray | None = None,
                     centre_of: np.ndarray | None = None, groups: int | None = None) -> np.ndarray:
    """``sum_u (P v_u)_i^2`` for every row ``i`` of ``P = [(X'WX)^+; -1'(X'WX)^+]`` (as :func:`_projected_units`)
    and the vectors ``v_u = scale_u x_u - centre_scale_u centres[centre_of_u]`` (a unit's score less a mean of
    scores; no centring when ``centres`` is None), estimated without projecting every unit.

    Unit ``u`` goes to block ``u mod groups`` and each block's signed sum ``z_g = P sum_{u in B_g} e_u v_u`` is
    projected; ``sum_g z_g^2`` has expectation the exact sum over independent Rademacher signs ``e_u`` (the cross
    terms ``e_u e_v``, ``u != v``, vanish on average), whatever the blocks, and relative standard deviation about
    ``sqrt(2 / groups)`` when no few units dominate: Hutchinson's estimator (Hutchinson 1990; Avron & Toledo
    2011) applied to each diagonal entry of the sandwich ``P (sum_u v_u v_u') P'``. Consecutive units go to
    different blocks, so the strata of a stratified sample (stored one after the other) are spread over all
    blocks. Cost ``O(units n + n^2 groups)``, against ``units n^2`` for projecting every unit.
    """
    groups = SKETCH_GROUPS if groups is None else groups
    units, d = x_units.shape
    full = units - units % groups
    signed = signs * scale
    sums = np.einsum("jg,jgd->gd", signed[:full].reshape(-1, groups), x_units[:full].reshape(-1, groups, d))
    sums[:units - full] += x_units[full:] * signed[full:, None]  # (groups, n - 1): block u mod groups
    if centres is not None:
        block = np.arange(units) % groups
        counts = np.bincount(block * len(centres) + centre_of, weights=signs * centre_scale,
                             minlength=groups * len(centres)).reshape(groups, len(centres))
        sums -= counts @ centres
    return np.square(_projected_units(inverse, sums)).sum(axis=1)


def _sketched_std(sample: KernelSample, inverse: np.ndarray, x_units: np.ndarray, unit_residuals: np.ndarray,
                  first: int, head: int) -> np.ndarray:
    """The standard errors of :func:`kernel_solve` (before the degrees-of-freedom factor), the sandwich's sums of
    squares by :func:`sketched_squares`. Each unit's score ``r_u x_u`` is centred first (on the mean over the
    draws; for a stratified sample on its stratum's mean, strata of one unit not centred), so the sketch
    estimates the centred sum directly and no exact part is subtracted from it (a difference of two large sums
    would magnify the sketch's noise). Cost ``O(units n + n^2 groups)`` per target."""
    import scipy.sparse

    units, targets = unit_residuals.shape
    signs = sketch_signs(units)
    out = np.empty((x_units.shape[1] + 1, targets))
    if sample.strata is None:  # (see kernel_solve) sum_u c_u (s_u - s)^2 with s = sum_u c_u s_u / T
        c, draws = sample.counts, sample.n_draws
        root_c = np.sqrt(c)
        means = ((c[:, None] * unit_residuals).T @ x_units) / draws  # (targets, n - 1)
        at = np.zeros(units, dtype=np.int64)
        for t in range(targets):
            squares = sketched_squares(inverse, x_units, root_c * unit_residuals[:, t], signs, means[t:t + 1],
                                       root_c, at)
            var = squares * draws / max(draws - 1, 1)
            out[:, t] = np.sqrt(var) * sample.sampled_mass / (sample.width * draws)
        return out
    # stratified (see stratified_variance): sum_h fpc_h k_h/(k_h - 1) sum_{u in h} (g_u - mean_h g)^2, and
    # fpc_h g_u^2 for a stratum of one unit, with g_u = w_u r_u P x_u
    strata = sample.strata
    k = np.bincount(strata, minlength=len(sample.stratum_sizes)).astype(float)
    fpc = np.clip(1.0 - k / sample.stratum_sizes, 0.0, 1.0)
    root_scale = np.sqrt(np.where(k > 1, fpc * k / np.maximum(k - 1, 1.0), fpc))[strata]
    centre_scale = root_scale * (k > 1)[strata]
    # the strata's sums of scores as one sparse (strata x units) product: a pass over the units, no copies
    order = np.arange(units) if np.all(strata[1:] >= strata[:-1]) else np.argsort(strata, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(k.astype(np.int64))])
    for t in range(targets):
        scaled = sample.weights[first:head] * unit_residuals[:, t]
        sums = scipy.sparse.csr_array((scaled[order], order, bounds), shape=(len(k), units)) @ x_units
        means = sums / np.maximum(k, 1.0)[:, None]
        out[:, t] = np.sqrt(np.maximum(sketched_squares(inverse, x_units, root_scale * scaled, signs, means,
                                                        centre_scale, strata), 0.0))
    return out


def _projected_units(inverse: np.ndarray, x_units: np.ndarray) -> np.ndarray:
    """``(X'WX)^+ x_u`` for every unit (columns), with a last row for the eliminated player: minus the sum of
    the others (efficiency constraint), i.e. ``-(1' (X'WX)^+) x_u``, one matrix-vector product. Written into
    one array (no stacked copy). Cost ``U n^2``."""
    gram = inverse if isinstance(inverse, GramFactor) else GramFactor.of_inverse(inverse)
    out = np.empty((gram.d + 1, len(x_units)))
    gram.solve(x_units.T, out=out[:-1])
    np.matmul(x_units, -gram.row_sums(), out=out[-1])
    return out


def _stratified_std(sample: KernelSample, projected: np.ndarray, unit_residuals: np.ndarray, first: int,
                    head: int) -> np.ndarray:
    """Standard errors of a stratified sample drawn without replacement within strata (before the dof factor).

    The solution's error is linearised as ``sum_u g_u`` with ``g_u = w_u (X'WX)^+ x_u r_u`` (unit weight, its
    projected design row, its residual). Within stratum ``h`` (``k_h`` of ``N_h`` units drawn without
    replacement) the sum has variance ``(1 - k_h / N_h) k_h S_h^2`` with ``S_h^2`` the sample variance of ``g_u``
    (Cochran, *Sampling Techniques*, 5.3); a stratum with a single unit uses ``g_u^2`` (no spread to measure).
    Cost: ``O(units * n * targets)`` array work, no further factorisation.
    """
    return np.sqrt(stratified_variance(sample.strata, sample.stratum_sizes, projected,
                                       sample.weights[first:head, None] * unit_residuals))


def stratified_variance(strata: np.ndarray, stratum_sizes: np.ndarray, projected: np.ndarray,
                        scaled_residuals: np.ndarray) -> np.ndarray:
    """``sum_h (1 - k_h/N_h) k_h S_h^2`` of ``g_u = projected[:, u] * scaled_residuals[u]`` (see above), for
    every row of ``projected`` and column of ``scaled_residuals``: ``(rows, targets)``. With one target,
    ``projected`` is overwritten (no copy of it).

    Within-stratum sums of ``g`` and ``g^2`` are running sums over the units ordered by stratum
    (``np.add.reduceat``; units need not come sorted): ``k_h S_h^2 = k_h / (k_h - 1) (sum g^2 - (sum g)^2 / k_h)``.
    Cost ``O(rows * units * targets)``.
    """
    n_strata = len(stratum_sizes)
    k = np.bincount(strata, minlength=n_strata).astype(float)
    fpc = np.clip(1.0 - k / stratum_sizes, 0.0, 1.0)
    var = np.zeros((projected.shape[0], scaled_residuals.shape[1]))
    if len(strata) == 0:
        return var
    if np.any(strata[1:] < strata[:-1]):  # bring each stratum's units together
        order = np.argsort(strata, kind="stable")
        strata, projected, scaled_residuals = strata[order], projected[:, order], scaled_residuals[order]
    held = np.flatnonzero(k)  # strata with units, in order; each starts where the previous one ends
    starts = np.concatenate([[0], np.cumsum(k[held].astype(np.int64))[:-1]])
    kh = k[held]
    spread = np.where(kh > 1, kh / np.maximum(kh - 1, 1.0), 0.0)
    targets = scaled_residuals.shape[1]
    for t in range(targets):
        # (rows, units); with one target, in the caller's array (which must not be used afterwards)
        g = np.multiply(projected, scaled_residuals[None, :, t], out=projected if targets == 1 else None)
        sums = np.add.reduceat(g, starts, axis=1)                  # (rows, strata with units)
        squares = np.add.reduceat(np.square(g, out=g), starts, axis=1)
        centred = np.maximum(squares - sums**2 / kh, 0.0) * spread
        single = np.where(kh == 1, squares, 0.0)                   # no spread to measure: g^2
        var[:, t] = (centred + single) @ fpc[held]
    return var
