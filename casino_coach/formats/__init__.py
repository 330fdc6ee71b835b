"""Files and what is in them: the casino-replay and casino-position formats (replay-format.md), the
re-play of a log through the engine, a live game recorded as a log, and atomic file writing. Imports
only ``engine`` (and the base modules)."""
