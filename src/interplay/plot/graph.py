"""The directed explanation graph and the gamma sweep (Bivariate Shapley paper, Section 4).

The graph picture is laid out in inches (one data unit = one inch at the figure's natural size): node sizes and
label widths are measured first (matplotlib's font metrics), then the layers are packed into rows that fit
:data:`MAX_WIDTH`, the figure is sized from the result, and every edge follows an arc or, where every arc would
cross something, a smoothed shortest way around: no edge passes another node, label or arrowhead
(:class:`_Router`).
"""

from __future__ import annotations

import re
import textwrap
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from .._validation import check_bool, check_int
from . import _analysis
from ._common import (NEGATIVE, POSITIVE, check_axes, index_name, info_of, new_axes, one_result, plt, top_order,
                      with_unit)

REDUNDANCY_EDGE = "#3d4650"
GROUP_FILL = "#f4ead2"
GROUP_EDGE = "#b08a2e"
BAND_FILL = "#eef1f5"
CAPTION_COLOUR = "#5b6573"
NO_VALUE = "#b7bec6"
MAGNITUDE = "#d9822b"  # cohort graphs: magnitudes, no sign

FONT = 8.0             # points: node labels and a group's rows
CAPTION_FONT = 7.5     # points: a layer's caption
LINESPACING = 1.15
NAME_WIDTH = 16        # characters per line of a node's name (two lines; three of 18 for a long one)
ROW_NAME_WIDTH = 24    # characters of a name in a group's list (one line)
GROUP_ROWS = 6         # members listed in a group's box; beyond, the largest five and "+k more"
ROW_H = FONT * 1.5 / 72.0  # inches per row of a group's list
MEMBER_SIDE = 0.09     # inches: the side of a group member's colour square (one size: colour only)
GAP_X = 0.3            # inches between neighbouring nodes of a row
GAP_ROW = 0.4          # inches between the rows of one layer
GAP_BAND = 0.22        # inches between layers
CAPTION_H = 0.3        # inches for a layer's caption
BAND_PAD = 0.12        # inches of shading around a layer's nodes
LABEL_GAP = 0.04       # inches between a circle and its label
MAX_WIDTH = 12.0       # inches of drawing before a layer wraps over several rows
MAX_HEIGHT = 26.0      # inches of drawing before the whole picture is scaled down
LEGEND_W = 3.3         # inches right of the drawing
TITLE_H = 0.4          # inches above it
LAYOUTS = ("layered", "circular", "spring")

# after a separator (after "-" or "." only before a non-digit: "5.5" and "-1.5" stay whole), or inside camelCase
_BREAK = re.compile(r"(?<=[_\s/:])(?=.)|(?<=[\-.])(?=[^\d])|(?<=[a-z])(?=[A-Z])")


# ---------------------------------------------------------------------------------------------- names
def _wrap_name(name: str, width: int, lines: int) -> list[str] | None:
    """``name`` in at most ``lines`` lines of at most ``width`` characters, broken after ``_``, a space, ``/`` or
    ``:``, after ``-`` or ``.`` unless a digit follows (numbers stay whole: an image region's "(5.5, -1.5)"), or
    between the words of camelCase (a longer piece is cut where it must); None when it does not fit. The lines
    joined give the name back."""
    if len(name) <= width:
        return [name]
    pieces = [p[k:k + width] for p in _BREAK.split(name) for k in range(0, len(p), width)]
    out: list[str] = []
    for piece in pieces:
        if out and len(out[-1]) + len(piece) <= width:
            out[-1] += piece
        else:
            out.append(piece)
    return out if len(out) <= lines else None


def _abbreviated(name: str, width: int, lines: int) -> list[str]:
    """``name`` cut in the middle (``\u2026``) to ``lines`` lines of ``width`` characters: its start and its end
    (the part that tells ``customer_feature_12`` from ``customer_feature_13``) are kept."""
    if lines == 1:
        head = (width - 1) // 2
        return [name[:head] + "\u2026" + name[len(name) - (width - 1 - head):]]
    start = [name[k * width:(k + 1) * width] for k in range(lines - 1)]
    return start + ["\u2026" + name[len(name) - (width - 1):]]


def _display_names(names: list[str], width: int, lines: int) -> list[list[str]]:
    """Each name as the lines it is written in: whole when it fits ``lines`` lines of ``width`` characters
    (wrapped after separators; a name of several lines may take one more, a little wider), else cut in the
    middle; names that would then look alike are written whole."""
    def fitted(name):
        longer = _wrap_name(name, width + 2, lines + 1) if lines > 1 else None
        return _wrap_name(name, width, lines) or longer or _abbreviated(name, width, lines)

    shown = [fitted(n) for n in names]
    count = Counter("\n".join(s) for s in shown)
    whole = [[n] if lines == 1 else _wrap_name(n, width, len(n)) for n in names]
    return [s if count["\n".join(s)] == 1 else w for s, w in zip(shown, whole)]


def _escaped(text: str) -> str:
    """``text`` as matplotlib writes it literally (a ``$`` would start mathtext)."""
    return text.replace("$", r"\$")


_TEXT_PATH = None


def _text_size(lines: list[str], size: float = FONT) -> tuple[float, float]:
    """Width and height in inches of text written in ``lines`` at ``size`` points (a little generous)."""
    global _TEXT_PATH
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    if _TEXT_PATH is None:
        _TEXT_PATH = TextToPath()
    prop = FontProperties(size=size)
    width = max(_TEXT_PATH.get_text_width_height_descent(line, prop, ismath=False)[0] for line in lines)
    return (width * 1.04 + 3.0) / 72.0, (len(lines) * size * LINESPACING + 3.0) / 72.0


# ---------------------------------------------------------------------------------------------- nodes
@dataclass
class _Node:
    """One class of the condensation as drawn (inches): a dot with its label below, or a group's box listing
    its members with their values. ``x, y``: the centre of the circle or of the box. ``strength``: what a dot's
    size shows (``|value|``, or the ranking score without values), a group's largest member's; nodes placed
    side by side without parents above are ordered by it, largest first."""

    members: list[int]
    strength: float
    r: float = 0.0
    w: float = 0.0
    h: float = 0.0
    label_w: float = 0.0
    label: str = ""
    rows: list[tuple[str, int | None]] = field(default_factory=list)
    x: float = 0.0
    y: float = 0.0

    @property
    def group(self) -> bool:
        return len(self.members) > 1

    def shape(self) -> tuple[float, float, float, float]:
        """The circle's or the box's extent ``(x0, y0, x1, y1)``."""
        if self.group:
            return self.x - self.w / 2, self.y - self.h / 2, self.x + self.w / 2, self.y + self.h / 2
        return self.x - self.r, self.y - self.r, self.x + self.r, self.y + self.r

    def label_box(self) -> tuple[float, float, float, float] | None:
        """A dot's label extent (None for a group: its rows are inside its box)."""
        if self.group:
            return None
        top = self.y - self.r - LABEL_GAP
        return self.x - self.label_w / 2, top - self.h, self.x + self.label_w / 2, top

    def extent(self) -> tuple[float, float, float, float]:
        """Everything the node draws: circle and label, or box."""
        x0, y0, x1, y1 = self.shape()
        label = self.label_box()
        if label is None:
            return x0, y0, x1, y1
        return min(x0, label[0]), label[1], max(x1, label[2]), y1

    def below(self) -> float:
        """Height from the circle's centre (a box's top) to the node's bottom."""
        return self.r + LABEL_GAP + self.h if not self.group else self.h


def _value_text(value: float, magnitudes: bool) -> str:
    """A node's value as written: signed, or a cohort's mean magnitude."""
    return f"{abs(value):.3g}" if magnitudes else f"{value:+.3g}"


def _dot(ids: list[int], lines: list[str], phi, size: np.ndarray, top: float, magnitudes: bool) -> dict:
    """Geometry and label of a single feature's dot: area ``|value|``, the name and the value below it."""
    i = ids[0]
    text = lines + ([] if phi is None else [_value_text(phi[i], magnitudes)])
    label_w, label_h = _text_size(text)
    r = 0.065 + 0.2 * np.sqrt(size[i] / top)
    return {"r": r, "w": max(2 * r, label_w), "h": label_h, "label_w": label_w, "label": "\n".join(text)}


def _group_rows(ids: list[int], row_names: list[str], phi, magnitudes: bool) -> list[tuple[str, int | None]]:
    """A group's list: ``name  value`` per member (largest value first), at most :data:`GROUP_ROWS` rows; the
    rest as ``+k more, total v``."""
    shown = ids if len(ids) <= GROUP_ROWS else ids[:GROUP_ROWS - 1]
    rows = [(row_names[i] + ("" if phi is None else "  " + _value_text(phi[i], magnitudes)), i) for i in shown]
    rest = ids[len(shown):]
    if rest:
        total = "" if phi is None else ", total " + _value_text(float(np.sum(np.abs(phi[rest]) if magnitudes
                                                                            else phi[rest])), magnitudes)
        rows.append((f"+{len(rest)} more{total}", None))
    return rows


def _group(rows: list[tuple[str, int | None]]) -> dict:
    """Geometry of a group's box: a coloured dot and ``name  value`` per row."""
    text_w = max(_text_size([text])[0] for text, _ in rows)
    return {"w": 0.1 + 0.16 + text_w + 0.06, "h": 0.14 + len(rows) * ROW_H, "rows": rows}


def _nodes(g, s, magnitudes: bool) -> dict[int, _Node]:
    """Every class of the condensation (component id) as a node, measured but not yet placed."""
    names = [str(n) for n in g.feature_names]
    phi = g.univariate
    size = np.abs(phi) if phi is not None else np.asarray(s.ranking)
    top = float(size.max()) or 1.0
    dot_names = _display_names(names, NAME_WIDTH, 2)
    row_names = ["".join(lines) for lines in _display_names(names, ROW_NAME_WIDTH, 1)]
    classes: dict[int, list[int]] = {}
    for i, c in enumerate(s.component.tolist()):
        classes.setdefault(c, []).append(i)
    nodes = {}
    for c, ids in classes.items():
        ids = sorted(ids, key=lambda i: -size[i])
        node = _Node(ids, float(size[ids[0]]))  # the quantity the size shows (ids: largest first)
        geometry = (_group(_group_rows(ids, row_names, phi, magnitudes)) if len(ids) > 1
                    else _dot(ids, dot_names[ids[0]], phi, size, top, magnitudes))
        for key, value in geometry.items():
            setattr(node, key, value)
        nodes[c] = node
    return nodes


# ---------------------------------------------------------------------------------------------- layouts
@dataclass
class _Band:
    """One layer of the layered layout: its caption and vertical extent (inches)."""

    caption: str
    top: float
    bottom: float
    left: float
    right: float


#: Captions of the set-aside features' layers: one row (``False``), a cohort read row by row (``True``: shares
#: of rows) or a mean over rows read as one matrix (``"mean"``: a run's ``cohort_graph``).
NO_EFFECT_CAPTION = {False: "no notable effect on this prediction", True: "no notable effect in at least half the rows",
                     "mean": "no notable effect on the rows' mean"}
LITTLE_EFFECT_CAPTION = {False: "little effect on its own: not read as redundant",
                         True: "little effect on its own in at least half the rows: not read as redundant",
                         "mean": "little effect on its own on the rows' mean: not read as redundant"}


def _layers(s, nodes: dict[int, _Node], lone_caption: str, cohort: bool | str = False) -> list[tuple[str, list[int]]]:
    """The layers, top to bottom, with their captions: the condensation's topological generations (sources
    first; every class below the first has a redundancy arrow from the layer just above), then the single
    features with no redundancy edge at all (``lone_caption``), then the features set aside (little effect on
    their own, then no effect: each in a layer of its own, captioned so)."""
    import networkx as nx

    dag = nx.DiGraph()
    dag.add_nodes_from(nodes)
    dag.add_edges_from(s.class_edges)
    aside = {}
    for caption, members in ((LITTLE_EFFECT_CAPTION[cohort], s.little_effect), (NO_EFFECT_CAPTION[cohort],
                                                                                 s.no_effect)):
        classes = sorted({int(s.component[i]) for i in members})
        if classes:
            aside[caption] = classes
    set_aside = {c for classes in aside.values() for c in classes}
    lone = sorted(c for c in nodes if dag.degree(c) == 0 and not nodes[c].group and c not in set_aside)
    linked = dag.subgraph([c for c in nodes if c not in set(lone) and c not in set_aside])
    layers = []
    for k, generation in enumerate(nx.topological_generations(linked)):
        if k:
            caption = "redundant given a feature above"
        elif any(nodes[c].group for c in generation):
            caption = "redundant given no feature outside its group"
        else:
            caption = "redundant given no other feature"
        layers.append((caption, sorted(generation)))
    if lone:
        layers.append((lone_caption, lone))
    layers += list(aside.items())
    return layers


def _pack(ids: list[int], nodes: dict[int, _Node], width: float) -> list[list[int]]:
    """Classes with no parent in rows of at most ``width`` inches, the largest ``|value|`` (what a dot's size
    shows; a group: its largest member's) first: left, then first row. Ties keep the class order."""
    rows: list[list[int]] = [[]]
    used = 0.0
    for c in sorted(ids, key=lambda c: -nodes[c].strength):  # stable: ties in class order
        if rows[-1] and used + nodes[c].w > width + 1e-9:
            rows.append([])
            used = 0.0
        rows[-1].append(c)
        used += nodes[c].w + GAP_X
    return rows


def _deal(ids: list[int], target: dict[int, float], nodes: dict[int, _Node], width: float) -> list[list[int]]:
    """Classes ordered by where their parents are, dealt in turn to as few rows as fit in ``width`` inches: each
    row spans the layer, and the rows are staggered so that arrows from above pass between the nodes."""
    ordered = sorted(ids, key=lambda c: (target[c], -nodes[c].strength))
    for count in range(1, len(ordered) + 1):
        rows = [ordered[k::count] for k in range(count)]
        if all(_row_width(row, nodes) <= width + 1e-9 for row in rows):
            return rows
    return [[c] for c in ordered]


def _row_width(row: list[int], nodes: dict[int, _Node]) -> float:
    return sum(nodes[c].w for c in row) + GAP_X * (len(row) - 1)


def _isotonic(values: np.ndarray) -> np.ndarray:
    """The non-decreasing sequence closest to ``values`` (least squares; pool adjacent violators)."""
    blocks: list[list[float]] = []
    for v in values:
        blocks.append([float(v), 1.0])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            mean, count = blocks.pop()
            blocks[-1] = [(blocks[-1][0] * blocks[-1][1] + mean * count) / (blocks[-1][1] + count),
                          blocks[-1][1] + count]
    return np.repeat([b[0] for b in blocks], [int(b[1]) for b in blocks])


def _spread(row: list[int], target: dict[int, float], nodes: dict[int, _Node], width: float) -> None:
    """Place a row's nodes (in order) as close to their targets as their widths allow, within ``width``."""
    w = np.array([nodes[c].w for c in row])
    offset = w[0] / 2 + np.concatenate([[0.0], np.cumsum((w[:-1] + w[1:]) / 2 + GAP_X)])
    free = _isotonic(np.array([target[c] for c in row]) - offset)
    free = np.clip(free, 0.0, max(0.0, width - w[-1] / 2 - offset[-1]))
    for c, x in zip(row, free + offset):
        nodes[c].x = float(x)


def _centre(row: list[int], nodes: dict[int, _Node], width: float) -> None:
    """Place a row's nodes side by side, centred in ``width``."""
    x = (width - _row_width(row, nodes)) / 2
    for c in row:
        nodes[c].x = x + nodes[c].w / 2
        x += nodes[c].w + GAP_X


def _hang(row: list[int], nodes: dict[int, _Node], top: float) -> float:
    """Hang a row's nodes from ``top`` (circles centred on one line); returns the row's height."""
    reach = max([nodes[c].r for c in row if not nodes[c].group] or [0.0])
    height = 0.0
    for c in row:
        node = nodes[c]
        node.y = top - (node.h / 2 if node.group else reach)
        height = max(height, node.h if node.group else reach + node.below())
    return height


def _place_layered(s, nodes: dict[int, _Node], lone_caption: str = "no redundancy edge, in or out",
                   max_width: float = MAX_WIDTH, cohort: bool | str = False) -> list[_Band]:
    """Layers top to bottom, each in a shaded band; a layer wider than ``max_width`` inches continues in further
    rows of its band. A layer whose nodes have no parent above (the first, the features with no redundancy edge,
    the set-aside ones) reads left to right from the largest ``|value|`` (what the size shows), the others each
    under its parents (fewer crossings, shorter arrows; ties largest first)."""
    layers = _layers(s, nodes, lone_caption, cohort)
    width = max([min(max_width, _row_width(ids, nodes)) for _, ids in layers]
                + [node.w for node in nodes.values()]
                + [_text_size([caption], CAPTION_FONT)[0] for caption, _ in layers])
    parents: dict[int, list[int]] = {}
    for a, b in s.class_edges:
        parents.setdefault(b, []).append(a)
    bands, y = [], 0.0
    for caption, ids in layers:
        top = y
        y -= CAPTION_H
        placed = all(c in parents for c in ids)
        target = {c: float(np.mean([nodes[p].x for p in parents[c]])) for c in ids} if placed else {}
        rows = _deal(ids, target, nodes, width) if placed else _pack(ids, nodes, width)
        for k, row in enumerate(rows):
            if placed:
                _spread(row, target, nodes, width)
            else:
                _centre(row, nodes, width)
            y -= _hang(row, nodes, y) + (GAP_ROW if k < len(rows) - 1 else 0.0)
        bands.append(_Band(caption, top, y - BAND_PAD, -BAND_PAD, width + BAND_PAD))
        y -= BAND_PAD + GAP_BAND
    return bands


def _place_ring(s, nodes: dict[int, _Node], layout: str, random_state: int) -> list[_Band]:
    """Classes on a circle (in layer order) or where networkx's spring layout puts them, spaced by the widest
    node."""
    order = sorted(nodes, key=lambda c: (s.layer[nodes[c].members[0]], s.x[nodes[c].members[0]]))
    cell = max(node.w for node in nodes.values()) + GAP_X
    radius = max(1.2, len(order) * cell / (2 * np.pi))
    if layout == "circular":
        angles = np.pi / 2 - 2 * np.pi * np.arange(len(order)) / len(order)
        spots = {c: (radius * np.cos(a), radius * np.sin(a)) for c, a in zip(order, angles)}
    else:
        import networkx as nx

        sketch = nx.Graph()
        sketch.add_nodes_from(order)
        sketch.add_edges_from(s.class_edges)
        spots = {c: tuple(p) for c, p in nx.spring_layout(sketch, seed=random_state, scale=1.3 * radius).items()}
    for c, (x, y) in spots.items():
        nodes[c].x, nodes[c].y = float(x), float(y)
    if layout == "spring":  # the force layout places centres only: push apart what overlaps
        _separate(nodes)
    return []


def _separate(nodes: dict[int, _Node], gap: float = 0.12, rounds: int = 400) -> None:
    """Move nodes apart until no two extents (circle and label, or box) overlap or come closer than ``gap``
    inches: each overlapping pair is pushed apart, half each, along the axis of the smaller overlap."""
    ids = list(nodes)
    if len(ids) < 2:
        return
    centre = np.array([[nodes[c].x, nodes[c].y] for c in ids])
    relative = np.array([nodes[c].extent() for c in ids]) - np.hstack([centre, centre])
    upper = ~np.eye(len(ids), dtype=bool)
    for _ in range(rounds):
        box = relative + np.hstack([centre, centre])
        ox = np.minimum(box[:, None, 2], box[None, :, 2]) - np.maximum(box[:, None, 0], box[None, :, 0]) + gap
        oy = np.minimum(box[:, None, 3], box[None, :, 3]) - np.maximum(box[:, None, 1], box[None, :, 1]) + gap
        hit = (ox > 1e-9) & (oy > 1e-9) & upper
        if not hit.any():
            break
        mid = (box[:, :2] + box[:, 2:]) / 2
        dx = mid[:, None, 0] - mid[None, :, 0]
        dy = mid[:, None, 1] - mid[None, :, 1]
        side_x = np.where(dx == 0, np.where(np.arange(len(ids))[:, None] < np.arange(len(ids))[None, :], -1.0, 1.0),
                          np.sign(dx))
        side_y = np.where(dy == 0, 1.0, np.sign(dy))
        along_x = hit & (ox <= oy)
        along_y = hit & (ox > oy)
        push = np.zeros_like(centre)
        push[:, 0] = (np.where(along_x, ox * side_x, 0.0) / 2).sum(axis=1)
        push[:, 1] = (np.where(along_y, oy * side_y, 0.0) / 2).sum(axis=1)
        centre = centre + 0.5 * push  # half steps: a node pushed by several neighbours does not overshoot
    for c, (x, y) in zip(ids, centre):
        nodes[c].x, nodes[c].y = float(x), float(y)


def _limits(nodes: dict[int, _Node], bands: list[_Band]) -> tuple[tuple[float, float], tuple[float, float]]:
    """x and y limits (inches) holding every node, label and shaded layer, with a small margin."""
    boxes = np.array([node.extent() for node in nodes.values()])
    x0, y0 = boxes[:, 0].min(), boxes[:, 1].min()
    x1, y1 = boxes[:, 2].max(), boxes[:, 3].max()
    if bands:
        x0, x1 = min(x0, bands[0].left), max(x1, bands[0].right)
        y0, y1 = min(y0, bands[-1].bottom), max(y1, bands[0].top)
    return (x0 - 0.08, x1 + 0.08), (y0 - 0.08, y1 + 0.08)


# ---------------------------------------------------------------------------------------------- edges
def _at(ctrl: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Points of the cubic Bezier curve with control points ``ctrl`` (4 x 2) at parameters ``t``."""
    t = t[:, None]
    return (1 - t) ** 3 * ctrl[0] + 3 * (1 - t) ** 2 * t * ctrl[1] + 3 * (1 - t) * t ** 2 * ctrl[2] + t ** 3 * ctrl[3]


def _bezier(vertices: np.ndarray, step: float = 0.03) -> np.ndarray:
    """Points about every ``step`` inch along a chain of cubic Bezier curves (vertices ``3 k + 1``)."""
    pieces = []
    for k in range(0, len(vertices) - 1, 3):
        ctrl = vertices[k:k + 4]
        length = float(np.sum(np.hypot(*np.diff(ctrl, axis=0).T)))
        pieces.append(_at(ctrl, np.linspace(0.0, 1.0, int(np.clip(length / step, 8, 1500)))))
    return np.concatenate(pieces)


def _split(ctrl: np.ndarray, t: float) -> tuple[np.ndarray, np.ndarray]:
    """The two halves of a Bezier curve cut at parameter ``t`` (de Casteljau)."""
    left, right, points = [ctrl[0]], [ctrl[-1]], ctrl
    while len(points) > 1:
        points = (1 - t) * points[:-1] + t * points[1:]
        left.append(points[0])
        right.append(points[-1])
    return np.array(left), np.array(right[::-1])


def _piece(ctrl: np.ndarray, t0: float, t1: float) -> np.ndarray:
    """The part of a Bezier curve between parameters ``t0 < t1``."""
    head, _ = _split(ctrl, t1)
    return _split(head, t0 / t1)[1] if t0 > 0 else head


def _arc(p: np.ndarray, q: np.ndarray, rad: float) -> np.ndarray:
    """matplotlib's ``arc3`` connection (a quadratic curve bent by ``rad``) as cubic control points."""
    d = q - p
    c = (p + q) / 2 + rad * np.array([d[1], -d[0]])
    return np.array([p, p + 2 / 3 * (c - p), q + 2 / 3 * (c - q), q])


def _simplified(points: np.ndarray, tolerance: float) -> np.ndarray:
    """A polyline with the points left out that lie within ``tolerance`` of the line kept (Douglas-Peucker)."""
    keep = np.zeros(len(points), dtype=bool)
    keep[[0, -1]] = True
    stack = [(0, len(points) - 1)]
    while stack:
        i, j = stack.pop()
        if j <= i + 1:
            continue
        chord, rel = points[j] - points[i], points[i + 1:j] - points[i]
        distance = np.abs(chord[0] * rel[:, 1] - chord[1] * rel[:, 0]) / max(float(np.hypot(*chord)), 1e-12)
        k = int(np.argmax(distance))
        if distance[k] > tolerance:
            keep[i + 1 + k] = True
            stack += [(i, i + 1 + k), (i + 1 + k, j)]
    return points[keep]


def _smooth(points: np.ndarray) -> np.ndarray:
    """A smooth curve through a polyline's points, as Bezier vertices ``3 k + 1``: at each point the direction
    from its predecessor to its successor, each control point a third of its segment away (no overshoot)."""
    ahead = np.vstack([points[1:], points[-1:]]) - np.vstack([points[:1], points[:-1]])
    direction = ahead / np.maximum(np.hypot(*ahead.T), 1e-12)[:, None]
    vertices = [points[0]]
    for i in range(len(points) - 1):
        third = float(np.hypot(*(points[i + 1] - points[i]))) / 3
        vertices += [points[i] + direction[i] * third, points[i + 1] - direction[i + 1] * third, points[i + 1]]
    return np.array(vertices)


def _hits(points: np.ndarray, boxes: np.ndarray) -> int:
    """How many of the points lie in some box ``(x0, y0, x1, y1)``."""
    lo, hi = points.min(axis=0), points.max(axis=0)
    boxes = boxes[(boxes[:, 2] > lo[0]) & (boxes[:, 0] < hi[0]) & (boxes[:, 3] > lo[1]) & (boxes[:, 1] < hi[1])]
    x, y = points[:, :1], points[:, 1:]
    return int(((x > boxes[:, 0]) & (x < boxes[:, 2]) & (y > boxes[:, 1]) & (y < boxes[:, 3])).any(axis=1).sum())


def _grid_edges(rows: int, cols: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs of neighbouring cells (8 neighbours) of a ``rows x cols`` grid, as flat indices, and their
    distances in cells."""
    index = np.arange(rows * cols).reshape(rows, cols)
    pairs = [(index[:, :-1], index[:, 1:], 1.0), (index[:-1, :], index[1:, :], 1.0),
             (index[:-1, :-1], index[1:, 1:], np.sqrt(2.0)), (index[:-1, 1:], index[1:, :-1], np.sqrt(2.0))]
    return (np.concatenate([u.ravel() for u, _, _ in pairs]), np.concatenate([v.ravel() for _, v, _ in pairs]),
            np.concatenate([np.full(u.size, d) for u, _, d in pairs]))


class _Router:
    """Chooses each edge's path so that it passes no other node or label, no arrowhead, and keeps off the edges
    already drawn: an arc of one of several bends, or, when every arc hits something, the cheapest way across
    a grid of 0.05-inch cells (Dijkstra), smoothed. What is drawn is remembered on the same grid (1: a
    redundancy arrow, 2: a coloured arc, 3: near an arrowhead)."""

    CELL = 0.05
    DARK_BENDS = (0.0, 0.12, -0.12, 0.25, -0.25, 0.4, -0.4, 0.6, -0.6)
    ARC_BENDS = (0.2, -0.2, 0.35, -0.35, 0.5, -0.5, 0.1, -0.1, 0.7, -0.7)

    def __init__(self, nodes: dict[int, _Node], xlim, ylim, obstacles=()):
        self.nodes = nodes
        boxes, owners, labels = [], [], []
        for c, node in nodes.items():
            for box, is_label in ((node.shape(), False), (node.label_box(), True)):
                if box is not None:
                    boxes.append(box)
                    owners.append(c)
                    labels.append(is_label)
        for box in obstacles:  # the layers' captions: owned by no node, avoided by every edge
            boxes.append(box)
            owners.append(-1)
            labels.append(True)
        self.boxes = np.array(boxes, dtype=float).reshape(-1, 4) + np.array([-0.05, -0.05, 0.05, 0.05])
        self.owners, self.labels = np.array(owners), np.array(labels, dtype=bool)
        self.origin = np.array([xlim[0], ylim[0]])
        self.corner = np.array([xlim[1], ylim[1]])
        self.grid = np.zeros((int((ylim[1] - ylim[0]) / self.CELL) + 1, int((xlim[1] - xlim[0]) / self.CELL) + 1),
                             dtype=np.int8)

    def _cells(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ij = np.floor((points - self.origin) / self.CELL).astype(int)
        return (np.clip(ij[:, 1], 0, self.grid.shape[0] - 1), np.clip(ij[:, 0], 0, self.grid.shape[1] - 1))

    def _within(self, points: np.ndarray, c: int, margin: float) -> np.ndarray:
        """Which points lie in node ``c``'s circle or box, grown by ``margin``."""
        node = self.nodes[c]
        if node.group:
            x0, y0, x1, y1 = node.shape()
            return ((points[:, 0] > x0 - margin) & (points[:, 0] < x1 + margin)
                    & (points[:, 1] > y0 - margin) & (points[:, 1] < y1 + margin))
        return np.hypot(points[:, 0] - node.x, points[:, 1] - node.y) < node.r + margin

    def _free(self, points: np.ndarray, a: int, b: int, margin: float = 0.1) -> np.ndarray:
        """The points more than ``margin`` away from the edge's own ends (where edges of one node meet anyway)."""
        return ~(self._within(points, a, margin) | self._within(points, b, margin))

    def _obstacles(self, a: int, b: int) -> np.ndarray:
        """The boxes an edge from ``a`` to ``b`` must avoid: every node and label but its ends' circles or
        boxes, and ``a``'s label when the edge leaves downwards (through it, hidden behind it)."""
        node = self.nodes[a]
        down = self.nodes[b].y < node.y - node.r
        mine = (np.isin(self.owners, (a, b)) & ~self.labels) | ((self.owners == a) & self.labels & down)
        return self.boxes[~mine]

    def cost(self, points: np.ndarray, a: int, b: int, coloured: bool) -> float:
        """How badly a candidate path lies: points in another node or label (or out of the picture) weigh most,
        then points near arrowheads and near edges already drawn."""
        hits = _hits(points, self._obstacles(a, b))
        hits += ((points < self.origin) | (points > self.corner)).any(axis=1).sum()  # out of the picture
        seen = self.grid[self._cells(points[self._free(points, a, b, 0.1)])]  # arrows fan out of one node
        crowd = (seen == 1).sum() * 0.3 + (seen == 2).sum()
        if coloured:  # an arc keeps off the arrows up to its ends' outlines
            seen = self.grid[self._cells(points[self._free(points, a, b, 0.0)])]
            return 4.0 * hits + crowd + (seen == 1).sum() + 3.0 * (seen == 3).sum()
        return 4.0 * hits + crowd + (self.grid[self._cells(points[self._free(points, a, b, 0.0)])] == 3).sum()

    def route(self, a: int, b: int, coloured: bool) -> np.ndarray:
        """Bezier vertices (``3 k + 1``) of the cheapest path found from ``a`` to ``b``, from outline to
        outline; marks it as drawn."""
        p, q = np.array([self.nodes[a].x, self.nodes[a].y]), np.array([self.nodes[b].x, self.nodes[b].y])
        bends = self.ARC_BENDS if coloured else self.DARK_BENDS
        options = [self._trim(_arc(p, q, rad), a, b) for rad in bends]
        costs = [self.cost(_bezier(v), a, b, coloured) + 0.5 * abs(rad) for v, rad in zip(options, bends)]
        if min(costs) >= 1.0:
            detour = self._detour(a, b, coloured)
            if detour is not None:
                options.append(detour)
                costs.append(self.cost(_bezier(detour), a, b, coloured) + 1.0)
        vertices = options[int(np.argmin(costs))]
        self._mark(_bezier(vertices), a, b, coloured)
        return vertices

    def _trim(self, ctrl: np.ndarray, a: int, b: int) -> np.ndarray:
        """The curve from where it leaves ``a``'s outline to where it reaches ``b``'s (with a small gap)."""
        t = np.linspace(0.0, 1.0, 400)
        points = _at(ctrl, t)
        inside_a, inside_b = self._within(points, a, 0.03), self._within(points, b, 0.03)
        start = int(np.argmin(inside_a)) if inside_a[0] and not inside_a.all() else 0
        after = np.flatnonzero(inside_b[start:])
        end = max(start + int(after[0]) - 1 if len(after) else len(t) - 1, start + 1)
        return _piece(ctrl, float(t[start]), float(t[end]))

    def _price(self, a: int, b: int, coloured: bool) -> np.ndarray:
        """What crossing each cell costs an edge from ``a`` to ``b``: other nodes and labels nearly
        impassable, drawn edges and arrowheads dear."""
        from scipy.ndimage import binary_dilation

        blocked = np.zeros(self.grid.shape, dtype=bool)
        for x0, y0, x1, y1 in self._obstacles(a, b):
            (i0, i1), (j0, j1) = self._cells(np.array([[x0, y0], [x1, y1]]))
            blocked[i0:i1 + 1, j0:j1 + 1] = True
        near = binary_dilation(blocked, iterations=2)  # keep some room: smoother paths, down the middle
        return (1.0 + 60.0 * blocked + 1.5 * near + (self.grid == 1) * (1.0 if coloured else 0.3)
                + 1.5 * (self.grid == 2) + (self.grid == 3) * (4.0 if coloured else 1.0))

    def _cheapest(self, a: int, b: int, coloured: bool) -> np.ndarray | None:
        """The centres of the cells on the cheapest way from ``a``'s centre to ``b``'s (Dijkstra)."""
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import dijkstra

        rows, cols = self.grid.shape
        price = self._price(a, b, coloured).ravel()
        u, v, length = _grid_edges(rows, cols)
        graph = coo_matrix((length * (price[u] + price[v]) / 2, (u, v)), shape=(rows * cols, rows * cols)).tocsr()
        source, target = (int(i[0]) * cols + int(j[0]) for i, j in (self._cells(self._centre(c)) for c in (a, b)))
        _, previous = dijkstra(graph, directed=False, indices=source, return_predecessors=True)
        if previous[target] < 0:
            return None
        chain = [target]
        while chain[-1] != source:
            chain.append(int(previous[chain[-1]]))
        cells = np.array(chain[::-1])
        points = self.origin + (np.column_stack([cells % cols, cells // cols]) + 0.5) * self.CELL
        points[0], points[-1] = self._centre(a)[0], self._centre(b)[0]
        return points

    def _centre(self, c: int) -> np.ndarray:
        return np.array([[self.nodes[c].x, self.nodes[c].y]])

    def _detour(self, a: int, b: int, coloured: bool) -> np.ndarray | None:
        """The cheapest way across the grid from ``a`` to ``b``, cut at the outlines, simplified and smoothed
        (Bezier vertices); None when there is none."""
        points = self._cheapest(a, b, coloured)
        if points is None:
            return None
        inside_a, inside_b = self._within(points, a, 0.03), self._within(points, b, 0.03)
        start = int(np.argmin(inside_a)) if not inside_a.all() else 0
        after = np.flatnonzero(inside_b[start:])
        end = start + int(after[0]) if len(after) else len(points)
        points = points[max(start - 1, 0):end + 1]
        if len(points) < 2:
            return None
        points[0] = self._outline(points[1], points[0], a)
        points[-1] = self._outline(points[-2], points[-1], b)
        shapes = [_smooth(_simplified(points, tolerance)) for tolerance in (0.4, 0.25, 0.15, 0.08, 0.04)]
        costs = [self.cost(_bezier(v), a, b, coloured) + 0.2 * k for k, v in enumerate(shapes)]  # smoother first
        return shapes[int(np.argmin(costs))]

    def _outline(self, outside: np.ndarray, inside: np.ndarray, c: int) -> np.ndarray:
        """Where the segment from ``outside`` to ``inside`` meets node ``c``'s outline (grown by 0.03 inch)."""
        t = np.linspace(0.0, 1.0, 60)[:, None]
        points = outside + t * (inside - outside)
        hit = self._within(points, c, 0.03)
        return points[max(int(np.argmax(hit)) - 1, 0)] if hit.any() else inside

    def _mark(self, points: np.ndarray, a: int, b: int, coloured: bool) -> None:
        free = points[self._free(points, a, b, 0.0)]
        rows, cols = self._cells(free)
        reach = (-1, 0, 1) if coloured else (-2, -1, 0, 1, 2)  # coloured arcs keep 0.1 inch off the arrows
        for di in reach:
            for dj in reach:
                i = np.clip(rows + di, 0, self.grid.shape[0] - 1)
                j = np.clip(cols + dj, 0, self.grid.shape[1] - 1)
                self.grid[i, j] = np.where(self.grid[i, j] == 0, 2 if coloured else 1, self.grid[i, j])
        if not coloured:  # the arrowhead, at the end of the path
            self._mark_disk(points[-1], 0.14)

    def _mark_disk(self, centre: np.ndarray, radius: float) -> None:
        span = int(np.ceil(radius / self.CELL))
        rows, cols = self._cells(centre[None, :])
        di, dj = np.mgrid[-span:span + 1, -span:span + 1]
        disk = di ** 2 + dj ** 2 <= span ** 2
        self.grid[np.clip(int(rows[0]) + di[disk], 0, self.grid.shape[0] - 1),
                  np.clip(int(cols[0]) + dj[disk], 0, self.grid.shape[1] - 1)] = 3


# ---------------------------------------------------------------------------------------------- drawing
def _colour(value, magnitudes: bool) -> str:
    """A node's colour: red raises, blue lowers the output; orange a cohort's magnitude; grey no value."""
    if value is None or value == 0:
        return NO_VALUE
    return MAGNITUDE if magnitudes else POSITIVE if value > 0 else NEGATIVE


def _caption_box(band: _Band) -> tuple[float, float, float, float]:
    """The extent ``(x0, y0, x1, y1)`` of a layer's caption (inches of the drawing), which edges keep off."""
    w, h = _text_size([band.caption], CAPTION_FONT)
    x0, y1 = band.left + 0.08, band.top - 0.05
    return x0, y1 - h, x0 + w, y1


def _draw_bands(ax, bands: list[_Band], f: float) -> None:
    """The shaded layers with their captions (top left)."""
    from matplotlib.patches import FancyBboxPatch

    for band in bands:
        ax.add_patch(FancyBboxPatch((band.left, band.bottom), band.right - band.left, band.top - band.bottom,
                                    boxstyle="round,pad=0,rounding_size=0.08", fc=BAND_FILL, ec="none", zorder=0,
                                    gid="layer-band"))
        ax.text(band.left + 0.08, band.top - 0.05, band.caption, ha="left", va="top", fontsize=CAPTION_FONT * f,
                color=CAPTION_COLOUR, style="italic", zorder=2.5, gid="layer-caption",
                bbox={"boxstyle": "round,pad=0.1", "fc": BAND_FILL, "ec": "none", "alpha": 0.85})


def _draw_dot(ax, node: _Node, value, magnitudes: bool, f: float):
    """A single feature: a circle of area ``|value|`` and its name and value below it."""
    from matplotlib.patches import Circle

    dot = Circle((node.x, node.y), node.r, fc=_colour(value, magnitudes), ec="white", lw=1.2 * f, alpha=0.9,
                 zorder=3, gid="node")
    ax.add_patch(dot)
    label = ax.text(node.x, node.y - node.r - LABEL_GAP, _escaped(node.label), ha="center", va="top",
                    fontsize=FONT * f, zorder=4, linespacing=LINESPACING,
                    bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.9})
    return dot, [label]


def _draw_group(ax, node: _Node, phi, size: np.ndarray, top: float, magnitudes: bool, f: float):
    """A group of interchangeable features: a box listing its members, each with a small square coloured by its
    value (all of one size: the box's rows are too low for a dot at the scale of the single features' dots, and
    a smaller scale read as a smaller value beside them; the value is written after the name)."""
    from matplotlib.patches import FancyBboxPatch, Rectangle

    x0, y0, x1, y1 = node.shape()
    box = FancyBboxPatch((x0, y0), node.w, node.h, boxstyle="round,pad=0,rounding_size=0.08", fc=GROUP_FILL,
                         ec=GROUP_EDGE, lw=1.5 * f, zorder=3, gid="group")
    ax.add_patch(box)
    texts = []
    for k, (text, i) in enumerate(node.rows):
        y = y1 - 0.07 - (k + 0.5) * ROW_H
        if i is not None:
            ax.add_patch(Rectangle((x0 + 0.16 - MEMBER_SIDE / 2, y - MEMBER_SIDE / 2), MEMBER_SIDE, MEMBER_SIDE,
                                   fc=_colour(None if phi is None else phi[i], magnitudes), ec="none", zorder=3.5,
                                   gid="member"))
        texts.append(ax.text(x0 + 0.26, y, _escaped(text), ha="left", va="center", fontsize=FONT * f, zorder=4,
                             color="#222" if i is not None else CAPTION_COLOUR))
    return box, texts


def _draw_nodes(ax, g, s, nodes: dict[int, _Node], magnitudes: bool, f: float):
    """Every node; returns the patches by class (what the edges attach to) and the label texts. A feature with no
    effect is grey (its value, within gamma of 0, is still written)."""
    phi = g.univariate
    size = np.abs(phi) if phi is not None else np.asarray(s.ranking)
    top = float(size.max()) or 1.0
    muted = set(s.no_effect)
    patches, labels = {}, []
    for c, node in nodes.items():
        if node.group:
            patches[c], texts = _draw_group(ax, node, phi, size, top, magnitudes, f)
        else:
            value = None if phi is None or node.members[0] in muted else phi[node.members[0]]
            patches[c], texts = _draw_dot(ax, node, value, magnitudes, f)
        labels.extend(texts)
    return patches, labels


def _whole_edge(s, sources: np.ndarray, targets: np.ndarray) -> bool:
    """Whether every member of the target class is redundant given some member of the source class (an arrow
    into a group's box then means the whole group; else it is drawn dashed: only some members, which the text
    names)."""
    return bool(np.all(np.asarray(s.adjacency)[np.ix_(sources, targets)].any(axis=0)))


def _class_members(s) -> dict[int, np.ndarray]:
    """Each class of the condensation (component id) and its features."""
    return {int(c): np.flatnonzero(s.component == c) for c in np.unique(s.component)}


def _partial_edges(s, max_edges: int) -> int:
    """How many of the drawn redundancy arrows reach only some of their target group's members."""
    members = _class_members(s)
    return sum(not _whole_edge(s, members[a], members[b]) for a, b in s.class_edges[:max(0, max_edges)])


def _strong_edges(g, s, limit: int, symmetric: bool = False, skip: set = frozenset()) -> list[tuple[int, int]]:
    """The ``limit`` edges of G with the largest ``|W|`` that are no redundancy edge and join two classes, one
    per ordered pair of classes (the strongest; a group's members would otherwise repeat the same arc), none
    between classes in ``skip`` (joined by a redundancy arrow: "B raises the output given A" beside "once A is
    known, B adds little"); one per pair of features when the weights are ``symmetric``. None from a feature with
    no effect: ``W(i, j)`` of a feature ``i`` that changes nothing only restates ``j``'s own importance (the node's
    size), so these edges were the strongest (race -> age on Adult) and read as an interplay that is not there."""
    w = np.abs(np.asarray(g.weights))
    comp = s.component
    n = len(w)
    muted = set(s.no_effect)
    candidates = [(i, j) for i in range(n) for j in range(i + 1 if symmetric else 0, n)
                  if i != j and not s.adjacency[i, j] and comp[i] != comp[j] and i not in muted]
    candidates.sort(key=lambda e: -w[e])
    chosen, pairs = [], set()
    for i, j in candidates:
        if len(chosen) >= limit:
            break
        if (comp[i], comp[j]) not in pairs and (int(comp[i]), int(comp[j])) not in skip:
            pairs.add((comp[i], comp[j]))
            chosen.append((i, j))
    return chosen


def _draw_edges(ax, g, s, router: _Router, strongest: int, max_edges: int, magnitudes: bool, f: float,
                symmetric: bool = False):
    """The redundancy arrows (the condensation's transitive reduction), then the strongest remaining edges of G
    as coloured arcs under them (lines without a head for a ``symmetric`` interaction index); each along the
    path the router finds. Returns ``(arrow, source, target)``."""
    from matplotlib.patches import FancyArrowPatch
    from matplotlib.path import Path

    drawn = []

    def arrow(a, b, gid, coloured, head="-|>", **style):
        vertices = router.route(a, b, coloured)
        path = Path(vertices, [Path.MOVETO] + [Path.CURVE4] * (len(vertices) - 1))
        patch = FancyArrowPatch(path=path, arrowstyle=head, **style)
        patch.set_gid(gid)
        ax.add_patch(patch)
        drawn.append((patch, a, b))

    members = _class_members(s)
    for a, b in s.class_edges[:max(0, max_edges)]:
        whole = _whole_edge(s, members[a], members[b])  # else dashed: only some of the group's members
        arrow(a, b, "redundancy-edge" if whole else "partial-redundancy-edge", False, mutation_scale=15 * f,
              lw=1.5 * f, color=REDUNDANCY_EDGE, zorder=2, linestyle="-" if whole else (0, (4, 2)))
    w = np.asarray(g.weights)
    strength = np.abs(w)
    top = float(strength.max()) or 1.0
    joined = {(a, b) for _, a, b in drawn}  # an arc there would contradict (or repeat) the arrow
    for i, j in _strong_edges(g, s, min(strongest, max_edges - len(drawn)), symmetric, skip=joined):
        colour = MAGNITUDE if magnitudes else POSITIVE if w[i, j] > 0 else NEGATIVE
        arrow(int(s.component[i]), int(s.component[j]), "strong-edge", True, head="-" if symmetric else "-|>",
              mutation_scale=13 * f, lw=(0.8 + 2.4 * strength[i, j] / top) * f, color=colour, alpha=0.7,
              zorder=1.5)
    return drawn


def _interaction_handles(index: str, has_values: bool, left_out: int, shown: int, layered: bool = True):
    """The legend of a symmetric interaction index's graph: its strongest pairs, no redundancy (``layered``: the
    nodes side by side, largest first)."""
    m = plt()
    handles = [m.Line2D([], [], color=POSITIVE, lw=2, label=f"A \u2014 B: the pair adds more together\n"
                        f"than apart ({index}; width: |value|)"),
               m.Line2D([], [], color=NEGATIVE, lw=2, label="\u2026 less together than apart"),
               m.Line2D([], [], marker="o", ls="", mfc="#888", mec="none", ms=9,
                        label=("area: |value|" if has_values else "area: ranking score")
                        + (";\nleft to right: largest first" if layered else ""))]
    if left_out:
        handles.append(m.Line2D([], [], ls="", label=f"showing {shown} features with the largest\n|value|; "
                                f"{left_out} more left out (max_features)"))
    return handles


def _interaction_summary(g) -> _analysis.GraphSummary:
    """What the picture shows of a symmetric interaction index's graph (``g.interaction_index``): every feature
    on its own and no redundancy edge, since a pair value near 0 means that the two effects add up, not that one
    feature replaces the other (:class:`~interplay.graph.ExplanationGraph` refuses that reading)."""
    n = g.n_features
    return _analysis.GraphSummary(
        gamma=float("nan"), component=np.arange(n), groups=[], sources=[], sinks=[], isolated=[],
        ranking=np.asarray(g.ranking().scores), density=0.0, layer=np.zeros(n, dtype=int), depth=np.zeros(n),
        x=np.linspace(0.0, 1.0, n), class_edges=[], adjacency=np.zeros((n, n), dtype=bool))


def _legend_handles(layered: bool, magnitudes: bool, has_values: bool, left_out: int, shown: int,
                    no_effect: str | None = None, partial: int = 0, arrows_left_out: int = 0):
    """What the legend explains, as matplotlib handles (``no_effect``: the caption of the grey dots, when some
    feature has no effect; ``partial``: dashed arrows drawn; ``arrows_left_out``: redundancy arrows past
    ``max_edges``)."""
    from matplotlib.patches import Patch

    m = plt()
    handles = [m.Line2D([], [], color=REDUNDANCY_EDGE, lw=1.5, marker=">", markevery=[1],
                        label="A \u2192 B: once A is known, B adds little")]
    if partial:
        handles.append(m.Line2D([], [], color=REDUNDANCY_EDGE, lw=1.5, ls=(0, (4, 2)),
                                label="dashed: into a group, only some of\nits members (the text says which)"))
    if arrows_left_out:
        handles.append(m.Line2D([], [], ls="", label=f"{arrows_left_out} more redundancy arrow"
                                f"{'s' if arrows_left_out > 1 else ''} not drawn\n(max_edges; "
                                "graph.redundancy() has them)"))
    if magnitudes:
        handles.append(m.Line2D([], [], color=MAGNITUDE, lw=2,
                                label="A \u2192 B: B matters given A\n(width: mean |W|)"))
    else:
        handles += [m.Line2D([], [], color=POSITIVE, lw=2, label="A \u2192 B: B raises the output given A"),
                    m.Line2D([], [], color=NEGATIVE, lw=2, label="\u2026 lowers it (width: |W|)")]
    if layered:
        handles.append(Patch(fc=BAND_FILL, ec="none", label="shaded band: one layer, read top to\nbottom "
                             "(its caption says which;\na long layer takes several rows)"))
    handles.append(m.Line2D([], [], marker="s", ls="", mfc=GROUP_FILL, mec=GROUP_EDGE, ms=10,
                            label="interchangeable group: its members" + ("\nand their values (square: colour "
                                                                           "only)" if has_values else "")))
    area = ("mean |value|" if magnitudes else "|value|") if has_values else "ranking score"
    order = ("left to right: largest first\n(in a layer arrows reach: each node\nbelow its sources)" if layered
             else "")
    handles.append(m.Line2D([], [], marker="o", ls="", mfc="#888", mec="none", ms=9,
                            label=f"size grows with {area}" + (f";\n{order}" if order else "")))
    if no_effect:
        handles.append(m.Line2D([], [], marker="o", ls="", mfc=NO_VALUE, mec="none", ms=9,
                                label=f"grey: {no_effect}"))
    if left_out:
        handles.append(m.Line2D([], [], ls="", label=f"showing {shown} features with the largest\n|value|; "
                                f"{left_out} more left out (max_features)"))
    return handles


def _legend_height(handles) -> float:
    """Inches the legend takes (8-point lines)."""
    lines = sum(h.get_label().count("\n") + 1 for h in handles)
    return (lines * 8 * 1.45 + len(handles) * 4 + 12) / 72.0


def _paragraph(text: str, fig_w: float) -> str:
    """The summary wrapped to a figure ``fig_w`` inches wide (8.5-point text), written literally."""
    if not text:
        return ""
    room = fig_w - 0.45
    width = max(40, int(room / (_text_size([text], 8.5)[0] / max(len(text), 1))))
    lines = textwrap.wrap(text, width=width)
    while width > 40 and _text_size(lines, 8.5)[0] > room:  # wider letters than the average: narrower lines
        width -= 3
        lines = textwrap.wrap(text, width=width)
    return _escaped("\n".join(lines))


def _legend_size(ax, handles, font: float, ncol: int) -> tuple[float, float]:
    """Width and height in inches of the legend of ``handles`` at ``font`` points in ``ncol`` columns, as
    matplotlib lays it out (drawn once on ``ax`` and removed)."""
    pad = 2 * 0.3 * font / 72.0  # borderaxespad on both sides
    figure = ax.figure
    try:
        renderer = figure.canvas.get_renderer()
    except AttributeError:  # a canvas without a renderer at hand: matplotlib's line heights, estimated
        per = -(-len(handles) // ncol)
        columns = [handles[k * per:(k + 1) * per] for k in range(ncol)]
        width = sum(max(_text_size(h.get_label().split("\n"), font)[0] for h in c) + 0.5 for c in columns if c)
        return width + pad, max(_legend_height(c) for c in columns if c) * font / 8.0 + pad
    legend = ax.legend(handles=handles, fontsize=font, ncol=ncol, frameon=False, borderaxespad=0.3)
    extent = legend.get_window_extent(renderer)
    legend.remove()
    return extent.width / figure.dpi + pad, extent.height / figure.dpi + pad


def _own_axes_legend(ax, xlim, ylim, handles):
    """On a user's ``ax``: the limits that leave room for the legend inside the axes (below the drawing, or right
    of it when that gives the drawing more room), the inches per data unit, and the legend's placement. Its
    font shrinks (to 5 points at least) until it fits the axes' width: nothing is drawn outside the axes, under
    a neighbouring subplot or off the figure."""
    fig_w, fig_h = ax.figure.get_size_inches()
    box = ax.get_position()
    bw, bh = box.width * fig_w, box.height * fig_h
    span_w, span_h = xlim[1] - xlim[0], ylim[1] - ylim[0]
    best = None
    for ncol in (1, 2):
        for font in (8.0, 7.0, 6.0, 5.0):
            lw, lh = _legend_size(ax, handles, font, ncol)
            if lw > bw:
                continue
            for where in ("below", "right"):
                if where == "below":
                    scale = min(bw / span_w, (bh - lh) / span_h)
                elif lh <= bh:
                    scale = min((bw - lw) / span_w, bh / span_h)
                else:
                    continue
                if scale > 0 and (best is None or scale * (1 + 0.05 * font) > best[0] * (1 + 0.05 * best[1])):
                    best = (scale, font, ncol, where, lw, lh)
    if best is None:  # an axes too small for any legend: the legend at its smallest over the drawing's corner
        scale = min(bw / span_w, bh / span_h)
        return xlim, ylim, scale, {"fontsize": 5.0, "ncol": 1, "loc": "lower left", "bbox_to_anchor": (0.0, 0.0)}
    scale, font, ncol, where, lw, lh = best
    if where == "below":
        ylim = (ylim[0] - lh / scale, ylim[1])
        place = {"loc": "lower left", "bbox_to_anchor": (0.0, 0.0)}
    else:
        xlim = (xlim[0], xlim[1] + lw / scale)
        place = {"loc": "upper right", "bbox_to_anchor": (1.0, 1.0)}
    return xlim, ylim, scale, {"fontsize": font, "ncol": ncol, **place}


def _figure(ax, xlim, ylim, text: str, handles):
    """The axes to draw in, the inches one data unit takes there, the summary paragraph wrapped to the
    figure's width, and where the legend goes. A new figure (``ax`` None) is sized to the drawing: one data unit
    is one inch unless the drawing is taller than :data:`MAX_HEIGHT` (or wider than 20 inches), the legend right
    of it. On a given ``ax`` the legend goes inside the axes (:func:`_own_axes_legend`)."""
    span_w, span_h = xlim[1] - xlim[0], ylim[1] - ylim[0]
    if ax is not None:
        xlim, ylim, scale, legend = _own_axes_legend(ax, xlim, ylim, handles)
        ax.set_aspect("equal")
        ax.set_xlim(*xlim)
        ax.set_ylim(*ylim)
        paragraph = _paragraph(text, ax.figure.get_size_inches()[0])
        return ax, scale, paragraph, legend
    scale = min(1.0, MAX_HEIGHT / span_h, 20.0 / span_w)
    draw_w, draw_h = span_w * scale, span_h * scale
    fig_w = max(draw_w + LEGEND_W + 0.3, 7.5)
    paragraph = _paragraph(text, fig_w)
    text_h = (paragraph.count("\n") + 1) * 8.5 * 1.25 / 72.0 + 0.3 if paragraph else 0.15
    fig_h = TITLE_H + max(draw_h, _legend_height(handles)) + text_h
    ax = new_axes(None, (fig_w, fig_h), fit=False)  # the axes placed below, the legend beside them
    ax.set_position([0.15 / fig_w, 1.0 - (TITLE_H + draw_h) / fig_h, draw_w / fig_w, draw_h / fig_h])
    ax.set_aspect("equal")
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    return ax, scale, paragraph, {"fontsize": 8, "ncol": 1, "loc": "upper left", "bbox_to_anchor": (1.0, 1.0)}


def _title(g, s, gamma, index) -> str:
    """The default title: the threshold, a cohort's reading of redundancy, or the interaction index."""
    if index:
        return f"{index} interaction graph: the strongest pairs"
    if g.redundancy_share is not None and gamma is None:
        signed = "signed mean " if g.kind == "mean" else ""
        return (f"{signed}explanation graph of {g.info.get('n_rows', 'the')} rows; redundant: in at least half of "
                "them")
    if g.kind == "mean":
        return f"signed mean explanation graph of {g.info.get('n_rows') or 'the'} rows, gamma = {s.gamma:.3g}"
    if g.kind == "cohort":  # a mean matrix of magnitudes read at one gamma (a run's cohort_graph)
        return (f"mean |W| explanation graph of {g.info.get('n_rows') or 'the'} rows, "
                f"gamma = {s.gamma:.3g}")
    return f"explanation graph, gamma = {s.gamma:.3g}"


def _restricted(g, max_features, gamma):
    """The graph of the ``max_features`` features with the largest ``|univariate value|`` (ranking score when
    the graph has none), the gamma to read it at (the whole graph's default, so that the threshold does not
    change with the selection) and how many features were left out. Every per-feature and per-pair array of
    the graph (weights, values, standard errors, a cohort's shares) keeps the selected features."""
    from dataclasses import fields, replace

    n = g.n_features
    if max_features is None:
        return g, gamma, 0
    if isinstance(max_features, bool) or not isinstance(max_features, (int, np.integer)) or max_features < 1:
        raise ValueError(f"max_features: expected a positive integer or None, got {max_features!r}")
    if max_features >= n:
        return g, gamma, 0
    size = np.abs(g.univariate) if g.univariate is not None else np.asarray(g.ranking().scores)
    keep = np.sort(top_order(size, int(max_features)))
    if gamma is None and g.redundancy_share is None and getattr(g, "interaction_index", None) is None:
        gamma = g.default_gamma()
    changes = {"feature_names": [g.feature_names[i] for i in keep]}
    for item in fields(g):
        value = getattr(g, item.name)
        if isinstance(value, np.ndarray) and value.shape == (n,):
            changes[item.name] = value[keep]
        elif isinstance(value, np.ndarray) and value.shape == (n, n):
            changes[item.name] = value[np.ix_(keep, keep)]
    return replace(g, **changes), gamma, n - len(keep)


def graph(result, *, gamma: float | None = None, feature_names=None, ax=None, title: str | None = None,
          strongest: int | None = None, max_edges: int | None = None, summary: bool | None = None,
          layout: str = "layered", random_state: int = 0, max_features: int | None = None):
    """Draw an explanation graph the way it is read: who makes whom redundant, and what matters.

    ``result``: a :class:`~interplay.results.BivariateExplanation`, an :class:`~interplay.graph.ExplanationGraph` (e.g.
    a cohort's, from :func:`~interplay.graph.mean_graph`), an Interactions result or an ``(n, n)`` matrix.

    Layout: the condensation of the redundancy graph ``H_gamma`` in shaded layers, each with a caption: on top the
    classes no outside feature makes redundant (sources), below them those made redundant by a feature of the layer just
    above (topological generations), then the features with no redundancy edge at all, and last the features set aside
    as :meth:`ExplanationGraph.redundancy` does, each kind in a band of its own: "little effect on its own" (``|phi| <=
    2 gamma``, not read as redundant) and "no notable effect on this prediction" (drawn grey, with a legend entry); a
    layer too wide for the page continues in further rows inside its band. Mutually redundant features (a strongly
    connected component of ``H_gamma``) are one box listing its members, each with its value and a small square
    coloured like a node (all of one size: colour only). Node area: ``|phi|`` (the univariate value; colour: red raises,
    blue lowers the output); without univariate values, the ranking score. A layer with no arrow into it (the first,
    the features with no redundancy edge, the set-aside ones) reads left to right from the largest area (a group: its
    largest member's ``|phi|``); a layer reached by arrows places each node below its sources. Long names wrap after
    ``_``, spaces, ``-`` or ``.`` (or between camelCase words) into two lines, three for a long one (longer ones are
    cut in the middle, their ends kept); no two features are written alike.
    Edges: dark arrows ``A -> B`` = "once A is known, B adds little" (the condensation's transitive reduction: the
    implied edges are left out), and the ``strongest`` edges of G above gamma as coloured arcs under them (``B`` matters
    given ``A``; red positive, blue negative weight, width ``|W|``; default ``min(5, n)``); every edge is bent around
    the other nodes, labels and arrowheads. At most ``max_edges`` (default ``2 n``) edges are drawn. ``gamma`` defaults
    to the graph's default (5 % of the largest ``|W|``; for a cohort graph, the edges redundant in at least half
    the rows).
    ``max_features`` keeps the features with the largest ``|phi|`` (the ranking without values), read at the whole
    graph's gamma; the legend says how many were left out. ``summary`` (default: when this function makes the figure)
    writes :meth:`ExplanationGraph.describe` (of the whole graph) under the picture. A new figure is sized to the
    drawing (about one inch per node), the legend right of it; on a given ``ax`` the text shrinks when the drawing has
    to, and the legend goes inside the axes (below or right of the drawing, its font shrunk to fit), never under a
    neighbouring subplot or off the figure. A graph of a symmetric interaction index (SII, Shapley-Taylor, ...,
    :attr:`ExplanationGraph.interaction_index`) has no redundancy reading: its features are drawn side by side with the
    ``strongest`` pairs as coloured lines (no arrowheads), and ``gamma`` is not used. ``layout="circular"`` puts the
    same nodes and edges on a circle, ``"spring"`` (seeded by ``random_state``) where networkx's force layout puts them
    (then pushed apart until no node or label overlaps another). The drawn arrows carry ``gid`` ``"redundancy-edge"`` /
    ``"strong-edge"``, node circles ``"node"``, group boxes ``"group"``, the shaded layers ``"layer-band"`` and their
    captions ``"layer-caption"`` (which the edges keep off).
    """
    if layout not in LAYOUTS:
        raise ValueError(f"layout: expected 'layered', 'circular' or 'spring', got {layout!r}")
    summary = check_bool(summary, "summary", allow_none=True)
    check_axes(ax)
    strongest = check_int(strongest, "strongest", minimum=0, allow_none=True)
    max_edges = check_int(max_edges, "max_edges", minimum=0, allow_none=True)
    whole = _analysis.as_graph(one_result(result, "result", "graph"), feature_names)
    g, at, left_out = _restricted(whole, max_features, gamma)
    index = getattr(g, "interaction_index", None)  # a symmetric index: no redundancy reading
    index = index_name(index) if index else index  # "SII", as the paragraph names it (not "sii")
    s = _interaction_summary(g) if index else _analysis.analyse(g, at)
    n = g.n_features
    strongest = min(5, n) if strongest is None else int(strongest)
    max_edges = 2 * n if max_edges is None else int(max_edges)
    magnitudes = g.kind == "cohort"  # mean |phi| and mean |W|: no sign to colour

    nodes = _nodes(g, s, magnitudes)
    cohort = (True if g.redundancy_share is not None and at is None else
              "mean" if g.kind in ("mean", "cohort") else False)  # which captions (NO_EFFECT_CAPTION)
    bands = (_place_layered(s, nodes, f"{index} interactions: no redundancy reading" if index
                            else "no redundancy edge, in or out", cohort=cohort) if layout == "layered"
             else _place_ring(s, nodes, layout, random_state))
    xlim, ylim = _limits(nodes, bands)
    show_summary = summary if summary is not None else ax is None
    no_effect = NO_EFFECT_CAPTION[cohort] if s.no_effect else None
    handles = (_interaction_handles(index, g.univariate is not None, left_out, n, layout == "layered") if index else
               _legend_handles(layout == "layered", magnitudes, g.univariate is not None, left_out, n, no_effect,
                               partial=_partial_edges(s, max_edges),
                               arrows_left_out=max(0, len(s.class_edges) - max(0, max_edges))))
    ax, scale, paragraph, legend = _figure(ax, xlim, ylim, whole.describe(gamma) if show_summary else "", handles)
    f = min(1.0, scale)
    _draw_bands(ax, bands, f)
    patches, labels = _draw_nodes(ax, g, s, nodes, magnitudes, f)
    obstacles = [_caption_box(band) for band in bands]
    edges = _draw_edges(ax, g, s, _Router(nodes, xlim, ylim, obstacles), strongest, max_edges, magnitudes, f,
                        symmetric=bool(index))

    ax.legend(handles=handles, frameon=False, borderaxespad=0.3, **legend)
    ax.set_title(title or with_unit(_title(g, s, gamma, index), info_of(result)), fontsize=10, loc="left")
    ax.set_axis_off()
    if paragraph:
        ax.figure.text(0.02, 0.01, paragraph, fontsize=8.5, va="bottom", ha="left")
    names = list(g.feature_names)
    ax._interplay_labels = labels  # for tests: the label artists, checked for overlaps
    ax._interplay_edges = [(p, [names[i] for i in nodes[a].members], [names[i] for i in nodes[b].members])
                           for p, a, b in edges]  # for tests: each edge with the features at its ends
    return ax


def gamma_sweep(result, *, gammas=None, feature_names=None, ax=None, title: str | None = None,
                gamma: float | None = None):
    """Density of the redundancy graph ``H_gamma`` and the share of features in mutual-redundancy groups as
    gamma grows (Bivariate Shapley paper, App. A.2.4, Fig. 6); the default gamma is marked. Both agree with the
    graph's own analysis: the groups are those of :meth:`ExplanationGraph.redundancy` at each gamma (features
    with no or little effect set aside, as :meth:`ExplanationGraph.gamma_sweep` counts them) and the default is
    :meth:`ExplanationGraph.default_gamma` (raised by the standard errors of a sampled estimate). A bare matrix
    or a symmetric index's graph is swept by the paper's definitions. A cohort graph is swept as one graph of its
    mean ``|W|`` at each gamma; its own reading (:meth:`ExplanationGraph.redundancy` with ``gamma=None``) counts
    instead each row at that row's gamma, so the marked default is not the cohort's threshold."""
    g = _analysis.as_graph(one_result(result, "result", "gamma_sweep"), feature_names)
    sweep = _analysis.gamma_sweep(g, gammas)
    ax = new_axes(ax, (6, 3.8))
    # a step function of gamma (it changes where gamma reaches an edge's |W|): drawn as steps, not ramps
    ax.step(sweep["gamma"], sweep["density"], where="post", color="#333", lw=2, label="density of H")
    ax.set_xlabel("gamma (edges with |W| <= gamma are redundant)")
    ax.set_ylabel("density of H_gamma (every edge: also those\ninto features the graph sets aside)")
    ax.set_ylim(-0.02, 1.02)
    twin = ax.twinx()
    n = g.n_features
    twin.step(sweep["gamma"], sweep["n_grouped"] / max(n, 1), where="post", color=POSITIVE, lw=1.5,
              label="share of features in groups")
    twin.set_ylabel("share of features in groups", color=POSITIVE)
    twin.set_ylim(-0.02, 1.02)
    marked = sweep["default_gamma"] if gamma is None else gamma
    ax.axvline(marked, color="#888", ls="--", lw=1,
               label=f"{'default ' if gamma is None else ''}gamma = {marked:.3g}")
    lines = ax.get_legend_handles_labels()
    more = twin.get_legend_handles_labels()
    ax.legend(lines[0] + more[0], lines[1] + more[1], loc="lower right", fontsize=8)
    ax.set_title(title or with_unit("redundancy threshold sweep", info_of(result)))
    return ax
