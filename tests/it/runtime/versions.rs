//! The interpreters' versions, remembered between commands (`<home>/.openhuman/cache/
//! interpreters.json`): a binary's answer is reused until its file changes, and a launcher
//! script is asked every time.

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

use crate::discovery::Tree;

use super::{SKILL, lab, real_python};

/// The Python version `skills runtimes python` reports.
fn reported(tree: &Tree) -> String {
    let run = tree.run(&["--json", "runtimes", "python"]);
    run.json()[0]["version"]
        .as_str()
        .unwrap_or_else(|| panic!("no version: {run:?}"))
        .to_owned()
}

fn executable(path: &Path) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn a_binarys_version_is_reused_until_its_file_changes_and_a_script_is_always_asked() {
    let (tree, _) = lab(&[("scripts/hello.py", "print('hi')\n")], None);
    let binary = tree.base.join("bin/python3");
    std::fs::create_dir_all(binary.parent().unwrap()).unwrap();
    std::fs::copy(real_python(), &binary).unwrap();
    executable(&binary);
    tree.user_config(&format!("[runtime]\npython = \"{}\"\n", binary.display()));

    let version = reported(&tree);
    assert!(version.starts_with("3."), "{version}");
    let cache = tree.home.join(".openhuman/cache/interpreters.json");
    let text = std::fs::read_to_string(&cache).unwrap();
    assert!(text.contains(&binary.display().to_string()), "{text}");
    // The remembered answer is the one used: changed in the cache, it is what is reported,
    // and a run goes on with it.
    std::fs::write(
        &cache,
        text.replace(&format!("\"{version}\""), "\"3.99.0\""),
    )
    .unwrap();
    assert_eq!(reported(&tree), "3.99.0");
    let run = tree.run(&["--json", "run", SKILL, "scripts/hello.py"]);
    assert_eq!(run.json()["stdout"], "hi\n", "{run:?}");

    // The file written again in place: another identity, asked again.
    std::fs::write(&binary, std::fs::read(&binary).unwrap()).unwrap();
    assert_eq!(reported(&tree), version);

    // A launcher script's version follows its configuration, never its file: never kept.
    let shim = tree.base.join("bin/python-shim");
    std::fs::write(
        &shim,
        format!("#!/bin/sh\nexec '{}' \"$@\"\n", binary.display()),
    )
    .unwrap();
    executable(&shim);
    tree.user_config(&format!("[runtime]\npython = \"{}\"\n", shim.display()));
    assert_eq!(reported(&tree), version);
    let text = std::fs::read_to_string(&cache).unwrap();
    assert!(!text.contains("python-shim"), "{text}");
}
