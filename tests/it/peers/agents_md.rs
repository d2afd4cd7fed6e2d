//! Our `sync` block and the one `openskills sync` writes in `AGENTS.md` (09 §The peers'
//! files): ours is the same `<skills_system>` element, so `sync` adopts theirs — it replaces
//! the element in place, keeps every byte around it, and lists each skill once; `openskills
//! sync` in turn replaces ours. However the two alternate, the file holds one block.

use std::path::Path;

use skills_tests::peers::Peer;

use super::{peers_or_skip, shown};
use crate::discovery::Tree;

fn write_skill(dir: &Path, name: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: The {name} skill.\n---\nBody.\n"),
    )
    .unwrap();
}

/// How many `<skills_system` blocks the file holds, and each listed name with its count.
fn census(text: &str) -> (usize, Vec<(String, usize)>) {
    let blocks = text.matches("<skills_system").count();
    let mut names: Vec<(String, usize)> = Vec::new();
    // An entry's name is a line of its own; the usage text mentions `<name>` inside a line.
    for line in text.lines() {
        let Some(name) = line
            .strip_prefix("<name>")
            .and_then(|rest| rest.strip_suffix("</name>"))
        else {
            continue;
        };
        let name = name.to_owned();
        match names.iter_mut().find(|(known, _)| *known == name) {
            Some((_, count)) => *count += 1,
            None => names.push((name, 1)),
        }
    }
    names.sort();
    (blocks, names)
}

fn once(names: &[&str]) -> Vec<(String, usize)> {
    let mut listed: Vec<(String, usize)> =
        names.iter().map(|name| ((*name).to_owned(), 1)).collect();
    listed.sort();
    listed
}

#[test]
fn sync_adopts_the_block_openskills_wrote_and_never_duplicates_it() {
    let Some(peers) =
        peers_or_skip("sync_adopts_the_block_openskills_wrote_and_never_duplicates_it")
    else {
        return;
    };
    let tree = Tree::new();
    tree.trust();
    // openskills reads `.claude/skills`; ours reads that and `.agents/skills` too.
    write_skill(
        &tree.workspace.join(".claude/skills/claude-notes"),
        "claude-notes",
    );
    write_skill(
        &tree.workspace.join(".agents/skills/shared-notes"),
        "shared-notes",
    );
    let agents_md = tree.workspace.join("AGENTS.md");
    let intro = "# Our project\n\nHand-written instructions stay.\n";
    let outro = "\n## After the block\n\nAlso kept.\n";
    std::fs::write(&agents_md, intro).unwrap();

    let theirs = peers.run(
        Peer::Openskills,
        &["sync", "-y"],
        &tree.home,
        &tree.workspace,
    );
    assert!(theirs.status.success(), "{}", shown(&theirs));
    let mut text = std::fs::read_to_string(&agents_md).unwrap();
    assert_eq!(census(&text), (1, once(&["claude-notes"])), "{text}");
    // Text a person adds after the peer's block must survive our sync too.
    text.push_str(outro);
    std::fs::write(&agents_md, &text).unwrap();

    for round in 0..2 {
        let ours = tree.run(&["sync"]);
        assert_eq!(ours.code, Some(0), "round {round}: {ours:?}");
        let text = std::fs::read_to_string(&agents_md).unwrap();
        assert_eq!(
            census(&text),
            (1, once(&["claude-notes", "shared-notes"])),
            "round {round}: one block, each skill once:\n{text}"
        );
        assert!(
            text.starts_with(intro) && text.ends_with(outro),
            "round {round}:\n{text}"
        );

        let theirs = peers.run(
            Peer::Openskills,
            &["sync", "-y"],
            &tree.home,
            &tree.workspace,
        );
        assert!(theirs.status.success(), "round {round}: {}", shown(&theirs));
        let text = std::fs::read_to_string(&agents_md).unwrap();
        assert_eq!(
            census(&text),
            (1, once(&["claude-notes"])),
            "round {round}: openskills replaced the block, it did not add one:\n{text}"
        );
        assert!(
            text.starts_with(intro) && text.ends_with(outro),
            "round {round}:\n{text}"
        );
    }
}
