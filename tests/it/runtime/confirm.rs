//! Who may run what (07 §Permission and confirmation): a trusted project skill needs `--yes`
//! off a terminal, inline code runs only when the home configuration allows it (a workspace's
//! `skills.toml` saying so is ignored with a diagnostic), and `--read-only` refuses every run.

use crate::discovery::Place;

use super::{SKILL, add_skill, error_kind, lab, log_files};

const MARK_SH: &str = "echo ran > ran\necho ran\n";

#[test]
fn a_trusted_project_skill_needs_yes() {
    let (tree, _) = lab(&[], None);
    add_skill(
        &tree,
        Place::ProjectOpenhuman,
        "local",
        &[("scripts/mark.sh", MARK_SH)],
        None,
    );
    // Untrusted, the project skill is not even seen.
    let unseen = tree.run(&["--json", "run", "local", "scripts/mark.sh", "--yes"]);
    assert_eq!(unseen.code, Some(1), "{unseen:?}");
    assert_eq!(error_kind(&unseen), "not_found");
    assert_eq!(tree.run(&["trust"]).code, Some(0));

    let unconfirmed = tree.run(&["--json", "run", "local", "scripts/mark.sh"]);
    assert_eq!(unconfirmed.code, Some(1), "{unconfirmed:?}");
    assert_eq!(error_kind(&unconfirmed), "needs_confirmation");
    assert!(unconfirmed.stderr.contains("--yes"), "{unconfirmed:?}");
    assert!(!tree.workspace.join("ran").exists());
    assert!(log_files(&tree).is_empty());

    let confirmed = tree.run(&["run", "local", "scripts/mark.sh", "--yes"]);
    assert_eq!(confirmed.ok(), "ran\n");
    assert!(tree.workspace.join("ran").exists());

    // --trust-workspace stands for the record for one command, and still needs --yes.
    let (other, _) = lab(&[], None);
    add_skill(
        &other,
        Place::ProjectOpenhuman,
        "local",
        &[("scripts/mark.sh", MARK_SH)],
        None,
    );
    let once = other.run(&[
        "--trust-workspace",
        "--json",
        "run",
        "local",
        "scripts/mark.sh",
    ]);
    assert_eq!(error_kind(&once), "needs_confirmation", "{once:?}");
    let once = other.run(&["--trust-workspace", "run", "local", "scripts/mark.sh", "-y"]);
    assert_eq!(once.ok(), "ran\n");
}

#[test]
fn an_ask_permission_needs_yes_and_a_user_skill_does_not() {
    let (tree, _) = lab(&[("scripts/mark.sh", MARK_SH)], None);
    tree.run(&["run", SKILL, "scripts/mark.sh"]).ok();
    tree.user_config("[permissions]\n\"tools\" = \"ask\"\n");
    let asked = tree.run(&["--json", "run", SKILL, "scripts/mark.sh"]);
    assert_eq!(error_kind(&asked), "needs_confirmation", "{asked:?}");
    assert_eq!(log_files(&tree).len(), 1, "the refused run left no log");
    tree.run(&["run", SKILL, "scripts/mark.sh", "--yes"]).ok();
}

#[test]
fn inline_code_runs_only_when_the_home_configuration_allows_it() {
    let (tree, _) = lab(&[], None);
    let inline = |lang: &str, code: &str| {
        tree.run(&["--json", "run", SKILL, "-e", code, "--lang", lang, "--yes"])
    };
    let refused = inline("python", "open('ran', 'w').write('x')");
    assert_eq!(refused.code, Some(1), "{refused:?}");
    assert!(refused.stderr.contains("allow_inline"), "{refused:?}");
    assert!(!tree.workspace.join("ran").exists());
    assert!(log_files(&tree).is_empty());

    // A trusted workspace cannot allow it: its skills.toml is told so and ignored.
    tree.write(
        &tree.workspace.join(".openhuman/skills.toml"),
        "[runtime]\nallow_inline = true\n",
    );
    tree.run(&["trust"]).ok();
    let still = inline("sh", "echo ran > ran");
    assert_eq!(still.code, Some(1), "{still:?}");
    assert!(!tree.workspace.join("ran").exists());
    let listing = tree.run(&["--json", "list"]).json();
    let said = listing.to_string();
    assert!(
        said.contains("allow_inline") && said.contains("loosen"),
        "no diagnostic about the workspace's allow_inline: {listing}"
    );

    tree.user_config("[runtime]\nallow_inline = true\n");
    for (lang, code, printed) in [
        (
            "python",
            "import sys; print('py', sys.argv[1:])",
            "py ['a b']\n",
        ),
        (
            "node",
            "console.log('js', process.argv.slice(1))",
            "js [ 'a b' ]\n",
        ),
        ("sh", "echo sh \"$0\" \"$1\"", "sh tools a b\n"),
    ] {
        let run = tree.run(&["run", SKILL, "-e", code, "--lang", lang, "--", "a b"]);
        assert_eq!(run.code, Some(0), "{lang}: {run:?}");
        assert_eq!(run.stdout, printed, "{lang}: {run:?}");
    }
}

#[test]
fn read_only_refuses_every_run() {
    let (tree, _) = lab(&[("scripts/mark.sh", MARK_SH)], None);
    let refused = tree.run(&[
        "--read-only",
        "--json",
        "run",
        SKILL,
        "scripts/mark.sh",
        "--yes",
    ]);
    assert_eq!(refused.code, Some(1));
    assert_eq!(error_kind(&refused), "read_only");
    assert!(!tree.workspace.join("ran").exists());
    assert!(log_files(&tree).is_empty());
    // Reading stays possible.
    assert_eq!(
        tree.run(&["--read-only", "--json", "runs"]).json(),
        serde_json::json!([])
    );
}
