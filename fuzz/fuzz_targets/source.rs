//! The source layer (see `artiscan_fuzz::source`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| artiscan_fuzz::source(data));
