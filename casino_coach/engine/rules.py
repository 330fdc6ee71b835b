"""Rule sets: the presets ``classic``, ``royal`` and ``dominican`` and every option of rules.md §2.

A ``RuleSet`` is frozen data passed explicitly to the engine; it is recorded in every log and report as
``{"preset": ..., <options that differ from the preset>}``. Options are checked when the rule set is
built: an unknown option or an impossible value raises ``RulesError`` naming the option and the choices.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Final

import orjson

from casino_coach.engine.cards import ACE, NUM_CARDS, RANK
from casino_coach.errors import RulesError, UsageError, quoted, shown
from casino_coach.frozen import Frozen

COUNT_OUT_ITEMS: Final[tuple[str, ...]] = ("cards", "spades", "big_casino", "little_casino", "aces", "sweeps")

# Option name -> allowed values (a tuple of choices), or a type for free values.
_CHOICES: dict[str, tuple[Any, ...]] = {
    "deal_pattern": ("twos", "singly", "fours"),
    "direction": ("clockwise", "counterclockwise"),
    "first_dealer": ("random", "seat0"),
    "face_cards": ("pair_only", "numeric"),
    "ace_value": ("one", "one_or_fourteen", "hand14_table1"),
    "court_pairing_count": ("one", "all", "one_or_three"),
    "trail_restriction": ("none", "equal_loose", "any_capture"),
    "equal_loose_capture": ("all", "at_least_one"),
    "false_build": ("forbid",),
    "partner_build_interaction": ("free", "raise_only", "none"),
    "build_for_partner": ("never", "announced", "provable"),
    "table_cards_in_raise": ("never", "with_hand_card"),
    "sweep_cancellation_3p": ("none", "net_vs_max"),
    "last_capture_point": (0, 1),
    "near_target_20": ("little_casino", "most_spades"),
    "near_target_rules": ("off", "dominican", "soto"),
    "near_target_mode": ("freeze", "cap_at_20"),
    "near_target_precedence": ("automatic", "count_out"),
    "majority_tie": ("nobody", "split", "carry_over"),
    "equal_at_target": ("extra_round", "continue_until_ahead"),
    "residue_if_no_capture": ("set_aside", "dealer"),
}
_BOOLS = {
    "partnerships",
    "announce_last_deal",
    "ace_singleton_set_in_build",
    "equal_loose_build_ok",
    "build_as_card_in_sums",
    "raise_own_build",
    "table_only_builds",
    "allow_duplicate_value_builds",
    "multi_set_build_creation",
    "merge_builds",
    "owner_may_trail",
    "court_builds",
    "sweeps",
    "sweep_cancellation",
    "final_capture_can_sweep",
    "last_capture_takes_table",
    "count_out",
    "claim_during_play",
}
_POINTS = {
    "target",
    "points_cards",
    "points_spades",
    "points_big",
    "points_little",
    "points_ace",
    "points_sweep",
}

# Upper bounds of the numbers a rule set takes (rules.md §2.6): far beyond any real game
# (played to 11 or 21, items worth 1 to 3 points), near enough that a game to the target ends in
# seconds and every score stays a small number in JSON, on the page's chart and on the terminal. A
# weight of 2**63 - 1 broke every JSON writer, 10**8 made the page's chart a gigabyte, and a target
# of 10**9 made selfplay play for ever.
MAX_TARGET = 1000
MAX_POINTS = 100


@dataclass(frozen=True)
class RuleSet(Frozen):
    """One complete set of rules. Build it with ``RuleSet.preset(name, **options)``."""

    preset: str = "classic"
    # 2.1 deal and turn structure
    partnerships: bool = True
    deal_pattern: str = "twos"
    direction: str = "clockwise"
    announce_last_deal: bool = True
    first_dealer: str = "random"
    # 2.2 card values and capturing
    face_cards: str = "pair_only"
    ace_value: str = "one"
    ace_singleton_set_in_build: bool = False
    court_pairing_count: str = "one"
    trail_restriction: str = "none"
    equal_loose_capture: str = "all"
    equal_loose_build_ok: bool = True
    build_as_card_in_sums: bool = False
    # 2.3 building
    false_build: str = "forbid"
    raise_own_build: bool = True
    partner_build_interaction: str = "free"
    build_for_partner: str = "never"
    table_cards_in_raise: str = "never"
    table_only_builds: bool = False
    allow_duplicate_value_builds: bool = True
    multi_set_build_creation: bool = True
    merge_builds: bool = False
    owner_may_trail: bool = False
    court_builds: bool = False
    # 2.4 sweeps, residue, scoring, winning
    sweeps: bool = False
    sweep_cancellation: bool = False
    sweep_cancellation_3p: str = "none"
    final_capture_can_sweep: bool = True
    last_capture_takes_table: bool = True
    last_capture_point: int = 0
    residue_if_no_capture: str = "set_aside"
    near_target_20: str = "little_casino"
    near_target_rules: str = "off"
    near_target_mode: str = "freeze"
    near_target_precedence: str = "automatic"
    majority_tie: str = "nobody"
    count_out: bool = False
    equal_at_target: str = "extra_round"
    count_out_order: tuple[str, ...] = COUNT_OUT_ITEMS
    target: int = 21
    points_cards: int = 3
    points_spades: int = 1
    points_big: int = 2
    points_little: int = 1
    points_ace: int = 1
    points_sweep: int = 1
    claim_during_play: bool = False

    # Derived tables, filled in __post_init__ (not options).
    numeric_courts: bool = field(init=False, repr=False, compare=False)
    max_build: int = field(init=False, repr=False, compare=False)
    build_value: tuple[int, ...] = field(init=False, repr=False, compare=False)
    pair_value: tuple[int, ...] = field(init=False, repr=False, compare=False)
    capture_values: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)
    capture_masks: tuple[int, ...] = field(init=False, repr=False, compare=False)  # bit w: captures w
    # Whether a table without builds needs none of the build, Dominican or C4 rules (movegen's fast
    # path): then the only trail restriction left is any_capture.
    simple_tables: bool = field(init=False, repr=False, compare=False)
    # Every option in field order, and its hash: a rule set keys the caches of every layer
    # (``functools.cache``, ``values.cached_values``, the core's rules), and the generated ``__eq__``
    # and ``__hash__`` built a tuple of the 50-odd options at each look-up (a tenth of a searcher's
    # decision went there).
    _key: tuple[Any, ...] = field(init=False, repr=False, compare=False)
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        key = tuple(getattr(self, f.name) for f in dataclasses.fields(self) if f.compare)
        object.__setattr__(self, "_key", key)
        object.__setattr__(self, "_hash", hash(key))
        _check({name: getattr(self, name) for name in OPTION_NAMES})
        numeric = self.face_cards == "numeric"
        # rules.md 1.2: value of a card in a sum or a build (an ace counts 1 there, V3/B13);
        # classic courts have no number (0) and only pair.
        build_value = tuple(RANK[c] + 1 if (numeric or RANK[c] < 10) else 0 for c in range(NUM_CARDS))
        # Pairing value: what a card is "equal" to (courts by rank 11..13 in every preset).
        pair_value = tuple(RANK[c] + 1 for c in range(NUM_CARDS))
        caps: list[tuple[int, ...]] = []
        for c in range(NUM_CARDS):
            if RANK[c] == ACE:
                caps.append({"one": (1,), "one_or_fourteen": (1, 14), "hand14_table1": (14,)}[self.ace_value])
            else:
                caps.append((pair_value[c],))
        object.__setattr__(self, "numeric_courts", numeric)
        object.__setattr__(self, "max_build", 14 if numeric else 10)
        object.__setattr__(self, "build_value", build_value)
        object.__setattr__(self, "pair_value", pair_value)
        object.__setattr__(self, "capture_values", tuple(caps))
        object.__setattr__(self, "capture_masks", tuple(sum(1 << w for w in ws) for ws in caps))
        object.__setattr__(
            self,
            "simple_tables",
            self.trail_restriction != "equal_loose"
            and not (self.build_as_card_in_sums or self.table_only_builds or self.court_builds),
        )

    # Written out, so the dataclass keeps them: equal when every option is (as the generated ones).
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RuleSet):
            return NotImplemented
        return self is other or self._key == other._key

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Unpickled as one rule set per set of options in a process (``_unpickled``): a worker is sent
        # the rules with every task, and checking them again took 0.1 ms a task.
        return _unpickled, (self._key,)

    @staticmethod
    def preset_names() -> tuple[str, ...]:
        return tuple(PRESETS)

    @classmethod
    def from_preset(cls, name: str = "classic", **options: Any) -> RuleSet:
        """The preset ``name`` with ``options`` overriding its defaults."""
        return cls.from_dict({"preset": name, **options})

    @classmethod
    def from_dict(cls, data: Any) -> RuleSet:
        """Read the ``rules`` object of a log: ``{"preset": ..., option: value, ...}`` (typed ``Any``:
        anything else is a RulesError here, also in the compiled build)."""
        if not isinstance(data, Mapping):
            raise RulesError(f'rules: expected an object like {{"preset": "classic"}}, got {shown(data)}')
        preset = data.get("preset", "classic")
        if not isinstance(preset, str) or preset not in PRESETS:
            raise RulesError(f"unknown preset {shown(preset)}: choose one of {', '.join(PRESETS)}")
        values = dict(PRESETS[preset])
        for key, value in data.items():
            if key == "preset":
                continue
            if key not in OPTION_NAMES:
                raise RulesError(f"unknown rule option {quoted(str(key))}")
            if key == "count_out_order" and isinstance(value, list):
                value = tuple(value)
            values[key] = value
        # Checked before the dataclass is built: the compiled build refuses a wrong type itself,
        # with a TypeError instead of the option's name and its choices.
        _check({**_DEFAULTS, **values})
        return cls(preset=preset, **values)

    def to_dict(self) -> dict[str, Any]:
        """The preset plus every option that differs from the preset's default."""
        base = PRESETS[self.preset]
        out: dict[str, Any] = {"preset": self.preset}
        for name in OPTION_NAMES:
            value = getattr(self, name)
            default = base.get(name, _DEFAULTS[name])
            if value != default:
                out[name] = list(value) if isinstance(value, tuple) else value
        return out

    def replace(self, **options: Any) -> RuleSet:
        """A copy with some options changed (checked like any other)."""
        return RuleSet.from_dict({**self.to_dict(), **options})

    def describe(self) -> str:
        """One line for people: the preset and the options that differ from it, each written as
        ``-o NAME=VALUE`` takes it ("royal (sweeps=false)")."""
        d = self.to_dict()
        extra = ", ".join(
            f"{k}={v if isinstance(v, str) else orjson.dumps(v).decode()}"
            for k, v in d.items()
            if k != "preset"
        )
        return self.preset + (f" ({extra})" if extra else "")


OPTION_NAMES: tuple[str, ...] = tuple(
    f.name for f in dataclasses.fields(RuleSet) if f.init and f.name != "preset"
)
_DEFAULTS: dict[str, Any] = {
    f.name: f.default for f in dataclasses.fields(RuleSet) if f.init and f.name != "preset"
}

# rules.md §2, columns c / r / d: what each preset changes from the dataclass defaults (= classic).
PRESETS: dict[str, dict[str, Any]] = {
    "classic": {},
    "royal": {
        "face_cards": "numeric",
        "ace_value": "one_or_fourteen",
        "sweeps": True,
        "count_out": True,
    },
    "dominican": {
        "face_cards": "numeric",
        "ace_value": "one_or_fourteen",
        "direction": "counterclockwise",
        "trail_restriction": "equal_loose",
        "raise_own_build": False,
        "partner_build_interaction": "none",
        "sweeps": True,
        "sweep_cancellation": True,
        "sweep_cancellation_3p": "net_vs_max",
        "near_target_rules": "dominican",
        "count_out": True,
        "equal_at_target": "continue_until_ahead",
    },
}


def _check(options: Mapping[str, Any]) -> None:
    """Raise RulesError unless ``options`` (every option by name) make a supported rule set."""
    for name in OPTION_NAMES:
        value = options[name]
        if name in _BOOLS:
            if not isinstance(value, bool):
                raise RulesError(f"rule option {name!r} must be true or false, got {shown(value)}")
        elif name in _CHOICES:
            choices = _CHOICES[name]
            if value not in choices or isinstance(value, bool) != isinstance(choices[0], bool):
                if name == "false_build" and value == "penalty":
                    raise RulesError(
                        "rule option 'false_build': 'penalty' is not supported; the engine forbids "
                        "false builds (choose 'forbid')"
                    )
                opts = " | ".join(str(c) for c in choices)
                raise RulesError(f"rule option {name!r} must be one of {opts}, got {shown(value)}")
        elif name in _POINTS:
            least, most = (1, MAX_TARGET) if name == "target" else (0, MAX_POINTS)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise RulesError(
                    f"rule option {name!r} must be a whole number >= {least}, got {shown(value)}"
                )
            if name == "target" and value < 1:
                raise RulesError(f"rule option 'target' must be at least 1, got {shown(value)}")
            if value > most:
                raise RulesError(
                    f"rule option {name!r} must be at most {most:,} (rules.md §2.6), got {shown(value)}"
                )
        elif name == "count_out_order" and (
            not isinstance(value, tuple)
            or not all(isinstance(x, str) for x in value)
            or sorted(value) != sorted(COUNT_OUT_ITEMS)
        ):
            raise RulesError(
                "rule option 'count_out_order' must list each of "
                f"{', '.join(COUNT_OUT_ITEMS)} once, got {shown(value)}"
            )
    if options["face_cards"] == "pair_only" and options["ace_value"] != "one":
        raise RulesError(
            "rule option 'ace_value' must be 'one' when face_cards is 'pair_only' (a 14 needs numeric courts)"
        )
    if options["claim_during_play"]:
        raise RulesError(
            "rule option 'claim_during_play' is not supported: casino_coach counts "
            "every round out at its end (set it to false)"
        )
    if options["face_cards"] == "numeric" and options["court_builds"]:
        raise RulesError("rule option 'court_builds' only applies when face_cards is 'pair_only'")
    weights = (
        "points_cards",
        "points_spades",
        "points_big",
        "points_little",
        "points_ace",
        "last_capture_point",
    )
    if not any(options[w] for w in weights) and not (options["sweeps"] and options["points_sweep"]):
        # Selfplay ran such a game forever: no round could bring a side nearer the target.
        raise RulesError(
            f"no item scores a point ({', '.join(weights)} all 0, and sweeps score none): "
            "a game could never end"
        )


# What each option settles: the question of rules.md section 2 (with its id there), or the section of
# the rules it belongs to; ``casino-coach rules`` shows it beside each value (tests/test_rules.py keeps
# it as docs/rules.md words it).
OPTION_QUESTIONS: Final[dict[str, str]] = {
    "partnerships": "D1 Four players: partnerships or not",
    "deal_pattern": "D2 Deal pattern",
    "direction": "D3 Direction of deal and play",
    "announce_last_deal": "D4 Warning before the final deal",
    "first_dealer": "D5 First dealer",
    "face_cards": "V1 Court cards",
    "ace_value": "V2 Ace",
    "ace_singleton_set_in_build": 'V3 Played ace used as a one-card "14" set inside a multiple build',
    "court_pairing_count": "V4 Classic court pairing when several matching courts are on the table",
    "trail_restriction": "C1 Is capturing ever compulsory?",
    "equal_loose_capture": "C2 Under the equal-loose rule, must the card take all equal loose cards?",
    "equal_loose_build_ok": (
        "C3 Under the equal-loose rule, may the card build instead, leaving the equal "
        "loose card on the table?"
    ),
    "build_as_card_in_sums": (
        "C4 May a single build be treated like a card of its value (summed with loose "
        "cards, e.g. a 7-build + loose 2 taken by a 9)?"
    ),
    "false_build": "B1 Must hold the capture card",
    "raise_own_build": "B3 Raising your own single build",
    "partner_build_interaction": "B4 Interacting with a partner's build",
    "build_for_partner": "B5 Building for partner (you do not hold the capture card)",
    "table_cards_in_raise": "B6 Loose table cards helping to raise a single build",
    "table_only_builds": "B7 Builds made only from table cards (while trailing)",
    "allow_duplicate_value_builds": "B8 Two separate builds of the same value on the table",
    "multi_set_build_creation": "B9 Creating a multiple build that swallows several loose sets at once",
    "merge_builds": "B10 Merging two existing builds of equal value in one move",
    "owner_may_trail": "B11 Owner of a build may trail",
    "court_builds": "B12 Court cards in (multiple) builds in classic",
    "sweeps": "S1 Are sweeps scored?",
    "sweep_cancellation": "S2 Opposing sweeps cancel",
    "sweep_cancellation_3p": "S3 Sweep cancellation with 3 individual players",
    "final_capture_can_sweep": "S4 Is taking the residue a sweep?",
    "last_capture_takes_table": "S5 Residue owner",
    "last_capture_point": "S5 Residue owner",
    "residue_if_no_capture": "1.11 Cards left on the table when nobody captured in the round",
    "near_target_20": "S6 Dominican near-21 rule at 20",
    "near_target_rules": "S7 Dominican near-21 rules at 18 and 19",
    "near_target_mode": "S8 What a side at 18–20 scores when it misses its condition",
    "near_target_precedence": (
        'S9 Precedence of the near-target "automatic win" over an opponent who passes 21 in the same count'
    ),
    "majority_tie": "S10 Ties for most cards / spades",
    "count_out": "S11 Two sides reach 21 in the same round",
    "equal_at_target": "S11 Two sides reach 21 in the same round",
    "count_out_order": "S12 Count-out order",
    "target": "S13 Target score and weights",
    "points_cards": "S13 Target score and weights",
    "points_spades": "S13 Target score and weights",
    "points_big": "S13 Target score and weights",
    "points_little": "S13 Target score and weights",
    "points_ace": "S13 Target score and weights",
    "points_sweep": "S13 Target score and weights",
    "claim_during_play": "S14 Claiming out during play",
}


def rules_section(number: str) -> str:
    """Section ``number`` ("1.6.1") of the rules reference that the error messages cite ("rules.md
    1.6.1"): ``rules.md``, shipped in the package (the same file as the repository's
    ``docs/rules.md``). Its heading and text, up to the next heading of the same or a higher level;
    a numbered item of a section ("1.8.2": item 2 of 1.8) gives its whole section. UsageError for a
    number with no section."""
    from importlib import resources

    text = resources.files("casino_coach").joinpath("rules.md").read_text(encoding="utf-8")
    lines = text.splitlines()
    headings: dict[str, tuple[int, int]] = {}  # number: (line, level)
    for i, line in enumerate(lines):
        marks, _, title = line.partition(" ")
        if marks and set(marks) == {"#"}:
            headings.setdefault(title.split(" ", 1)[0].rstrip("."), (i, len(marks)))
    parts = number.split(".")
    keys = [".".join(parts[:k]) for k in (len(parts), len(parts) - 1) if k]
    key = next((k for k in keys if k in headings), None)
    if key is None:
        raise UsageError(
            f"--section {number!r}: the rules have no such section; give a number that a message "
            "cites, as in 1.6.1"
        )
    start, level = headings[key]
    end = next(
        (j for j in range(start + 1, len(lines)) if 0 < len(lines[j]) - len(lines[j].lstrip("#")) <= level),
        len(lines),
    )
    return "\n".join(lines[start:end]).strip()


@lru_cache(maxsize=256)
def _unpickled(options: tuple[Any, ...]) -> RuleSet:
    """The rule set of these options (``RuleSet._key``: every option, in field order), made once per
    process: the same object for every task a worker is sent, which every cache keyed by a rule set
    then finds at once."""
    return RuleSet(*options)
