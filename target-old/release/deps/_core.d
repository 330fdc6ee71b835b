/work/main/target-old/release/deps/_core.d: src/lib.rs src/python.rs src/python/chances.rs src/python/inference.rs src/python/leaf.rs src/python/movegen.rs src/python/race.rs src/python/solver.rs src/python/worlds.rs src/engine/mod.rs src/engine/cards.rs src/engine/movegen.rs src/engine/observation.rs src/engine/playout.rs src/engine/rng.rs src/engine/rules.rs src/engine/state.rs src/search/mod.rs src/search/chances.rs src/search/inference.rs src/search/leaf.rs src/search/race.rs src/search/solver.rs src/search/table.rs src/search/worlds.rs

/work/main/target-old/release/deps/lib_core.so: src/lib.rs src/python.rs src/python/chances.rs src/python/inference.rs src/python/leaf.rs src/python/movegen.rs src/python/race.rs src/python/solver.rs src/python/worlds.rs src/engine/mod.rs src/engine/cards.rs src/engine/movegen.rs src/engine/observation.rs src/engine/playout.rs src/engine/rng.rs src/engine/rules.rs src/engine/state.rs src/search/mod.rs src/search/chances.rs src/search/inference.rs src/search/leaf.rs src/search/race.rs src/search/solver.rs src/search/table.rs src/search/worlds.rs

src/lib.rs:
src/python.rs:
src/python/chances.rs:
src/python/inference.rs:
src/python/leaf.rs:
src/python/movegen.rs:
src/python/race.rs:
src/python/solver.rs:
src/python/worlds.rs:
src/engine/mod.rs:
src/engine/cards.rs:
src/engine/movegen.rs:
src/engine/observation.rs:
src/engine/playout.rs:
src/engine/rng.rs:
src/engine/rules.rs:
src/engine/state.rs:
src/search/mod.rs:
src/search/chances.rs:
src/search/inference.rs:
src/search/leaf.rs:
src/search/race.rs:
src/search/solver.rs:
src/search/table.rs:
src/search/worlds.rs:

# env-dep:CARGO_PKG_VERSION=0.1.0
