"""Axioms as property tests (hypothesis): efficiency, symmetry, dummy, linearity; BII's limit condition and
generalized 2-efficiency; transitivity of the zero pattern of the bivariate matrix for monotone games."""

from itertools import combinations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import interplay as ip
from interplay.synthetic import table_game

import _brute as brute

finite = st.floats(min_value=-10, max_value=10, allow_nan=False, allow_infinity=False)


@st.composite
def value_tables(draw, min_n=1, max_n=6):
    n = draw(st.integers(min_n, max_n))
    return np.array(draw(st.lists(finite, min_size=2**n, max_size=2**n)))


def _n(table):
    return int(np.log2(len(table)))


@settings(max_examples=60, deadline=None)
@given(value_tables())
def test_efficiency(table):
    phi = ip.shapley(table_game(table)).values
    assert np.isclose(phi.sum(), table[-1] - table[0], atol=1e-9)
    stii = ip.interactions(table_game(table), index="stii", order=min(2, _n(table)))
    assert np.isclose(sum(stii.values.values()), table[-1] - table[0], atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(value_tables(min_n=2), st.data())
def test_symmetry(table, data):
    n = _n(table)
    i, j = sorted(data.draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True)))
    codes = np.arange(2**n)
    bi, bj = (codes >> i) & 1, (codes >> j) & 1
    swapped = codes ^ ((bi ^ bj) << i) ^ ((bi ^ bj) << j)
    symmetric = (table + table[swapped]) / 2  # v(S) = v(swap(S)): players i and j are symmetric
    for method in (ip.shapley, ip.banzhaf):
        values = method(table_game(symmetric)).values
        assert np.isclose(values[i], values[j], atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(value_tables(max_n=5), finite)
def test_dummy(table, c):
    n = _n(table)
    base = table_game(table)
    game = ip.Game(lambda s: base(s[:, :n]) + c * s[:, n], n + 1)  # the last player always adds c
    assert np.isclose(ip.shapley(game).values[n], c, atol=1e-9)
    assert np.isclose(ip.banzhaf(game).values[n], c, atol=1e-9)
    inter = ip.interactions(game, index="sii", order=2)
    assert all(abs(inter[(i, n)]) < 1e-9 for i in range(n))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 5).flatmap(lambda n: st.tuples(
    st.lists(finite, min_size=2**n, max_size=2**n), st.lists(finite, min_size=2**n, max_size=2**n))),
    finite, finite)
def test_linearity(tables, a, b):
    u, w = (np.array(t) for t in tables)
    combined = ip.shapley(table_game(a * u + b * w)).values
    expected = a * ip.shapley(table_game(u)).values + b * ip.shapley(table_game(w)).values
    np.testing.assert_allclose(combined, expected, atol=1e-8)
    biv = ip.bivariate(table_game(a * u + b * w)).adjacency
    np.testing.assert_allclose(
        biv, a * ip.bivariate(table_game(u)).adjacency + b * ip.bivariate(table_game(w)).adjacency, atol=1e-8)


@settings(max_examples=40, deadline=None)
@given(value_tables(min_n=1, max_n=6))
def test_bii_limit_condition(table):
    n = _n(table)
    result = ip.interactions(table_game(table), index="bii", order=n)
    v = brute.as_value(table_game(table), n)
    assert np.isclose(result[tuple(range(n))], brute.derivative(v, tuple(range(n)), ()), atol=1e-8)


@settings(max_examples=40, deadline=None)
@given(value_tables(min_n=3, max_n=6), st.data())
def test_bii_generalized_two_efficiency(table, data):
    n = _n(table)
    i, j = sorted(data.draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True)))
    others = [p for p in range(n) if p not in (i, j)]
    base = table_game(table)

    def merged(s):  # players: others..., then [ij] as the last one
        full = np.zeros((len(s), n), dtype=bool)
        full[:, others] = s[:, :-1]
        full[:, i] = full[:, j] = s[:, -1]
        return base(full)

    reduced = ip.interactions(ip.Game(merged, n - 1), index="bii", order=n - 1)
    original = ip.interactions(base, index="bii", order=n)
    for size in range(0, n - 1):
        for S in combinations(range(n - 2), size):
            lhs = reduced[tuple(S) + (n - 2,)]
            rhs = original[tuple(others[p] for p in S) + (i,)] + original[tuple(others[p] for p in S) + (j,)]
            assert np.isclose(lhs, rhs, atol=1e-8)


@st.composite
def monotone_games(draw):
    n = draw(st.integers(2, 6))
    terms = draw(st.lists(st.tuples(st.sets(st.integers(0, n - 1), min_size=1, max_size=3),
                                    st.floats(0.1, 5)), min_size=1, max_size=6))
    combine = draw(st.sampled_from(["sum", "max"]))
    members = np.zeros((len(terms), n), dtype=bool)
    for k, (s, _) in enumerate(terms):
        members[k, list(s)] = True
    weights = np.array([c for _, c in terms])

    def value(coalitions):
        covered = (coalitions[:, None, :] | ~members[None]).all(axis=2) * weights
        return covered.sum(axis=1) if combine == "sum" else covered.max(axis=1)

    return ip.Game(value, n)


@settings(max_examples=80, deadline=None)
@given(monotone_games())
def test_monotone_zero_pattern_is_transitive(game):
    """Bivariate Shapley paper, Corollary 1.1: for monotone games, H (gamma = 0) is transitive."""
    adjacency = ip.bivariate(game).adjacency
    n = game.n_players
    redundant = np.abs(adjacency) <= 1e-12
    np.fill_diagonal(redundant, False)
    for a in range(n):
        for b in range(n):
            for c in range(n):
                if a != c and redundant[a, b] and redundant[b, c]:
                    assert redundant[a, c], (a, b, c)
