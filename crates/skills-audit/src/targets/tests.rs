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
