"""Plots of interplay results (matplotlib; ``pip install 'interplay[plot]'``).

Every function takes a result (or plain arrays), draws on ``ax`` (a new figure when ``None``) and returns the
``matplotlib.axes.Axes``:

- one row: :func:`bar`, :func:`waterfall`; many rows: :func:`beeswarm`;
- interactions: :func:`heatmap`;
- directed explanation graph: :func:`graph`, and the redundancy threshold sweep :func:`gamma_sweep`;
- modalities: :func:`text` (token highlighting), :func:`image` (region overlay).
"""

from .attribution import bar, beeswarm, waterfall
from .graph import gamma_sweep, graph
from .interactions import heatmap
from .modalities import image, text

__all__ = ["bar", "beeswarm", "gamma_sweep", "graph", "heatmap", "image", "text", "waterfall"]
