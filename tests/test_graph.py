"""Recorded search trees as networkx graphs: GraphML, DOT and node-link JSON."""

from __future__ import annotations

import random
from pathlib import Path

import networkx as nx
import orjson
import pytest

from casino_coach.engine.movegen import apply, legal_moves
from casino_coach.engine.notation import move_text
from casino_coach.engine.observation import observe
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import new_round, shuffle_round
from casino_coach.errors import CoachError
from casino_coach.report.graph import dot_text, tree_graph, write_graph
from casino_coach.search import Limits, SearchRequest, SearchTree, evaluate

ROYAL = RuleSet.from_preset("royal")


def recorded() -> tuple[SearchTree, int, int]:
    rng = random.Random(4)
    sh = shuffle_round(rng, 2)
    s = new_round(2, 2, 1, sh.table, sh.deals[0])
    s = apply(ROYAL, s, legal_moves(ROYAL, s)[0])
    s = apply(ROYAL, s, legal_moves(ROYAL, s)[0])
    obs = observe(s, s.to_move)
    limits = Limits(samples=6, min_samples=6, separation=1e9)
    r = evaluate(ROYAL, obs, limits, SearchRequest(record=True))
    plain = evaluate(ROYAL, obs, limits)
    assert plain.tree is None and plain.moves == r.moves  # recording changes nothing
    assert isinstance(r.tree, SearchTree)
    return r.tree, r.samples, len(r.moves)


def test_tree_graph_top_level_and_lines() -> None:
    tree, samples, nmoves = recorded()
    g = tree_graph(tree)
    assert g.nodes[0]["visits"] == samples
    top = list(g.successors(0))
    assert len(top) == nmoves  # every legal move is a child of the decision
    assert all(g.nodes[n]["visits"] == samples for n in top)  # each valued in every world
    for n in g.nodes:
        kids = list(g.successors(n))
        if kids and n != 0:
            # A node's lines continue through its children: their visits add up to at most its own.
            assert sum(g.nodes[k]["visits"] for k in kids) <= g.nodes[n]["visits"]
        for value in g.nodes[n].values():
            assert isinstance(value, str | int | float | bool)
    assert nx.is_tree(g)
    shallow = tree_graph(tree, max_depth=1)
    assert shallow.number_of_nodes() == nmoves + 1


@pytest.mark.parametrize("ext", [".graphml", ".dot", ".json"])
def test_written_formats_read_back(tmp_path: Path, ext: str) -> None:
    tree, _, _ = recorded()
    g = tree_graph(tree)
    out = tmp_path / f"tree{ext}"
    write_graph(g, out)
    data = out.read_bytes()
    if ext == ".graphml":
        back = nx.read_graphml(out)
        assert back.number_of_nodes() == g.number_of_nodes()
        assert back.number_of_edges() == g.number_of_edges()
    elif ext == ".json":
        back = nx.node_link_graph(orjson.loads(data), edges="edges")
        assert back.number_of_nodes() == g.number_of_nodes()
        assert back.nodes[0]["visits"] == g.nodes[0]["visits"]
    else:
        text = data.decode()
        assert text.startswith("digraph search {") and text.rstrip().endswith("}")
        assert text.count(" -> ") == g.number_of_edges()
        assert dot_text(g) == text


def test_unknown_extension_writes_nothing(tmp_path: Path) -> None:
    tree, _, _ = recorded()
    out = tmp_path / "tree.gif"
    with pytest.raises(CoachError, match="unknown graph format"):
        write_graph(tree_graph(tree), out)
    assert not out.exists()


def test_top_level_values_are_the_searchs_values() -> None:
    # The tree ranks the moves as suggest does: each legal move's value is the search's estimate of it
    # (paired across worlds, corrected), not the plain mean of the lines that went through it.
    rng = random.Random(11)
    sh = shuffle_round(rng, 2)
    s = new_round(2, 2, 0, sh.table, sh.deals[0])
    obs = observe(s, s.to_move)
    r = evaluate(ROYAL, obs, Limits(samples=24, seed=3), SearchRequest(record=True))
    assert isinstance(r.tree, SearchTree)
    g = tree_graph(r.tree)
    by_move = {g.nodes[n]["move"]: g.nodes[n]["value"] for n in g.successors(0)}
    assert len(by_move) == len(r.moves)
    for mv in r.moves:
        assert by_move[move_text(mv.move)] == pytest.approx(mv.ev, abs=1e-9)
