"""Image games on scikit-learn's digits: agree with the classifier evaluated on masked images built by hand."""

import networkx as nx
import numpy as np
import pytest

import interplay as ip
from interplay._bits import all_coalitions
from interplay.modalities import ImageExplainer, image_game, region_adjacency_graph


@pytest.fixture(scope="module")
def digits_model():
    from sklearn.datasets import load_digits
    from sklearn.linear_model import LogisticRegression

    X, y = load_digits(return_X_y=True)
    clf = LogisticRegression(max_iter=300).fit(X[:600] / 16, y[:600])
    images = X[600:610].reshape(-1, 8, 8) / 16

    def predict(batch):
        return clf.predict_proba(np.asarray(batch).reshape(len(batch), -1))

    return clf, images, predict


@pytest.mark.parametrize("baseline", ["zero", "mean", "blur", 0.25])
def test_patch_game_matches_model_on_masked_images(digits_model, baseline):
    clf, images, predict = digits_model
    image = images[0]
    game = image_game(predict, image, segments="patches", patch_size=4, baseline=baseline, classifier=True)
    assert game.n_players == 4
    label = int(np.argmax(predict(image[None])[0]))
    if baseline == "zero":
        base = np.zeros_like(image)
    elif baseline == "mean":
        base = np.full_like(image, image.mean())
    elif baseline == "blur":
        from scipy.ndimage import gaussian_filter
        base = gaussian_filter(image, sigma=2.0)
    else:
        base = np.full_like(image, baseline)
    coalitions = all_coalitions(4)
    expected = []
    for S in coalitions:
        masked = base.copy()
        for p, present in enumerate(S):
            r, c = divmod(p, 2)
            if present:
                masked[4 * r:4 * r + 4, 4 * c:4 * c + 4] = image[4 * r:4 * r + 4, 4 * c:4 * c + 4]
        expected.append(predict(masked[None])[0, label])
    np.testing.assert_allclose(game(coalitions), expected, atol=1e-15)
    phi = ip.shapley(game)
    assert phi.values.sum() + phi.baseline == pytest.approx(predict(image[None])[0, label])


def test_slic_superpixels_and_adjacency(digits_model):
    _, images, predict = digits_model
    explainer = ImageExplainer(predict, segments="slic", n_segments=8, classifier=True, baseline="blur")
    game = explainer.game(images[1])
    assert 2 <= game.n_players <= 12
    assert set(np.unique(game.segments)) == set(range(game.n_players))
    graph = game.graph
    assert nx.is_connected(graph) and graph.number_of_nodes() == game.n_players
    for i, j in graph.edges:  # adjacent regions really touch
        a, b = game.segments == i, game.segments == j
        touch = (a[:, :-1] & b[:, 1:]) | (b[:, :-1] & a[:, 1:])
        touch_v = (a[:-1] & b[1:]) | (b[:-1] & a[1:])
        assert touch.any() or touch_v.any()
    coalitions = all_coalitions(game.n_players)[::7]
    keep = coalitions[:, game.segments]
    direct = predict(np.where(keep, images[1][None], game.baseline[None]))
    label = int(np.argmax(predict(images[1][None])[0]))
    np.testing.assert_allclose(game(coalitions), direct[:, label], atol=1e-15)


def test_patch_grid_graph_and_rgb_images():
    segments = np.kron(np.arange(9).reshape(3, 3), np.ones((2, 2), dtype=int))
    graph = region_adjacency_graph(segments)
    grid = nx.convert_node_labels_to_integers(nx.grid_2d_graph(3, 3), ordering="sorted")
    assert nx.utils.edges_equal(sorted(graph.edges), sorted(grid.edges))
    rng = np.random.default_rng(0)
    image = rng.random((6, 6, 3))
    weights = rng.normal(size=(6, 6, 3))

    def model(batch):
        return (np.asarray(batch) * weights).sum(axis=(1, 2, 3))

    game = image_game(model, image, segments=segments, baseline="mean")
    phi = ip.shapley(game)  # linear model: region value = sum of w * (x - mean) over the region
    contribution = (weights * (image - image.mean(axis=(0, 1)))).sum(axis=2)
    np.testing.assert_allclose(phi.values, [contribution[segments == r].sum() for r in range(9)], atol=1e-12)
    with pytest.raises(ValueError, match="segments: expected an integer label image"):
        image_game(model, image, segments=np.zeros((2, 2), dtype=int))
    with pytest.raises(ValueError, match="baseline: expected"):
        image_game(model, image, segments="patches", baseline="noise")


def test_rgb_slic_game():
    rng = np.random.default_rng(3)
    image = np.zeros((12, 12, 3))
    image[:6, :, 0] = 1.0
    image[6:, :6, 1] = 1.0
    image += 0.01 * rng.random(image.shape)
    model = lambda batch: np.asarray(batch)[..., 0].mean(axis=(1, 2)) - np.asarray(batch)[..., 1].mean(axis=(1, 2))  # noqa: E731
    game = image_game(model, image, segments="slic", n_segments=4, compactness=10.0, baseline="blur")
    assert game.n_players >= 2 and game.segments.shape == (12, 12)
    phi = ip.shapley(game)
    assert phi.values.sum() + phi.baseline == pytest.approx(model(image[None])[0])
    np.testing.assert_allclose(game.images(np.ones((1, game.n_players), bool))[0], image)
