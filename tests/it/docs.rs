//! Documentation that must not drift from the code it describes.

use std::path::Path;

use skills_types::DiagnosticCode;

fn read_doc(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../docs")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

#[test]
fn diagnostics_page_lists_every_code_with_its_summary() {
    let page = read_doc("diagnostics.md");
    let missing: Vec<&str> = DiagnosticCode::ALL
        .iter()
        .filter(|code| !page.contains(&format!("| `{}` | {} |", code.as_str(), code.summary())))
        .map(|code| code.as_str())
        .collect();
    assert!(
        missing.is_empty(),
        "docs/diagnostics.md lacks (or words differently) the rows for: {}",
        missing.join(", ")
    );
}
