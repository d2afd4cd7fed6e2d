//! Fuzz target `archive_zip`: arbitrary bytes through the one extractor as a zip
//! (`skills_net::archive::extract`, 09 §Archives), then through the skill finder.
//!
//! The extractor reads what a registry or any URL hands it, so whatever the bytes, it must
//! answer with files or a refusal, never a panic, a hang or an allocation past its limits.
//! The target asserts what a caller relies on: every path passes the relative-path check of
//! 03 and is not hidden, the list is sorted without duplicates (not even by letter case), and
//! the sizes stay within the limits, which the small limits here make the fuzzer reach.

#![no_main]

use libfuzzer_sys::fuzz_target;
use skills_net::archive::Format;

#[path = "archive_common.rs"]
mod archive_common;

fuzz_target!(|bytes: &[u8]| {
    archive_common::check(bytes, Format::Zip);
});
