"""casino-replay and casino-position: reading, canonical writing, validation errors, re-playing."""

from __future__ import annotations

import copy
import random
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from casino_coach.engine.cards import parse_card, parse_cards
from casino_coach.engine.movegen import BUILD, CAPTURE, TRAIL, Move, legal_moves
from casino_coach.engine.observation import observe
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.state import Build
from casino_coach.errors import LogError
from casino_coach.formats.codec import move_from_json, move_to_json
from casino_coach.formats.game import Game
from casino_coach.formats.log import GameLog, log_to_json, log_to_obj, read_log
from casino_coach.formats.position import (
    Pieces,
    Position,
    dealer_of,
    position_to_json,
    read_any,
    read_position,
)
from casino_coach.formats.replay import legal_at, position_at, replay_log


def played(preset: str, n: int, seed: int, moves: int | None = None, **opts: Any) -> Game:
    game = Game(RuleSet.from_preset(preset, **opts), [f"P{i}" for i in range(n)], seed=seed)
    rng = random.Random(seed)
    k = 0
    while not game.over and (moves is None or k < moves):
        game.play(rng.choice(game.legal()))
        k += 1
    return game


@pytest.fixture(scope="module")
def royal_game() -> Game:
    return played("royal", 2, 21)


def obj_of(game: Game, viewer: int | None = None) -> dict[str, Any]:
    return copy.deepcopy(log_to_obj(game.to_log(viewer)))


def error_of(obj: Any) -> str:
    data = obj if isinstance(obj, bytes) else orjson.dumps(obj)
    with pytest.raises(LogError) as e:
        replay_log(read_log(data))
    msg = str(e.value)
    assert "\n" not in msg
    return msg


# --- round trips -----------------------------------------------------------------------------------


@settings(max_examples=15, deadline=None)
@given(
    preset=st.sampled_from(["classic", "royal", "dominican"]),
    n=st.sampled_from([2, 3, 4]),
    seed=st.integers(0, 2**31),
    viewer=st.one_of(st.none(), st.integers(0, 3)),
    stop=st.one_of(st.none(), st.integers(0, 150)),
)
def test_written_logs_read_back_equal(
    preset: str, n: int, seed: int, viewer: int | None, stop: int | None
) -> None:
    viewer = None if viewer is None else viewer % n
    game = played(preset, n, seed, stop)
    log = game.to_log(viewer)
    data = log_to_json(log)
    assert data.endswith(b"\n") and b'\n  "format"' in data
    back = read_log(data)
    assert back == log
    assert log_to_json(back) == data
    assert orjson.dumps(orjson.loads(data), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n" == data
    rep = replay_log(back)
    assert len(rep.plies) == len(game.history)
    assert rep.match.scores == game.match.scores
    assert [p.index for p in rep.plies] == list(range(len(rep.plies)))
    if viewer is None:
        assert all(p.state is not None for p in rep.plies)
    else:
        for p in rep.plies:
            assert p.viewer_observation is not None and p.viewer_observation.seat == viewer
            assert (p.observation is not None) == (p.seat == viewer)


def test_optional_fields_rules_options_and_partnerships_round_trip() -> None:
    game = Game(
        RuleSet.from_preset("classic", sweeps=True, partnerships=False),
        4,
        seed=3,
        event="club night",
        date="2026-11-29",
    )
    for _ in range(5):
        game.play(game.legal()[0])
    log = game.to_log()
    obj = orjson.loads(log_to_json(log))
    assert obj["rules"] == {"preset": "classic", "sweeps": True, "partnerships": False}
    assert obj["partnerships"] is False and obj["seed"] == 3 and obj["event"] == "club night"
    back = read_log(log_to_json(log))
    assert back == log and back.nsides == 4


def test_reader_accepts_other_card_spellings_and_ignores_unknown_fields(royal_game: Game) -> None:
    obj = obj_of(royal_game)
    first = obj["rounds"][0]["deals"][0]
    spelled = {"TD": "10♦", "AS": "a♠", "KH": "kh", "TC": "10C"}
    first["table"] = [spelled.get(c, c) for c in first["table"]]
    first["hands"] = [[spelled.get(c, c).lower() for c in h] for h in first["hands"]]
    obj["annotator"] = "someone"
    obj["rounds"][0]["comment"] = "ignored"
    assert read_log(orjson.dumps(obj)) == royal_game.to_log()


def test_move_json_shape() -> None:
    cap = Move(parse_card("8C"), CAPTURE, parse_cards(["5S", "3H", "8D"]))
    assert move_to_json(cap, 0) == {"seat": 0, "card": "8C", "action": "capture", "take": ["3H", "5S", "8D"]}
    build = Move(parse_card("3H"), BUILD, parse_cards(["2D", "3C"]), 8)
    assert move_to_json(build, 1) == {
        "seat": 1,
        "card": "3H",
        "action": "build",
        "take": ["2D", "3C"],
        "value": 8,
    }
    assert move_to_json(Move(parse_card("7H"), TRAIL)) == {"card": "7H", "action": "trail", "take": []}
    for m in (
        cap,
        build,
        Move(parse_card("7H"), TRAIL),
        Move(parse_card("7H"), TRAIL, parse_cards(["2D", "6C"]), 8),
    ):
        assert move_from_json(move_to_json(m, 2)) == (2, m)
    assert move_from_json({"seat": 0, "card": "10d", "action": "capture", "take": ["t♣"]})[1] == Move(
        parse_card("TD"), CAPTURE, parse_card("TC") and 1 << parse_card("TC")
    )


# --- errors, each naming where ---------------------------------------------------------------------


def test_bad_json_format_and_version() -> None:
    assert "bad JSON at line 1" in error_of(b'{"format": ')
    assert "unknown format" in error_of({"format": "pgn", "version": 1})
    assert "version" in error_of({"format": "casino-replay", "version": 2})
    assert "expected a JSON object" in error_of([1, 2])
    assert "unknown preset" in error_of(
        {
            "format": "casino-replay",
            "version": 1,
            "rules": {"preset": "poker"},
            "players": ["a", "b"],
            "rounds": [],
        }
    )


def test_unknown_card_card_twice_wrong_count(royal_game: Game) -> None:
    obj = obj_of(royal_game)
    obj["rounds"][1]["deals"][2]["hands"][1][0] = "ZZ"
    assert error_of(obj).startswith("round 2, deal 3, seat 1 hand: unknown card 'ZZ'")
    obj = obj_of(royal_game)
    h = obj["rounds"][0]["deals"][0]["hands"][0]
    h[1] = h[0]
    assert error_of(obj) == f"round 1, deal 1, seat 0 hand: card {h[0]} appears twice"
    obj = obj_of(royal_game)
    obj["rounds"][0]["deals"][0]["table"].pop()
    assert error_of(obj) == "round 1, deal 1, table: expected 4 cards, got 3"
    obj = obj_of(royal_game)
    table = obj["rounds"][0]["deals"][0]["table"]
    obj["rounds"][0]["deals"][1]["hands"][0][0] = table[0]
    assert error_of(obj).startswith(f"round 1, deal 2: seat 0: card {table[0]}")


def test_wrong_seat_and_illegal_move(royal_game: Game) -> None:
    obj = obj_of(royal_game)
    mv = obj["rounds"][0]["deals"][1]["moves"][2]
    mv["seat"] = (mv["seat"] + 1) % 2
    msg = error_of(obj)
    assert msg.startswith(f"round 1, deal 2, move 3 (ply 10), seat {mv['seat']}, card {mv['card']}: ")
    assert "turn" in msg
    # A card the mover does not hold: the engine's reason.
    obj = obj_of(royal_game)
    d = obj["rounds"][0]["deals"][0]
    mv = d["moves"][0]
    other = d["hands"][(mv["seat"] + 1) % 2][0]
    mv.update(card=other, action="trail", take=[])
    msg = error_of(obj)
    assert msg.startswith(f"round 1, deal 1, move 1 (ply 0), seat {mv['seat']}, card {other}: illegal")
    assert "is not in the hand" in msg


def test_illegal_move_names_the_rule() -> None:
    rules = RuleSet.from_preset("classic")
    log = GameLog(rules, ["A", "B"], None, [])
    obj = log_to_obj(log)
    hands = [["7C", "9S", "2D", "KH"], ["5D", "6H", "QC", "4S"]]
    table = ["3C", "4D", "8H", "JS"]
    obj["rounds"] = [
        {
            "dealer": 1,
            "deals": [
                {
                    "table": table,
                    "hands": hands,
                    "moves": [{"seat": 0, "card": "7C", "action": "capture", "take": ["8H"]}],
                }
            ],
        }
    ]
    msg = error_of(obj)
    assert msg.startswith("round 1, deal 1, move 1 (ply 0), seat 0, card 7C: illegal move")
    assert "rules.md 1.6.1" in msg
    obj["rounds"][0]["deals"][0]["moves"] = [
        {"seat": 0, "card": "2D", "action": "build", "value": 9, "take": ["3C", "4D"]},
        {"seat": 1, "card": "5D", "action": "trail"},
        {"seat": 0, "card": "7C", "action": "trail"},
    ]
    msg = error_of(obj)
    assert msg.startswith("round 1, deal 1, move 3 (ply 2), seat 0, card 7C: illegal move")
    assert "rules.md 1.8.3" in msg
    obj["rounds"][0]["deals"][0]["moves"] = [
        {"seat": 0, "card": "2D", "action": "build", "value": 5, "take": ["3C"]}
    ]
    assert "without a 5" in error_of(obj)


def test_declared_result_is_checked(royal_game: Game) -> None:
    obj = obj_of(royal_game)
    pts = obj["rounds"][0]["result"]["points"]
    obj["rounds"][0]["result"]["points"] = [pts[0] + 1, pts[1]]
    msg = error_of(obj)
    assert msg.startswith(
        f"round 1, result: the log declares points [{pts[0] + 1}, {pts[1]}], "
        f"but the round scores [{pts[0]}, {pts[1]}]"
    )


def test_structure_of_rounds(royal_game: Game) -> None:
    obj = obj_of(royal_game)
    obj["rounds"][0]["deals"][3]["moves"].pop()
    assert "only the last deal of a log may stop early" in error_of(obj)
    obj = obj_of(royal_game)
    obj["rounds"][0]["deals"].pop()
    assert error_of(obj).startswith("round 1: only 5 of 6 deals")
    obj = obj_of(royal_game)
    obj["rounds"][1]["dealer"] = obj["rounds"][0]["dealer"]
    assert "round 2: the dealer must be seat" in error_of(obj)
    obj = obj_of(royal_game)
    obj["rounds"].append(copy.deepcopy(obj["rounds"][-1]))
    assert "already won" in error_of(obj)
    obj = obj_of(royal_game)
    obj["rounds"][0]["deals"][0]["hands"][1] = None
    assert "without a 'viewer'" in error_of(obj)
    obj = obj_of(royal_game, viewer=0)
    obj["rounds"][0]["deals"][0]["hands"][0] = None
    assert "viewer's own hand" in error_of(obj)
    obj = obj_of(royal_game)
    del obj["rounds"][0]["deals"][0]["moves"][0]["seat"]
    assert error_of(obj) == "round 1, deal 1, move 1: the move has no 'seat'"


def test_viewer_log_catches_a_card_seen_twice(royal_game: Game) -> None:
    obj = obj_of(royal_game, viewer=0)
    d = obj["rounds"][0]["deals"][0]
    theirs = next(m for m in d["moves"] if m["seat"] == 1)
    theirs.update(card=d["table"][0], action="trail", take=[])
    msg = error_of(obj)
    assert f"card {d['table'][0]}: illegal move" in msg and "seen elsewhere" in msg


def test_result_on_a_round_in_progress() -> None:
    game = played("classic", 2, 4, moves=10)
    obj = obj_of(game)
    obj["rounds"][0]["result"] = {"points": [1, 2]}
    assert "was not played out" in error_of(obj)


# --- replay views ----------------------------------------------------------------------------------


def test_plies_carry_states_and_positions(royal_game: Game) -> None:
    rep = replay_log(royal_game.to_log())
    p = rep.plies[30]
    assert p.state is not None and p.observation == observe(p.state, p.seat)
    assert legal_at(royal_game.rules, p) == legal_moves(royal_game.rules, p.state)
    assert p.move in legal_at(royal_game.rules, p)
    summary = rep.summary_json()
    assert summary["winner"] == royal_game.winner and summary["totals"] == royal_game.scores
    assert len(summary["rounds"]) == len(royal_game.match.rounds)
    assert summary["rounds"][0]["points"] == list(royal_game.match.rounds[0].points)
    assert set(summary["rounds"][0]) == {"points", "breakdown", "sweeps"}
    pos = position_at(royal_game.to_log(), p)
    assert read_position(position_to_json(pos)) == pos


def test_viewer_plies_of_other_seats_have_no_legal_moves(royal_game: Game) -> None:
    rep = replay_log(royal_game.to_log(viewer=1))
    theirs = next(p for p in rep.plies if p.seat == 0)
    mine = next(p for p in rep.plies if p.seat == 1)
    with pytest.raises(LogError, match="not in the log"):
        legal_at(royal_game.rules, theirs)
    assert mine.move in legal_at(royal_game.rules, mine)
    full = replay_log(royal_game.to_log())
    assert legal_at(royal_game.rules, mine) == legal_at(royal_game.rules, full.plies[mine.index])


# --- positions -------------------------------------------------------------------------------------

EXAMPLE = {
    "format": "casino-position",
    "version": 1,
    "rules": {"preset": "royal"},
    "players": 2,
    "to_move": 0,
    "hand": ["8S", "9C"],
    "table": {"loose": ["AC", "2D"], "builds": [{"cards": ["6S", "3H"], "value": 9, "owner": 1}]},
    "hand_sizes": [2, 2],
    "stock": 8,
    "seen": ["KD", "5C"],
    "captured": [["5C"], ["KD"]],
    "sweeps": [0, 0],
    "last_capture": 1,
    "scores": [4, 9],
}


def test_position_example_reads_and_round_trips() -> None:
    pos = read_position(orjson.dumps(EXAMPLE))
    obs = pos.observation
    assert pos.players == 2 and pos.scores == (4, 9) and obs.seat == 0 and obs.to_move == 0
    assert obs.builds == (Build(parse_cards(["6S", "3H"]), 9, 1, False),)
    assert obs.unseen.bit_count() == 52 - 2 - 4 - 2 and obs.stock_count == 8
    assert obs.last_capturer == 1 and obs.hidden_count() == 10
    data = position_to_json(pos)
    assert read_position(data) == pos and position_to_json(read_position(data)) == data
    assert isinstance(read_any(data), Position) and isinstance(
        read_any(orjson.dumps(log_to_obj(GameLog(pos.rules, ["a", "b"], None, [])))), GameLog
    )


def test_minimal_position_defaults() -> None:
    pos = read_position(
        orjson.dumps(
            {
                "format": "casino-position",
                "version": 1,
                "players": 3,
                "to_move": 2,
                "hand": ["5H"],
                "table": {"loose": ["5C"]},
            }
        )
    )
    assert pos.rules.preset == "classic" and pos.observation.hand_sizes == (1, 1, 1)
    assert pos.observation.stock_count == 0 and pos.scores == (0, 0, 0)
    obs = Pieces(3, 2, parse_cards(["5H"]), parse_cards(["5C"])).observation(pos.rules)
    assert obs == pos.observation


def test_a_null_stock_is_the_default_and_a_file_not_an_object_names_both_formats() -> None:
    # null means "the default" for every optional field of a position, the stock too (QA)
    assert read_position(orjson.dumps({**EXAMPLE, "stock": None})).observation.stock_count == 0
    with pytest.raises(LogError, match='"format": "casino-replay" or "casino-position", got'):
        read_any(b"[1, 2]")


def test_a_classic_tie_past_the_target_is_a_position_to_play() -> None:
    # Classic plays another round when the sides tie for the most at or past 21 (rules.md 1.14.2).
    classic = {**EXAMPLE, "rules": {"preset": "classic"}}
    assert read_position(orjson.dumps({**classic, "scores": [22, 22]})).scores == (22, 22)
    with pytest.raises(LogError, match="the game is already won"):
        read_position(orjson.dumps({**classic, "scores": [22, 21]}))


def test_the_dealer_defaults_to_the_one_the_hand_sizes_imply() -> None:
    # The seat after the dealer leads each deal (rules.md 1.3.6): with seat 0 to move holding two
    # cards and seat 1 one, seat 1 led, so seat 0 dealt (a QA position at 14-19 in Dominican showed
    # 30% to win where 38% was right, from seat 1 taken as the dealer).
    assert dealer_of((2, 1), 0) == 0 and dealer_of((2, 2), 0) == 1 and dealer_of((1, 1), 1) == 0
    assert dealer_of((3, 3, 2, 2), 0) == 1 and dealer_of((2, 3, 3, 3), 1) == 3
    assert dealer_of((2, 3), 0) is None and dealer_of((4, 1), 0) is None  # no deal leaves these
    pos = read_position(orjson.dumps({**EXAMPLE, "hand_sizes": [2, 1], "stock": 0}))
    assert pos.observation.dealer == 0
    assert read_position(orjson.dumps({**EXAMPLE, "hand_sizes": [2, 2]})).observation.dealer == 1
    # Sizes no deal leaves are refused (a 4-player [1, 0, 1, 0] ended in a traceback in suggest).
    for sizes in ([2, 4], [2, 3]):
        with pytest.raises(LogError, match=r"hand_sizes: no deal leaves \[2, [34]\] with seat 0 to move"):
            read_position(orjson.dumps({**EXAMPLE, "hand_sizes": sizes}))
    # A dealer given beside hand sizes left to their default stands: the sizes are only a guess.
    no_sizes = {k: v for k, v in EXAMPLE.items() if k != "hand_sizes"}
    assert read_position(orjson.dumps({**no_sizes, "dealer": 0})).observation.dealer == 0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"hand": ["8S", "8S"]}, "hand: card 8S appears twice"),
        ({"hand": ["8X"]}, "hand: unknown card '8X'"),
        ({"to_move": 5}, "'to_move' must be a whole number from 0 to 1"),
        ({"table": {"loose": ["8S"]}}, "table: card 8S is also in the hand"),
        (
            {"table": {"builds": [{"cards": ["6S", "4H"], "value": 9, "owner": 1}]}},
            "table, build 1: cards 4H 6S do not split into sets worth 9",
        ),
        ({"hand_sizes": [3, 2]}, "hand_sizes: seat 0 holds 2 cards, not 3"),
        ({"stock": 7}, "stock: 7 is not a whole number of deals"),
        ({"captured": [["8S"], []]}, "captured, side 0: card 8S is in two places"),
        ({"version": 3}, "version: unknown casino-position version 3"),
        (
            {
                "hand": ["8S"],
                "table": {"builds": [{"cards": ["6S", "3H"], "value": 9, "owner": 1}]},
                "hand_sizes": [1, 0],
            },
            "table, build 1: its owner, seat 1, holds no cards",
        ),
        (
            {"scores": [21, 3]},
            "scores: side 0 has 21 of the 21 points the game is played to: the game is already",
        ),
        ({"scores": [21, 21]}, "the game is already won"),  # royal counts out: nobody passes 21 together
        (
            {"hand_sizes": [2, 1], "dealer": 1},
            "dealer: seat 1 cannot have dealt: with hand_sizes [2, 1] and seat 0 to move, seat 1 led",
        ),
    ],
)
def test_position_errors(change: dict[str, Any], message: str) -> None:
    with pytest.raises(LogError) as e:
        read_position(orjson.dumps({**EXAMPLE, **change}))
    assert message in str(e.value)


def test_viewer_log_catches_a_dealt_card_already_seen(royal_game: Game) -> None:
    obj = obj_of(royal_game, viewer=1)
    table_card = obj["rounds"][0]["deals"][0]["table"][0]
    obj["rounds"][0]["deals"][2]["hands"][1][3] = table_card
    assert error_of(obj).startswith(f"round 1, deal 3: seat 1: card {table_card} is not available")


def _leaf_paths(o: Any, p: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [p]
    if isinstance(o, dict):
        for k, v in o.items():
            out += _leaf_paths(v, (*p, k))
    elif isinstance(o, list):
        for i, v in enumerate(o):
            out += _leaf_paths(v, (*p, i))
    return out


_FUZZ_GAME = log_to_obj(played("royal", 3, 3, moves=40).to_log())
_FUZZ_VIEW = log_to_obj(played("dominican", 2, 8, moves=30).to_log(viewer=1))
_FUZZ_VALUES = [
    None,
    0,
    -1,
    1,
    5,
    99,
    1.5,
    True,
    "",
    "x",
    "AS",
    "TD",
    "ZZ",
    [],
    ["AS"],
    {},
    {"a": 1},
    "trail",
    "capture",
    "build",
    [None],
    "10♦",
]


@settings(max_examples=150, deadline=None)
@given(
    which=st.sampled_from(["game", "view", "position"]),
    pick=st.integers(0, 10**6),
    value=st.sampled_from(_FUZZ_VALUES),
    delete=st.booleans(),
)
def test_any_corruption_is_a_log_error_never_a_crash(which: str, pick: int, value: Any, delete: bool) -> None:
    src = {"game": _FUZZ_GAME, "view": _FUZZ_VIEW, "position": EXAMPLE}[which]
    obj = copy.deepcopy(src)
    paths = _leaf_paths(obj)[1:]
    path = paths[pick % len(paths)]
    parent = obj
    for k in path[:-1]:
        parent = parent[k]
    if delete and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    try:
        doc = read_any(orjson.dumps(obj))
        if isinstance(doc, GameLog):
            replay_log(doc)
    except LogError as e:
        assert "\n" not in str(e) and str(e)


def test_table_only_build_trails_are_written_with_take_and_value() -> None:
    game = Game(RuleSet.from_preset("royal", table_only_builds=True), 2, seed=2)
    rng = random.Random(2)
    while not game.over:
        legal = game.legal()
        special = [m for m in legal if m.action == TRAIL and m.take]
        game.play(special[0] if special else rng.choice(legal))
    trails = [m for _, m in game.history if m.action == TRAIL and m.take]
    assert trails
    data = log_to_json(game.to_log())
    assert read_log(data) == game.to_log()
    moves = [m for r in orjson.loads(data)["rounds"] for d in r["deals"] for m in d["moves"]]
    assert any(m["action"] == "trail" and m["take"] and "value" in m for m in moves)
    assert replay_log(read_log(data)).match.scores == game.match.scores
