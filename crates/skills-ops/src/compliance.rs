//! `x-astron-compliance` (01 §x-astron-compliance, profile `skillhub`): checks the claims a
//! skill makes about the controls it satisfies, and normalises a valid list into a snapshot
//! with a stable digest, so two packages making the same claims report the same digest
//! whatever their key order, entry order or formatting.

use std::collections::BTreeSet;
use std::path::Path;

use sha2::{Digest, Sha256};
use skills_types::validate::{ComplianceEntry, ComplianceSnapshot, Evidence};
use skills_types::{Diagnostic, DiagnosticCode};

use crate::yaml::Node;
use skills_types::path::check_relative;

const ENTRY_KEYS: [&str; 5] = ["standard", "version", "controlId", "title", "evidence"];

/// The findings, and the snapshot when there are none.
pub(crate) fn check(node: &Node, dir: &Path) -> (Vec<Diagnostic>, Option<ComplianceSnapshot>) {
    let mut diagnostics = Vec::new();
    let Node::Sequence(items) = node else {
        diagnostics.push(Diagnostic::error(
            DiagnosticCode::ComplianceInvalid,
            format!(
                "'x-astron-compliance' must be a list of entries, not a {}",
                node.type_name()
            ),
        ));
        return (diagnostics, None);
    };
    let mut entries = Vec::new();
    let mut seen = BTreeSet::new();
    for (index, item) in items.iter().enumerate() {
        let Some(mut entry) = parse_entry(index + 1, item, dir, &mut diagnostics) else {
            continue;
        };
        let key = (
            entry.standard.clone(),
            entry.version.clone(),
            entry.control_id.clone(),
        );
        if !seen.insert(key) {
            diagnostics.push(Diagnostic::error(
                DiagnosticCode::ComplianceDuplicate,
                format!(
                    "compliance entry {} repeats {} {} {}",
                    index + 1,
                    entry.standard,
                    entry.version,
                    entry.control_id
                ),
            ));
        }
        entry.evidence.sort();
        entry.evidence.dedup();
        entries.push(entry);
    }
    if !diagnostics.is_empty() {
        return (diagnostics, None);
    }
    entries.sort();
    let digest = Sha256::digest(ComplianceSnapshot::canonical_json(&entries).as_bytes());
    let snapshot = ComplianceSnapshot {
        digest: format!("sha256:{digest:x}"),
        entries,
    };
    (diagnostics, Some(snapshot))
}

fn parse_entry(
    number: usize,
    item: &Node,
    dir: &Path,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<ComplianceEntry> {
    let invalid = |diagnostics: &mut Vec<Diagnostic>, why: String| {
        diagnostics.push(Diagnostic::error(
            DiagnosticCode::ComplianceInvalid,
            format!("compliance entry {number}: {why}"),
        ));
    };
    let Node::Mapping(fields) = item else {
        invalid(
            diagnostics,
            format!("must be a mapping, not a {}", item.type_name()),
        );
        return None;
    };
    let unknown: Vec<&str> = fields
        .iter()
        .map(|(key, _)| key.as_str())
        .filter(|key| !ENTRY_KEYS.contains(key))
        .collect();
    if !unknown.is_empty() {
        invalid(diagnostics, format!("unknown keys {}", unknown.join(", ")));
    }
    let text = |key: &str| {
        fields
            .iter()
            .find(|(name, _)| name == key)
            .map(|(_, node)| node)
            .filter(|node| !node.is_null())
            .and_then(Node::as_text)
            .map(str::trim)
            .filter(|text| !text.is_empty())
            .map(str::to_owned)
    };
    let mut missing = Vec::new();
    let mut required = |key: &'static str| {
        let value = text(key);
        if value.is_none() {
            missing.push(key);
        }
        value.unwrap_or_default()
    };
    let standard = required("standard");
    let version = required("version");
    let control_id = required("controlId");
    if !missing.is_empty() {
        invalid(
            diagnostics,
            format!("'{}' must be non-empty strings", missing.join("', '")),
        );
    }
    let evidence = match fields.iter().find(|(key, _)| key == "evidence") {
        None => Vec::new(),
        Some((_, Node::Sequence(items))) => items
            .iter()
            .enumerate()
            .filter_map(|(index, item)| parse_evidence(number, index + 1, item, dir, diagnostics))
            .collect(),
        Some((_, other)) => {
            invalid(
                diagnostics,
                format!("'evidence' must be a list, not a {}", other.type_name()),
            );
            Vec::new()
        }
    };
    let complete = unknown.is_empty() && missing.is_empty();
    complete.then(|| ComplianceEntry {
        standard,
        version,
        control_id,
        title: text("title"),
        evidence,
    })
}

fn parse_evidence(
    entry: usize,
    number: usize,
    item: &Node,
    dir: &Path,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Evidence> {
    let mut invalid = |why: String| {
        diagnostics.push(Diagnostic::error(
            DiagnosticCode::ComplianceEvidenceInvalid,
            format!("compliance entry {entry}, evidence {number}: {why}"),
        ));
        None
    };
    let Node::Mapping(fields) = item else {
        return invalid(format!("must be a mapping, not a {}", item.type_name()));
    };
    let text = |key: &str| {
        fields
            .iter()
            .find(|(name, _)| name == key)
            .and_then(|(_, node)| node.as_text())
            .map(str::trim)
    };
    let allowed: &[&str] = match text("type") {
        Some("packaged-file") => &["type", "path"],
        Some("external-url") => &["type", "url"],
        Some(other) => {
            return invalid(format!(
                "unknown type '{other}'; expected packaged-file or external-url"
            ));
        }
        None => return invalid("'type' is missing".to_owned()),
    };
    if let Some((key, _)) = fields
        .iter()
        .find(|(key, _)| !allowed.contains(&key.as_str()))
    {
        return invalid(format!("unknown key '{key}'"));
    }
    match text("type") {
        Some("packaged-file") => {
            let Some(path) = text("path") else {
                return invalid("'path' is missing".to_owned());
            };
            if let Err(refusal) = check_relative(path) {
                return invalid(format!("'{path}' must stay inside the package: {refusal}"));
            }
            if !is_packaged_file(dir, path) {
                return invalid(format!(
                    "'{path}' is not a regular file inside the package (missing, or reached through a symlink)"
                ));
            }
            Some(Evidence::PackagedFile {
                path: path.to_owned(),
            })
        }
        _ => {
            let Some(text) = text("url") else {
                return invalid("'url' is missing".to_owned());
            };
            match url::Url::parse(text) {
                Ok(url) if url.scheme() == "https" && url.host().is_some() => {
                    Some(Evidence::ExternalUrl { url: url.into() })
                }
                Ok(_) => invalid(format!("'{text}' must be an https URL")),
                Err(error) => invalid(format!("'{text}' is not a URL: {error}")),
            }
        }
    }
}

/// Whether `relative` (already lexically checked) names a regular file under `dir` reached
/// without passing through any symlink.
fn is_packaged_file(dir: &Path, relative: &str) -> bool {
    let mut path = dir.to_path_buf();
    let components: Vec<&str> = relative.split('/').collect();
    for (index, component) in components.iter().enumerate() {
        path.push(component);
        let Ok(metadata) = std::fs::symlink_metadata(&path) else {
            return false;
        };
        let last = index + 1 == components.len();
        let expected = if last {
            metadata.is_file()
        } else {
            metadata.is_dir()
        };
        if !expected {
            return false;
        }
    }
    true
}
