//! The catalog is byte-for-byte identical across runs (02 §Identity, collisions and order;
//! prompt caches depend on it): 20 runs of `skills list --json` and of `skills prompt` on one
//! tree, and the same tree built in shuffled creation orders (so `read_dir` returns entries in
//! different orders), compared with the temporary path replaced by `[TMP]`.

use std::path::Path;

use skills::catalog::ListOptions;

use super::{Place, Tree};

const RUNS: usize = 20;

/// One step of building the tree; paths are relative to the tree's base.
#[derive(Clone, Debug)]
enum Step {
    Skill(Place, &'static str, &'static str, &'static str),
    File(&'static str, &'static str),
    /// `(link, target)`, the target as written into the link.
    Link(&'static str, &'static str),
    /// The user trusts the workspace (a record in the home).
    Trust,
}

/// A mixed tree: every scope, collisions in each rule, categories, a link between roots, a
/// broken file, a defaulted name, a permission rule and the user's trust.
const STEPS: &[Step] = &[
    Step::Skill(Place::UserOpenhuman, "alpha", "alpha", "First user skill."),
    Step::Skill(Place::UserOpenhuman, "cat/beta", "beta", "In a category."),
    Step::Skill(Place::UserOpenhuman, "dup", "dup", "User copy."),
    Step::Skill(Place::UserOpenhuman, "Zed", "zed", "Upper-case folder."),
    Step::Skill(
        Place::UserOpenhuman,
        "a-zed",
        "zed",
        "Loses to Zed by bytes.",
    ),
    Step::Skill(Place::UserAgents, "gamma", "gamma", "Asks first."),
    Step::Skill(Place::UserAgents, "dup", "dup", "Second user copy."),
    Step::Skill(Place::UserClaude, "delta", "delta", "From Claude's folder."),
    Step::Skill(Place::ProjectOpenhuman, "dup", "dup", "Project copy wins."),
    Step::Skill(
        Place::ProjectOpenhuman,
        "epsilon",
        "epsilon",
        "Project skill.",
    ),
    Step::Skill(
        Place::ProjectOpenhuman,
        "cat2/deep/zeta",
        "zeta",
        "Deep one.",
    ),
    Step::Skill(
        Place::ProjectAgents,
        "eta",
        "eta",
        "Linked from Claude's folder.",
    ),
    Step::Skill(
        Place::ProjectAgents,
        "theta",
        "iota",
        "Name differs from folder.",
    ),
    Step::Skill(Place::Legacy, "old-one", "old-one", "Legacy skill."),
    Step::Skill(Place::Legacy, "dup", "dup", "Legacy copy."),
    Step::Link("ws/.claude/skills/eta", "../../.agents/skills/eta"),
    Step::File(
        "home/.agents/skills/broken/SKILL.md",
        "---\nname: broken\ndescription: never closed\n",
    ),
    Step::File(
        "ws/.agents/skills/noname/SKILL.md",
        "---\ndescription: No name given.\n---\nBody.\n",
    ),
    Step::File(
        "home/.openhuman/skills.toml",
        "[permissions]\n\"gam*\" = \"ask\"\n",
    ),
    Step::Trust,
];

impl Step {
    fn apply(&self, tree: &Tree) {
        match self {
            Step::Skill(place, relative, name, description) => {
                tree.skill(*place, relative, name, description);
            }
            Step::File(path, text) => {
                tree.write(&tree.base.join(path), text);
            }
            Step::Link(link, target) => {
                let link = tree.base.join(link);
                std::fs::create_dir_all(link.parent().unwrap()).unwrap();
                symlink(Path::new(target), &link);
            }
            Step::Trust => tree.trust(),
        }
    }
}

#[cfg(unix)]
fn symlink(target: &Path, link: &Path) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

#[cfg(not(unix))]
fn symlink(_target: &Path, _link: &Path) {
    // Symlinks need privileges on Windows; the rest of the tree is still compared.
}

/// A Fisher–Yates shuffle driven by xorshift64 from a fixed seed: the orders are arbitrary
/// but the same on every run, so a failure reproduces.
fn shuffled(seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..STEPS.len()).collect();
    let mut state = seed;
    for i in (1..order.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let j = usize::try_from(state % (i as u64 + 1)).unwrap();
        order.swap(i, j);
    }
    order
}

fn build(order: &[usize]) -> Tree {
    let tree = Tree::new();
    for &index in order {
        STEPS[index].apply(&tree);
    }
    tree
}

/// Everything a caller sees of one tree, with its temporary path replaced.
fn observe(tree: &Tree) -> Vec<(String, String)> {
    let columns = [("COLUMNS", "100")];
    let mut seen: Vec<(String, String)> = [
        &["list", "--json"][..],
        &["list", "--all", "--json"],
        &["list", "--all"],
        &["prompt"],
        &["prompt", "--format", "markdown"],
        &["prompt", "--format", "json"],
        &["prompt", "--budget", "600"],
        &["explain", "dup", "--json"],
        &["explain", "zed"],
    ]
    .iter()
    .map(|args| {
        let run = tree.run_with(args, &columns);
        assert_eq!(run.code, Some(0), "{args:?}: {run:?}");
        (
            args.join(" "),
            tree.redact(&format!("{}\n--- stderr ---\n{}", run.stdout, run.stderr)),
        )
    })
    .collect();
    let library = tree.library(false);
    let catalog = library.discover().unwrap();
    seen.push((
        "library discover".to_owned(),
        tree.redact(&serde_json::to_string_pretty(&catalog).unwrap()),
    ));
    let mut options = ListOptions::default();
    options.include_shadowed = true;
    let listing = library.list(&options).unwrap();
    seen.push((
        "library list".to_owned(),
        tree.redact(&serde_json::to_string_pretty(&listing).unwrap()),
    ));
    seen
}

#[test]
fn twenty_runs_on_one_tree_are_byte_identical() {
    let tree = build(&(0..STEPS.len()).collect::<Vec<_>>());
    for args in [&["list", "--json"][..], &["prompt"]] {
        let first = tree.run(args);
        assert_eq!(first.code, Some(0), "{first:?}");
        assert!(!first.stdout.is_empty());
        for run in 1..RUNS {
            let again = tree.run(args);
            assert_eq!(again.code, Some(0));
            assert!(
                again.stdout == first.stdout,
                "run {run} of `skills {}` differs:\n{}\n---\n{}",
                args.join(" "),
                again.stdout,
                first.stdout
            );
            assert_eq!(again.stderr, first.stderr);
        }
    }
    // The first run above filled the catalog cache; the library without a cache agrees.
    let cached = tree.run(&["list", "--json"]).json();
    let fresh =
        serde_json::to_value(tree.library(false).list(&ListOptions::default()).unwrap()).unwrap();
    assert_eq!(cached, fresh);
    assert!(tree.home.join(".openhuman/cache").is_dir());
}

#[test]
fn shuffled_creation_orders_give_the_same_bytes() {
    let identity: Vec<usize> = (0..STEPS.len()).collect();
    let reversed: Vec<usize> = identity.iter().rev().copied().collect();
    let orders = [
        identity.clone(),
        reversed,
        shuffled(0x9e37_79b9_7f4a_7c15),
        shuffled(0x2545_f491_4f6c_dd1d),
        shuffled(42),
    ];
    assert!(
        orders[2] != identity && orders[3] != identity && orders[2] != orders[3],
        "the shuffles must actually reorder"
    );
    let reference = observe(&build(&orders[0]));
    // The tree holds what the steps describe: a sanity check on the reference itself.
    let listing = &reference[0].1;
    for name in [
        "alpha", "beta", "delta", "dup", "epsilon", "eta", "gamma", "iota", "noname",
    ] {
        assert!(listing.contains(&format!("\"name\": \"{name}\"")), "{name}");
    }
    assert!(listing.contains("[TMP]/ws/.openhuman/skills/dup/SKILL.md"));
    assert!(!listing.contains(&std::env::temp_dir().display().to_string()));
    for order in &orders[1..] {
        let seen = observe(&build(order));
        for ((what, expected), (_, actual)) in reference.iter().zip(&seen) {
            assert!(
                expected == actual,
                "`{what}` differs for creation order {order:?}:\n{actual}\n--- expected ---\n{expected}"
            );
        }
    }
}
