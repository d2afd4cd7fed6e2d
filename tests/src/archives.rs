//! Archives the unit tests of the extractor and of the skill finder build for themselves: tar
//! streams whose headers are written byte by byte (so a hostile name or link reaches the
//! reader as written, with no writer's check in between), gzip around them, and zip files.

use std::io::Write as _;

pub use tar::EntryType;

/// A small valid `SKILL.md`.
pub const SKILL: &[u8] = b"---\nname: alpha\ndescription: A test skill.\n---\nBody.\n";

/// One raw tar entry; the name and the link target are written into the header as bytes,
/// unchecked.
pub struct Raw<'a> {
    /// The entry's name, under 100 bytes (the old header's field).
    pub name: &'a str,
    /// What the entry is.
    pub kind: EntryType,
    /// Its contents.
    pub data: &'a [u8],
    /// A link's target; empty for anything else.
    pub link: &'a str,
}

/// A regular file.
pub fn file<'a>(name: &'a str, data: &'a [u8]) -> Raw<'a> {
    Raw {
        name,
        kind: EntryType::Regular,
        data,
        link: "",
    }
}

/// An entry of this kind with no contents (a folder, a FIFO, a device).
pub fn entry(name: &str, kind: EntryType) -> Raw<'_> {
    Raw {
        name,
        kind,
        data: b"",
        link: "",
    }
}

/// A symbolic link to `target`.
pub fn link<'a>(name: &'a str, target: &'a str) -> Raw<'a> {
    Raw {
        name,
        kind: EntryType::Symlink,
        data: b"",
        link: target,
    }
}

/// A tar stream with the end-of-archive marker.
#[expect(
    clippy::unwrap_used,
    reason = "a test helper: writing into a Vec cannot fail, and a panic is how a broken fixture is reported"
)]
pub fn tar_of(entries: &[Raw<'_>]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for raw in entries {
        let mut header = tar::Header::new_gnu();
        let name = raw.name.as_bytes();
        assert!(name.len() < 100, "test names fit the old header");
        header.as_old_mut().name[..name.len()].copy_from_slice(name);
        let link = raw.link.as_bytes();
        header.as_old_mut().linkname[..link.len()].copy_from_slice(link);
        header.set_entry_type(raw.kind);
        header.set_mode(0o644);
        header.set_size(raw.data.len() as u64);
        header.set_cksum();
        builder.append(&header, raw.data).unwrap();
    }
    builder.into_inner().unwrap()
}

/// `bytes` gzip-compressed.
#[expect(
    clippy::unwrap_used,
    reason = "a test helper: compressing into a Vec cannot fail"
)]
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

/// A gzip-compressed tar stream.
pub fn tar_gz(entries: &[Raw<'_>]) -> Vec<u8> {
    gzip(&tar_of(entries))
}

/// A zip file, deflated, mode 0644; a name ending in `/` is a folder entry.
#[expect(
    clippy::unwrap_used,
    reason = "a test helper: writing into a Cursor cannot fail, and a panic is how a broken fixture is reported"
)]
pub fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .unix_permissions(0o644);
    for (name, data) in entries {
        if let Some(folder) = name.strip_suffix('/') {
            writer.add_directory(folder, options).unwrap();
        } else {
            writer.start_file(*name, options).unwrap();
            writer.write_all(data).unwrap();
        }
    }
    writer.finish().unwrap().into_inner()
}

/// Fails unless `result` is an error whose message names every needle.
#[track_caller]
pub fn assert_refused<T: std::fmt::Debug>(result: Result<T, String>, needles: &[&str]) {
    let Err(error) = result else {
        panic!("the archive must be refused: {result:?}");
    };
    for needle in needles {
        assert!(
            error.contains(needle),
            "the message {error:?} does not mention {needle:?}"
        );
    }
}

/// The paths of an extracted tree, in its order.
pub fn paths(files: &[(String, Vec<u8>)]) -> Vec<&str> {
    files.iter().map(|(path, _)| path.as_str()).collect()
}
