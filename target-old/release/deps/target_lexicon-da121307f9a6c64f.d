/work/main/target-old/release/deps/target_lexicon-da121307f9a6c64f.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/target-lexicon-0.13.6/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/target-lexicon-0.13.6/src/data_model.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/target-lexicon-0.13.6/src/host.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/target-lexicon-0.13.6/src/parse_error.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/target-lexicon-0.13.6/src/targets.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/target-lexicon-0.13.6/src/triple.rs /work/main/target-old/release/build/target-lexicon-9289d13c0834a112/out/host.rs

/work/main/target-old/release/deps/libtarget_lexicon-da121307f9a6c64f.rlib: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/target-lexicon-0.13.6/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/target-lexicon-0.13.6/src/data_model.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/target-lexicon-0.13.6/src/host.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/target-lexicon-0.13.6/src/parse_error.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/target-lexicon-0.13.6/src/targets.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/target-lexicon-0.13.6/src/triple.rs /work/main/target-old/release/build/target-lexicon-9289d13c0834a112/out/host.rs

/work/main/target-old/release/deps/libtarget_lexicon-da121307f9a6c64f.rmeta: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/target-lexicon-0.13.6/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/target-lexicon-0.13.6/src/data_model.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/target-lexicon-0.13.6/src/host.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/target-lexicon-0.13.6/src/parse_error.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/target-lexicon-0.13.6/src/targets.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/target-lexicon-0.13.6/src/triple.rs /work/main/target-old/release/build/target-lexicon-9289d13c0834a112/out/host.rs

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/target-lexicon-0.13.6/src/lib.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/target-lexicon-0.13.6/src/data_model.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/target-lexicon-0.13.6/src/host.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/target-lexicon-0.13.6/src/parse_error.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/target-lexicon-0.13.6/src/targets.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/target-lexicon-0.13.6/src/triple.rs:
/work/main/target-old/release/build/target-lexicon-9289d13c0834a112/out/host.rs:

# env-dep:OUT_DIR=/work/main/target-old/release/build/target-lexicon-9289d13c0834a112/out
