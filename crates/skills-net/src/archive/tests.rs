//! Hostile and ordinary archives, built by the tests with the `tar` and `zip` writers (and by
//! patching bytes where a writer refuses to write something hostile).

use std::io::Write as _;

use skills_tests::archives::{
    EntryType, Raw, SKILL, assert_refused, entry, file, gzip, link, paths, tar_gz, tar_of, zip_of,
};

use super::*;

/// Replaces every occurrence of `from` by `to` (same length) in the archive's bytes: local
/// headers and central directory alike.
fn patch(bytes: &mut [u8], from: &[u8], to: &[u8]) {
    assert_eq!(from.len(), to.len());
    let mut found = false;
    let mut at = 0;
    while let Some(offset) = bytes[at..]
        .windows(from.len())
        .position(|window| window == from)
    {
        bytes[at + offset..at + offset + to.len()].copy_from_slice(to);
        at += offset + to.len();
        found = true;
    }
    assert!(found, "nothing to patch");
}

/// Offsets of the central directory records, in order.
fn central_records(bytes: &[u8]) -> Vec<usize> {
    let mut at = find_central_directory(bytes).unwrap();
    let mut records = Vec::new();
    while bytes.get(at..at + 4) == Some(b"PK\x01\x02") {
        records.push(at);
        let field = |offset: usize| {
            usize::from(u16::from_le_bytes([
                bytes[at + offset],
                bytes[at + offset + 1],
            ]))
        };
        at += 46 + field(28) + field(30) + field(32);
    }
    records
}

/// Sets the unix mode of the `index`-th central directory record (made by Unix).
fn set_unix_mode(bytes: &mut [u8], index: usize, mode: u32) {
    let at = central_records(bytes)[index];
    bytes[at + 5] = 3;
    let attributes = (mode << 16).to_le_bytes();
    bytes[at + 38..at + 42].copy_from_slice(&attributes);
}

fn extract_tar(entries: &[Raw<'_>]) -> Result<Vec<(String, Vec<u8>)>, String> {
    extract(&tar_gz(entries), Format::TarGz, &Limits::default())
}

fn extract_zip(entries: &[(&str, &[u8])]) -> Result<Vec<(String, Vec<u8>)>, String> {
    extract(&zip_of(entries), Format::Zip, &Limits::default())
}

#[test]
fn formats_come_from_names_and_magic_bytes() {
    assert_eq!(Format::of_name("x.tar.gz"), Some(Format::TarGz));
    assert_eq!(Format::of_name("https://h/x.TGZ"), Some(Format::TarGz));
    assert_eq!(Format::of_name("x.zip"), Some(Format::Zip));
    assert_eq!(Format::of_name("x.tar"), None);
    assert_eq!(
        Format::sniff(&tar_gz(&[file("a", b"x")])),
        Some(Format::TarGz)
    );
    assert_eq!(Format::sniff(&zip_of(&[("a", b"x")])), Some(Format::Zip));
    assert_eq!(Format::sniff(b"<html>"), None);
}

#[test]
fn ordinary_archives_extract_sorted_with_folders_and_hidden_entries_dropped() {
    let entries = [
        entry("repo-abc/", EntryType::Directory),
        file("repo-abc/b.md", b"b"),
        entry(".github/", EntryType::Directory),
        file("repo-abc/.github/workflows/ci.yml", b"ci"),
        file("repo-abc/.env", b"SECRET=1"),
        file("./repo-abc/a/SKILL.md", SKILL),
    ];
    let files = extract_tar(&entries).unwrap();
    assert_eq!(paths(&files), ["repo-abc/a/SKILL.md", "repo-abc/b.md"]);
    assert_eq!(files[0].1, SKILL);

    let files = extract_zip(&[
        ("repo-abc/", b""),
        ("repo-abc/b.md", b"b"),
        ("repo-abc/.git/config", b"x"),
        ("repo-abc/a/SKILL.md", SKILL),
    ])
    .unwrap();
    assert_eq!(paths(&files), ["repo-abc/a/SKILL.md", "repo-abc/b.md"]);
    assert_eq!(files[0].1, SKILL);
}

#[test]
fn the_pax_global_header_of_a_github_tarball_is_not_a_file() {
    let mut builder = tar::Builder::new(Vec::new());
    let mut header = tar::Header::new_ustar();
    let comment = b"52 comment=0123456789abcdef0123456789abcdef01234567\n";
    header.set_path("pax_global_header").unwrap();
    header.set_entry_type(EntryType::XGlobalHeader);
    header.set_size(comment.len() as u64);
    header.set_cksum();
    builder.append(&header, &comment[..]).unwrap();
    let mut header = tar::Header::new_ustar();
    header.set_path("o-r-0123456/SKILL.md").unwrap();
    header.set_size(SKILL.len() as u64);
    header.set_cksum();
    builder.append(&header, SKILL).unwrap();
    let files = extract(
        &gzip(&builder.into_inner().unwrap()),
        Format::TarGz,
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(paths(&files), ["o-r-0123456/SKILL.md"]);
}

/// Names the path check of 03 refuses, each with a word its message must hold.
const HOSTILE_NAMES: &[(&str, &str)] = &[
    ("../x", "'..'"),
    ("a/../../x", "'..'"),
    ("./../x", "'..'"),
    ("/etc/passwd", "absolute"),
    ("C:/x", "drive"),
    ("C:x", "drive"),
    ("a\\..\\x", "'\\'"),
    ("\\x", "'\\'"),
    ("a/nul.txt", "device"),
    ("a//b", "empty component"),
    ("a/b.", "ends with a dot"),
    (".git/../../x", "'..'"),
];

#[test]
fn hostile_names_are_refused_in_both_formats_naming_the_entry() {
    for (name, why) in HOSTILE_NAMES {
        let shown = name.escape_debug().to_string();
        assert_refused(
            extract_tar(&[file("SKILL.md", SKILL), file(name, b"x")]),
            &["tar.gz", &shown, why],
        );
        assert_refused(
            extract_zip(&[("SKILL.md", SKILL), (name, b"x")]),
            &["zip", &shown, why],
        );
    }
}

#[test]
fn hostile_folder_entries_are_refused_too() {
    assert_refused(
        extract_tar(&[entry("../up/", EntryType::Directory)]),
        &["'../up/'", "'..'"],
    );
    assert_refused(extract_zip(&[("../up/", b"")]), &["'../up/'", "'..'"]);
}

#[test]
fn links_devices_and_fifos_in_a_tar_are_refused_never_created() {
    let cases = [
        (EntryType::Symlink, "a symbolic link"),
        (EntryType::Link, "a hard link"),
        (EntryType::Char, "a device"),
        (EntryType::Block, "a device"),
        (EntryType::Fifo, "a FIFO"),
    ];
    for (kind, why) in cases {
        let link = Raw {
            name: "skill/data",
            kind,
            data: b"",
            link: "/home/me/.ssh/id_rsa",
        };
        assert_refused(
            extract_tar(&[file("skill/SKILL.md", SKILL), link]),
            &["'skill/data'", why, "(to '/home/me/.ssh/id_rsa')"],
        );
    }
    // The classic escape: a link to a folder outside, then a file written through it.
    let link = Raw {
        name: "escape",
        kind: EntryType::Symlink,
        data: b"",
        link: "/tmp",
    };
    assert_refused(
        extract_tar(&[link, file("escape/evil", b"x")]),
        &["'escape/evil'", "'escape' is both a file and a folder"],
    );
}

#[test]
fn a_link_in_a_hidden_folder_is_skipped_like_the_folder() {
    let files = extract_tar(&[
        file("repo/skills/alpha/SKILL.md", SKILL),
        link("repo/.claude/skills", "../skills"),
    ])
    .unwrap();
    assert_eq!(paths(&files), ["repo/skills/alpha/SKILL.md"]);
}

#[test]
fn links_devices_and_fifos_in_a_zip_are_refused() {
    let mut writer = zip::ZipWriter::new(io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default();
    writer.start_file("SKILL.md", options).unwrap();
    writer.write_all(SKILL).unwrap();
    writer
        .add_symlink("secret", "/home/me/.ssh/id_rsa", options)
        .unwrap();
    let bytes = writer.finish().unwrap().into_inner();
    assert_refused(
        extract(&bytes, Format::Zip, &Limits::default()),
        &["'secret'", "symbolic link"],
    );

    for (mode, why) in [
        (0o010_644, "FIFO"),
        (0o020_644, "device"),
        (0o060_644, "device"),
        (0o140_644, "socket"),
        (0o120_777, "symbolic link"),
    ] {
        let mut bytes = zip_of(&[("SKILL.md", SKILL), ("odd", b"x")]);
        set_unix_mode(&mut bytes, 1, mode);
        assert_refused(
            extract(&bytes, Format::Zip, &Limits::default()),
            &["'odd'", why],
        );
    }
}

#[test]
fn duplicate_entries_are_refused_naming_them() {
    assert_refused(
        extract_tar(&[file("a/SKILL.md", SKILL), file("a/SKILL.md", b"other")]),
        &["'a/SKILL.md' appears twice"],
    );
    // The zip writer refuses duplicates, so the second name is patched into the first.
    let mut bytes = zip_of(&[("a/SKILL.md", SKILL), ("b/SKILL.md", b"other")]);
    patch(&mut bytes, b"b/SKILL.md", b"a/SKILL.md");
    assert_refused(
        extract(&bytes, Format::Zip, &Limits::default()),
        &["'a/SKILL.md' appears twice"],
    );
}

#[test]
fn names_equal_by_case_or_normalisation_collide() {
    let nfc = "caf\u{e9}/SKILL.md";
    let nfd = "cafe\u{301}/SKILL.md";
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "A/SKILL.md",
            "a/skill.md",
            &["'a/skill.md'", "'A'", "letter case"],
        ),
        ("A/x.md", "a/y.md", &["'a'", "'A'", "letter case"]),
        (
            nfc,
            nfd,
            &["two Unicode normalisations", "caf\\u{e9}", "cafe\\u{301}"],
        ),
        ("x", "x/y", &["'x' is both a file and a folder"]),
        ("x/y", "x", &["'x' is both a file and a folder"]),
    ];
    for (first, second, needles) in cases {
        assert_refused(
            extract_tar(&[file(first, b"1"), file(second, b"2")]),
            needles,
        );
        assert_refused(extract_zip(&[(first, b"1"), (second, b"2")]), needles);
    }
}

#[test]
fn too_many_entries_are_refused() {
    let limits = Limits {
        entries: 3,
        ..Limits::default()
    };
    let names = ["a", "b", "c", "d"];
    let raw: Vec<Raw<'_>> = names.iter().map(|name| file(name, b"x")).collect();
    assert_refused(
        extract(&tar_gz(&raw), Format::TarGz, &limits),
        &["more than 3 entries"],
    );
    let entries: Vec<(&str, &[u8])> = names.iter().map(|name| (*name, &b"x"[..])).collect();
    assert_refused(
        extract(&zip_of(&entries), Format::Zip, &limits),
        &["more than 3 entries"],
    );
    assert!(extract(&tar_gz(&raw[..3]), Format::TarGz, &limits).is_ok());
    assert!(extract(&zip_of(&entries[..3]), Format::Zip, &limits).is_ok());
}

#[test]
fn a_file_over_the_file_limit_or_files_over_the_total_are_refused() {
    let limits = Limits {
        file: 10,
        total: 15,
        ..Limits::default()
    };
    let big = [b'x'; 11];
    let ten = [b'x'; 10];
    assert_refused(
        extract(&tar_gz(&[file("big", &big)]), Format::TarGz, &limits),
        &["'big' is larger than 10 bytes"],
    );
    assert_refused(
        extract(&zip_of(&[("big", &big)]), Format::Zip, &limits),
        &["'big' is larger than 10 bytes"],
    );
    assert_refused(
        extract(
            &tar_gz(&[file("a", &ten), file("b", &ten)]),
            Format::TarGz,
            &limits,
        ),
        &["exceed 15 bytes in total", "'b'"],
    );
    assert_refused(
        extract(&zip_of(&[("a", &ten), ("b", &ten)]), Format::Zip, &limits),
        &["exceed 15 bytes in total", "'b'"],
    );
}

/// A zip bomb: 8 MiB of zeros in a few kilobytes.
fn zero_bomb() -> Vec<u8> {
    zip_of(&[("SKILL.md", SKILL), ("zeros", &vec![0; 8 * MIB as usize])])
}

#[test]
fn a_zip_bomb_stops_at_the_limits_and_at_the_ratio() {
    let bomb = zero_bomb();
    assert!(bomb.len() < 64 * 1024, "the bomb is small: {}", bomb.len());
    assert_refused(
        extract(&bomb, Format::Zip, &Limits::default()),
        &["'zeros'"],
    );
    // With room for the file and the total, the ratio stops it.
    let roomy = Limits {
        file: 64 * MIB,
        ..Limits::default()
    };
    assert_refused(extract(&bomb, Format::Zip, &roomy), &["bomb", "100:1"]);
    let tar_bomb = tar_gz(&[
        file("SKILL.md", SKILL),
        file("zeros", &vec![0; 8 * MIB as usize]),
    ]);
    assert_refused(
        extract(&tar_bomb, Format::TarGz, &roomy),
        &["bomb", "100:1"],
    );
}

#[test]
fn the_ratio_spares_small_regular_archives() {
    // 200 KiB of one repeated line compresses far past 100:1, and is below the floor.
    let text = b"abcdefgh".repeat(25 * 1024);
    let files = extract(
        &zip_of(&[("SKILL.md", &text)]),
        Format::Zip,
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(files[0].1, text);
    let files = extract_tar(&[file("SKILL.md", &text)]).unwrap();
    assert_eq!(files[0].1, text);
}

#[test]
fn a_zip_header_that_lies_about_the_size_is_refused() {
    let data = vec![b'y'; 4096];
    let original = zip_of(&[("SKILL.md", SKILL), ("data", &data)]);
    let records = central_records(&original);
    for claimed in [10u32, 1 << 30] {
        let mut bytes = original.clone();
        // The uncompressed size in the central directory (which the reader trusts) and in
        // the local header.
        bytes[records[1] + 24..records[1] + 28].copy_from_slice(&claimed.to_le_bytes());
        let result = extract(&bytes, Format::Zip, &Limits::default());
        assert_refused(result, &["'data'"]);
    }
    // A header that understates a bomb's size does not let it past the limits.
    let mut bomb = zero_bomb();
    let records = central_records(&bomb);
    bomb[records[1] + 24..records[1] + 28].copy_from_slice(&100u32.to_le_bytes());
    assert_refused(
        extract(&bomb, Format::Zip, &Limits::default()),
        &["'zeros'"],
    );
}

#[test]
fn a_tar_header_that_lies_about_the_size_is_refused() {
    // A header claiming more than the stream holds is a truncated archive.
    let mut tar = tar_of(&[file("SKILL.md", SKILL)]);
    let mut header = tar::Header::new_gnu();
    header.as_mut_bytes().copy_from_slice(&tar[..512]);
    header.set_size(1 << 30);
    header.set_cksum();
    tar[..512].copy_from_slice(header.as_bytes());
    tar.truncate(512 + 512);
    assert_refused(
        extract(&gzip(&tar), Format::TarGz, &Limits::default()),
        &["'SKILL.md'"],
    );
}

#[test]
fn truncated_archives_are_errors_not_partial_results() {
    let tar = tar_gz(&[file("SKILL.md", SKILL), file("b.md", &[b'b'; 5000])]);
    for cut in [1, tar.len() / 2, tar.len() - 4] {
        assert!(
            extract(&tar[..cut], Format::TarGz, &Limits::default()).is_err(),
            "a tar.gz cut at {cut} of {} must be refused",
            tar.len()
        );
    }
    // A complete gzip stream around a tar cut after its first entry (no end marker).
    let inner = tar_of(&[file("SKILL.md", SKILL), file("b.md", b"b")]);
    assert_refused(
        extract(&gzip(&inner[..1024]), Format::TarGz, &Limits::default()),
        &["truncated"],
    );
    // ... and one cut inside the second file's data.
    let inner = tar_of(&[file("SKILL.md", SKILL), file("b.md", &[b'b'; 5000])]);
    assert_refused(
        extract(
            &gzip(&inner[..1024 + 512 + 100]),
            Format::TarGz,
            &Limits::default(),
        ),
        &["'b.md' holds 100 bytes but its header says 5000"],
    );

    let zip = zip_of(&[("SKILL.md", SKILL), ("b.md", &[b'b'; 5000])]);
    for cut in [0, 10, zip.len() / 2, zip.len() - 1] {
        assert!(
            extract(&zip[..cut], Format::Zip, &Limits::default()).is_err(),
            "a zip cut at {cut} of {} must be refused",
            zip.len()
        );
    }
}

#[test]
fn a_corrupted_entry_fails_its_checksum() {
    // Stored, so the body's bytes can be found and one flipped.
    let mut bytes = {
        let mut writer = zip::ZipWriter::new(io::Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored);
        writer.start_file("SKILL.md", options).unwrap();
        writer.write_all(SKILL).unwrap();
        writer.finish().unwrap().into_inner()
    };
    patch(&mut bytes, b"Body.", b"Bodx.");
    assert_refused(
        extract(&bytes, Format::Zip, &Limits::default()),
        &["'SKILL.md'"],
    );
}

/// A tar.gz of a runtime: each entry with its mode (links and folders take theirs as given).
fn runtime_tar_gz(entries: &[(Raw<'_>, u32)]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for (raw, mode) in entries {
        let mut header = tar::Header::new_gnu();
        let name = raw.name.as_bytes();
        header.as_old_mut().name[..name.len()].copy_from_slice(name);
        let link = raw.link.as_bytes();
        header.as_old_mut().linkname[..link.len()].copy_from_slice(link);
        header.set_entry_type(raw.kind);
        header.set_mode(*mode);
        header.set_size(raw.data.len() as u64);
        header.set_cksum();
        builder.append(&header, raw.data).unwrap();
    }
    gzip(&builder.into_inner().unwrap())
}

#[test]
fn a_runtime_keeps_execute_bits_and_links_that_land_in_its_tree() {
    // Node's own layout: npm under `lib/node_modules`, which a skill source passes over but a
    // runtime keeps.
    let bytes = runtime_tar_gz(&[
        (entry("node-v1/bin/", EntryType::Directory), 0o755),
        (file("node-v1/bin/node", b"#!/bin/sh\n"), 0o755),
        (file("node-v1/lib/node_modules/npm/cli.js", b"js"), 0o644),
        (
            link("node-v1/bin/npm", "../lib/node_modules/npm/cli.js"),
            0o777,
        ),
        (entry("node-v1/share/", EntryType::Directory), 0o755),
    ]);
    let unpacked = extract_runtime(&bytes, &RUNTIME_LIMITS).unwrap();
    let files: Vec<(&str, bool)> = unpacked
        .files
        .iter()
        .map(|file| (file.path.as_str(), file.executable))
        .collect();
    assert_eq!(
        files,
        [
            ("node-v1/bin/node", true),
            ("node-v1/lib/node_modules/npm/cli.js", false)
        ]
    );
    assert_eq!(
        unpacked.links,
        [UnpackedLink {
            path: "node-v1/bin/npm".to_owned(),
            target: "../lib/node_modules/npm/cli.js".to_owned()
        }]
    );
    assert!(unpacked.folders.contains(&"node-v1/share".to_owned()));
    // The skill extractor still refuses the very same archive.
    assert_refused(
        extract(&bytes, Format::TarGz, &Limits::default()),
        &["'node-v1/bin/npm' is a symbolic link"],
    );
}

#[test]
fn a_runtime_link_that_leaves_its_tree_is_refused() {
    let cases: [(&str, &str, &str); 6] = [
        ("node-v1/bin/x", "/etc/passwd", "is not a relative path"),
        (
            "node-v1/bin/x",
            "../../../etc/passwd",
            "leaves the archive's tree",
        ),
        (
            "node-v1/bin/x",
            "../missing",
            "names nothing the archive holds",
        ),
        ("node-v1/bin/x", "../..", "names the archive's top folder"),
        ("node-v1/bin/x", "../.hidden/y", "lands on a refused path"),
        // `up` is a link to the top; through it `..` would climb out on disk though the
        // lexical walk stays inside.
        (
            "node-v1/bin/x",
            "../up/../../etc",
            "passes through another link",
        ),
    ];
    for (name, target, why) in cases {
        let bytes = runtime_tar_gz(&[
            (file("node-v1/bin/node", b"n"), 0o755),
            (link("node-v1/up", "bin"), 0o777),
            (link(name, target), 0o777),
        ]);
        assert_refused(extract_runtime(&bytes, &RUNTIME_LIMITS), &[why, target]);
    }
}

#[test]
fn a_runtime_refuses_hard_links_and_paths_through_its_links() {
    let bytes = runtime_tar_gz(&[
        (file("node-v1/bin/node", b"n"), 0o755),
        (
            Raw {
                name: "node-v1/bin/hard",
                kind: EntryType::Link,
                data: b"",
                link: "node-v1/bin/node",
            },
            0o755,
        ),
    ]);
    assert_refused(extract_runtime(&bytes, &RUNTIME_LIMITS), &["a hard link"]);
    let bytes = runtime_tar_gz(&[
        (file("node-v1/lib/x", b"n"), 0o644),
        (link("node-v1/l", "lib"), 0o777),
        (file("node-v1/l/evil", b"n"), 0o644),
    ]);
    assert_refused(
        extract_runtime(&bytes, &RUNTIME_LIMITS),
        &["'node-v1/l' is both a file and a folder"],
    );
}
