"""The four entry points: ``shapley``, ``banzhaf``, ``interactions``, ``bivariate``.

Each checks its inputs once, turns ``random_state`` into a ``numpy.random.Generator`` and hands the game to
the estimator registered for ``method`` (see :mod:`interplay.estimators`).
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import replace
from typing import Any, Callable

import numpy as np

from ._scaled import ScaledGame, unscaled
from ._threads import one_thread_suits, own_work
from ._validation import check_bool, check_int, check_random_state
from .estimators import get_estimator
from .games import as_game
from .results import Attribution, BivariateExplanation, Interactions


# Methods that define other values than the exact index (a restricted game, SHEAR's cooperators), so enumeration
# cannot replace them.
_NOT_APPROXIMATIONS = {"exact", "l-shapley", "c-shapley", "shear"}
_MAX_ENUMERATED = 20


def _enumerates(kind: str, method: str, game, budget, options: dict) -> bool:
    """True when an interaction sampler's budget (the default budget, ``2048 + 2n``, when ``budget`` is None)
    covers all ``2**n`` coalitions: sampling a population it can afford to list is pointless, so the exact value
    is returned instead (as shapiq does). ``exact_if_affordable=False`` keeps the sampler (e.g. to study it).
    The Shapley, Banzhaf and bivariate regressions are exact at that budget by themselves; their Monte Carlo
    samplers stay samplers (README)."""
    from .estimators._sampling import default_budget

    if not options.pop("exact_if_affordable", True):
        return False
    n = game.n_players
    resolved = default_budget(n) if budget is None else budget
    return (kind == "interactions" and method not in _NOT_APPROXIMATIONS
            and options.get("univariate") not in _NOT_APPROXIMATIONS - {"exact"}
            and n <= _MAX_ENUMERATED and resolved >= 2**n)


# Samplers ``method="auto"`` picks when enumeration is out of reach, by kind (and index), with the reason it
# gives; measured in benchmarks/results/sota.md. A choice is used only if it is registered.
_NO_SURROGATE = "no tree surrogate (it needs numba: pip install interplay[trees])"
_AUTO_SAMPLERS = {
    "shapley": ("odd_gp", "OddGP (leverage sample; the odd part fitted by OddSHAP's terms plus a Gaussian process "
                          "over every odd interaction, prior weights from a tree surrogate's relevance of each "
                          "player): the least error of interplay's and shapiq 1.8's samplers in "
                          "benchmarks/results/sota.md"),
    "banzhaf": ("proxy", "a tree surrogate's exact Banzhaf values plus maximum sample reuse on the "
                         "cross-fitted residual (kept only when its standard errors are smaller)"),
    "bivariate": ("polynomial", f"{_NO_SURROGATE}: a second-order polynomial fitted on a leverage sample, read "
                                "exactly, plus Algorithm 2 on its residual"),
}
_AUTO_INTERACTIONS = {
    "bii": ("regression", "Theorem 2 of the BII paper: top coefficients of a uniform least-squares fit on a "
                          "paired stratified sample (15-100x below MSR's error, "
                          "benchmarks/results/interaction_regression.md)"),
    "fsii": ("regression", "the Faith-Shap least-squares fit on a paired stratified sample"),
    "fbii": ("regression", "the Faith-Banzhaf least-squares fit on a paired stratified sample"),
    "sii": ("spectral", "a sparse Fourier regression on a tree surrogate's largest terms, read in closed form "
                        "(benchmarks/results/sota.md)"),
    "stii": ("permutation", "permutation sampling (unbiased)"),
    "excess": ("permutation", "permutation sampling (unbiased)"),
}


def auto_method(kind: str, game, budget: int | None, index: str | None = None,
                order: int = 2, *, allow_exact: bool = True) -> tuple[str, str]:
    """The method ``method="auto"`` uses for ``kind`` on ``game`` at ``budget``, and why.

    Exact enumeration when all ``2**n`` coalitions fit the budget (the default budget, ``2048 + 2n``, when
    ``budget`` is None); otherwise the most accurate registered sampler for the kind (and index).
    """
    from .estimators._registry import available_methods
    from .estimators._sampling import default_budget

    n = game.n_players
    resolved = default_budget(n) if budget is None else budget
    if allow_exact and n <= _MAX_ENUMERATED and 2**n <= resolved:  # (exact_if_affordable=False: a sampler)
        return "exact", f"all 2**{n} = {2**n} coalitions fit the budget ({resolved}): exact enumeration"
    if kind == "interactions" and index in ("sii", "bii") and order <= 2 and _pair_gp_fits(n, resolved, index):
        choice = ("gp", "Gaussian-process fits of the odd and even parts on one sample of complementary pairs, "
                        "read in closed form, the pairs blended with cross-fitted tree surrogates' exact values "
                        "where a tree library is installed (benchmarks/results/sota.md)")
    elif kind == "interactions":
        choice = _AUTO_INTERACTIONS.get(index)  # spectral: SII of any order (order 3, 16 players, budget 2080:
        # relative error 0.93 and 0.09 on a smooth and a sparse game, permutation 4.2 and 0.79)
        if choice is not None and choice[0] == "regression":
            from .estimators.interaction_regression import _minimum

            if index == "bii" and order == 2 and resolved < 2 * _minimum(n, order):
                choice = ("spectral", "below twice the regression's coefficients: a sparse Fourier regression on "
                                      "a tree surrogate's largest terms (benchmarks/results/sota.md)")
            elif resolved < _minimum(n, order):  # fewer evaluations than the fit has coefficients
                choice = (("msr", "below the regression's minimum budget: maximum sample reuse")
                          if index == "bii" else None)
        if choice is not None and choice[0] == "spectral":
            from .estimators._surrogate import resolve_surrogate

            from .estimators.spectral import minimum_budget

            if resolve_surrogate("auto") is None:  # numba missing: no tree surrogate, the surrogate-free samplers
                choice = (("surrogate", f"{_NO_SURROGATE}: a second-order polynomial read exactly")
                          if index == "sii" and order == 2 else  # (its pairs only: above, permutation sampling)
                          ("permutation", f"{_NO_SURROGATE}: permutation sampling") if index == "sii" else
                          ("msr", f"{_NO_SURROGATE}: maximum sample reuse"))
            elif index == "bii" and resolved < minimum_budget(n):
                choice = ("msr", f"below the {minimum_budget(n)} evaluations of the sparse Fourier fit: maximum "
                                 "sample reuse")
        from .estimators.odd_gp import MAX_PLAYERS

        if choice is not None and index == "bii" and order <= 2 and n > MAX_PLAYERS:  # the GP was not taken
            choice = (choice[0], f"over {MAX_PLAYERS} players (the GP's model choice grows as n^3): {choice[1]}")
        if choice is None:
            hint = f"give budget >= 2**{n} (or method='exact') for exact enumeration"
            if _AUTO_INTERACTIONS.get(index, ("",))[0] == "regression":
                from .estimators.interaction_regression import _minimum

                hint = (f"give budget >= {_minimum(n, order)} (method='regression'), or >= 2**{n} (or method='exact') "
                        "for exact enumeration")
            raise ValueError(f"method='auto': no sampler estimates index={index!r} for {n} players with "
                             f"budget={resolved}; {hint}")
    else:
        choice = _AUTO_SAMPLERS[kind]
        if kind == "shapley":
            from .estimators.odd_gp import MAX_PLAYERS, MAX_UNITS

            pairs = (resolved - 2) // 2 + 1
            if n > MAX_PLAYERS or pairs > MAX_UNITS:  # where OddGP itself runs OddSHAP: said here, not only there
                why = (f"over {MAX_PLAYERS} players (OddGP's model choice grows as n^3)" if n > MAX_PLAYERS else
                       f"over {MAX_UNITS} sampled pairs (OddGP's factorisation grows as their cube)")
                choice = ("odd", f"{why}: OddSHAP (leverage sample; the odd part fitted by the singletons and a tree "
                                 "surrogate's largest odd terms)")
        if kind == "bivariate":
            from .estimators._surrogate import resolve_surrogate

            if resolve_surrogate("auto") is not None and n <= _GP_MAX_PLAYERS:
                choice = ("gp", "Gaussian-process fits of the odd and even parts on one leverage sample of "
                                "complementary pairs, the matrix read in closed form (benchmarks/results/sota.md)")
            elif resolve_surrogate("auto") is not None:
                choice = ("spectral", f"over {_GP_MAX_PLAYERS} players (the gp matrix's readout grows as n^3): a "
                                      "sparse Fourier fit on a tree surrogate's largest terms, read in closed form")
    name, reason = choice
    if name not in available_methods(kind):
        raise ValueError(f"method='auto': the sampler {name!r} for {kind} is not registered")
    if n <= _MAX_ENUMERATED and 2**n <= resolved:  # allow_exact=False
        return name, f"exact_if_affordable=False: a sampler although all 2**{n} coalitions fit: {name}, {reason}"
    count = 2**n if n < 64 else "over 2**63"
    if budget is None:  # the chosen method's own default budget, which may not be the 2048 + 2n decided on here
        return name, f"{count} coalitions exceed the default budget: {name}, {reason} (at its own default budget)"
    return name, f"{count} coalitions exceed the budget ({resolved}): {name}, {reason}"


_GP_MAX_PLAYERS = 200  # the pair GP's SII and matrix readouts cost O(sampled pairs x n^3 / 2): above, the old choices


def _pair_gp_fits(n: int, budget: int, index: str = "sii") -> bool:
    """The pair GP needs a tree surrogate for its relevance weights and fixed terms (measured with one) and
    ``2n`` evaluations; its SII (and the bivariate matrix) at most ``_GP_MAX_PLAYERS`` players (BII's readout is
    ``O(sampled pairs x n^2)``)."""
    from .estimators._surrogate import resolve_surrogate
    from .estimators.kernel import minimum_budget

    from .estimators.odd_gp import MAX_PLAYERS

    return (budget >= minimum_budget(n) and resolve_surrogate("auto") is not None
            and n <= (MAX_PLAYERS if index == "bii" else _GP_MAX_PLAYERS))


def _parallel_hint(unknown: list) -> str:
    """Where parallelism lives, for an option that asks for it (``n_jobs=`` to ``explainer.shapley``)."""
    if not {"n_jobs", "jobs", "workers", "parallel", "backend"} & set(unknown):
        return ""
    return ("; rows are explained in parallel by ip.run(explainer, X, method, n_jobs=...) (the CLI: --n-jobs), "
            "with the same values as explainer.shapley(X)")


def _resolve_auto(kind: str, method: str, game, options: dict, fixed: dict) -> tuple[str, dict, dict | None]:
    """Swap ``method="auto"`` for the chosen method; drop options the chosen method does not take."""
    if method != "auto":
        return method, options, None
    name, reason = auto_method(kind, game, fixed.get("budget"), fixed.get("index"), fixed.get("order", 2),
                               allow_exact=options.get("exact_if_affordable", True) is not False)
    from .estimators._registry import available_methods

    known = {k for m in available_methods(kind) for k in _parameters(get_estimator(kind, m))}
    unknown = sorted(set(options) - known - {"exact_if_affordable", "std_errors"})
    if unknown:
        raise TypeError(f"options: method='auto' for {kind} passes options on to the method it chooses; no "
                        f"{kind} method accepts {unknown}{_parallel_hint(unknown)}")
    parameters = _parameters(get_estimator(kind, name))
    takes_any = any(p.kind is p.VAR_KEYWORD for p in parameters.values())
    kept = {k: v for k, v in options.items()
            if takes_any or k in parameters or k in ("std_errors", "exact_if_affordable")}  # _dispatch takes these
    note = {"chosen": name, "reason": reason}
    if len(kept) < len(options):
        note["ignored_options"] = sorted(set(options) - set(kept))
        import warnings

        warnings.warn(f"options {note['ignored_options']} are not used by {name!r}, the method 'auto' chose for "
                      f"{kind} here; pass method= to use them", UserWarning, stacklevel=4)
    return name, kept, note


@functools.lru_cache(maxsize=None)
def _parameters(estimator: Callable):
    """The estimator's parameters (``inspect.signature`` once per estimator: it cost a fifth of a cheap row's
    explanation in a batch run)."""
    return inspect.signature(estimator).parameters


def _one_thread_suits(game, budget: int | None) -> bool:
    """One BLAS thread for the estimator's own algebra at this size (:mod:`interplay._threads`)."""
    from .estimators._sampling import default_budget

    n = as_game(game).n_players
    return one_thread_suits(n, default_budget(n) if budget is None else budget)


def _call(kind: str, method: str, game, options: dict, **fixed):
    for switch in ("std_errors", "exact_if_affordable"):  # "False" is truthy: it silently meant True
        if switch in options:
            options[switch] = check_bool(options[switch], switch)
    if kind == "interactions":
        from .estimators.exact import INDICES

        if fixed.get("index") not in INDICES:  # before auto chooses: its errors would name a valid index
            raise ValueError(f"index: expected one of {sorted(INDICES)}, got {fixed.get('index')!r}")
        # every method the same (2.0 was taken by some, failed inside others: "'float' object cannot be interpreted
        # as an integer"); the methods check the largest order they estimate
        fixed["order"] = check_int(fixed.get("order"), "order", minimum=1)
    with own_work(_one_thread_suits(game, fixed.get("budget"))):  # model calls get the caller's threads
        method, options, auto = _resolve_auto(kind, method, game, options, fixed)
        try:
            result = _dispatch(kind, method, game, options, **fixed)
        except ValueError as exc:  # a budget the chosen method refuses: say that auto chose it
            if auto is None or not str(exc).startswith("budget:"):
                raise
            raise ValueError(f"budget: method='auto' chose {method!r} here, and {str(exc)[len('budget: '):]}; "
                             "pass a larger budget or choose a method") from None
    extra = {} if auto is None else {"auto": auto}
    if "budget" not in result.info:  # a method that records none (exact enumeration): the budget it was given
        extra["budget"] = fixed.get("budget")
    explained = getattr(game, "explained", None)  # an Explainer's or modality's game: its unit and class
    if isinstance(explained, dict):
        extra.update({key: value for key, value in explained.items() if key not in result.info})
    return replace(result, info={**result.info, **extra}) if extra else result


def _dispatch(kind: str, method: str, game, options: dict, **fixed):
    """Run the registered estimator; unknown options get an error listing the ones the method accepts.

    An interaction sampler whose budget covers all ``2**n`` coalitions returns the exact result (same method
    name, ``info["enumerated"] = True``, ``2**n`` evaluations) unless ``exact_if_affordable=False``.
    """
    estimator: Callable = get_estimator(kind, method)
    parameters = _parameters(estimator)
    want_errors = bool(options.pop("std_errors", True))  # every method takes it (see below)
    if "std_errors" in parameters:
        options["std_errors"] = want_errors
    _check_choices(estimator, options)  # also when the budget enumerates and the sampler does not run
    enumerate_instead = _enumerates(kind, method, game, fixed.get("budget"), options)
    supported = getattr(estimator, "indices", None)
    if enumerate_instead and supported is not None and fixed.get("index") not in supported:
        enumerate_instead = False  # let the method raise its own error for an index it does not estimate
    check_option_names(kind, method, options)
    if enumerate_instead:
        exact = get_estimator(kind, "exact")(game, **fixed)
        return replace(exact, method=method, info={**exact.info, "enumerated": True, "budget": fixed.get("budget")})
    scaled = ScaledGame(game) if method != "exact" else None  # values near 1e154 overflow the algebra (_scaled)
    try:
        result = estimator(game if scaled is None else scaled, **fixed, **options)
        result = unscaled(result, None if scaled is None else scaled.scale)
    except ValueError as exc:  # a method built on another (odd_gp on odd, proxy on msr) names the one called
        text, named = str(exc), f"budget: method={method!r}"
        if text.startswith("budget: method='") and not text.startswith(named):
            inner = text.split("'")[1]
            raise ValueError(text.replace(f"method={inner!r}", f"method={method!r} (through {inner!r})", 1)) from None
        raise
    if not want_errors and getattr(result, "std_errors", None) is not None:
        result = replace(result, std_errors=None)  # a method whose errors cost next to nothing: dropped
    return result


def check_option_names(kind: str, method: str, options: dict) -> None:
    """Unknown options of a registered method: a TypeError listing the ones it accepts (``std_errors`` and
    ``exact_if_affordable`` are :func:`_dispatch`'s own, taken by every method)."""
    parameters = _parameters(get_estimator(kind, method))
    if not any(p.kind is p.VAR_KEYWORD for p in parameters.values()):
        accepted = sorted(name for name, p in parameters.items()
                          if p.kind is p.KEYWORD_ONLY and name not in ("budget", "rng", "index", "order"))
        unknown = sorted(set(options) - set(accepted) - {"std_errors", "exact_if_affordable"})
        if unknown:
            raise TypeError(f"options: method={method!r} for {kind} accepts {accepted}; got unknown "
                            f"{unknown}{_parallel_hint(unknown)}")


def _check_choices(estimator: Callable, options: dict) -> None:
    """Options an estimator takes from a fixed set (``estimator.choices``: strings, or True/False for a switch,
    which then takes only booleans: ``blend="False"`` would have turned the blend on)."""
    for name, allowed in getattr(estimator, "choices", {}).items():
        if name not in options:
            continue
        value = options[name]
        switch = isinstance(value, (bool, np.bool_)) and bool(value) in [a for a in allowed if isinstance(a, bool)]
        word = isinstance(value, str) and value in [a for a in allowed if isinstance(a, str)]
        if not (switch or word):
            raise ValueError(f"{name}: expected one of {list(allowed)}, got {value!r}")


def _common(game, budget, random_state):
    game = as_game(game)
    budget = check_int(budget, "budget", minimum=1, allow_none=True)
    return game, budget, check_random_state(random_state)


def shapley(game, method: str = "auto", budget: int | None = None, random_state: Any = None,
            **options) -> Attribution:
    """Shapley values of ``game`` (Bivariate Shapley paper Eq. 4; lecture).

    ``method``: ``"auto"`` (default: exact enumeration when ``2**n`` fits the budget, else the most accurate
    sampler, see :func:`auto_method`; ``info["auto"]`` says what was chosen and why), ``"exact"`` (``2**n``
    evaluations) or a sampling method; ``budget`` bounds the coalition evaluations; ``options`` are passed to
    the method.
    """
    game, budget, rng = _common(game, budget, random_state)
    return _call("shapley", method, game, options, budget=budget, rng=rng)


def banzhaf(game, method: str = "auto", budget: int | None = None, random_state: Any = None,
            **options) -> Attribution:
    """Banzhaf values of ``game`` (BII paper, Eq. 2 for single players)."""
    game, budget, rng = _common(game, budget, random_state)
    result = _call("banzhaf", method, game, options, budget=budget, rng=rng)
    return replace(result, info={**result.info, "kind": "banzhaf"})  # to_shapiq() labels it "BV"


def interactions(game, index: str = "sii", order: int = 2, method: str = "auto", budget: int | None = None,
                 random_state: Any = None, **options) -> Interactions:
    """Interaction index ``index`` of every subset of size ``1..order``.

    ``index``: ``"sii"`` (Shapley interaction index), ``"bii"`` (Banzhaf interaction index), ``"stii"``
    (Shapley-Taylor), ``"ksii"`` (k-SII), ``"fsii"`` / ``"fbii"`` (Faithful Shapley / Banzhaf interactions),
    ``"moebius"`` (Harsanyi dividends), ``"excess"`` (Shapley excess of pairs). A sampled result whose standard
    errors are, on average, as large as its values says so in a warning.
    """
    game, budget, rng = _common(game, budget, random_state)
    result = _call("interactions", method, game, options, index=index, order=order, budget=budget, rng=rng)
    from math import comb

    n = game.n_players
    _warn_thin(result, sum(comb(n, k) for k in range(2, min(int(order), n) + 1)), f"order-2..{order} subsets"
               if order > 2 else "pairs")
    _warn_noisy(result, n)
    return result


def bivariate(game, method: str = "auto", budget: int | None = None, random_state: Any = None,
              **options) -> BivariateExplanation:
    """Bivariate Shapley matrix (Bivariate Shapley paper, Eq. 6): the directed explanation graph's weights."""
    game, budget, rng = _common(game, budget, random_state)
    result = _call("bivariate", method, game, options, budget=budget, rng=rng)
    _warn_thin(result, game.n_players * (game.n_players - 1), "matrix entries")
    return result


ROUND_OFF = 1e-9  # standard errors below this share of the largest |value| of a result are round-off


def _warn_noisy(result, n: int) -> None:
    """A UserWarning when a sampled interaction result's standard errors are, on average, as large as its
    values (over the subsets of two or more players): the numbers are then mostly noise (auto's excess on 14
    features at the default budget: pairs near 0 came out at -0.38 with errors of 0.3, nothing said)."""
    if result.method in ("exact", "tree") or result.info.get("enumerated") or result.std_errors is None:
        return
    keys = [k for k in result.values if len(k) >= 2]
    se = np.array([result.std_errors.get(k, np.nan) for k in keys], dtype=float)
    values = np.array([result.values[k] for k in keys], dtype=float)
    ok = np.isfinite(se)
    if ok.sum() < 2 or not np.mean(se[ok] ** 2) >= np.mean(values[ok] ** 2) > 0:
        return
    scale = max((abs(float(v)) for v in result.values.values() if np.isfinite(v)), default=0.0)
    if np.sqrt(np.mean(se[ok] ** 2)) <= ROUND_OFF * scale:  # interactions that are 0 but for round-off (an
        return  # additive model): their "errors" are round-off too, not noise worth a warning
    import warnings

    exact = f", or exact enumeration: budget={2**n} or method='exact'" if n <= 20 else ""
    noise, signal = np.sqrt(np.mean(se[ok] ** 2)), np.sqrt(np.mean(values[ok] ** 2))
    warnings.warn(f"{result.index}: the standard errors of the interactions are as large as their values on average "
                  f"(root mean square {noise:.3g} against {signal:.3g}): these estimates are mostly noise; a larger "
                  f"budget= gives better ones{exact}", UserWarning, stacklevel=3)


THIN = 10  # more estimated subsets than this many times the evaluations: said in a warning


def _warn_thin(result, estimated: int, what: str) -> None:
    """A UserWarning when a sampled result estimates over :data:`THIN` times as many ``what`` as it spent
    evaluations (at 500 players, 124,750 pairs from 3,048 evaluations came back near 0 or as large as the true
    values, with nothing said)."""
    if result.method in ("exact", "tree") or result.info.get("enumerated") or estimated <= THIN * max(
            int(result.n_evaluations), 1):
        return
    import warnings

    warnings.warn(f"{estimated:,} {what} estimated from {int(result.n_evaluations):,} evaluations: most are "
                  "shrunk towards 0 or carried by a surrogate's guess, so read only the strongest; a larger budget= "
                  "or fewer features (groups=, a subset of columns) estimates them better", UserWarning, stacklevel=3)
