//! Pack loading (see `artiscan_fuzz::pack`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| artiscan_fuzz::pack(data));
