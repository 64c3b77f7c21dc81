//! The line and rule layer with the built-in packs (see `artiscan_fuzz::rules`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| artiscan_fuzz::rules(data));
