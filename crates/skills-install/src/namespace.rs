//! Which registry entry a skill in a root came from, read back from its provenance record or
//! the root's lock, and the refusal to install one namespace's skill over another's under the
//! same slug (03 §Coordinates). Below the registry, which checks before downloading, and the
//! writer, which checks again under the root's lock.

use std::path::Path;

use serde_json::Value;
use skills_ops::state::PROVENANCE;
use skills_types::Error;
use skills_types::files::PROVENANCE_FILE;
use skills_types::registry::Coordinates;

/// Refuses to install `wanted` over a skill another namespace installed under its slug.
pub(crate) fn check_namespace(root: &Path, wanted: &Coordinates) -> Result<(), Error> {
    match installed_from(root, &wanted.slug) {
        Some(installed) if !installed.same_skill(wanted) => Err(Error::NamespaceConflict {
            path: root.join(&wanted.slug),
            installed: installed.to_string(),
            requested: wanted.unpinned().to_string(),
        }),
        _ => Ok(()),
    }
}

/// The registry coordinates the skill `<root>/<slug>` was installed from: read from its
/// provenance record, or, when that cannot be read, from the root's lock. `None` when nothing
/// is there or it did not come from the registry.
pub(crate) fn installed_from(root: &Path, slug: &str) -> Option<Coordinates> {
    let dir = root.join(slug);
    std::fs::symlink_metadata(&dir).ok()?;
    let record = read_record(&dir)
        .or_else(|| skills_ops::lock::read(root).ok()?.skills.get(slug).cloned())?;
    let text = record.get("registry")?.get("coordinates")?.as_str()?;
    Coordinates::parse(text)
        .ok()
        .map(|coordinates| coordinates.unpinned())
}

/// A skill's provenance record, read through the one state reader (a link, a FIFO or an
/// oversized file is no record).
fn read_record(dir: &Path) -> Option<Value> {
    let bytes = skills_ops::state::read_in(dir, &PROVENANCE, PROVENANCE_FILE).ok()??;
    serde_json::from_slice(&bytes).ok()
}
