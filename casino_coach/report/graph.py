"""Recorded search trees as networkx graphs, written as GraphML, DOT or node-link JSON.

``tree_graph`` turns a ``search.SearchTree`` into a ``networkx.DiGraph``: node ``0`` is the decision
(the position before the move), every other node is a move reached by a principal line, with the seat
that plays it, how many worlds' lines went through it (``visits``) and their mean value (``value``,
points for the side to move at the root). Every attribute is a scalar (GraphML takes nothing else).

``write_graph(graph, path)`` picks the format by the file's extension: ``.graphml``, ``.dot`` / ``.gv``
(written here, no pydot or pygraphviz needed), ``.json`` (node-link data), or a picture, ``.svg`` and
``.png``, which Graphviz's ``dot`` program draws from the DOT text when it is on PATH (``draw``; no
Python binding needed). Files are written atomically.
"""

from __future__ import annotations

import math
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from casino_coach.engine.cards import card_name, iter_cards
from casino_coach.engine.movegen import ACTION_NAMES, Move
from casino_coach.engine.notation import move_text
from casino_coach.errors import CoachError, quoted
from casino_coach.formats.files import atomic_write_bytes
from casino_coach.search.tree import SearchTree

if TYPE_CHECKING:
    import networkx as nx  # type: ignore[import-untyped]

FORMATS = {".graphml": "graphml", ".dot": "dot", ".gv": "dot", ".json": "json", ".svg": "svg", ".png": "png"}
# The formats Graphviz's dot draws (``draw``), and what to do when it is not installed.
DRAWN = ("svg", "png")
INSTALL_GRAPHVIZ = (
    "install Graphviz (apt-get install graphviz, dnf install graphviz, brew install graphviz, "
    "or https://graphviz.org/download/), or write --format dot and draw it elsewhere"
)
DRAW_SECONDS = 600  # dot lays out thousands of nodes in seconds; a hung one must not hang the command


def _finite(x: float) -> float:
    return x if math.isfinite(x) else 0.0


def tree_graph(tree: SearchTree, max_depth: int | None = None) -> nx.DiGraph:
    """The recorded tree as a directed graph (nodes numbered breadth first, the root 0)."""
    import networkx as nx  # here, not at the top: a tenth of a second that every other command would pay

    g = nx.DiGraph(root_seat=tree.root_seat, players=tree.nplayers, exact=tree.exact)
    index = tree.children_index()
    root = tree.nodes.get(())
    g.add_node(
        0,
        label="decision",
        move="",
        card="",
        action="",
        take="",
        value_decl=0,
        seat=tree.root_seat,
        depth=0,
        visits=root.visits if root else 0,
        value=_finite(root.value) if root else 0.0,
    )
    ids: dict[tuple[Move, ...], int] = {(): 0}
    queue: list[tuple[Move, ...]] = [()]
    nxt = 1
    while queue:
        path = queue.pop(0)
        if max_depth is not None and len(path) >= max_depth:
            continue
        for child in index.get(path, []):
            node = tree.nodes[child]
            m = child[-1]
            g.add_node(
                nxt,
                label=move_text(m),
                move=move_text(m),
                card=card_name(m.card),
                action=ACTION_NAMES[m.action],
                take=" ".join(sorted(card_name(c) for c in iter_cards(m.take))),
                value_decl=m.value,
                seat=tree.seat_of(child),
                depth=len(child),
                visits=node.visits,
                value=_finite(node.value),
            )
            g.add_edge(ids[path], nxt, move=move_text(m), visits=node.visits)
            ids[child] = nxt
            nxt += 1
            queue.append(child)
    return g


def graph_format(path: str | Path) -> str:
    """The format of an output file by its extension; CoachError for an unknown one."""
    fmt = FORMATS.get(Path(path).suffix.lower())
    if fmt is None:
        raise CoachError(f"{path}: unknown graph format; use a file ending in {', '.join(FORMATS)}")
    return fmt


def dot_program(fmt: str) -> str:
    """The path of Graphviz's ``dot``, which draws ``fmt``; CoachError, saying how to install it, when
    it is not on PATH. Called before the search, so a missing program costs no work."""
    found = shutil.which("dot")
    if found is None:
        raise CoachError(f"drawing the tree as {fmt} needs Graphviz's dot on PATH: {INSTALL_GRAPHVIZ}")
    return found


def draw(g: nx.DiGraph, fmt: str) -> bytes:
    """The graph drawn as ``svg`` or ``png`` by Graphviz's ``dot`` from its DOT text."""
    program = dot_program(fmt)
    try:
        text = dot_text(g).encode("utf-8")
        done = subprocess.run([program, f"-T{fmt}"], input=text, capture_output=True, timeout=DRAW_SECONDS)
    except subprocess.TimeoutExpired:
        late = f"Graphviz's dot ran over {DRAW_SECONDS} s drawing the tree: try --max-depth"
        raise CoachError(late) from None
    except OSError as e:
        raise CoachError(f"Graphviz's dot ({program}) could not run: {e.strerror or e}") from None
    if done.returncode != 0 or not done.stdout:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        why = said[0] if said else f"exit status {done.returncode}"
        raise CoachError(f"Graphviz's dot could not draw the tree as {fmt}: {why}")
    return done.stdout


def graph_bytes(g: nx.DiGraph, fmt: str) -> bytes:
    """The graph serialised as ``graphml``, ``dot`` or ``json``, or drawn as ``svg`` or ``png``."""
    if fmt in DRAWN:
        return draw(g, fmt)
    if fmt == "graphml":
        import networkx as nx

        return ("\n".join(nx.generate_graphml(g)) + "\n").encode("utf-8")
    if fmt == "dot":
        return dot_text(g).encode("utf-8")
    if fmt == "json":
        import networkx as nx

        data = nx.node_link_data(g, edges="edges")
        return orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n"
    raise CoachError(f"unknown graph format {quoted(fmt)}: choose graphml, dot, json, svg or png")


def write_graph(g: nx.DiGraph, path: str | Path) -> None:
    """Write ``g`` to ``path`` in the format its extension names (atomically)."""
    atomic_write_bytes(path, graph_bytes(g, graph_format(path)))


def _dot_id(x: object) -> str:
    text = str(x).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return '"' + text + '"'


def _dot_attrs(attrs: dict[str, object]) -> str:
    parts = []
    for k, v in attrs.items():
        if isinstance(v, float):
            v = f"{v:.4g}"
        parts.append(f"{k}={_dot_id(v)}")
    return ", ".join(parts)


def dot_text(g: nx.DiGraph) -> str:
    """A Graphviz DOT document of a directed graph (every attribute kept, values quoted)."""
    lines = ["digraph search {", '  node [shape=box, fontname="Helvetica"];']
    for k, v in g.graph.items():
        lines.append(f"  {k}={_dot_id(v)};")
    for n, attrs in g.nodes(data=True):
        shown = dict(attrs)
        if "label" in shown:
            val = attrs.get("value", 0.0)
            vis = attrs.get("visits", 0)
            shown["label"] = f"{attrs['label']}\nseat {attrs.get('seat')}  {val:+.2f}  n={vis}"
        lines.append(f"  {_dot_id(n)} [{_dot_attrs(shown)}];")
    for u, v, attrs in g.edges(data=True):
        lines.append(f"  {_dot_id(u)} -> {_dot_id(v)} [{_dot_attrs(dict(attrs))}];")
    lines.append("}")
    return "\n".join(lines) + "\n"
