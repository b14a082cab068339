"""Non-tabular inputs as games: text (tokens on a path graph) and images (superpixels or patches on their
adjacency graph). Each game carries ``.graph`` (a networkx graph over its players) for L-/C-Shapley."""

from .image import ImageExplainer, ImageGame, image_game, region_adjacency_graph
from .text import TextExplainer, TextGame, text_game, tokenize

__all__ = [
    "ImageExplainer",
    "ImageGame",
    "TextExplainer",
    "TextGame",
    "image_game",
    "region_adjacency_graph",
    "text_game",
    "tokenize",
]
