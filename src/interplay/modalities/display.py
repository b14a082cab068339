"""How an image is shown (``ip.plot.image`` and the HTML report alike): values in [0, 1], visible whatever the
range the model took them in."""

from __future__ import annotations

import numpy as np


def displayable(img) -> np.ndarray:
    """The image as floats in [0, 1] for display: grayscale (``(H, W)`` or ``(H, W, 1)``) as ``(H, W)`` from its
    min to its max; colour (``(H, W, 3)``, or RGBA whose alpha is kept, divided by 255 when above 1) as it is in
    [0, 1], divided by 255 when it is an 8-bit image (integers in 0..255, or whole floats in 0..255 reaching 64
    or more: a photo kept as floats), else rescaled from its colour channels' min to max (a standardised image,
    digits 0..16 repeated to three channels: drawn black before). Booleans are 0/1;
    other channel counts are shown as the mean over channels, in gray."""
    shown = np.asarray(img)
    integer = np.issubdtype(shown.dtype, np.integer)
    shown = shown.astype(float)
    if shown.ndim == 3 and shown.shape[2] not in (3, 4):
        shown = shown[..., 0] if shown.shape[2] == 1 else shown.mean(axis=2)
    if shown.size == 0:
        return shown
    if shown.ndim == 2:
        low, high = float(shown.min()), float(shown.max())
        return (shown - low) / (high - low) if high > low else np.full_like(shown, 0.5)
    colour = shown[..., :3]
    low, high = float(colour.min()), float(colour.max())
    eight_bit = low >= 0 and high <= 255 and (integer or (high >= 64 and np.all(colour == np.round(colour))))
    if eight_bit:  # uint8, or a photo's 0..255 kept as floats (ImageExplainer stores floats): drawn as it is
        colour = colour / 255.0
    elif not (low >= 0 and high <= 1):
        colour = (colour - low) / (high - low) if high > low else np.full_like(colour, 0.5)
    if shown.shape[2] == 3:
        return colour
    alpha = shown[..., 3:]
    alpha = np.clip(alpha / 255.0 if alpha.max() > 1 else alpha, 0.0, 1.0)
    return np.concatenate([colour, alpha], axis=2)
