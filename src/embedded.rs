//! The built-in pattern packs and check sets, compiled into the binary:
//! `(file name, TOML text)` pairs that `build.rs` reads from `patterns/`
//! and `patterns/checks/`.

include!(concat!(env!("OUT_DIR"), "/builtin.rs"));
