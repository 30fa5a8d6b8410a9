#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| kerf_fuzz::harness::pack_ops(data));
