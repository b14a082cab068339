"""Graph analysis of directional explanations (Bivariate Shapley paper, Section 4.1 and App. A).

- :class:`ExplanationGraph`: the directed explanation graph G (``W(i, j)`` = importance of ``j`` given ``i``),
  from :meth:`BivariateExplanation.graph`, :meth:`Interactions.graph` (symmetric: ``interaction_index`` set, read
  as interactions, no redundancy analysis) or :func:`mean_graph`; ``no_effect()`` lists the features with no effect.
- :class:`RedundancyGraph`: ``H_gamma`` with mutual redundancy groups, condensation, sources and sinks (features
  with no effect, or little effect on their own, set aside when built by :meth:`ExplanationGraph.redundancy`;
  the paper's exact definitions otherwise).
- :class:`Ranking`: feature rankings on G (:func:`rank`; default PageRank on ``|W|`` personalised by ``|phi|``).
- :func:`mean_graph` (alias :func:`cohort_graph`): a cohort's or a data set's graph, magnitudes kept.
- :func:`describe`: one plain-language paragraph per graph.
"""

from .cohort import CohortAccumulator, cohort_graph, mean_graph
from .describe import describe
from .explanation import ExplanationGraph
from .ranking import Ranking, pagerank, rank
from .redundancy import (GammaSweep, RedundancyGraph, default_gamma, gamma_for_density, gamma_sweep,
                         little_effect_mask, no_effect_mask)

__all__ = ["CohortAccumulator", "ExplanationGraph", "GammaSweep", "Ranking", "RedundancyGraph", "cohort_graph",
           "default_gamma", "describe", "gamma_for_density", "gamma_sweep", "little_effect_mask", "mean_graph",
           "no_effect_mask", "pagerank", "rank"]
