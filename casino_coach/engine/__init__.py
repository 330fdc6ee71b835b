"""The rules engine, the lowest layer: cards and card masks, rule sets, round states, legal moves and
their application, scoring, what a seat can observe, the compact notation, and what cards are worth.
Imports nothing of casino_coach but ``errors`` and ``frozen``."""
