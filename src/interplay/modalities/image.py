"""Images as games over regions: superpixels (scikit-image SLIC) or square patches.

``v(S)`` = the model's utility on the image whose regions outside ``S`` take a baseline: ``"zero"``, the
image's ``"mean"`` (per channel), a ``"blur"``-red copy (Gaussian, ``blur_sigma`` pixels), a number, or an
image of the same shape. ``game.graph`` is the region adjacency graph (4-connectivity: two regions are adjacent
when two of their pixels share an edge); for patches it is the patch grid, the graph of L-/C-Shapley on images.
Masked images of a batch of coalitions are built as one array. Cost: one image per coalition.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_bool, check_int, host_data
from ..games import Game
from ._common import (
    ModalityExplainer,
    check_probabilities,
    explained_output,
    model_calls,
    output_transform,
)


def patch_segments(shape: tuple[int, int], patch_size: int) -> np.ndarray:
    """Label image of square ``patch_size`` patches (row-major; border patches may be smaller)."""
    patch_size = check_int(patch_size, "patch_size", minimum=1)
    rows = np.arange(shape[0]) // patch_size
    cols = np.arange(shape[1]) // patch_size
    return rows[:, None] * (cols.max() + 1) + cols[None, :]


def slic_segments(image: np.ndarray, *, n_segments: int, compactness: float) -> np.ndarray:
    """SLIC superpixels (scikit-image), labels ``0..k-1``."""
    from skimage.segmentation import slic

    channel_axis = -1 if image.ndim == 3 else None
    return slic(image.astype(float), n_segments=n_segments, compactness=compactness, start_label=0,
                channel_axis=channel_axis)


def region_adjacency_graph(segments: np.ndarray):
    """networkx graph over the labels ``0..k-1`` of ``segments``; an edge joins regions with touching pixels."""
    import networkx as nx

    segments = np.asarray(segments)
    pairs = np.concatenate([
        np.stack([segments[:, :-1].ravel(), segments[:, 1:].ravel()], axis=1),
        np.stack([segments[:-1, :].ravel(), segments[1:, :].ravel()], axis=1),
    ])
    pairs = np.unique(np.sort(pairs[pairs[:, 0] != pairs[:, 1]], axis=1), axis=0)
    graph = nx.Graph()
    graph.add_nodes_from(range(int(segments.max()) + 1))
    graph.add_edges_from(map(tuple, pairs.tolist()))
    return graph


def baseline_image(image: np.ndarray, baseline: Any, *, blur_sigma: float = 2.0) -> np.ndarray:
    """The image that removed regions show: ``"zero"``, ``"mean"``, ``"blur"``, a number or an array."""
    if isinstance(baseline, str):
        if baseline == "zero":
            return np.zeros_like(image)
        if baseline == "mean":
            mean = image.mean(axis=(0, 1), keepdims=True)
            return np.broadcast_to(mean, image.shape).copy()
        if baseline == "blur":
            from scipy.ndimage import gaussian_filter

            sigma = (blur_sigma, blur_sigma) + (0,) * (image.ndim - 2)
            return gaussian_filter(image, sigma=sigma)
        raise ValueError(f"baseline: expected 'zero', 'mean', 'blur', a number or an image, got {baseline!r}")
    try:
        base = np.asarray(host_data(baseline), dtype=float)  # a tensor requiring grad, or on a GPU, too
    except (TypeError, ValueError):
        raise ValueError(f"baseline: expected 'zero', 'mean', 'blur', a number or an image, got "
                         f"{type(baseline).__name__}") from None
    try:
        base = np.broadcast_to(base, image.shape).astype(float)
    except ValueError:
        raise ValueError(f"baseline: expected a number or an image of the image's shape {image.shape} (or one "
                         f"that broadcasts to it, e.g. one value per channel), got shape {base.shape}") from None
    if not np.isfinite(base).all():
        raise ValueError("baseline: contains NaN or inf")
    return base


def region_names(segments: np.ndarray) -> list[str]:
    """``"region{i} (y, x)"``: each region's id and the pixel (row, column) of its centre of mass, so a value can
    be found on the image without the plot (region ids alone said nothing of where a region is)."""
    n = int(segments.max()) + 1
    rows, cols = np.indices(segments.shape)
    size = np.maximum(np.bincount(segments.ravel(), minlength=n), 1)
    y = np.bincount(segments.ravel(), weights=rows.ravel(), minlength=n) / size
    x = np.bincount(segments.ravel(), weights=cols.ravel(), minlength=n) / size
    return [f"region{i} ({round(y[i], 1):g}, {round(x[i], 1):g})" for i in range(n)]


class ImageGame(Game):
    """A :class:`~interplay.games.Game` whose players are the regions of ``segments`` (``(H, W)`` labels)."""

    graph_name = "grid"

    def __init__(self, value_fn, image: np.ndarray, segments: np.ndarray, baseline: np.ndarray, *,
                 batch_size: int | None = None) -> None:
        self.image, self.segments, self.baseline = image, segments, baseline
        n = int(segments.max()) + 1
        super().__init__(value_fn, n, region_names(segments), batch_size=batch_size)

    @property
    def graph(self):
        """Region adjacency graph (networkx), node ``i`` = region ``i``."""
        return region_adjacency_graph(self.segments)

    def null_players(self) -> np.ndarray:
        """The regions whose pixels are the baseline's (every channel, strictly: ``-0.0`` is not ``0.0``): their
        removal shows the same image, so they are null players (:mod:`interplay.fixed_players`)."""
        same = (self.image == self.baseline) & (np.signbit(self.image) == np.signbit(self.baseline))
        if same.ndim == 3:
            same = same.all(axis=2)
        varying = np.zeros(self.n_players, dtype=bool)
        np.logical_or.at(varying, self.segments.ravel(), ~same.ravel())
        return ~varying

    def images(self, coalitions: Any) -> np.ndarray:
        """The ``(k, H, W[, C])`` images the model sees for ``coalitions``."""
        coalitions = np.atleast_2d(np.asarray(coalitions, dtype=bool))
        return masked_images(self.image, self.segments, self.baseline, coalitions)


CALL_BYTES = 2**28  # bytes of masked images per model call when max_rows is None (256 MiB)
MAX_CALL_ROWS = 1024  # and at most this many images


def masked_images(image: np.ndarray, segments: np.ndarray, baseline: np.ndarray, coalitions: np.ndarray) -> np.ndarray:
    """Present regions from ``image``, absent ones from ``baseline``: one array for all coalitions."""
    keep = coalitions[:, segments]  # (k, H, W)
    if image.ndim == 3:
        keep = keep[..., None]
    return np.where(keep, image[None], baseline[None])


def _batches_as(model, layout):
    """A copy of ``model`` (a :class:`~interplay.models.ModelFunction`: its kind, classes and checks) that calls it on
    ``layout(batch)``."""
    import copy

    moved = copy.copy(model)
    fn, margin = model.fn, model.margin
    moved.fn = lambda batch: fn(layout(batch))
    if margin is not None:
        moved.margin = lambda batch: margin(layout(batch))
    return moved


def image_game(model: Any, image: Any, *, segments: Any = "slic", n_segments: int = 16, compactness: float = 1.0,
               patch_size: int = 4, baseline: Any = "zero", blur_sigma: float = 2.0, target: Any = None,
               output: str = "auto", classifier: bool | None = None, max_rows: int | None = None,
               channels_first: bool = False) -> ImageGame:
    """The game of ``image`` (``(H, W)`` or ``(H, W, C)``) for a model on a batch of images ``(N, H, W[, C])``;
    ``channels_first=True`` (a PyTorch CNN): the image ``(C, H, W)`` (or ``(H, W)``) and the batches
    ``(N, C, H, W)`` (``(N, 1, H, W)`` for an ``(H, W)`` image).

    ``segments``: ``"slic"`` (``n_segments``, ``compactness``), ``"patches"`` (``patch_size``) or an
    ``(H, W)`` integer label image. ``model``: a callable returning ``(N,)`` or ``(N, K)``, or an object with
    ``predict_proba``/``predict`` on image batches. ``max_rows`` bounds the images per model call (None: as many
    as fit :data:`CALL_BYTES`, at most 1,024: a 224 x 224 colour image takes 1.2 MB in float64, so 1,024 of them
    took 1.2 GB a call); progress is shown once the calls take a few seconds.
    ``target``: by default a binary classifier's positive class (its second class, for every image alike), a
    classifier of more than two classes its predicted class for ``image``, a regressor its only output; a class
    label, an output index, or ``"predicted"``. A model declared ``classifier=True`` must return class
    probabilities on the image and on its baseline image (else a ValueError, as in the Explainer).
    """
    from ..models import as_model

    model = as_model(model, classifier=classifier)
    image = np.asarray(host_data(image), dtype=float)  # a tensor on a GPU too
    if check_bool(channels_first, "channels_first"):
        if image.ndim not in (2, 3):
            raise ValueError(f"image: expected (C, H, W) or (H, W) with channels_first=True, got shape {image.shape}")
        plain = image.ndim == 2
        image = image if plain else np.moveaxis(image, 0, -1)  # (H, W, C) inside; the model gets (N, C, H, W)
        layout = (lambda batch: batch[:, None]) if plain else (lambda batch: np.moveaxis(batch, -1, 1))
        model = _batches_as(model, layout)
        if not plain and not isinstance(baseline, str) and np.ndim(host_data(baseline)) == 3:
            # a baseline image in the image's (C, H, W) layout, or (C, 1, 1) per channel: (H, W, C) inside too
            baseline = np.moveaxis(np.asarray(host_data(baseline)), 0, -1)
    else:
        layout = None
    if image.ndim not in (2, 3):
        raise ValueError(f"image: expected (H, W) or (H, W, C), got shape {image.shape}")
    if min(image.shape[:2]) == 0:
        raise ValueError(f"image: expected at least one pixel, got shape {image.shape}")
    if not np.isfinite(image).all():  # (the baseline is refused so too; the model's check named no image)
        bad = np.argwhere(~np.isfinite(image))
        raise ValueError(f"image: expected finite pixel values, got NaN or inf at {len(bad)} of {image.size} "
                         f"values (first at {tuple(bad[0].tolist())})")
    if min(image.shape[:2]) == 1:  # e.g. a flattened row of a table of images: its patches would be strips
        import warnings

        warnings.warn(f"image: shape {image.shape} is one pixel high or wide; if it is a flattened image, pass it "
                      "in its (H, W) shape (e.g. row.reshape(8, 8) for sklearn's digits)", UserWarning, stacklevel=3)
    elif layout is None and image.ndim == 3 and image.shape[0] in (1, 3, 4) and image.shape[2] not in (1, 3, 4):
        import warnings  # a torch-style (C, H, W) image: read as C rows of H x W pixels with W channels

        warnings.warn(f"image: shape {image.shape} looks channels-first (C, H, W), but images are read as (H, W, C) "
                      f"(here {image.shape[0]} pixels high with {image.shape[2]} channels); pass "
                      "channels_first=True (a PyTorch CNN: the model then gets (N, C, H, W) batches) or "
                      "image.transpose(1, 2, 0)", UserWarning, stacklevel=3)
    if isinstance(segments, str):
        if segments == "slic":
            labels = slic_segments(image, n_segments=n_segments, compactness=compactness)
        elif segments == "patches":
            labels = patch_segments(image.shape[:2], patch_size)
        else:
            raise ValueError(f"segments: expected 'slic', 'patches' or a label image, got {segments!r}")
    else:
        labels = np.asarray(segments)
        if labels.shape != image.shape[:2] or not np.issubdtype(labels.dtype, np.integer):
            raise ValueError(f"segments: expected an integer label image of shape {image.shape[:2]}, "
                             f"got {labels.dtype} {labels.shape}")
    _, labels = np.unique(labels, return_inverse=True)  # labels 0..k-1
    labels = labels.reshape(image.shape[:2])
    base = baseline_image(image, baseline, blur_sigma=blur_sigma)
    max_rows = check_int(max_rows, "max_rows", minimum=1, allow_none=True)
    if max_rows is None:  # the masked images are float arrays of the image's shape
        max_rows = int(min(MAX_CALL_ROWS, max(1, CALL_BYTES // max(1, np.result_type(image, base).itemsize
                                                                    * image.size))))
    pair = np.stack([image, base])  # the image and its baseline image: one call for both (max_rows=1: two)
    try:
        full = np.concatenate([model(pair[k:k + max_rows]) for k in range(0, 2, max_rows)])
    except RuntimeError as error:  # the model's own failure (ModelFunction): say which image it got, and how
        got = (f"(N, H, W) or (N, H, W, C) arrays, here {pair.shape}" if layout is None else
               f"(N, C, H, W) arrays, here {layout(pair).shape}")
        raise RuntimeError(f"image: the model failed on a batch of this image (shape {image.shape}; the model "
                           f"gets {got}); is it the size and layout the model expects? ({error})") from error
    check_probabilities(model, full, "the image and on its baseline image")
    transform = output_transform(model, full, target, output)

    def value_fn(coalitions: np.ndarray) -> np.ndarray:
        return model_calls(lambda chunk: transform(model(masked_images(image, labels, base, chunk))),
                           coalitions, max_rows, "image")

    value_fn.__name__ = f"image game of {model.name}"
    game = ImageGame(value_fn, image, labels, base)
    # results record their unit and target, and the image and its regions (ip.shapley(game) too, not only the
    # ImageExplainer): ip.plot.image and ip.io.to_shap draw them
    game.explained = {**explained_output(model, transform), "image": image, "segments": labels}
    return game


class ImageExplainer(ModalityExplainer):
    """Explain an image model: ``ImageExplainer(model, segments="patches", patch_size=2).shapley(image)``.

    Options as in :func:`image_game`. Default target: a binary classifier's positive class for every image; a
    classifier of more than two classes (e.g. digits), each image's predicted class (``target="predicted"``: a
    binary one's too). A PyTorch CNN takes ``(N, C, H, W)`` batches: ``channels_first=True`` gives it those, and
    its images are then ``(C, H, W)`` too.
    """

    def __init__(self, model: Any, *, segments: Any = "slic", n_segments: int = 16, compactness: float = 1.0,
                 patch_size: int = 4, baseline: Any = "zero", blur_sigma: float = 2.0, target: Any = None,
                 output: str = "auto", classifier: bool | None = None, max_rows: int | None = None,
                 channels_first: bool = False) -> None:
        super().__init__(model, target=target, output=output, classifier=classifier)
        self.options = dict(segments=segments, n_segments=n_segments, compactness=compactness,
                            patch_size=patch_size, baseline=baseline, blur_sigma=blur_sigma, max_rows=max_rows,
                            channels_first=channels_first)

    def annotations(self, game: ImageGame) -> dict:
        """Results carry the image and its regions (``info["image"]``, ``info["segments"]``):
        ``ip.plot.image(result)`` and the report draw them; and what absent regions showed (``info["removal"]``,
        e.g. ``"regions set to the baseline 'blur' (sigma 2)"``), which the values depend on."""
        baseline = self.options["baseline"]
        if isinstance(baseline, str):
            what = f"the baseline {baseline!r}" + (f" (sigma {self.options['blur_sigma']:g})"
                                                   if baseline == "blur" else "")
        elif np.ndim(baseline) == 0:
            what = f"the value {float(baseline):g}"
        else:
            what = "the given baseline image"
        return {"image": game.image, "segments": np.asarray(game.segments), "removal": f"regions set to {what}"}

    def game(self, image: Any) -> ImageGame:
        """The game of ``image``."""
        return image_game(self.model, image, target=self.target, output=self.output, **self.options)
