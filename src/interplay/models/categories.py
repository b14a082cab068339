"""The categories a booster (XGBoost, LightGBM, HistGradientBoosting) was fitted with on pandas categoricals, and
text columns of a DataFrame converted to them (a CSV's strings for such a model). Needs no compiled extra: the CLI
and the Explainer use it whether or not ``interplay[trees]`` (numba) is installed."""

from __future__ import annotations

from typing import Any

import numpy as np


def text_categories(categories) -> bool:
    """Whether some category is not a number (HistGradientBoosting's encoder then keeps codes)."""
    try:
        np.asarray(categories, dtype=float)
    except (TypeError, ValueError):
        return True
    return False


def as_training_categories(frame: Any, model: Any, name: str = "data") -> Any:
    """Text columns of a DataFrame for a booster fitted on pandas categoricals (XGBoost/LightGBM) as those
    categoricals (a data file's or a CSV-read background's strings; the booster refuses them as text). Any other
    model or frame is returned as it is. A categorical column whose categories are not the model's gets the
    model's: extra ones (XGBoost refuses the column, even where no row holds them) and fewer ones (a background
    sampled before its categories were set: the dtype the Explainer keeps for its rows would make the model's other
    categories missing values); values outside them become missing values, with a warning naming ``name``."""
    import pandas as pd

    from . import as_model

    if (not hasattr(frame, "columns") or getattr(model, "steps", None) is not None
            or not frame.columns.is_unique):  # repeated names: refused, with their names, by the caller's checks
        return frame
    text = [c for c, dt in zip(frame.columns, frame.dtypes)
            if not pd.api.types.is_numeric_dtype(dt) and not isinstance(dt, pd.CategoricalDtype)]
    # numbers read from a file for a column the model split on as categories of numbers (e.g. [3, 7, 11]): the
    # booster refuses a number column there ("data type doesn't match", reported as a missing-value problem)
    coded = categorical_columns(model)
    numbers = [c for c, dt in zip(frame.columns, frame.dtypes) if coded and str(c) in coded
               and pd.api.types.is_numeric_dtype(dt) and not pd.api.types.is_bool_dtype(dt)
               and not isinstance(dt, pd.CategoricalDtype)]
    recoded = [c for c, dt in zip(frame.columns, frame.dtypes)
               if coded and str(c) in coded and isinstance(dt, pd.CategoricalDtype)]
    if not text and not numbers and not recoded:
        return frame
    try:
        known = training_categories(model, as_model(model),
                                    names=coded if coded else [str(c) for c in text])
    except Exception:  # noqa: BLE001  (not a booster that stores categories)
        return frame
    if not known:
        return frame
    numbers = [c for c in numbers if str(c) in known and not text_categories(known[str(c)])]  # numbers only
    lost = {}
    out = frame.copy()
    for c in text + numbers:
        categories = known.get(str(c))
        if categories is None:
            continue
        outside = frame[c].notna() & ~frame[c].isin(categories)
        if outside.any():  # missing values (pd.Categorical of values outside its categories is deprecated)
            lost[str(c)] = sorted({str(v) for v in frame[c][outside]})[:5]
        out[c] = frame[c].where(~outside).astype(pd.CategoricalDtype(categories))
    for c in recoded:
        categories = known.get(str(c))
        if categories is None or list(frame[c].cat.categories) == list(categories):
            continue  # else re-coded: fewer categories (a sample's) would turn the model's others into missing
        outside = frame[c].notna() & ~frame[c].isin(categories)
        if outside.any():
            lost[str(c)] = sorted({str(v) for v in frame[c][outside]})[:5]
        out[c] = frame[c].cat.set_categories(categories)
    if lost:
        import warnings

        listed = "; ".join(f"{c!r}: {values}" for c, values in lost.items())
        warnings.warn(f"{name}: values outside the categories the model was fitted with ({listed}) reach the model "
                      "as missing values, so they are explained as missing", UserWarning, stacklevel=3)
    return out


def categorical_columns(model: Any) -> list[str] | None:
    """The names of the columns an XGBoost or LightGBM model (fitted on a DataFrame) splits on as categories, in
    order, or None when the model does not say."""
    try:
        if hasattr(model, "get_booster") or type(model).__module__.startswith("xgboost"):
            booster = model.get_booster() if hasattr(model, "get_booster") else model
            names, types = booster.feature_names, booster.feature_types
            if names and types and len(names) == len(types):
                return [str(n) for n, t in zip(names, types) if t == "c"]
            return None
        booster = getattr(model, "booster_", model)
        stored = getattr(booster, "pandas_categorical", None)
        if stored and hasattr(booster, "dump_model"):  # LightGBM lists the values of categorical features only
            infos = booster.dump_model(num_iteration=1).get("feature_infos", {})
            names = [str(n) for n, info in infos.items() if isinstance(info, dict) and info.get("values")]
            return names if len(names) == len(stored) else None
    except Exception:  # noqa: BLE001  (not a booster that says)
        return None
    return None


def training_categories(source: Any, model, names: list | None = None) -> dict[str, list]:
    """The categories each categorical column had when the model was fitted, as the model stores them
    (``names``: the categorical columns in order, when the model's dtypes are not known)."""
    import pandas as pd

    booster = getattr(source, "booster_", source)
    stored = getattr(booster, "pandas_categorical", None)  # LightGBM: the categorical columns' lists, in order
    if stored and (model.dtypes is not None or names is not None):
        if names is None:
            names = [c for c, dt in zip(model.columns, model.dtypes) if isinstance(dt, pd.CategoricalDtype)]
        if len(names) == len(stored):
            return dict(zip(names, stored))
    if hasattr(source, "get_booster") or type(source).__module__.startswith("xgboost"):
        xgb_booster = source.get_booster() if hasattr(source, "get_booster") else source
        try:
            arrays = xgb_booster.get_categories(export_to_arrow=True).to_arrow()
        except ImportError as exc:  # the categories must be the model's own, not guessed from the rows
            raise ImportError("model: reading the categories an XGBoost model was trained with needs pyarrow "
                              "(pip install pyarrow)") from exc
        except (AttributeError, TypeError, ValueError):
            return {}
        return {name: values.to_pylist() for name, values in arrays if values is not None}
    return _hgb_text_categories(source)


def _hgb_text_categories(source: Any) -> dict[str, list]:
    """HistGradientBoosting fitted on a DataFrame: the categories of its categorical columns that are not
    numbers (its trees split on their codes, the positions in these lists; numeric categories are split on
    as values, see :func:`interplay.trees.parsers._hgb_columns`)."""
    pre = getattr(source, "_preprocessor", None)
    names = getattr(source, "feature_names_in_", None)
    if pre is None or names is None or "HistGradientBoosting" not in type(source).__name__:
        return {}
    masks = {name: np.asarray(cols) for name, _, cols in pre.transformers_ if name != "remainder"}
    columns = np.asarray(names)[np.flatnonzero(masks["encoder"])]
    lists = pre.named_transformers_["encoder"].categories_
    # a column fitted with missing values has NaN as its last category (the missing direction): not a category
    return {str(c): [v for v in cats if not (isinstance(v, float) and np.isnan(v))]
            for c, cats in zip(columns, lists) if text_categories(cats)}
