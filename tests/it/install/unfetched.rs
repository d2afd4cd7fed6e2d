//! A single `SKILL.md` brings only itself (issue 11 §4): when its body mentions bundled files
//! (`scripts/recalc.py`, `references/…`, `./assets/…`), the install still succeeds, but a
//! warning on stderr, and in the outcome's `warnings` for programs, names every mentioned path
//! that was not fetched and says that a pack brings the whole skill. URLs, absolute paths and
//! `..` in the body are not mentions; a pack, which brings every file it lists, gets no
//! warning (the repositories of `repositories.rs` check folders, archives and GitHub).

use serde_json::Value;
use skills_tests::http::{Reply, Server};

use super::{Skill, install_json, run, serve_pack};
use crate::discovery::Tree;

/// A body that names three bundled paths, one of them twice, and several things that are not
/// bundled paths.
const BODY: &str = "\
Run `python3 scripts/recalc.py --sheet data.xlsx` after every edit.

The formulas are in references/formulas.md; the style guide is [here](./assets/style.pdf).
Run scripts/recalc.py again at the end. Nothing else is needed: not
https://example.com/scripts/remote.py, not /usr/local/bin/tool.py, not ../sibling/notes.md.
";

const MISSING: &str = "scripts/recalc.py, references/formulas.md, assets/style.pdf";

fn recalc() -> Skill {
    Skill::new("recalc", "Recalculates spreadsheets.", BODY, &[])
}

fn warnings(outcome: &Value) -> Vec<&str> {
    outcome["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|warning| warning.as_str().unwrap())
        .collect()
}

#[test]
fn a_single_skill_md_warns_of_every_bundled_file_it_mentions() {
    let tree = Tree::new();
    let server = Server::start().unwrap();
    server.route(
        "/recalc/SKILL.md",
        Reply::Ok(recalc().definition().to_vec()),
    );
    let url = server.url("/recalc/SKILL.md");

    let human = run(&tree, &["install", &url]);
    assert_eq!(human.code, Some(0), "{human:?}");
    assert!(human.stdout.starts_with("installed recalc "), "{human:?}");
    let warning = human
        .stderr
        .lines()
        .find(|line| line.starts_with("warning: SKILL.md mentions"))
        .unwrap_or_else(|| panic!("no warning: {human:?}"));
    assert!(
        warning.contains(&format!("were not installed: {MISSING}; ")),
        "{warning}"
    );
    assert!(
        warning.contains("install the skill from a pack"),
        "{warning}"
    );
    for not_mentioned in ["remote.py", "/usr/local", "sibling", "data.xlsx"] {
        assert!(!warning.contains(not_mentioned), "{warning}");
    }

    // The same words reach programs, in the outcome (here: already installed, still true).
    let outcomes = install_json(&tree, &[&url]);
    let notes = warnings(&outcomes[0]);
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].contains(MISSING), "{notes:?}");
    assert_eq!(format!("warning: {}", notes[0]), warning);
}

/// A pack brings exactly the files its index lists: a whole skill, whatever its body names.
/// A path the index leaves out is the publisher's to fix, not a file the install left behind
/// (issue 30 §5), so neither a complete nor a partial pack gets the warning.
#[test]
fn a_pack_brings_the_whole_skill_so_it_never_warns() {
    let tree = Tree::new();
    let server = Server::start().unwrap();
    let mut whole = recalc();
    for path in [
        "scripts/recalc.py",
        "references/formulas.md",
        "assets/style.pdf",
    ] {
        whole.files.insert(path.to_owned(), b"x\n".to_vec());
    }
    let url = serve_pack(&server, "/whole", &[whole], "1.0.0");
    let outcomes = install_json(&tree, &[&url]);
    assert_eq!(warnings(&outcomes[0]), Vec::<&str>::new());

    let mut partial = recalc();
    partial.name = "recalc-partial".to_owned();
    partial.files.insert(
        "SKILL.md".to_owned(),
        super::definition("recalc-partial", "Recalculates spreadsheets.", BODY),
    );
    partial
        .files
        .insert("scripts/recalc.py".to_owned(), b"x\n".to_vec());
    let url = serve_pack(&server, "/partial", &[partial], "1.0.0");
    let human = run(&tree, &["install", &url]);
    assert_eq!(human.code, Some(0), "{human:?}");
    assert!(!human.stderr.contains("not installed"), "{human:?}");
}
