"""The coaching: every move of a game rated from what the mover could know (``analysis``), and the
loss explained in words (``explain``). Imports the layers below (engine, formats, search, bots)."""
