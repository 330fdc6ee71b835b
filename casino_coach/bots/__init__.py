"""Players: the policy protocol and the random, greedy, counter and searcher bots, and the arena that
plays them against each other. Imports ``engine``, ``formats`` and ``search``."""
