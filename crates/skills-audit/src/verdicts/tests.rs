//! The verdict store: written by every scan, read once per listing, stale as soon as a file
//! changes, never trusted when broken.

use skills_types::audit::Request;

use skills_types::DiagnosticCode;

use super::*;
use crate::recheck::{recheck, rescan};
use crate::testing::{BIDI, Tree, write};

fn verdicts_file(tree: &Tree) -> PathBuf {
    tree.home.join(".openhuman").join(VERDICTS_FILE)
}

/// The catalog as `list` sees it, marked.
fn marked(tree: &Tree) -> Vec<Skill> {
    let config = tree.config();
    let mut skills = skills_ops::discover::discover(&config).unwrap().skills;
    mark(&config, &mut skills);
    skills
}

fn mark_of(tree: &Tree, name: &str) -> Option<Mark> {
    marked(tree)
        .into_iter()
        .find(|skill| skill.name == name)
        .unwrap()
        .audit
}

#[test]
fn an_audit_records_verdicts_that_listings_mark_until_a_file_changes() {
    let tree = Tree::new();
    let hiding = tree.skill("hiding", &format!("Reads {BIDI}files."));
    tree.skill("clean", "Reads files.");
    // Never audited: no mark, which is not "clean".
    assert_eq!(mark_of(&tree, "hiding"), None);
    crate::audit(&tree.config(), &Request::new()).unwrap();
    let flagged = mark_of(&tree, "hiding").unwrap();
    assert!(flagged.flagged(), "{flagged:?}");
    assert_eq!(flagged.max_severity, Some(Severity::High));
    assert_eq!(flagged.rules_version, crate::RULES_VERSION);
    // High is below the default refuse_on (critical): flagged, not blocked.
    assert!(!flagged.blocked);
    assert!(flagged.note("hiding").unwrap().contains("flagged: high"));
    let clean = mark_of(&tree, "clean").unwrap();
    assert_eq!(clean.state, MarkState::Current);
    assert!(!clean.flagged() && clean.note("clean").is_none());
    // A bundled file added: the verdict no longer describes the folder.
    write(&hiding.join("scripts/run.sh"), "echo hi\n");
    let stale = mark_of(&tree, "hiding").unwrap();
    assert_eq!(stale.state, MarkState::Stale);
    assert!(!stale.flagged());
    assert!(stale.note("hiding").unwrap().contains("stale"), "{stale:?}");
}

#[test]
fn the_stamp_changes_with_a_byte_and_not_without() {
    let tree = Tree::new();
    let dir = tree.skill("pdf", "Reads PDFs.");
    write(&dir.join("references/a.md"), "one\n");
    let caps = Caps::default();
    let first = stamp(&dir, &caps).unwrap();
    assert_eq!(stamp(&dir, &caps).unwrap(), first);
    // Same size, new bytes: the change time moves even if the modification time is set back.
    write(&dir.join("references/a.md"), "two\n");
    assert_ne!(stamp(&dir, &caps).unwrap(), first);
    assert_eq!(stamp(&tree.home.join("missing"), &caps), None);
}

#[test]
fn a_broken_store_marks_nothing_and_the_next_scan_replaces_it() {
    let tree = Tree::new();
    tree.skill("hiding", &format!("Reads {BIDI}files."));
    write(&verdicts_file(&tree), "{ not json");
    assert_eq!(mark_of(&tree, "hiding"), None);
    // A version this build does not read is not trusted either.
    write(&verdicts_file(&tree), "{\"version\": 99, \"skills\": []}");
    assert_eq!(mark_of(&tree, "hiding"), None);
    crate::audit(&tree.config(), &Request::new()).unwrap();
    assert!(mark_of(&tree, "hiding").unwrap().flagged());
}

#[test]
fn a_store_larger_than_its_limit_is_not_read() {
    let tree = Tree::new();
    tree.skill("hiding", &format!("Reads {BIDI}files."));
    crate::audit(&tree.config(), &Request::new()).unwrap();
    let file = verdicts_file(&tree);
    let mut text = std::fs::read_to_string(&file).unwrap();
    let limit = usize::try_from(AUDIT_VERDICTS.limit).unwrap();
    text.push_str(&" ".repeat(limit));
    std::fs::write(&file, text).unwrap();
    assert_eq!(mark_of(&tree, "hiding"), None);
}

#[test]
fn recheck_scans_only_what_changed_or_what_other_rules_judged() {
    let tree = Tree::new();
    tree.skill("hiding", &format!("Reads {BIDI}files."));
    tree.skill("clean", "Reads files.");
    let config = tree.config();
    // Nothing recorded: everything is scanned, the flagged one is a diagnostic.
    let first = recheck(&config, &[]).unwrap();
    assert_eq!(first.scanned, ["clean", "hiding"]);
    assert_eq!(first.unchanged, 0);
    assert_eq!(first.diagnostics.len(), 1, "{first:?}");
    assert_eq!(first.diagnostics[0].code, DiagnosticCode::AuditFlagged);
    assert!(
        first.diagnostics[0]
            .message
            .starts_with("hiding: flagged: high")
    );
    // The fast path: nothing changed, nothing scanned; the flag is still reported.
    let second = recheck(&config, &[]).unwrap();
    assert!(second.scanned.is_empty(), "{second:?}");
    assert_eq!(second.unchanged, 2);
    assert_eq!(second.diagnostics.len(), 1);
    // A rule folder of the user's: other rules, every verdict made again.
    let rules = tree.home.join("rules");
    write(
        &rules.join("team.yar"),
        "rule team_files {\n  meta:\n    severity = \"low\"\n    category = \"data_exfiltration\"\n    title = \"Files read\"\n  strings:\n    $a = \"Reads files\"\n  condition:\n    $a\n}\n",
    );
    tree.home_config(&format!(
        "[audit]\nrules = [{:?}]\n",
        rules.display().to_string()
    ));
    let third = recheck(&tree.config(), &[]).unwrap();
    assert_eq!(third.scanned, ["clean", "hiding"], "{third:?}");
    assert!(
        third
            .rules_version
            .starts_with(&format!("{}+user.", crate::RULES_VERSION))
    );
    assert_eq!(
        mark_of(&tree, "clean").unwrap().rules_version,
        third.rules_version
    );
}

#[test]
fn rescan_reports_a_verdict_that_changed_and_nothing_else() {
    let tree = Tree::new();
    tree.skill("pdf", "Reads PDFs.");
    let config = tree.config();
    let names = vec!["pdf".to_owned()];
    // First seen and clean: recorded, and no news.
    assert!(rescan(&config, &names).unwrap().is_empty());
    assert_eq!(mark_of(&tree, "pdf").unwrap().max_severity, None);
    // Same verdict after a harmless edit: scanned again, nothing to report.
    tree.skill("pdf", "Reads PDFs well.");
    assert!(rescan(&config, &names).unwrap().is_empty());
    tree.skill("pdf", &format!("Reads {BIDI}PDFs."));
    let changed = rescan(&config, &names).unwrap();
    assert_eq!(changed.len(), 1, "{changed:?}");
    let (name, before, after) = &changed[0];
    assert_eq!(name, "pdf");
    assert_eq!(before.as_ref().unwrap().max_severity, None);
    assert_eq!(before.as_ref().unwrap().state, MarkState::Stale);
    assert!(after.flagged());
}

/// A verdict of the folder `/skills/<index>` with `findings_count` findings.
fn entry(index: usize, findings_count: usize) -> Entry {
    Entry {
        path: PathBuf::from(format!("/skills/{index}")),
        name: format!("s{index}"),
        stamp: "0".to_owned(),
        digest: String::new(),
        rules_version: crate::RULES_VERSION.to_owned(),
        max_severity: None,
        findings_count,
        blocked: false,
    }
}

#[test]
fn the_store_keeps_at_most_its_bound_dropping_the_oldest() {
    let tree = Tree::new();
    let config = tree.config();
    let entry = |index: usize| entry(index, 0);
    store_entries(&config, (0..MAX_ENTRIES).map(entry).collect()).unwrap();
    store_entries(&config, vec![entry(MAX_ENTRIES), entry(MAX_ENTRIES + 1)]).unwrap();
    let kept: Vec<Entry> = FILE.load(&config).unwrap();
    assert_eq!(kept.len(), MAX_ENTRIES);
    assert_eq!(kept[0].name, "s2");
    assert_eq!(kept.last().unwrap().name, format!("s{}", MAX_ENTRIES + 1));
}

/// What the file already says is not written again; anything new is.
#[test]
fn the_same_verdicts_leave_the_file_as_it_is() {
    let tree = Tree::new();
    let config = tree.config();
    // The file as written, dated long ago: a file written again is dated now.
    let long_ago = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
    let date = || {
        std::fs::File::options()
            .append(true)
            .open(verdicts_file(&tree))
            .unwrap()
            .set_modified(long_ago)
            .unwrap();
    };
    let rewritten = || {
        std::fs::metadata(verdicts_file(&tree))
            .unwrap()
            .modified()
            .unwrap()
            != long_ago
    };
    store_entries(&config, vec![entry(0, 0), entry(1, 0)]).unwrap();
    date();
    store_entries(&config, vec![entry(1, 0)]).unwrap();
    assert!(!rewritten(), "the same verdict was written again");
    store_entries(&config, vec![entry(1, 0), entry(2, 0)]).unwrap();
    assert!(rewritten(), "a new folder's verdict was not written");
    date();
    store_entries(&config, vec![entry(1, 3)]).unwrap();
    assert!(rewritten(), "a changed verdict was not written");
    let kept: Vec<Entry> = FILE.load(&config).unwrap();
    assert_eq!(kept, vec![entry(0, 0), entry(2, 0), entry(1, 3)]);
}

#[test]
fn rescan_reports_a_skill_first_seen_flagged() {
    let tree = Tree::new();
    tree.skill("hiding", &format!("Reads {BIDI}files."));
    let changed = rescan(&tree.config(), &["hiding".to_owned()]).unwrap();
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert_eq!(changed[0].1, None);
    assert!(changed[0].2.flagged());
}

/// A folder resolved through its parent is the folder `canonicalize` gives, whether the
/// parent, the folder or neither is a link.
#[cfg(unix)]
#[test]
fn a_folder_resolves_as_canonicalize_resolves_it() {
    let base = tempfile::tempdir().unwrap();
    let real_root = base.path().join("real-root");
    let elsewhere = base.path().join("elsewhere");
    std::fs::create_dir_all(real_root.join("plain")).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, real_root.join("linked")).unwrap();
    let linked_root = base.path().join("linked-root");
    std::os::unix::fs::symlink(&real_root, &linked_root).unwrap();
    let dirs: Vec<PathBuf> = [&real_root, &linked_root]
        .iter()
        .flat_map(|root| ["plain", "linked", "missing"].map(|name| root.join(name)))
        .chain([real_root.join("plain").join("..")])
        .collect();
    let parents = resolved_parents(dirs.iter().map(PathBuf::as_path));
    for dir in &dirs {
        assert_eq!(
            resolved(dir, &parents),
            std::fs::canonicalize(dir).ok(),
            "{}",
            dir.display()
        );
    }
}
