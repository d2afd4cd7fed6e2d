//! Fuzz target `archive_tar_gz`: bytes through the one extractor as a `.tar.gz`
//! (`skills_net::archive::extract`, 09 §Archives), then through the skill finder.
//!
//! Raw gzip input mostly stops at the gzip checksum, which leaves the tar reader unfuzzed, so
//! the first byte chooses: odd, the rest is taken as a tar stream and gzip-compressed here
//! before extraction (the tar headers, links, pax records and sizes are what the fuzzer then
//! mutates); even, the rest goes in as it is (the gzip layer, truncation). The assertions are
//! those of `archive_zip`.

#![no_main]

use std::io::Write as _;

use libfuzzer_sys::fuzz_target;
use skills_net::archive::Format;

#[path = "archive_common.rs"]
mod archive_common;

fuzz_target!(|bytes: &[u8]| {
    let Some((&choice, rest)) = bytes.split_first() else {
        return;
    };
    if choice % 2 == 1 {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(rest).expect("writing to memory");
        let compressed = encoder.finish().expect("writing to memory");
        archive_common::check(&compressed, Format::TarGz);
    } else {
        archive_common::check(rest, Format::TarGz);
    }
});
