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

from . import attribution, dependence, graph as _graph, interactions, modalities
from ._common import with_show

# every plot also takes shap's show= (True: plt.show() after drawing)
bar, beeswarm, waterfall = (with_show(f) for f in (attribution.bar, attribution.beeswarm, attribution.waterfall))
scatter = with_show(dependence.scatter)
gamma_sweep, graph = with_show(_graph.gamma_sweep), with_show(_graph.graph)
heatmap = with_show(interactions.heatmap)
image, text = with_show(modalities.image), with_show(modalities.text)

__all__ = ["bar", "beeswarm", "gamma_sweep", "graph", "heatmap", "image", "scatter", "text", "waterfall"]
