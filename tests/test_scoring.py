"""Round breakdowns, ties, sweeps cancelling, count-out, and the Dominican near-21 rules."""

from __future__ import annotations

from casino_coach.engine.cards import FULL_DECK, parse_cards
from casino_coach.engine.rules import RuleSet
from casino_coach.engine.scoring import Match, score_round
from casino_coach.engine.state import RoundState

CLASSIC = RuleSet.from_preset("classic")
ROYAL = RuleSet.from_preset("royal")
DOMINICAN = RuleSet.from_preset("dominican")


def finished(piles: list[int], sweeps: tuple[int, ...] = (0, 0), last: int = 0) -> RoundState:
    n = len(piles)
    return RoundState(
        hands=(0,) * n,
        loose=0,
        builds=(),
        captured=tuple(piles),
        sweeps=sweeps,
        to_move=0,
        last_capturer=last,
        stock=0,
        more=False,
        dealer=0,
        nsides=n,
    )


def split(first: list[str]) -> list[int]:
    a = parse_cards(first)
    return [a, FULL_DECK & ~a]


# Side 0: 27 cards with 7 spades, 10♦, 2♠ and two aces; side 1 the rest.
SIDE0 = [
    "TD",
    "2S",
    "AS",
    "AC",
    "3S",
    "4S",
    "5S",
    "6S",
    "7S",
    "8S",
    "2C",
    "3C",
    "4C",
    "5C",
    "6C",
    "7C",
    "8C",
    "9C",
    "TC",
    "JC",
    "QC",
    "KC",
    "2D",
    "3D",
    "4D",
    "5D",
    "6D",
]


def test_breakdown_and_checksum() -> None:
    assert len(SIDE0) == 27
    rs = score_round(CLASSIC, finished(split(SIDE0)))
    assert rs.points == (3 + 1 + 2 + 1 + 2, 2)
    assert sum(rs.points) == 11
    assert rs.breakdown[0]["cards"] == 3 and rs.breakdown[0]["card_count"] == 27
    assert rs.breakdown[1]["aces"] == 2 and rs.breakdown[1]["spade_count"] == 5


def test_cards_tie_scores_nothing() -> None:
    rs = score_round(CLASSIC, finished(split(SIDE0[:26])))
    assert rs.card_counts == (26, 26)
    assert sum(rs.points) == 8 and rs.breakdown[0]["cards"] == rs.breakdown[1]["cards"] == 0
    split_rules = CLASSIC.replace(majority_tie="split")
    assert score_round(split_rules, finished(split(SIDE0[:26]))).breakdown[0]["cards"] == 1.5
    carry = CLASSIC.replace(majority_tie="carry_over")
    m = Match(carry, 2)
    m.add_round(finished(split(SIDE0[:26])))
    assert m.carry == {"cards": 3}
    second = m.add_round(finished(split(SIDE0)))
    assert second.breakdown[0]["cards"] == 6 and m.carry == {}


def test_sweeps_scored_cancelled_or_not() -> None:
    piles = split(SIDE0)
    assert score_round(CLASSIC, finished(piles, (2, 1))).points == (9, 2)
    assert score_round(CLASSIC.replace(sweeps=True), finished(piles, (2, 1))).points == (11, 3)
    assert score_round(ROYAL, finished(piles, (2, 1))).points == (11, 3)
    assert score_round(DOMINICAN, finished(piles, (2, 1))).points == (10, 2)


def test_three_player_sweeps_net_vs_max() -> None:
    a = parse_cards(SIDE0)
    rest = FULL_DECK & ~a
    b = parse_cards(["9D", "TH"])
    rs = score_round(DOMINICAN, finished([a, b, rest & ~b], (3, 1, 2)))
    assert rs.breakdown[0]["sweeps"] == 1 and rs.breakdown[1]["sweeps"] == 0
    assert rs.breakdown[2]["sweeps"] == 0


def test_classic_higher_total_wins_and_equal_plays_on() -> None:
    m = Match(CLASSIC, 2, scores=[20, 19])
    rs = m.add_round(finished(split(SIDE0)))  # 9 vs 2 -> 29 vs 21
    assert rs.winner == 0 and m.scores == [29, 21]
    tie = Match(CLASSIC, 2, scores=[12, 19])
    assert tie.add_round(finished(split(SIDE0))).winner is None  # 21 vs 21
    assert tie.winner is None


def test_royal_count_out_order() -> None:
    # Side 1 needs 1 point, side 0 needs 3: most cards (side 0) is counted first and wins.
    m = Match(ROYAL, 2, scores=[18, 20])
    rs = m.add_round(finished(split(SIDE0)))
    assert rs.winner == 0
    # With side 1 needing 1 and owning the first ace counted after 10♦/2♠... side 0 still first.
    m2 = Match(ROYAL, 2, scores=[10, 20])
    assert m2.add_round(finished(split(SIDE0))).winner == 1  # side 1's ace of hearts reaches 21


def test_dominican_near_target() -> None:
    # At 18 only most cards wins: side 0 takes 27 cards and wins at once.
    m = Match(DOMINICAN, 2, scores=[18, 0])
    assert m.add_round(finished(split(SIDE0))).winner == 0
    # At 19 only Big Casino: side 1 at 19 without 10♦ scores nothing (freeze).
    m2 = Match(DOMINICAN, 2, scores=[0, 19])
    rs = m2.add_round(finished(split(SIDE0)))
    assert rs.winner is None and rs.points == (9, 0)
    # At 20 Little Casino wins (seed rule) even though side 1 at 15 would reach 21 in the count.
    m3 = Match(DOMINICAN, 2, scores=[20, 19])
    assert m3.add_round(finished(split(SIDE0))).winner == 0
    # pagat's wording: at 20 only most spades.
    pag = DOMINICAN.replace(near_target_20="most_spades")
    assert Match(pag, 2, scores=[20, 0]).add_round(finished(split(SIDE0))).winner == 0
    # A side at 18+ scores no sweeps but cancels the other's.
    rs4 = score_round(DOMINICAN, finished(split(SIDE0), (0, 2)), scores=(0, 18))
    assert rs4.breakdown[1]["sweeps"] == 0
    rs5 = score_round(DOMINICAN, finished(split(SIDE0), (2, 1)), scores=(0, 18))
    assert rs5.breakdown[0]["sweeps"] == 1


def test_count_out_precedence_option() -> None:
    rules = DOMINICAN.replace(near_target_precedence="count_out")
    # Side 1 at 20 needs 2♠; side 0 at 16 reaches 21 with cards, spades and 10♦, counted earlier.
    m = Match(rules, 2, scores=[16, 20])
    side0 = [c for c in SIDE0 if c != "2S"] + ["9D"]
    piles = split(side0)
    rs = m.add_round(finished(piles))
    assert rs.card_counts == (27, 25) and rs.winner == 0
    auto = Match(DOMINICAN, 2, scores=[16, 20])
    assert auto.add_round(finished(piles)).winner == 1
