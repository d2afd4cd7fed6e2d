//! Markdown renderings of results, for agent cores that show them to a model as a tool
//! result (04 §ToolResult). A result without a rendering here is shown as JSON.

use serde_json::Value;
use skills_types::catalog::Listing;
use skills_types::render::Rendered;

/// `skills.list`: one bullet per skill, name in bold, then its scope and description.
pub(crate) fn list(result: &Value) -> Option<String> {
    let listing: Listing = serde_json::from_value(result.clone()).ok()?;
    if listing.skills.is_empty() {
        return Some("No skills are installed.".to_owned());
    }
    let mut out = String::new();
    for skill in &listing.skills {
        let description = skill.description.replace(['\n', '\r'], " ");
        out.push_str(&format!(
            "- **{}** ({}): {description}\n",
            skill.name.replace(['\n', '\r', '*'], " "),
            skill.scope
        ));
    }
    Some(out)
}

/// `skills.read`: the bodies under their headers.
pub(crate) fn read(result: &Value) -> Option<String> {
    let read: skills_types::rpc::methods::ReadResult =
        serde_json::from_value(result.clone()).ok()?;
    Some(skills_types::render::read_text(&read.skills))
}

/// `skills.render_catalog`: the rendered text itself.
pub(crate) fn rendered(result: &Value) -> Option<String> {
    let rendered: Rendered = serde_json::from_value(result.clone()).ok()?;
    Some(rendered.text)
}
