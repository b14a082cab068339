"""Hybrid rows of a raw table go to a DataFrame model as palette indices (interplay.removal._columns.CodedRows):
the model sees the same frame, value for value and dtype for dtype, and the explanations do not change."""

import numpy as np
import pandas as pd
import pytest

import interplay as ip
from interplay.removal import _columns
from interplay.removal._columns import CodedRows, HybridRows

pytest.importorskip("sklearn")


def mixed_frame(n: int = 60, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "city": rng.choice(["Oslo", "Lima", "Pune", "Kyiv"], n),
        "count": rng.integers(0, 9, n),
        "score": np.where(rng.random(n) < 0.15, np.nan, rng.normal(size=n)),
        "grade": pd.Categorical(rng.choice(["a", "b", "c"], n), categories=["a", "b", "c"]),
        "member": rng.random(n) < 0.5,
        "ratio": rng.normal(size=n).astype(np.float32),
    })
    return frame


def pipeline(frame: pd.DataFrame):
    from sklearn.compose import ColumnTransformer
    from sklearn.impute import SimpleImputer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    encode = ColumnTransformer([
        ("cat", OneHotEncoder(handle_unknown="ignore"), ["city", "grade", "member"]),
        ("num", SimpleImputer(), ["count", "score", "ratio"]),
    ])
    y = (frame["city"].isin(["Oslo", "Pune"]) ^ (frame["count"] > 4)).astype(int)
    return make_pipeline(encode, LogisticRegression(max_iter=500)).fit(frame, y)


def test_coded_rows_are_the_object_rows():
    rng = np.random.default_rng(1)
    frame = mixed_frame()
    objects = frame.to_numpy(dtype=object)
    x, background = objects[0], objects[1:9]
    mask = rng.random((5, objects.shape[1])) < 0.5
    coded = HybridRows(x, background, coded=True)(mask)
    assert isinstance(coded, CodedRows) and coded.shape == (5, 8, objects.shape[1])
    plain = HybridRows(x, background)(mask)
    assert isinstance(plain, np.ndarray) and plain.dtype == object
    as_array = np.asarray(coded)
    assert as_array.dtype == object and as_array.shape == plain.shape
    same = (as_array == plain) | (pd.isna(as_array) & pd.isna(plain))
    assert same.all()
    assert np.asarray(coded.reshape(-1, objects.shape[1])).shape == (40, objects.shape[1])


def test_the_model_gets_the_same_frame_from_coded_rows():
    frame = mixed_frame()
    explainer = ip.Explainer(pipeline(frame), frame.iloc[1:21])
    model = explainer.model
    assert model.dtypes is not None  # a raw table: typed columns
    x = explainer._check_row(frame.iloc[[0]])
    mask = np.random.default_rng(2).random((7, frame.shape[1])) < 0.5
    coded = HybridRows(x, explainer.background, coded=True)(mask).reshape(-1, frame.shape[1])
    fast = model._as_input(coded)
    slow = model._as_input(np.asarray(coded))
    pd.testing.assert_frame_equal(fast, slow)
    assert list(fast.dtypes) == list(model.dtypes)


def test_explanations_do_not_change(monkeypatch):
    frame = mixed_frame()
    explainer = ip.Explainer(pipeline(frame), frame.iloc[1:21])
    rows = frame.iloc[[0, 30, 45]]
    calls = []
    original = _columns.CodedRows.columns

    def counted(self, dtypes, convert):
        calls.append(len(self))
        return original(self, dtypes, convert)

    monkeypatch.setattr(_columns.CodedRows, "columns", counted)
    exact = explainer.shapley(rows, method="exact")
    sampled = explainer.shapley(rows, method="kernel", budget=40, random_state=0)
    assert calls  # the coded path ran
    calls.clear()
    monkeypatch.setattr(_columns.HybridRows, "__init__", _plain_init(_columns.HybridRows.__init__))
    again = ip.Explainer(pipeline(frame), frame.iloc[1:21])
    np.testing.assert_array_equal(again.shapley(rows, method="exact").values, exact.values)
    np.testing.assert_array_equal(again.shapley(rows, method="kernel", budget=40, random_state=0).values,
                                  sampled.values)
    assert not calls  # the object rows' path


def _plain_init(init):
    def plain(self, x, background, *, coded=False):
        init(self, x, background, coded=False)
    return plain


def test_a_palette_its_dtype_refuses_falls_back_to_the_object_rows(monkeypatch):
    frame = mixed_frame()
    explainer = ip.Explainer(pipeline(frame), frame.iloc[1:21])
    model = explainer.model
    x = explainer._check_row(frame.iloc[[0]])
    coded = _columns.Palettes(x, explainer.background).rows(np.zeros((2, frame.shape[1]), dtype=bool))
    coded = coded.reshape(-1, frame.shape[1])
    expected = model._as_input(np.asarray(coded))

    def refuse(self, dtypes, convert):
        raise ValueError("not this dtype")

    monkeypatch.setattr(_columns.CodedRows, "columns", refuse)
    pd.testing.assert_frame_equal(model._as_input(coded), expected)


def test_an_adapter_without_column_dtypes_gets_object_rows():
    from interplay.models.adapters import ModelFunction

    frame = mixed_frame()
    objects = frame.to_numpy(dtype=object)
    coded = HybridRows(objects[0], objects[1:5], coded=True)(np.eye(6, dtype=bool)).reshape(-1, 6)
    seen = []

    def fn(rows):
        seen.append(rows)
        return np.zeros(len(rows))

    ModelFunction(fn, "regressor", "f")(coded)
    ModelFunction(fn, "regressor", "g", columns=tuple(frame.columns))(coded)  # names, no dtypes
    assert isinstance(seen[0], np.ndarray) and seen[0].dtype == object and seen[0].shape == (24, 6)
    assert isinstance(seen[1], pd.DataFrame) and seen[1].shape == (24, 6)


class _CodeModel:  # f = the category's code (-1 when missing) + num
    def __init__(self, frame):
        self.feature_names_in_ = np.array(frame.columns, dtype=object)
        self.n_features_in_ = frame.shape[1]

    def predict(self, X):
        return X["c"].cat.codes.to_numpy(float) + X["num"].to_numpy(float)


@pytest.mark.parametrize("categories, x_value", [
    (pd.to_datetime(["2020-01-01", "2020-01-02"]), "2020-01-01"),  # a date string: matched when alone
    ([0, 1], True),  # a bool among integer categories: matched beside integers, not alone
])
def test_a_categorical_value_is_encoded_the_same_alone_and_beside_others(categories, x_value):
    import warnings

    from interplay.models.adapters import category_codes

    categories = pd.Index(categories)
    alone = category_codes(np.array([x_value, x_value], dtype=object), categories)
    beside = category_codes(np.array([x_value, *categories], dtype=object), categories)
    assert alone[0] == beside[0]
    background = pd.DataFrame({"num": np.arange(6.0), "c": pd.Categorical(list(categories) * 3)})
    x = pd.DataFrame({"num": [0.5], "c": pd.Series([x_value], dtype=object)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a value outside the categories is said, and explained as missing
        explainer = ip.Explainer(_CodeModel(background), background)
        result = explainer.shapley(x, method="exact")
        fx = explainer.model(explainer._check_row(x)[None, :].astype(object))[0, 0]
    assert result.base_values[0] + result.values[0].sum() == pytest.approx(fx)  # efficiency reaches f(x)


def test_category_codes_per_kind_of_value():
    import enum

    from interplay.models.adapters import category_codes

    class Color(enum.Enum):
        RED = 1
        BLUE = 2

    stamps = pd.to_datetime(["2020-01-01", "2020-01-02"])
    cases = [  # values, categories, codes
        ([stamps[0], stamps[1], "2020-01-01"], stamps, [0, 1, 0]),  # a string beside timestamps: as alone
        ([Color.BLUE, Color.BLUE, Color.RED], [Color.RED, Color.BLUE], [1, 1, 0]),  # enum members
        ([np.int64(1), "a", None], [1, "a"], [0, 1, -1]),  # numpy scalars beside strings
        ([np.True_, "x", np.nan], ["x", True], [1, 0, -1]),
        ([pd.Period("2020-01", "M"), pd.NA], pd.PeriodIndex(["2020-01"], freq="M"), [0, -1]),
        ([True, True, np.nan], [0, 1], [-1, -1, -1]),  # a bool is not an integer category, NaN beside or not
        ([True, True], [0, 1], [-1, -1]),
    ]
    for values, categories, expected in cases:
        codes = category_codes(np.array(values, dtype=object), pd.Index(categories))
        assert codes.tolist() == expected, (values, codes)


def test_a_date_string_row_is_explained_as_its_timestamp():
    background = pd.DataFrame({"num": np.arange(6.0),
                               "c": pd.Categorical(pd.to_datetime(["2020-01-01", "2020-01-02"] * 3))})
    stamp = pd.DataFrame({"num": [0.5], "c": pd.Series([pd.Timestamp("2020-01-01")], dtype=object)})
    text = pd.DataFrame({"num": [0.5], "c": pd.Series(["2020-01-01"], dtype=object)})
    explainer = ip.Explainer(_CodeModel(background), background)
    by_stamp, by_text = explainer.shapley(stamp, method="exact"), explainer.shapley(text, method="exact")
    assert by_text.base_values[0] == by_stamp.base_values[0] == pytest.approx(3.0)  # the background's mean
    np.testing.assert_array_equal(by_text.values, by_stamp.values)
