"""Plots of interplay results (matplotlib; ``pip install 'interplay[plot]'``).

Every function takes a result (or plain arrays), draws on ``ax`` (a new figure when ``None``) and returns the
``matplotlib.axes.Axes``:

- one row: :func:`bar`, :func:`waterfall` (labels ``"age = 27"`` from the row's ``data``);
- many rows (an Explanation): :func:`bar` (mean ``|value|``), :func:`beeswarm` (coloured by feature value),
  :func:`scatter` (dependence plot coloured by the strongest interaction);
- interactions: :func:`heatmap`, :func:`bar` (the strongest subsets);
- directed explanation graph: :func:`graph`, and the redundancy threshold sweep :func:`gamma_sweep`;
- modalities: :func:`text` (token highlighting), :func:`image` (region overlay), both straight from the
  results of TextExplainer / ImageExplainer (they carry their tokens, image and regions).
"""

from .attribution import bar, beeswarm, waterfall
from .dependence import scatter
from .graph import gamma_sweep, graph
from .interactions import heatmap
from .modalities import image, text

__all__ = ["bar", "beeswarm", "gamma_sweep", "graph", "heatmap", "image", "scatter", "text", "waterfall"]
