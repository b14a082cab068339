"""Seeds: one per explained ROW, derived from the run's entropy and the row's index.

Row ``i`` gets ``SeedSequence(entropy, spawn_key=(i,))``: exactly the ``i``-th child of
``SeedSequence(entropy).spawn(n)``, which is what :meth:`interplay.Explainer.shapley` uses. A row's seed therefore
depends on neither the chunk size, the backend nor the number of workers, and a batch run gives the same numbers
as ``Explainer.shapley(X, random_state=...)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_random_state


def draw_entropy(random_state: Any) -> int:
    """The run's entropy: one integer drawn from ``random_state`` as :meth:`Explainer.shapley` draws it."""
    return int(check_random_state(random_state).integers(2**63))


def row_seed(entropy: int, row: int) -> np.random.SeedSequence:
    """The seed of global row ``row`` (equal to ``SeedSequence(entropy).spawn(row + 1)[row]``)."""
    return np.random.SeedSequence(entropy, spawn_key=(int(row),))
