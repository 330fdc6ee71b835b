"""Files and what is in them (replay-format.md): ``codec`` (cards, moves and rules in JSON), ``log``
(the casino-replay format), ``position`` (the casino-position format), ``replay`` (a log re-played
through the engine), ``game`` (a live game recorded as a log), ``files`` (atomic writes), ``jsonio``
and ``text``. Imports only ``engine`` (and the base modules)."""
