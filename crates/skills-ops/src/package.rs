//! The package rules (01 §Package rules): what a skill directory may hold when it is shipped
//! as a multi-file package (profile `skillhub`, and every multi-file install).
//!
//! The walk never follows a symlink: a link is itself a finding, because copying it into an
//! install is how peers ended up writing outside the skill directory.

use std::collections::BTreeMap;
use std::fs::Metadata;
use std::path::Path;

use skills_types::files::SKILL_FILES;
use skills_types::limits::{PACKAGE_EXTENSIONS, PackageLimits};
use skills_types::{Diagnostic, DiagnosticCode};

use skills_types::path::check_relative;

/// Entries visited before the walk gives up: a package far over the file limit is reported,
/// not read to the end.
const WALK_LIMIT_FACTOR: usize = 10;

/// Every package-rule finding for the skill directory `dir`.
pub(crate) fn check(dir: &Path, limits: &PackageLimits) -> Vec<Diagnostic> {
    let mut walk = Walk {
        limits,
        diagnostics: Vec::new(),
        files: 0,
        total_bytes: 0,
        visited: 0,
        folded: BTreeMap::new(),
    };
    walk.directory(dir, "");
    if walk.files > limits.max_files {
        walk.diagnostics.push(Diagnostic::error(
            DiagnosticCode::PackageTooManyFiles,
            format!(
                "the package holds {}{} files; at most {} are allowed",
                if walk.visited > walk.visit_limit() {
                    "more than "
                } else {
                    ""
                },
                walk.files,
                limits.max_files
            ),
        ));
    }
    if walk.total_bytes > limits.max_total_bytes {
        walk.diagnostics.push(Diagnostic::error(
            DiagnosticCode::PackageTooLarge,
            format!(
                "the package's files total {} bytes; at most {} are allowed",
                walk.total_bytes, limits.max_total_bytes
            ),
        ));
    }
    walk.diagnostics
}

struct Walk<'l> {
    limits: &'l PackageLimits,
    diagnostics: Vec<Diagnostic>,
    files: usize,
    total_bytes: u64,
    visited: usize,
    /// Case-folded relative path -> the first path seen with it.
    folded: BTreeMap<String, String>,
}

impl Walk<'_> {
    fn visit_limit(&self) -> usize {
        self.limits.max_files.saturating_mul(WALK_LIMIT_FACTOR)
    }

    fn finding(&mut self, code: DiagnosticCode, relative: &str, message: String) {
        self.diagnostics
            .push(Diagnostic::error(code, message).with_path(relative));
    }

    fn directory(&mut self, dir: &Path, prefix: &str) {
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(error) => {
                let shown = if prefix.is_empty() { "." } else { prefix };
                self.finding(
                    DiagnosticCode::PackageSpecialFile,
                    shown,
                    format!("the directory '{shown}' cannot be listed: {error}"),
                );
                return;
            }
        };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
        entries.sort_by_key(|entry| entry.file_name());
        for entry in entries {
            self.visited += 1;
            if self.visited > self.visit_limit() {
                return;
            }
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                let shown = name.to_string_lossy().into_owned();
                self.finding(
                    DiagnosticCode::PackageInvalidPath,
                    &shown,
                    format!("the file name '{shown}' is not valid UTF-8"),
                );
                continue;
            };
            let relative = if prefix.is_empty() {
                name.to_owned()
            } else {
                format!("{prefix}/{name}")
            };
            // `DirEntry::metadata` does not follow symlinks.
            match entry.metadata() {
                Ok(metadata) => self.entry(&entry.path(), &relative, &metadata),
                Err(error) => self.finding(
                    DiagnosticCode::PackageSpecialFile,
                    &relative,
                    format!("'{relative}' cannot be inspected: {error}"),
                ),
            }
        }
    }

    fn entry(&mut self, path: &Path, relative: &str, metadata: &Metadata) {
        let kind = metadata.file_type();
        if kind.is_symlink() {
            self.finding(
                DiagnosticCode::PackageSpecialFile,
                relative,
                format!("'{relative}' is a symlink; packages hold only regular files"),
            );
            return;
        }
        if let Err(refusal) = check_relative(relative) {
            self.finding(
                DiagnosticCode::PackageInvalidPath,
                relative,
                format!("'{relative}' is not an allowed package path: {refusal}"),
            );
            return;
        }
        if let Some(first) = self
            .folded
            .insert(relative.to_lowercase(), relative.to_owned())
        {
            self.finding(
                DiagnosticCode::PackageCaseCollision,
                relative,
                format!("'{relative}' and '{first}' differ only in letter case"),
            );
        }
        if kind.is_dir() {
            self.directory(path, relative);
            return;
        }
        if !kind.is_file() {
            self.finding(
                DiagnosticCode::PackageSpecialFile,
                relative,
                format!("'{relative}' is a special file (FIFO, socket or device)"),
            );
            return;
        }
        if link_count(metadata) > 1 {
            self.finding(
                DiagnosticCode::PackageSpecialFile,
                relative,
                format!("'{relative}' is a hard link; packages hold only files of their own"),
            );
        }
        self.files += 1;
        self.total_bytes = self.total_bytes.saturating_add(metadata.len());
        if metadata.len() > self.limits.max_file_bytes {
            self.finding(
                DiagnosticCode::PackageFileTooLarge,
                relative,
                format!(
                    "'{relative}' is {} bytes; at most {} are allowed per file",
                    metadata.len(),
                    self.limits.max_file_bytes
                ),
            );
        }
        if !extension_allowed(relative) {
            self.finding(
                DiagnosticCode::PackageExtensionNotAllowed,
                relative,
                format!(
                    "'{relative}' has an extension outside the allowed list ({})",
                    PACKAGE_EXTENSIONS.join(", ")
                ),
            );
        }
    }
}

/// Allowed extensions, plus the files the skill format itself defines (`skill.toml`).
fn extension_allowed(relative: &str) -> bool {
    let name = relative.rsplit('/').next().unwrap_or(relative);
    if !relative.contains('/') && SKILL_FILES.iter().any(|file| file.name == name) {
        return true;
    }
    match name.rsplit_once('.') {
        Some((stem, extension)) if !stem.is_empty() => PACKAGE_EXTENSIONS
            .iter()
            .any(|allowed| allowed.eq_ignore_ascii_case(extension)),
        _ => false,
    }
}

#[cfg(unix)]
fn link_count(metadata: &Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::nlink(metadata)
}

#[cfg(not(unix))]
fn link_count(_: &Metadata) -> u64 {
    1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions() {
        for name in ["SKILL.md", "skill.toml", "a/b.PY", "x.svg", "notes.txt"] {
            assert!(extension_allowed(name), "{name}");
        }
        for name in ["run.exe", "LICENSE", "a/skill.toml", ".md", "x.tar.gz"] {
            assert!(!extension_allowed(name), "{name}");
        }
    }
}
