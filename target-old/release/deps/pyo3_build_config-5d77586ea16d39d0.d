/work/main/target-old/release/deps/pyo3_build_config-5d77586ea16d39d0.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.30.1/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.30.1/src/errors.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.30.1/src/impl_.rs

/work/main/target-old/release/deps/libpyo3_build_config-5d77586ea16d39d0.rlib: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.30.1/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.30.1/src/errors.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.30.1/src/impl_.rs

/work/main/target-old/release/deps/libpyo3_build_config-5d77586ea16d39d0.rmeta: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.30.1/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.30.1/src/errors.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.30.1/src/impl_.rs

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.30.1/src/lib.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.30.1/src/errors.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.30.1/src/impl_.rs:

# env-dep:CARGO_PKG_VERSION=0.30.1
