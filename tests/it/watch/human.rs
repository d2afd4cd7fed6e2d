//! `skills watch` for a person: one line per change (`added: <id>`), and ids that come from
//! folder names reach the terminal sanitised (a folder named with an escape sequence must not
//! recolour or retitle the terminal of whoever watches).

use super::{Session, save_atomically, skill_text};
use crate::discovery::{Place, Tree};

#[test]
fn changes_are_printed_for_a_person_with_hostile_ids_sanitised() {
    let tree = Tree::new();
    let root = tree.root(Place::UserOpenhuman);
    std::fs::create_dir_all(&root).unwrap();
    let mut watch = Session::human(&tree, &[]);
    let first = watch.next_line("the ready line");
    assert!(
        first.contains("watching") && first.contains("0 skill(s)"),
        "{first:?}"
    );

    let folder = root.join("pdf-extract");
    std::fs::create_dir(&folder).unwrap();
    save_atomically(
        &folder,
        &skill_text("pdf-extract", "Pulls tables out of PDFs."),
    );
    let line = watch.next_line("added: pdf-extract");
    assert!(line.contains("added: pdf-extract"), "{line:?}");

    // Discovery takes the id from the folder name, escape sequence and all.
    let hostile = root.join("evil\u{1b}[31m\u{1b}]0;owned\u{7}");
    std::fs::create_dir(&hostile).unwrap();
    save_atomically(&hostile, &skill_text("evil", "Paints the terminal red."));
    let mut printed = Vec::new();
    loop {
        let line = watch.next_line("the hostile skill's line");
        let done = line.contains("evil");
        printed.push(line);
        if done {
            break;
        }
    }
    for line in &printed {
        assert!(
            !line.contains('\u{1b}') && !line.contains('\u{7}'),
            "a control character reached the terminal: {line:?}"
        );
    }
    assert!(
        printed.iter().any(|line| line.contains("added: evil")),
        "{printed:?}"
    );
}
