//! Snapshots of what a person and a script see for one small mixed tree: `skills list` (human,
//! at a fixed width of 100 columns, and `--json`), `skills explain`, and
//! `skills prompt --format markdown`. Temporary paths are replaced by `[TMP]`; the snapshots
//! live in `tests/it/snapshots/` beside the other binary tests' snapshots.

use super::{Place, Tree};

/// Every scope but profile, a collision, a defaulted name (a warning), a description longer
/// than the terminal, one unloadable file, a skill that asks first and one that is denied.
fn tree() -> Tree {
    let tree = Tree::new();
    tree.trust();
    tree.skill(
        Place::UserOpenhuman,
        "csv-tools",
        "csv-tools",
        "Cleans, joins and reshapes CSV files.",
    );
    tree.skill(
        Place::UserAgents,
        "pdf-tools",
        "pdf-tools",
        "An older copy of the PDF tools.",
    );
    tree.skill(
        Place::ProjectOpenhuman,
        "pdf-tools",
        "pdf-tools",
        "Extracts text and tables from PDF files; fills in forms.",
    );
    tree.skill(
        Place::ProjectClaude,
        "release-notes",
        "release-notes",
        "Writes release notes from the git history since the last tag, grouped by kind of change, \
         with links to every pull request and a thank-you line for new contributors.",
    );
    tree.skill(
        Place::Legacy,
        "old-notes",
        "old-notes",
        "Notes kept in the legacy skills folder.",
    );
    tree.write(
        &tree.root(Place::ProjectAgents).join("unnamed/SKILL.md"),
        "---\ndescription: Has no name, so its folder names it.\n---\nBody.\n",
    );
    tree.write(
        &tree.root(Place::UserClaude).join("broken/SKILL.md"),
        "---\nname: broken\ndescription: never closed\n",
    );
    tree.skill(
        Place::UserOpenhuman,
        "secret-notes",
        "secret-notes",
        "Denied by a rule.",
    );
    tree.user_config("[permissions]\n\"secret-*\" = \"deny\"\n\"csv-*\" = \"ask\"\n");
    tree
}

fn snapshot(name: &str, value: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../snapshots");
    settings.bind(|| insta::assert_snapshot!(name, value));
}

const COLUMNS: [(&str, &str); 1] = [("COLUMNS", "100")];

#[test]
fn list_human() {
    let tree = tree();
    let run = tree.run_with(&["list"], &COLUMNS);
    assert_eq!(run.code, Some(0));
    snapshot(
        "list_human",
        &tree.redact(&format!("{}--- stderr ---\n{}", run.stdout, run.stderr)),
    );
    let all = tree.run_with(&["list", "--all"], &COLUMNS);
    snapshot(
        "list_all_human",
        &tree.redact(&format!("{}--- stderr ---\n{}", all.ok(), all.stderr)),
    );
}

#[test]
fn list_json() {
    let tree = tree();
    let run = tree.run(&["list", "--json"]);
    assert_eq!(run.code, Some(0));
    assert_eq!(run.stderr, "");
    snapshot("list_json", &tree.redact(&run.stdout));
}

#[test]
fn explain_human() {
    let tree = tree();
    let run = tree.run(&["explain", "pdf-tools"]);
    assert_eq!(run.stderr, "");
    snapshot("explain_human", &tree.redact(run.ok()));
}

#[test]
fn prompt_markdown() {
    let tree = tree();
    let run = tree.run(&["prompt", "--format", "markdown"]);
    // The project's pdf-tools shadows the user's copy, and the user is told.
    assert_eq!(
        run.stderr,
        "note: workspace skills shadow your user skills of the same name: pdf-tools ('skills explain NAME' shows every copy)\n"
    );
    snapshot("prompt_markdown", &tree.redact(run.ok()));
}
