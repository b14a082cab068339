"""Feature removal (baseline | marginal | conditional) x model output -> a value function for a game."""

from .baseline import baseline_value_function, reference_vector
from .conditional import conditional_value_function
from .marginal import marginal_value_function
from .outputs import OUTPUTS, OutputTransform
from .shared import SharedValues

REMOVALS = ("baseline", "marginal", "conditional")

__all__ = [
    "OUTPUTS",
    "REMOVALS",
    "OutputTransform",
    "SharedValues",
    "baseline_value_function",
    "conditional_value_function",
    "marginal_value_function",
    "reference_vector",
]
