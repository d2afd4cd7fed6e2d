//! The publish rules, one test each: the index's exact shape, reproducible bytes, strict
//! validation before anything is written, snapshots of older versions, and a site folder that
//! is never half-written nor taken from somebody else.

use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use serde_json::Value;
use skills_types::Error;
use skills_types::publish::{Request, SCHEMA_V0_2};

use super::publish;
use skills_net::digest::hex_digest;

fn skill(
    parent: &Path,
    name: &str,
    version: Option<&str>,
    body: &str,
    extra: &[(&str, &str)],
) -> PathBuf {
    let dir = parent.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let metadata = version
        .map(|version| format!("metadata:\n  version: \"{version}\"\n"))
        .unwrap_or_default();
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: Does {name} things.\n{metadata}---\n{body}\n"),
    )
    .unwrap();
    for (path, text) in extra {
        let file = dir.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    dir
}

/// Every file below `dir`, by relative path.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(dir: &Path, prefix: &str, found: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name().into_string().unwrap();
            let relative = if prefix.is_empty() {
                name
            } else {
                format!("{prefix}/{name}")
            };
            if entry.file_type().unwrap().is_dir() {
                walk(&entry.path(), &relative, found);
            } else {
                found.insert(relative, std::fs::read(entry.path()).unwrap());
            }
        }
    }
    let mut found = BTreeMap::new();
    walk(dir, "", &mut found);
    found
}

fn index(site: &Path) -> Value {
    serde_json::from_slice(
        &std::fs::read(site.join(".well-known/agent-skills/index.json")).unwrap(),
    )
    .unwrap()
}

/// Two skills: `notes` (SKILL.md alone) and `pdf-tools` (with a script and a reference).
fn sources(root: &Path) -> PathBuf {
    let skills = root.join("skills");
    skill(&skills, "notes", Some("2.0.0"), "Take notes.", &[]);
    skill(
        &skills,
        "pdf-tools",
        None,
        "Run scripts/extract.py.",
        &[
            ("scripts/extract.py", "print('pdf')\n"),
            ("references/REFERENCE.md", "# Reference\n"),
        ],
    );
    skills
}

#[test]
fn the_index_has_the_rfc_shape_with_one_entry_per_skill() {
    let root = tempfile::tempdir().unwrap();
    let skills = sources(root.path());
    let site = root.path().join("site");
    let outcome = publish(&Request::new(vec![skills], &site)).unwrap();
    assert!(outcome.changed);
    assert_eq!(outcome.skills.len(), 2);

    let index = index(&site);
    assert_eq!(index["$schema"], SCHEMA_V0_2);
    let entries = index["skills"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    let notes = &entries[0];
    assert_eq!(notes["name"], "notes");
    assert_eq!(notes["type"], "skill-md");
    assert_eq!(notes["description"], "Does notes things.");
    assert_eq!(notes["url"], "notes/SKILL.md");
    assert_eq!(notes["version"], "2.0.0");
    let pdf = &entries[1];
    assert_eq!(pdf["type"], "archive");
    assert_eq!(pdf["url"], "pdf-tools.tar.gz");
    assert!(
        pdf.get("version").is_none(),
        "no version declared, none written"
    );
    let well_known = site.join(".well-known/agent-skills");
    for entry in entries {
        let bytes = std::fs::read(well_known.join(entry["url"].as_str().unwrap())).unwrap();
        let digest = entry["digest"].as_str().unwrap();
        assert_eq!(digest, format!("sha256:{}", hex_digest(&bytes)));
        assert_eq!(digest.len(), "sha256:".len() + 64);
    }
    // The skill-md artifact is the SKILL.md itself, byte for byte.
    assert_eq!(
        std::fs::read(well_known.join("notes/SKILL.md")).unwrap(),
        std::fs::read(root.path().join("skills/notes/SKILL.md")).unwrap()
    );
    // Field order as in the RFC's examples.
    let text = std::fs::read_to_string(well_known.join("index.json")).unwrap();
    let order: Vec<usize> = [
        "\"name\"",
        "\"type\"",
        "\"description\"",
        "\"url\"",
        "\"digest\"",
    ]
    .iter()
    .map(|field| text.find(field).unwrap())
    .collect();
    assert!(order.windows(2).all(|pair| pair[0] < pair[1]), "{text}");
    assert!(text.trim_start().starts_with("{\n  \"$schema\""), "{text}");
}

#[test]
fn the_archive_holds_the_files_at_its_root_with_fixed_headers() {
    let root = tempfile::tempdir().unwrap();
    let skills = sources(root.path());
    let site = root.path().join("site");
    publish(&Request::new(vec![skills], &site)).unwrap();
    let bytes = std::fs::read(site.join(".well-known/agent-skills/pdf-tools.tar.gz")).unwrap();
    // gzip: no modification time (bytes 4..8), the "unknown" system (byte 9), no file name
    // (flag byte 3 clear).
    assert_eq!(&bytes[..3], &[0x1f, 0x8b, 8]);
    assert_eq!(bytes[3], 0, "no name, comment or extra field");
    assert_eq!(&bytes[4..8], &[0, 0, 0, 0]);
    assert_eq!(bytes[9], 255);

    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(bytes.as_slice()));
    let mut paths = Vec::new();
    for entry in archive.entries().unwrap() {
        let mut entry = entry.unwrap();
        let header = entry.header();
        assert_eq!(header.entry_type(), tar::EntryType::Regular);
        assert_eq!(header.mtime().unwrap(), 0);
        assert_eq!(header.uid().unwrap(), 0);
        assert_eq!(header.gid().unwrap(), 0);
        assert_eq!(header.mode().unwrap(), 0o644);
        assert_eq!(header.username().unwrap(), Some(""));
        assert_eq!(header.groupname().unwrap(), Some(""));
        let path = entry.path().unwrap().to_string_lossy().into_owned();
        let mut content = Vec::new();
        entry.read_to_end(&mut content).unwrap();
        assert_eq!(
            content,
            std::fs::read(root.path().join("skills/pdf-tools").join(&path)).unwrap(),
            "{path}"
        );
        paths.push(path);
    }
    assert_eq!(
        paths,
        ["SKILL.md", "references/REFERENCE.md", "scripts/extract.py"],
        "sorted, at the root, no folder entries"
    );
}

#[test]
fn publishing_again_gives_the_same_bytes_and_writes_nothing() {
    let root = tempfile::tempdir().unwrap();
    let skills = sources(root.path());
    let site = root.path().join("site");
    publish(&Request::new(vec![skills.clone()], &site)).unwrap();
    let first = tree(&site);

    // Newer modification times on the sources change nothing.
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(skills.join("pdf-tools/scripts/extract.py"))
        .unwrap()
        .set_modified(later)
        .unwrap();
    let again = publish(&Request::new(vec![skills.clone()], &site)).unwrap();
    assert!(!again.changed);
    assert_eq!(tree(&site), first);

    // Another site, from the same folders: the same bytes.
    let other = root.path().join("other");
    publish(&Request::new(vec![skills], &other)).unwrap();
    assert_eq!(tree(&other), first);
}

#[test]
fn an_invalid_skill_stops_the_publish_with_its_diagnostics() {
    let root = tempfile::tempdir().unwrap();
    let skills = sources(root.path());
    // Not the folder's name, and a field the specification does not have.
    let bad = skills.join("bad-skill");
    std::fs::create_dir(&bad).unwrap();
    std::fs::write(
        bad.join("SKILL.md"),
        "---\nname: other-name\ndescription: Bad.\nversion: 1.0.0\n---\nBody\n",
    )
    .unwrap();
    let site = root.path().join("site");
    let error = publish(&Request::new(vec![skills], &site)).unwrap_err();
    let Error::NotPublishable { reports } = &error else {
        panic!("{error:?}");
    };
    assert_eq!(reports.len(), 1);
    assert!(reports[0].dir.ends_with("bad-skill"));
    assert!(!reports[0].diagnostics.is_empty());
    assert!(
        !site.join(".well-known/agent-skills").exists(),
        "nothing is written"
    );
}

#[test]
fn a_new_version_keeps_the_old_one_as_a_snapshot() {
    let root = tempfile::tempdir().unwrap();
    let skills = sources(root.path());
    let site = root.path().join("site");
    publish(&Request::new(vec![skills.clone()], &site)).unwrap();
    let well_known = site.join(".well-known/agent-skills");
    let old_bytes = std::fs::read(well_known.join("notes/SKILL.md")).unwrap();
    let old_digest = index(&site)["skills"][0]["digest"].clone();

    skill(&skills, "notes", Some("2.1.0"), "Take better notes.", &[]);
    let outcome = publish(&Request::new(vec![skills.clone()], &site)).unwrap();
    assert_eq!(outcome.snapshots.len(), 1);
    assert_eq!(outcome.snapshots[0].version, "2.0.0");
    assert_eq!(index(&site)["skills"][0]["version"], "2.1.0");

    let versions: Value =
        serde_json::from_slice(&std::fs::read(well_known.join("versions.json")).unwrap()).unwrap();
    assert_eq!(
        versions,
        serde_json::json!({"versions": [
            {"version": "2.0.0", "url": "v2.0.0/index.json", "skills": ["notes"]}
        ]})
    );
    let snapshot: Value =
        serde_json::from_slice(&std::fs::read(well_known.join("v2.0.0/index.json")).unwrap())
            .unwrap();
    assert_eq!(snapshot["$schema"], SCHEMA_V0_2);
    assert_eq!(snapshot["skills"][0]["url"], "notes/SKILL.md");
    assert_eq!(snapshot["skills"][0]["digest"], old_digest);
    assert_eq!(snapshot["skills"][0]["version"], "2.0.0");
    assert_eq!(
        std::fs::read(well_known.join("v2.0.0/notes/SKILL.md")).unwrap(),
        old_bytes
    );

    // The snapshot stays through later publishes, and a third one without changes is a no-op.
    let before = tree(&site);
    let again = publish(&Request::new(vec![skills.clone()], &site)).unwrap();
    assert!(!again.changed && again.snapshots.is_empty());
    assert_eq!(tree(&site), before);

    // A change without a new version replaces the entry and says so.
    skill(&skills, "notes", Some("2.1.0"), "Changed again.", &[]);
    let changed = publish(&Request::new(vec![skills], &site)).unwrap();
    assert!(changed.snapshots.is_empty());
    assert!(
        changed
            .warnings
            .iter()
            .any(|warning| warning.contains("still 2.1.0")),
        "{:?}",
        changed.warnings
    );
}

#[test]
fn files_the_indexes_do_not_name_are_never_replaced() {
    let root = tempfile::tempdir().unwrap();
    let skills = sources(root.path());
    let site = root.path().join("site");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(site.join("index.html"), "<h1>home</h1>").unwrap();
    publish(&Request::new(vec![skills.clone()], &site)).unwrap();
    assert_eq!(
        std::fs::read(site.join("index.html")).unwrap(),
        b"<h1>home</h1>",
        "the rest of the site is left alone"
    );

    let stranger = site.join(".well-known/agent-skills/notes.txt");
    std::fs::write(&stranger, "mine").unwrap();
    skill(&skills, "notes", Some("3.0.0"), "New.", &[]);
    let before = tree(&site);
    let error = publish(&Request::new(vec![skills.clone()], &site)).unwrap_err();
    assert!(error.to_string().contains("notes.txt"), "{error}");
    assert_eq!(tree(&site), before, "nothing was written");

    // A tree changed by hand (an artifact that no longer matches its digest) is refused too.
    std::fs::remove_file(&stranger).unwrap();
    std::fs::write(
        site.join(".well-known/agent-skills/notes/SKILL.md"),
        "edited",
    )
    .unwrap();
    let before = tree(&site);
    let error = publish(&Request::new(vec![skills], &site)).unwrap_err();
    assert!(error.to_string().contains("digest"), "{error}");
    assert_eq!(tree(&site), before);
}

#[cfg(unix)]
#[test]
fn links_are_never_published_and_hidden_files_are_left_out() {
    let root = tempfile::tempdir().unwrap();
    let skills = sources(root.path());
    std::fs::write(skills.join("pdf-tools/.env"), "TOKEN=secret").unwrap();
    let site = root.path().join("site");
    let outcome = publish(&Request::new(vec![skills.clone()], &site)).unwrap();
    assert!(
        outcome
            .warnings
            .iter()
            .any(|warning| warning.contains(".env")),
        "{:?}",
        outcome.warnings
    );
    let bytes = std::fs::read(site.join(".well-known/agent-skills/pdf-tools.tar.gz")).unwrap();
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(bytes.as_slice()));
    for entry in archive.entries().unwrap() {
        let path = entry
            .unwrap()
            .path()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        assert!(!path.contains(".env"), "{path}");
    }

    let secret = root.path().join("secret");
    std::fs::write(&secret, "key").unwrap();
    std::os::unix::fs::symlink(&secret, skills.join("pdf-tools/references/key.md")).unwrap();
    let before = tree(&site);
    let error = publish(&Request::new(vec![skills], &site)).unwrap_err();
    assert_eq!(error.kind(), "refused_path", "{error}");
    assert_eq!(tree(&site), before);

    // A well-known folder that is a link would put the tree outside the site.
    let elsewhere = root.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let linked = root.path().join("linked");
    std::fs::create_dir_all(&linked).unwrap();
    std::os::unix::fs::symlink(&elsewhere, linked.join(".well-known")).unwrap();
    let error = publish(&Request::new(
        vec![root.path().join("skills/notes")],
        &linked,
    ))
    .unwrap_err();
    assert!(error.to_string().contains("not a folder"), "{error}");
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
}

/// A hard link is a second name of a file that may be anywhere (issue 29: a hard-linked
/// `~/.ssh/id_rsa` was published); it stops the publish as a symlink does, as do a FIFO
/// (without hanging it) and a socket, each named, with nothing written.
#[cfg(unix)]
#[test]
fn hard_links_fifos_and_sockets_are_never_published() {
    let root = tempfile::tempdir().unwrap();
    let skills = sources(root.path());
    let site = root.path().join("site");
    let secret = root.path().join("id_rsa");
    std::fs::write(&secret, "secret key").unwrap();
    let at = skills.join("pdf-tools/references/key.md");
    type Plant<'a> = Box<dyn Fn() + 'a>;
    let plants: [(&str, &str, Plant<'_>); 3] = [
        (
            "hard link",
            "2 hard links",
            Box::new(|| std::fs::hard_link(&secret, &at).unwrap()),
        ),
        (
            "fifo",
            "FIFO",
            Box::new(|| {
                rustix::fs::mkfifoat(rustix::fs::CWD, &at, rustix::fs::Mode::from_raw_mode(0o600))
                    .unwrap()
            }),
        ),
        (
            "socket",
            "socket",
            Box::new(|| {
                // Bound and closed: the socket file stays.
                drop(std::os::unix::net::UnixListener::bind(&at).unwrap());
            }),
        ),
    ];
    for (name, said, plant) in plants {
        plant();
        let error = publish(&Request::new(vec![skills.clone()], &site)).unwrap_err();
        assert_eq!(error.kind(), "refused_path", "{name}: {error}");
        let message = error.to_string();
        assert!(
            message.contains("key.md") && message.contains(said),
            "{name}: {message}"
        );
        assert!(!site.exists(), "{name}: nothing is written");
        std::fs::remove_file(&at).unwrap();
    }
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "secret key");
}

#[test]
fn a_folder_without_skills_and_two_skills_of_one_name_are_refused() {
    let root = tempfile::tempdir().unwrap();
    let empty = root.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let site = root.path().join("site");
    let error = publish(&Request::new(vec![empty], &site)).unwrap_err();
    assert_eq!(error.kind(), "no_definition_file");

    let a = root.path().join("a");
    let b = root.path().join("b");
    skill(&a, "notes", None, "A", &[]);
    skill(&b, "notes", None, "B", &[]);
    let error = publish(&Request::new(vec![a, b], &site)).unwrap_err();
    assert!(error.to_string().contains("'notes'"), "{error}");
    assert!(!site.join(".well-known/agent-skills").exists());
}

#[test]
fn versions_name_only_plain_snapshot_folders() {
    for good in ["1.0.0", "2", "1.0.0-beta.1", "1.0+build_5"] {
        assert!(super::site::check_version(good).is_ok(), "{good}");
    }
    for bad in ["", "..", ".1", "1/2", "a b", "1\\2", "-1", &"9".repeat(65)] {
        assert!(super::site::check_version(bad).is_err(), "{bad}");
    }
}

#[test]
fn a_staging_folder_left_by_a_crash_is_removed_and_never_published() {
    let root = tempfile::tempdir().unwrap();
    let skills = sources(root.path());
    let site = root.path().join("site");
    let leftover = site.join(".well-known/.staging-agent-skills-1-2-3");
    std::fs::create_dir_all(leftover.join("notes")).unwrap();
    std::fs::write(leftover.join("index.json"), "{}").unwrap();
    publish(&Request::new(vec![skills], &site)).unwrap();
    assert!(!leftover.exists());
    assert_eq!(
        std::fs::read_dir(site.join(".well-known")).unwrap().count(),
        1,
        "only agent-skills/ is left"
    );
}

#[test]
fn skills_in_category_folders_are_published_and_hidden_or_nested_ones_are_not() {
    let root = tempfile::tempdir().unwrap();
    let tree = root.path().join("skills");
    skill(&tree, "top", None, "Top.", &[]);
    skill(&tree.join("ops"), "incident-notes", None, "Notes.", &[]);
    skill(&tree.join("a/b/c"), "deep", None, "Deep.", &[]);
    skill(&tree.join(".hidden"), "secret", None, "Hidden.", &[]);
    // A folder inside a skill is the skill's own file, never a second skill.
    skill(&tree.join("top/examples"), "inner", None, "Inner.", &[]);
    let outcome = publish(&Request::new(vec![tree], root.path().join("site"))).unwrap();
    let names: Vec<&str> = outcome
        .skills
        .iter()
        .map(|published| published.entry.name.as_str())
        .collect();
    assert_eq!(names, ["deep", "incident-notes", "top"]);
}

/// Writes `notes` with a description one character over the limit (its version bumped, so a
/// publish that took it would change the site).
fn too_long(skills: &Path) {
    let description = "d".repeat(skills_types::limits::MAX_DESCRIPTION_CHARS + 1);
    std::fs::write(
        skills.join("notes/SKILL.md"),
        format!("---\nname: notes\ndescription: {description}\nmetadata:\n  version: \"2.1.0\"\n---\nTake notes.\n"),
    )
    .unwrap();
}

#[test]
fn keep_going_publishes_the_valid_skills_and_lists_the_refused_one_with_why() {
    let root = tempfile::tempdir().unwrap();
    let skills = sources(root.path());
    too_long(&skills);
    skill(&skills, "csv-tools", None, "Profile a CSV.", &[]);
    let site = root.path().join("site");

    // All or nothing without the flag.
    let error = publish(&Request::new(vec![skills.clone()], &site)).unwrap_err();
    assert_eq!(error.kind(), "not_publishable", "{error}");
    assert!(!site.exists(), "nothing is written");

    let outcome = publish(&Request::new(vec![skills.clone()], &site).keep_going(true)).unwrap();
    assert!(outcome.changed);
    let published: Vec<&str> = outcome
        .skills
        .iter()
        .map(|skill| skill.entry.name.as_str())
        .collect();
    assert_eq!(published, ["csv-tools", "pdf-tools"]);
    assert_eq!(outcome.refused.len(), 1, "{:?}", outcome.refused);
    let refused = &outcome.refused[0];
    assert_eq!(refused.dir, skills.join("notes"));
    assert_eq!(refused.name.as_deref(), Some("notes"));
    assert_eq!(refused.kind, "not_publishable");
    assert!(
        refused.reason.contains("description") && refused.reason.contains("1024"),
        "{}",
        refused.reason
    );
    assert!(refused.report.as_ref().is_some_and(|report| !report.valid));
    assert!(!refused.kept, "the site never had it");
    let index = index(&site);
    let names: Vec<&str> = index["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["csv-tools", "pdf-tools"]);
    assert!(!site.join(".well-known/agent-skills/notes").exists());
}

/// A refused skill the site published before stays exactly as published (entry, artifact, no
/// snapshot), while the others are updated.
#[test]
fn keep_going_keeps_the_published_copy_of_a_refused_skill() {
    let root = tempfile::tempdir().unwrap();
    let skills = sources(root.path());
    let site = root.path().join("site");
    publish(&Request::new(vec![skills.clone()], &site)).unwrap();
    let well_known = site.join(".well-known/agent-skills");
    let before = index(&site);
    let notes_bytes = std::fs::read(well_known.join("notes/SKILL.md")).unwrap();

    too_long(&skills);
    std::fs::write(skills.join("pdf-tools/scripts/extract.py"), "print('v2')\n").unwrap();
    let outcome = publish(&Request::new(vec![skills.clone()], &site).keep_going(true)).unwrap();
    assert!(outcome.changed);
    assert_eq!(outcome.refused.len(), 1);
    assert!(outcome.refused[0].kept, "{:?}", outcome.refused);
    assert!(outcome.snapshots.is_empty(), "{:?}", outcome.snapshots);
    assert!(
        outcome
            .warnings
            .iter()
            .all(|warning| !warning.contains("notes")),
        "{:?}",
        outcome.warnings
    );
    let after = index(&site);
    assert_eq!(
        after["skills"][0], before["skills"][0],
        "notes as published"
    );
    assert_ne!(after["skills"][1]["digest"], before["skills"][1]["digest"]);
    assert_eq!(
        std::fs::read(well_known.join("notes/SKILL.md")).unwrap(),
        notes_bytes
    );
    assert_eq!(outcome.skills.len(), 1, "only pdf-tools was published now");
}

#[test]
fn keep_going_refuses_every_folder_of_a_shared_name_and_a_skill_over_the_limits() {
    let root = tempfile::tempdir().unwrap();
    let skills = sources(root.path());
    let a = root.path().join("a");
    let b = root.path().join("b");
    skill(&a, "twin", None, "A", &[]);
    skill(&b, "twin", None, "B", &[]);
    let big =
        "x".repeat(usize::try_from(skills_types::limits::MAX_PACKAGE_FILE_BYTES).unwrap() + 1);
    skill(
        &skills,
        "heavy",
        None,
        "Big.",
        &[("assets/big.txt", big.as_str())],
    );
    let site = root.path().join("site");

    let request = Request::new(vec![skills.clone(), a.clone(), b.clone()], &site);
    let error = publish(&request).unwrap_err();
    assert!(
        !site.exists(),
        "{error}: nothing is written without the flag"
    );

    let outcome = publish(&request.keep_going(true)).unwrap();
    let published: Vec<&str> = outcome
        .skills
        .iter()
        .map(|skill| skill.entry.name.as_str())
        .collect();
    assert_eq!(published, ["notes", "pdf-tools"]);
    let mut refused: Vec<(&Path, &str)> = outcome
        .refused
        .iter()
        .map(|refused| (refused.dir.as_path(), refused.kind.as_str()))
        .collect();
    refused.sort_unstable();
    let twin_a = a.join("twin");
    let twin_b = b.join("twin");
    let heavy = skills.join("heavy");
    let mut expected = vec![
        (twin_a.as_path(), "invalid_input"),
        (twin_b.as_path(), "invalid_input"),
        (heavy.as_path(), "invalid_input"),
    ];
    expected.sort_unstable();
    assert_eq!(refused, expected, "{:?}", outcome.refused);
    for refusal in &outcome.refused {
        if refusal.name.as_deref() == Some("twin") {
            assert!(
                refusal.reason.contains(&twin_a.display().to_string())
                    && refusal.reason.contains(&twin_b.display().to_string()),
                "both folders are named: {}",
                refusal.reason
            );
        } else {
            assert!(refusal.reason.contains("big.txt"), "{}", refusal.reason);
        }
    }
}

#[test]
fn keep_going_with_every_skill_refused_writes_nothing() {
    let root = tempfile::tempdir().unwrap();
    let skills = root.path().join("skills");
    skill(&skills, "notes", None, "Take notes.", &[]);
    too_long(&skills);
    let site = root.path().join("site");
    let outcome = publish(&Request::new(vec![skills.clone()], &site).keep_going(true)).unwrap();
    assert!(!outcome.changed);
    assert!(outcome.skills.is_empty());
    assert_eq!(outcome.refused.len(), 1);
    assert!(!outcome.refused[0].kept, "there is no site");
    assert!(!site.exists(), "nothing is written");

    // A site that publishes it goes on serving it, untouched.
    skill(&skills, "notes", None, "Take notes.", &[]);
    publish(&Request::new(vec![skills.clone()], &site)).unwrap();
    let before = tree(&site);
    too_long(&skills);
    let outcome = publish(&Request::new(vec![skills], &site).keep_going(true)).unwrap();
    assert!(!outcome.changed);
    assert!(outcome.refused[0].kept, "{:?}", outcome.refused);
    assert_eq!(tree(&site), before);
}
