//! Every refusal of 07 §What a run is, made before anything is spawned: the command exits 1
//! with one clear error (its kind in `--json`), the script that would leave a mark leaves
//! none, and no run log is written.

use crate::discovery::Place;

use super::{SKILL, add_skill, error_kind, lab, log_files};

/// Writes `ran` into the working directory: proof that a script ran.
const MARK_PY: &str = "open('ran', 'w').write('ran')\n";
const MARK_SH: &str = "echo ran > ran\n";

#[test]
fn refused_targets_spawn_nothing_and_log_nothing() {
    let (tree, dir) = lab(
        &[
            ("scripts/mark.py", MARK_PY),
            ("scripts/mark.rb", "File.write('ran', 'ran')\n"),
            ("scripts/mark", MARK_SH),
            (".hidden/mark.py", MARK_PY),
            ("scripts/.mark.py", MARK_PY),
        ],
        None,
    );
    let other = add_skill(
        &tree,
        Place::UserOpenhuman,
        "other",
        &[("scripts/mark.py", MARK_PY)],
        None,
    );
    let outside = tree.write(&tree.base.join("outside/mark.py"), MARK_PY);
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&outside, dir.join("scripts/link.py")).unwrap();
        std::os::unix::fs::symlink(other.join("scripts"), dir.join("linked")).unwrap();
    }
    tree.user_config("disabled = [\"off\"]\n[permissions]\n\"denied\" = \"deny\"\n");
    add_skill(
        &tree,
        Place::UserOpenhuman,
        "off",
        &[("scripts/mark.py", MARK_PY)],
        None,
    );
    add_skill(
        &tree,
        Place::UserOpenhuman,
        "denied",
        &[("scripts/mark.py", MARK_PY)],
        None,
    );
    add_skill(
        &tree,
        Place::UserOpenhuman,
        "no-entry",
        &[("scripts/mark.py", MARK_PY)],
        None,
    );
    add_skill(
        &tree,
        Place::UserOpenhuman,
        "bad-entry",
        &[("scripts/mark.py", MARK_PY)],
        Some("entry = \"../other/scripts/mark.py\"\n"),
    );
    let outside_text = outside.display().to_string();

    let cases: &[(&[&str], &str)] = &[
        (&["run", SKILL, "../other/scripts/mark.py"], "refused_path"),
        (
            &["run", SKILL, "scripts/../../other/scripts/mark.py"],
            "refused_path",
        ),
        (&["run", SKILL, &outside_text], "refused_path"),
        (&["run", SKILL, "/dev/null"], "refused_path"),
        (&["run", SKILL, "C:/mark.py"], "refused_path"),
        (&["run", SKILL, ".hidden/mark.py"], "refused_path"),
        (&["run", SKILL, "scripts/.mark.py"], "refused_path"),
        (
            &["run", SKILL, "scripts\\..\\..\\other\\scripts\\mark.py"],
            "refused_path",
        ),
        #[cfg(unix)]
        (&["run", SKILL, "scripts/link.py"], "refused_path"),
        #[cfg(unix)]
        (&["run", SKILL, "linked/mark.py"], "refused_path"),
        (&["run", SKILL, "scripts/missing.py"], "not_found"),
        (&["run", SKILL, "scripts"], "refused_path"),
        (&["run", SKILL, "scripts/mark.rb"], "invalid_input"),
        (&["run", SKILL, "scripts/mark"], "invalid_input"),
        (&["run", "no-such-skill", "scripts/mark.py"], "not_found"),
        (&["run", "off", "scripts/mark.py"], "skill_disabled"),
        (&["run", "denied", "scripts/mark.py"], "denied"),
        (&["run", "no-entry"], "invalid_input"),
        (&["run", "bad-entry"], "refused_path"),
        (
            &["--read-only", "run", SKILL, "scripts/mark.py"],
            "read_only",
        ),
    ];
    for (args, kind) in cases {
        let mut with_json = vec!["--json"];
        with_json.extend_from_slice(args);
        with_json.push("--yes");
        let refused = tree.run(&with_json);
        assert_eq!(refused.code, Some(1), "{args:?}: {refused:?}");
        assert_eq!(&error_kind(&refused), kind, "{args:?}: {refused:?}");
        let first = refused.stderr.lines().next().unwrap_or_default();
        assert!(first.starts_with("error: "), "{args:?}: {refused:?}");
        for place in [&tree.workspace, &tree.base, &dir] {
            assert!(!place.join("ran").exists(), "{args:?} ran the script");
        }
        assert!(log_files(&tree).is_empty(), "{args:?} left a run log");
    }
    // The same refusal without --json: the error alone, nothing on stdout.
    let plain = tree.run(&["run", SKILL, "../other/scripts/mark.py", "--yes"]);
    assert_eq!(plain.code, Some(1));
    assert!(plain.stdout.is_empty(), "{plain:?}");
    // A script and inline code at once is a usage error of the command line.
    let both = tree.run(&[
        "run",
        SKILL,
        "scripts/mark.py",
        "-e",
        "1",
        "--lang",
        "python",
    ]);
    assert_eq!(both.code, Some(2), "{both:?}");
    assert!(!tree.workspace.join("ran").exists());
    assert!(log_files(&tree).is_empty());
    // And the control: the same script, named properly, does run.
    tree.run(&["run", SKILL, "scripts/mark.py"]).ok();
    assert!(tree.workspace.join("ran").exists());
    assert_eq!(log_files(&tree).len(), 1);
}
