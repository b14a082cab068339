"""Graph analysis of directional explanations (Bivariate Shapley paper, Section 4.1 and App. A).

- :class:`ExplanationGraph`: the directed explanation graph G (``W(i, j)`` = importance of ``j`` given ``i``),
  from :meth:`BivariateExplanation.graph`, :meth:`Interactions.graph` (symmetric) or :func:`mean_graph`.
- :class:`RedundancyGraph`: ``H_gamma`` with mutual redundancy groups, condensation, sources and sinks.
- :class:`Ranking`: PageRank scores on G.
"""

from .cohort import mean_graph
from .explanation import ExplanationGraph
from .ranking import Ranking, pagerank
from .redundancy import GammaSweep, RedundancyGraph, default_gamma, gamma_for_density, gamma_sweep

__all__ = ["ExplanationGraph", "GammaSweep", "Ranking", "RedundancyGraph", "default_gamma", "gamma_for_density",
           "gamma_sweep", "mean_graph", "pagerank"]
