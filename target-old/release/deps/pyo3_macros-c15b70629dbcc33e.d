/work/main/target-old/release/deps/pyo3_macros-c15b70629dbcc33e.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-macros-0.30.1/src/lib.rs

/work/main/target-old/release/deps/libpyo3_macros-c15b70629dbcc33e.so: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-macros-0.30.1/src/lib.rs

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-macros-0.30.1/src/lib.rs:

# env-dep:CARGO_PKG_VERSION=0.30.1
