//! Workspace trust, recorded per user (02 §Scopes and roots, **Trust**, changed deliberately:
//! `docs/decisions.md` §Trust belongs to the user).
//!
//! Cloning an unknown repository must never put its skills in front of an agent, so a
//! workspace's project, profile and legacy roots are loaded only once the user has trusted it.
//! The user's word lives in `<home>/<app_dir>/trusted-workspaces.json`, never in the tree: a
//! repository that commits `<app_dir>/trust` (a file, a dangling link, a folder) would
//! otherwise trust itself. A record holds the canonical path and the folder's device and
//! inode, so a renamed, moved or copied tree, or a folder deleted and made again at the same
//! path, is not the folder the user trusted.
//!
//! The record is read like any state file a hostile tree could have planted a trap for:
//! without following a final symlink, without blocking on a FIFO, as a regular file of bounded
//! size. Anything wrong with it trusts nothing and says so; it is replaced atomically
//! (temporary file, flush, rename, directory flush), so a crash leaves the old or the new
//! record, never half of one.

use std::path::{Component, Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use skills_types::config::TrustPolicy;
use skills_types::trust::{
    LEGACY_TRUST_MARKER, TRUST_FILE, TRUST_FILE_VERSION, TrustChange, TrustFile, TrustRecord,
    TrustState, TrustedWorkspace,
};
use skills_types::{Diagnostic, DiagnosticCode, Error, Severity, SkillsConfig};

use crate::state::{self, TRUST_RECORD};

/// The per-user record file for this configuration.
pub fn record_path(config: &SkillsConfig) -> PathBuf {
    config.home.join(&config.app_dir).join(TRUST_FILE)
}

/// Where the old in-workspace marker would be; it no longer trusts anything.
pub fn legacy_marker_path(config: &SkillsConfig) -> PathBuf {
    config
        .workspace
        .join(&config.app_dir)
        .join(LEGACY_TRUST_MARKER)
}

/// What discovery learns about the workspace's trust.
#[derive(Clone, Debug, PartialEq)]
pub struct Standing {
    /// Whether the project, profile and legacy roots may be loaded.
    pub trusted: bool,
    /// Why not, when the record is unusable; and a workspace marker that was ignored.
    pub diagnostics: Vec<Diagnostic>,
}

/// Whether the workspace's project and legacy roots may be loaded.
pub fn is_trusted(config: &SkillsConfig) -> bool {
    standing(config).trusted
}

/// Whether the workspace is trusted, and what the user should hear about it.
pub fn standing(config: &SkillsConfig) -> Standing {
    let mut standing = Standing {
        trusted: false,
        diagnostics: Vec::new(),
    };
    match config.trust {
        TrustPolicy::Always => standing.trusted = true,
        TrustPolicy::Never => {}
        TrustPolicy::User => {
            match read_record(config) {
                Ok(record) => {
                    standing.trusted = identity(&config.workspace)
                        .is_ok_and(|folder| record.workspaces.iter().any(|r| folder.matches(r)));
                }
                Err(error) => standing.diagnostics.push(
                    Diagnostic::new(
                        DiagnosticCode::TrustRecordInvalid,
                        Severity::Warning,
                        error.to_string(),
                    )
                    .with_path(record_path(config)),
                ),
            }
            let marker = legacy_marker_path(config);
            // Any kind of entry counts as "carries a marker": a file, a dangling link, a
            // folder. None of them trusts; each is worth one sentence.
            if !standing.trusted && std::fs::symlink_metadata(&marker).is_ok() {
                standing.diagnostics.push(
                    Diagnostic::new(
                        DiagnosticCode::TrustMarkerIgnored,
                        Severity::Warning,
                        format!(
                            "the workspace carries a trust marker ({}), which no longer trusts it: trust is recorded per user, in {}; if you trust this workspace, run `skills trust {}`",
                            marker.display(),
                            record_path(config).display(),
                            config.workspace.display()
                        ),
                    )
                    .with_path(&marker),
                );
            }
        }
    }
    standing
}

/// Records `workspace` as trusted by this user (the workspace itself is not written to).
/// Trusting a trusted workspace changes nothing; trusting a path whose recorded folder was
/// replaced records the folder there now.
pub fn trust(config: &SkillsConfig, workspace: &Path) -> Result<TrustChange, Error> {
    let folder = identity(workspace).map_err(|source| Error::io("trust", workspace, source))?;
    let mut record = read_record(config)?;
    if record.workspaces.iter().any(|r| folder.matches(r)) {
        return Ok(TrustChange {
            workspace: folder.path,
            trusted: true,
            changed: false,
        });
    }
    record.workspaces.retain(|r| r.path != folder.path);
    record.workspaces.push(TrustRecord {
        path: folder.path.clone(),
        device: folder.device,
        inode: folder.inode,
        trusted_at: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_secs()),
    });
    write_record(config, &record)?;
    Ok(TrustChange {
        workspace: folder.path,
        trusted: true,
        changed: true,
    })
}

/// Removes every record of `workspace`: the folder there now, or, when the path no longer
/// resolves (the folder is gone), the records of that path as typed, made absolute.
pub fn revoke(config: &SkillsConfig, workspace: &Path) -> Result<TrustChange, Error> {
    let path = match std::fs::canonicalize(workspace) {
        Ok(path) => path,
        Err(_) => lexical_absolute(workspace),
    };
    let mut record = read_record(config)?;
    let before = record.workspaces.len();
    record.workspaces.retain(|r| r.path != path);
    let changed = record.workspaces.len() != before;
    if changed {
        write_record(config, &record)?;
    }
    Ok(TrustChange {
        workspace: path,
        trusted: false,
        changed,
    })
}

/// Every recorded workspace, with whether the folder at its path is still the trusted one.
pub fn list(config: &SkillsConfig) -> Result<Vec<TrustedWorkspace>, Error> {
    Ok(read_record(config)?
        .workspaces
        .into_iter()
        .map(|r| {
            let state = match identity(&r.path) {
                Ok(folder) if folder.matches(&r) => TrustState::Trusted,
                Ok(_) => TrustState::Replaced,
                Err(_) if std::fs::symlink_metadata(&r.path).is_ok() => TrustState::Replaced,
                Err(_) => TrustState::Missing,
            };
            TrustedWorkspace {
                path: r.path,
                trusted_at: r.trusted_at,
                state,
            }
        })
        .collect())
}

/// A folder as the record names it.
struct Folder {
    path: PathBuf,
    device: u64,
    inode: u64,
}

impl Folder {
    fn matches(&self, record: &TrustRecord) -> bool {
        record.path == self.path && record.device == self.device && record.inode == self.inode
    }
}

/// The canonical path and identity of the folder at `path` (a symlinked path is the folder
/// it resolves to).
fn identity(path: &Path) -> std::io::Result<Folder> {
    let path = std::fs::canonicalize(path)?;
    let metadata = std::fs::metadata(&path)?;
    if !metadata.is_dir() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotADirectory,
            format!("{} is not a directory", path.display()),
        ));
    }
    let (device, inode) = device_and_inode(&metadata);
    Ok(Folder {
        path,
        device,
        inode,
    })
}

#[cfg(unix)]
fn device_and_inode(metadata: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt as _;
    (metadata.dev(), metadata.ino())
}

#[cfg(not(unix))]
fn device_and_inode(_metadata: &std::fs::Metadata) -> (u64, u64) {
    (0, 0)
}

/// `path` made absolute against the current directory, `.` and `..` folded lexically: the
/// form a vanished folder was recorded under.
fn lexical_absolute(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut folded = PathBuf::new();
    for component in absolute.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                folded.pop();
            }
            other => folded.push(other),
        }
    }
    folded
}

/// The record, or an empty one when there is none yet. Read through [`state`]: no link, no
/// FIFO or device, at most [`TRUST_RECORD`]'s limit.
fn read_record(config: &SkillsConfig) -> Result<TrustFile, Error> {
    let path = record_path(config);
    let invalid = |reason: String| Error::TrustRecordInvalid {
        path: path.clone(),
        reason,
    };
    let bytes = match state::Folder::open(&state::app_dir(config), &[]) {
        Ok(Some(folder)) => folder
            .read(&TRUST_RECORD, TRUST_FILE)
            .map_err(|refusal| invalid(refusal.to_string()))?,
        Ok(None) => None,
        Err(refusal) => return Err(invalid(refusal.to_string())),
    };
    let Some(bytes) = bytes else {
        return Ok(TrustFile {
            version: TRUST_FILE_VERSION,
            workspaces: Vec::new(),
        });
    };
    let record: TrustFile = serde_json::from_slice(&bytes)
        .map_err(|error| invalid(format!("it is not a valid record ({error})")))?;
    if record.version != TRUST_FILE_VERSION {
        return Err(invalid(format!(
            "it has version {}, and this build reads version {TRUST_FILE_VERSION}",
            record.version
        )));
    }
    Ok(record)
}

/// Replaces the record atomically, creating `<home>/<app_dir>` when needed.
fn write_record(config: &SkillsConfig, record: &TrustFile) -> Result<(), Error> {
    let path = record_path(config);
    let mut bytes = serde_json::to_vec_pretty(record).map_err(|error| {
        Error::InvalidInput(format!("the trust record cannot be encoded: {error}"))
    })?;
    bytes.push(b'\n');
    state::Folder::create(&state::app_dir(config), &[])
        .map_err(std::io::Error::from)
        .and_then(|folder| folder.replace(&TRUST_RECORD, TRUST_FILE, &bytes))
        .map_err(|source| Error::io("write", &path, source))
}

#[cfg(test)]
mod tests;
