//! Targets: a word is a catalog name, a path is a folder.

use super::*;
use crate::testing::Tree;

#[test]
fn a_word_that_is_only_a_folder_here_says_to_write_it_as_a_path() {
    let tree = Tree::new();
    let catalog = skills_ops::discover::discover(&tree.config()).unwrap();
    // `src` is a folder of this crate, where the tests run.
    let error = folder_of(&catalog, "src").err().unwrap().to_string();
    assert!(error.contains("write it as a path: ./src"), "{error}");
}

#[test]
fn a_folder_with_an_mcp_configuration_and_no_skill_is_a_target() {
    let tree = Tree::new();
    let catalog = skills_ops::discover::discover(&tree.config()).unwrap();
    let dir = tree.workspace.join("plugin");
    crate::testing::write(
        &dir.join(".mcp.json"),
        r#"{"mcpServers": {"db": {"command": "node", "args": ["server.js"]}}}"#,
    );
    let folder = folder_of(&catalog, dir.to_str().unwrap()).unwrap();
    assert_eq!(folder.shown, dir);
    // A folder of other files is still no skill.
    let other = tree.workspace.join("notes");
    crate::testing::write(&other.join("README.md"), "# Notes\n");
    let error = folder_of(&catalog, other.to_str().unwrap()).err().unwrap();
    assert!(error.to_string().contains("holds no SKILL.md"), "{error}");
}
