"""Results on disk: exact round-trips (JSON and npz), clear errors, and the shap / shapiq converters."""

import json
from dataclasses import fields, replace

import numpy as np
import pytest

import interplay as ip
from interplay import io
from interplay.synthetic import UnanimitySum


def same(a, b):
    """Exact equality of two results: same type, every field equal (arrays bit for bit, dict order kept)."""
    assert type(a) is type(b)
    for f in fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        same_value(x, y, f.name)


def same_value(x, y, where):
    if hasattr(x, "__dataclass_fields__"):
        return same(x, y)
    if isinstance(x, np.ndarray):
        assert isinstance(y, np.ndarray) and x.dtype == y.dtype and x.shape == y.shape, where
        assert x.tobytes() == y.tobytes(), where
        return
    if isinstance(x, dict):
        assert isinstance(y, dict) and list(x) == list(y), where
        for k in x:
            same_value(x[k], y[k], f"{where}[{k!r}]")
        return
    if isinstance(x, (list, tuple)):
        assert type(x) is type(y) and len(x) == len(y), where
        for i, (u, v) in enumerate(zip(x, y)):
            same_value(u, v, f"{where}[{i}]")
        return
    if isinstance(x, float):  # np.float64 is a float: same value bit for bit (NaN, -0.0 included)
        assert isinstance(y, float) and np.float64(x).tobytes() == np.float64(y).tobytes(), (where, x, y)
        return
    assert type(x) is type(y) and x == y, (where, x, y)


INFO = {"budget": 256, "seed": 7, "removal": "marginal", "output": "probability", "rows": [0, 3],
        "pair": (1, 2), "nested": {"a": [1.5, None, True], 3: "int key"}, "array": np.arange(6.0).reshape(2, 3),
        "ints": np.array([1, 2], dtype=np.int64), "nan": float("nan"), "__odd": "x", "tiny": 5e-324,
        "text": "<script>alert(1)</script> \u00e9\u2028"}


@pytest.fixture(scope="module")
def results():
    game = UnanimitySum.random(6, 8, 3, random_state=3).game()
    shap = ip.shapley(game)
    rng = np.random.default_rng(0)
    noisy = replace(shap, values=shap.values + rng.normal(size=6) * 1e-3, std_errors=np.array([np.nan, np.inf,
                    -np.inf, 0.0, -0.0, 1e-310]), info=INFO)
    inter = ip.interactions(game, index="sii", order=3)
    inter_se = replace(inter, std_errors={k: 0.1 * i for i, k in enumerate(inter.values)}, info=INFO)
    biv = ip.bivariate(game)
    biv = replace(biv, std_errors=np.full((6, 6), 1 / 3), info=INFO, univariate=noisy)
    m = 40
    expl = ip.Explanation(rng.normal(size=(m, 6)), rng.normal(size=m), rng.normal(size=(m, 6)), shap.feature_names,
                          "exact", np.full(m, 64), std_errors=rng.random((m, 6)), info=INFO)
    return {"attribution": shap, "noisy": noisy, "interactions": inter, "inter_se": inter_se, "bivariate": biv,
            "explanation": expl}


@pytest.mark.parametrize("suffix", [".json", ".npz"])
@pytest.mark.parametrize("name", ["attribution", "noisy", "interactions", "inter_se", "bivariate", "explanation"])
def test_round_trip_is_exact(results, name, suffix, tmp_path):
    result = results[name]
    path = result.save(tmp_path / f"r{suffix}")
    back = io.load(path)
    same(result, back)
    same(result, type(result).load(path))
    same(result, io.from_dict(json.loads(json.dumps(io.to_dict(result)))))


def test_json_is_standard_and_carries_metadata(results, tmp_path):
    path = io.save(results["noisy"], tmp_path / "a.json")
    text = path.read_text()
    json.loads(text, parse_constant=lambda c: pytest.fail(f"non-standard JSON constant {c}"))
    header = io.read_header(path)
    assert header["type"] == "Attribution" and header["format_version"] == io.FORMAT_VERSION
    assert header["interplay_version"] == ip.__version__
    assert header["info"]["budget"] == 256 and header["info"]["removal"] == "marginal"


def test_feature_names_survive(tmp_path):
    names = ["<script>alert(1)</script>", "caf\u00e9", "a\"b", "x\ny"]
    a = ip.Attribution([1.0, 2.0, 3.0, 4.0], 0.5, names, 16, "exact")
    assert io.load(a.save(tmp_path / "a.json")).feature_names == tuple(names)


def test_unstorable_info_warns_and_stores_repr(tmp_path):
    a = ip.Attribution([1.0], 0.0, ["a"], 2, "exact", info={"obj": object()})
    with pytest.warns(UserWarning, match="info\\['obj'\\]"):
        a.save(tmp_path / "a.json")
    assert io.load(tmp_path / "a.json").info["obj"].startswith("<object object")


def test_errors(results, tmp_path):
    a = results["attribution"]
    with pytest.raises(ValueError, match=".json or .npz"):
        a.save(tmp_path / "a.txt")
    with pytest.raises(FileNotFoundError, match="no such result file"):
        io.load(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ValueError, match="not a readable interplay result"):
        io.load(tmp_path / "bad.json")
    (tmp_path / "other.json").write_text('{"hello": 1}')
    with pytest.raises(ValueError, match="not an interplay result"):
        io.load(tmp_path / "other.json")
    (tmp_path / "bad.npz").write_bytes(b"PK\x03\x04 garbage")
    with pytest.raises(ValueError, match="not a readable"):
        io.load(tmp_path / "bad.npz")
    doc = io.to_dict(a)
    doc["format_version"] = 99
    (tmp_path / "new.json").write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="newer"):
        io.load(tmp_path / "new.json")
    del doc["fields"]["values"]
    doc["format_version"] = 1
    (tmp_path / "missing_field.json").write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="missing the field 'values'"):
        io.load(tmp_path / "missing_field.json")
    a.save(tmp_path / "attr.json")
    with pytest.raises(TypeError, match="holds a Attribution, not a Interactions"):
        ip.Interactions.load(tmp_path / "attr.json")
    with pytest.raises(TypeError, match="expected one of"):
        io.save({"values": [1]}, tmp_path / "x.json")


def test_npz_loads_without_pickle(results, tmp_path):
    path = results["explanation"].save(tmp_path / "e.npz")
    with np.load(path, allow_pickle=False) as npz:  # would raise if any entry needed unpickling
        assert "__document__" in npz.files and all(npz[k].dtype != object for k in npz.files)


def test_to_shap(results):
    shap = pytest.importorskip("shap")
    a = results["attribution"]
    e = a.to_shap()
    assert isinstance(e, shap.Explanation)
    np.testing.assert_array_equal(e.values, a.values)
    assert e.base_values == a.baseline and list(e.feature_names) == list(a.feature_names)
    ex = results["explanation"].to_shap()
    np.testing.assert_array_equal(ex.values, results["explanation"].values)
    np.testing.assert_array_equal(ex.data, results["explanation"].data)
    np.testing.assert_array_equal(results["bivariate"].to_shap().values, results["bivariate"].univariate.values)


def test_to_shapiq(results):
    shapiq = pytest.importorskip("shapiq")
    inter = results["interactions"]
    iv = inter.to_shapiq()
    assert isinstance(iv, shapiq.InteractionValues) and iv.index == "SII" and iv.max_order == 3
    for key, value in inter.values.items():
        assert iv[key] == pytest.approx(value, abs=1e-12)
    assert iv.baseline_value == inter.baseline
    sv = results["attribution"].to_shapiq()
    assert sv.index == "SV"
    for i, v in enumerate(results["attribution"].values):
        assert sv[(i,)] == pytest.approx(v, abs=1e-12)
    rows = results["explanation"].to_shapiq()  # one per row, as shapiq's explain_X (it had no to_shapiq)
    assert len(rows) == len(results["explanation"]) and all(r.index == "SV" for r in rows)
    assert rows[-1][(0,)] == pytest.approx(results["explanation"].values[-1, 0], abs=1e-12)
    excess = replace(inter, index="excess")
    with pytest.raises(ValueError, match="no index matching 'excess'"):
        excess.to_shapiq()


def test_to_shap_of_a_text_result_carries_its_tokens():
    """shap's text plot needs the tokens as data; to_shap gave None, and shap.plots.text raised."""
    shap = pytest.importorskip("shap")
    from interplay.modalities import TextExplainer

    result = TextExplainer(lambda texts: np.array([t.count("good") - t.count("bad") for t in texts], float),
                           output="prediction").shapley("not a bad movie , good")
    converted = result.to_shap()
    assert result.info["tokens"] == ["not", "a", "bad", "movie", ",", "good"]
    assert list(converted.data) == ["not ", "a ", "bad ", "movie ", ", ", "good"]  # shap's tokens carry spaces
    assert "movie" in shap.plots.text(converted, display=False)


def test_to_shapiq_calls_tree_results_exact():
    pytest.importorskip("shapiq")
    sklearn = pytest.importorskip("sklearn.ensemble")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    model = sklearn.GradientBoostingRegressor(n_estimators=10, random_state=0).fit(X, X[:, 0] * X[:, 1])
    result = ip.Explainer(model, X[:10]).interactions(X[:1], method="tree")
    assert result.method == "tree" and result.to_shapiq().estimated is False  # was True


def test_explainer_results_record_an_int_seed(tmp_path):
    """The README says saved results carry their seed; the Python API's did not."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 5))
    ex = ip.Explainer(lambda Z: Z[:, 0] * Z[:, 1] + Z[:, 2], X[:8])
    many = ex.shapley(X[:2], method="permutation", budget=40, random_state=123)
    one = ex.bivariate(X[:1], method="permutation", budget=40, random_state=np.int64(7))
    for result, seed in ((many, 123), (one, 7)):
        assert ip.load(ip.save(result, tmp_path / "r.json")).info["seed"] == seed
    again = ex.shapley(X[:2], method="permutation", budget=40, random_state=many.info["seed"])
    np.testing.assert_array_equal(again.values, many.values)
    assert "seed" not in ex.shapley(X[:1], method="permutation", budget=40,
                                    random_state=np.random.default_rng(1)).info


def test_load_errors_say_what_is_wrong(tmp_path):
    with pytest.raises(IsADirectoryError, match="is a folder.*load_run"):
        ip.load(tmp_path)
    (tmp_path / "empty.npz").write_bytes(b"")
    with pytest.raises(ValueError, match="empty.npz.*not a readable interplay result file"):  # was a bare EOFError
        ip.load(tmp_path / "empty.npz")
    path = ip.save(ip.Attribution([1.0, 2.0], 0.0, ["a", "b"], 3, "exact"), tmp_path / "r.json")
    document = json.loads(path.read_text())
    document["format_version"] = "1"
    path.write_text(json.dumps(document))
    with pytest.raises(ValueError, match="format_version: expected a whole number"):  # was "newer than"
        ip.load(path)
    document["format_version"] = 1
    document["fields"]["feature_names"] = ["a"]  # two values, one name: refused when read, not later
    path.write_text(json.dumps(document))
    with pytest.raises(ValueError, match=r"values: expected shape \(1,\)"):
        ip.load(path)


def test_results_refuse_values_that_do_not_match_their_features():
    with pytest.raises(ValueError, match=r"values: expected shape \(1,\)"):
        ip.Attribution(np.arange(6.0), 0.0, ["x"], 1, "exact")
    with pytest.raises(ValueError, match=r"std_errors: expected shape \(2,\)"):
        ip.Attribution([1.0, 2.0], 0.0, ["x", "y"], 1, "exact", std_errors=[0.1])
    with pytest.raises(ValueError, match=r"base_values: expected shape \(2,\)"):
        ip.Explanation(np.zeros((2, 3)), np.zeros(3), None, ["a", "b", "c"], "exact", np.zeros(2))
    with pytest.raises(ValueError, match=r"adjacency: expected shape \(2, 2\)"):
        ip.BivariateExplanation(np.zeros((3, 3)), ip.Attribution([1.0, 2.0], 0.0, ["x", "y"], 1, "exact"),
                                ["x", "y"], 1, "exact")


def test_string_arrays_in_info_are_saved(tmp_path):
    """The docstring lets info hold numpy arrays; an array of strings raised a TypeError naming no key."""
    result = ip.Attribution([1.0], 0.0, ["x"], 1, "exact", info={"classes": np.array(["no", "yes"])})
    loaded = ip.load(ip.save(result, tmp_path / "r.json"))
    assert list(loaded.info["classes"]) == ["no", "yes"]
    with pytest.raises(TypeError, match="complex"):  # still refused, as a whole (not a repr per element)
        ip.save(ip.Attribution([1.0], 0.0, ["x"], 1, "exact", info={"z": np.array([1j])}), tmp_path / "z.json")


def test_save_writes_through_a_link_and_refuses_a_write_protected_file(tmp_path, monkeypatch):
    """save() replaced a symlink by a regular file (its target kept the old content), and replaced a chmod 444
    file silently."""
    import os

    old = ip.Attribution([1.0], 0.0, ["x"], 1, "exact")
    new = ip.Attribution([2.0], 0.0, ["x"], 1, "exact")
    target = ip.save(old, tmp_path / "real.json")
    link = tmp_path / "latest.json"
    link.symlink_to(target)
    ip.save(new, link)
    assert link.is_symlink() and ip.load(target).values[0] == 2.0
    monkeypatch.setattr(os, "access", lambda path, mode: False)  # as a non-root user sees a chmod 444 file
    with pytest.raises(OSError, match="write-protected"):
        ip.save(old, target)
    assert ip.load(target).values[0] == 2.0


def test_to_shap_of_a_multi_class_dict_and_of_mixed_classes():
    """A multi-class Explainer's {class: Explanation} was refused ("got dict"); rows of different classes
    (target="predicted") converted silently, and shap's plots pooled them."""
    pytest.importorskip("shap")
    from sklearn.datasets import load_iris
    from sklearn.linear_model import LogisticRegression

    X, y = load_iris(return_X_y=True)
    model = LogisticRegression(max_iter=500).fit(X, y)
    explainer = ip.Explainer(model, X[::15])
    per_class = explainer.shapley(X[[0, 60, 120]], method="exact")
    converted = ip.io.to_shap(per_class)
    assert converted.values.shape == (3, 4, 3) and list(converted.output_names) == ["0", "1", "2"]
    np.testing.assert_array_equal(converted.values[:, :, 2], per_class[2].values)
    np.testing.assert_array_equal(converted.base_values[:, 1], per_class[1].base_values)
    mixed = ip.Explainer(model, X[::15], target="predicted").shapley(X[[0, 60, 120]], method="exact")
    with pytest.warns(UserWarning, match="explain different classes"):
        mixed.to_shap()


def test_a_plain_function_written_for_dataframes_is_told_what_it_gets():
    """shap passes DataFrames to f(df); interplay passes arrays, and the error did not say so."""
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(np.random.default_rng(0).normal(size=(20, 3)), columns=["a", "b", "c"])
    with pytest.raises(RuntimeError, match="a plain function gets a numpy array"):
        ip.Explainer(lambda D: D["a"] * D["b"], frame[:10]).shapley(frame[10:11], progress=False)


def test_unstorable_arrays_in_info_name_their_key(tmp_path):
    result = ip.Attribution([1.0], 0.0, ["x"], 1, "exact", info={"raw": np.array([b"ab"])})
    with pytest.raises(TypeError, match=r"info\['raw'\]: cannot store an array of dtype \|S2"):
        ip.save(result, tmp_path / "r.json")


def test_to_shapiq_empty_set_as_shapiqs_exact_computer():
    """to_shapiq put v(empty) at () for every index; shapiq's ExactComputer keeps there the index's own value of
    the empty set for SII, BII and BV (the mean of v over all coalitions for BII and BV), and for FBII the
    intercept, also as baseline_value. Now every exact result converts to what ExactComputer gives on the game."""
    shapiq = pytest.importorskip("shapiq")
    exact_module = pytest.importorskip("shapiq.game_theory.exact")
    n = 4
    table = np.random.default_rng(1).normal(size=2**n) + 3.0

    def v(Z):
        return table[(np.asarray(Z, bool) * (1 << np.arange(n))).sum(axis=1)]

    try:
        computer = exact_module.ExactComputer(n_players=n, game=v)
    except TypeError:  # shapiq 1.4: ExactComputer(game, n_players)
        computer = exact_module.ExactComputer(v, n_players=n)
    game = ip.Game(v, n)
    ours = {"SV": ip.shapley(game, method="exact"), "BV": ip.banzhaf(game, method="exact")}
    for index in ("sii", "bii", "stii", "ksii", "fsii", "fbii", "moebius"):
        result = ip.interactions(game, index=index, order=2, method="exact")
        ours[io._SHAPIQ_INDEX[index]] = result
    for name, result in ours.items():
        converted, truth = io.to_shapiq(result), computer(name, 1 if name in ("SV", "BV") else 2)
        assert isinstance(converted, shapiq.InteractionValues) and converted.index == truth.index
        for key in [(), *result.values] if name not in ("SV", "BV") else [(), (0,), (3,)]:
            assert converted[key] == pytest.approx(truth[key], abs=1e-8), (name, key)
        assert converted.baseline_value == pytest.approx(truth.baseline_value, abs=1e-8), name
    assert io.to_shapiq(ours["BII"])[()] == pytest.approx(table.mean()) and abs(table.mean() - table[0]) > 0.1


# ------------------------------------------------------------------------------ to_shap of an image: pixel level
def _image_result(shape, via="explainer"):
    """An image of ``shape`` ((H, W) or (H, W, C)) explained over 4 regions of 2, 4, 6 and 18 pixels, by a model
    that weighs every pixel (and channel) differently, so that each region has its own nonzero value."""
    from interplay.modalities import ImageExplainer
    from interplay.modalities.image import image_game

    image = np.linspace(0.1, 1.0, int(np.prod(shape))).reshape(shape)
    segments = np.full((5, 6), 3)
    segments[0, :2], segments[1, :4], segments[2:4, :3] = 0, 1, 2
    weights = np.cos(np.arange(image.size))

    def model(batch):
        return np.asarray(batch, dtype=float).reshape(len(batch), -1) @ weights

    if via == "explainer":
        return ImageExplainer(model, segments=segments, output="prediction").shapley(image)
    return ip.shapley(image_game(model, image, segments=segments, output="prediction"))


@pytest.mark.parametrize("shape", [(5, 6), (5, 6, 3)])
@pytest.mark.parametrize("via", ["explainer", "game"])
def test_to_shap_of_an_image_result_spreads_each_region_over_its_pixels(shape, via):
    """shap.plots.image needs values of the image's shape and the pixels as data; to_shap gave one value per
    region and no data. Each pixel (and channel) now carries its region's value / (pixels x channels): a
    region's pixels sum to its value, the image to f(x) - base, as shap's own image explanations."""
    pytest.importorskip("shap")
    result = _image_result(shape, via)
    segments, channels = result.info["segments"], shape[2] if len(shape) == 3 else 1
    assert result.n_features == 4 and np.bincount(segments.ravel()).tolist() == [2, 4, 6, 18]
    converted = io.to_shap(result)
    assert converted.values.shape == converted.data.shape == (1, 5, 6, channels)  # (H, W) as one channel
    np.testing.assert_array_equal(converted.data[0], result.info["image"].reshape(5, 6, channels))
    np.testing.assert_array_equal(converted.base_values, [result.baseline])
    per_region = np.bincount(segments.ravel(), weights=converted.values[0].sum(axis=2).ravel(), minlength=4)
    np.testing.assert_allclose(per_region, result.values, rtol=1e-12, atol=1e-12)
    assert abs(converted.values.sum() - result.values.sum()) < 1e-9
    full, empty = result.info["image"], np.zeros(shape)
    f = (full.ravel() - empty.ravel()) @ np.cos(np.arange(full.size))  # the model is linear: f(x) - f(baseline)
    assert converted.values.sum() == pytest.approx(f)
    # within a region every pixel and channel is alike, and its share is the value over pixels x channels
    region = converted.values[0][segments == 2]
    np.testing.assert_allclose(region, result.values[2] / (6 * channels))


def test_to_shap_of_an_image_result_keeps_the_region_values_with_pixels_false():
    pytest.importorskip("shap")
    result = _image_result((5, 6, 3))
    regions = io.to_shap(result, pixels=False)
    np.testing.assert_array_equal(regions.values, result.values)
    assert regions.values.shape == (4,) and regions.base_values == result.baseline
    assert list(regions.feature_names) == list(result.feature_names) and regions.data is None
    np.testing.assert_array_equal(io.to_shap(result, pixels=True).values, io.to_shap(result).values)
    # the result's own method takes the same choice
    np.testing.assert_array_equal(result.to_shap(pixels=False).values, regions.values)
    assert result.to_shap().values.shape == (1, 5, 6, 3)


def test_to_shap_pixels_of_a_result_without_an_image_is_refused_clearly(results):
    pytest.importorskip("shap")
    for result in (results["attribution"], results["explanation"], {"a": results["explanation"]}):
        with pytest.raises(ValueError, match=r"pixels: expected an image result .* got "):
            io.to_shap(result, pixels=True)
    # None (the default) and False: the region level, as before
    np.testing.assert_array_equal(io.to_shap(results["attribution"], pixels=None).values,
                                  results["attribution"].values)
    with pytest.raises(TypeError, match="pixels: expected True, False or None, got 'yes'"):
        io.to_shap(results["attribution"], pixels="yes")
    # an image whose regions do not line up with the values (e.g. info edited by hand) is named
    image = _image_result((5, 6))
    shifted = replace(image, info={**image.info, "segments": image.info["segments"] + 1})
    with pytest.raises(ValueError, match=r"info\['segments'\] to label the pixels with the region ids 0\.\.3"):
        io.to_shap(shifted)


@pytest.mark.parametrize("shape", [(5, 6), (5, 6, 3)])
def test_shap_image_plot_draws_an_image_result(shape):
    """shap.plots.image(result.to_shap()) raised (region values, no pixels); it now draws the image and, beside
    it, the values on its pixels."""
    shap = pytest.importorskip("shap")
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shap.plots.image(_image_result(shape).to_shap(), show=False)
    drawn = [ax.get_images()[0].get_array().shape for ax in plt.gcf().axes if ax.get_images()]
    assert drawn[0] == shape and (5, 6) in drawn[1:]  # the image (H x W, not one row of W channels), its values
