//! `cargo fuzz run checkpoint`: the target of tests/fuzz/targets.rs, coverage-guided.
#![no_main]

// The stable runner uses the rest of the module.
#[allow(dead_code)]
#[path = "../../tests/fuzz/targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    targets::Target::Checkpoint.run(data);
});
