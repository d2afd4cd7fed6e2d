//! Workspace trust, recorded per user (02 §Scopes and roots, **Trust**, changed deliberately:
//! `docs/decisions.md` §Trust belongs to the user).
//!
//! Cloning an unknown repository must never put its skills in front of an agent, so a
//! workspace's project, profile and legacy roots are loaded only once the user has trusted it.
//! The user's word lives in `<home>/<app_dir>/trusted-workspaces.json`, never in the tree: a
//! repository that commits `<app_dir>/trust` (a file, a dangling link, a folder) would
//! otherwise trust itself. A record holds the canonical path and the folder's device, inode
//! and birth time, so a renamed, moved or copied tree, or a folder deleted and made again at
//! the same path, is not the folder the user trusted. The birth time is what a recreation
//! always changes: ext4 hands a folder deleted and made again (a new `git clone`) its old inode
//! back at once, and a tmpfs mounted again (a reboot) starts its inode numbers over, but
//! neither can give the new folder the old one's birth (`docs/decisions.md` §Trust is bound to
//! the folder's birth). A folder whose file system reports no birth time cannot be trusted by
//! record, and a record without one (version 1) trusts nothing: both fail closed, with a
//! diagnostic saying what to do.
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
    Birth, LEGACY_TRUST_MARKER, TRUST_FILE, TRUST_FILE_OLDEST_VERSION, TRUST_FILE_VERSION,
    TrustChange, TrustFile, TrustRecord, TrustState, TrustedWorkspace,
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
                    if let Ok(folder) = identity(&config.workspace) {
                        let verdicts: Vec<Verdict> = record
                            .workspaces
                            .iter()
                            .filter(|r| r.path == folder.path)
                            .map(|r| folder.verdict(r))
                            .collect();
                        standing.trusted = verdicts.contains(&Verdict::Same);
                        if !standing.trusted
                            && let Some(diagnostic) = verdicts
                                .first()
                                .and_then(|verdict| not_the_trusted_folder(*verdict, &folder.path))
                        {
                            standing.diagnostics.push(diagnostic);
                        }
                    }
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
///
/// A folder whose file system reports no birth time is refused: its record could not tell it
/// from a folder made again at the same path. A folder made in the last few milliseconds is
/// recorded once the clock has moved past its birth (`settle`).
pub fn trust(config: &SkillsConfig, workspace: &Path) -> Result<TrustChange, Error> {
    let folder = identity(workspace).map_err(|source| Error::io("trust", workspace, source))?;
    let Some(birth) = folder.birth else {
        return Err(Error::io(
            "trust",
            &folder.path,
            std::io::Error::new(std::io::ErrorKind::Unsupported, UNVERIFIABLE.to_owned()),
        ));
    };
    let mut record = read_record(config)?;
    if record
        .workspaces
        .iter()
        .any(|r| r.path == folder.path && folder.verdict(r) == Verdict::Same)
    {
        return Ok(TrustChange {
            workspace: folder.path,
            trusted: true,
            changed: false,
        });
    }
    settle(birth);
    record.version = TRUST_FILE_VERSION;
    record.workspaces.retain(|r| r.path != folder.path);
    record.workspaces.push(TrustRecord {
        path: folder.path.clone(),
        device: folder.device,
        inode: folder.inode,
        birth: Some(birth),
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
        record.version = TRUST_FILE_VERSION;
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
                Ok(folder) if folder.path != r.path => TrustState::Replaced,
                Ok(folder) => match folder.verdict(&r) {
                    Verdict::Same => TrustState::Trusted,
                    Verdict::Replaced => TrustState::Replaced,
                    Verdict::Outdated => TrustState::Outdated,
                    Verdict::Unverifiable => TrustState::Unverifiable,
                },
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

/// Why [`trust`] refuses a folder on a file system without birth times, and what to do.
const UNVERIFIABLE: &str = "its file system does not report when a folder was made (no birth time), so a folder deleted and made again at this path could not be told from this one; trust cannot be recorded here (pass --trust-workspace to trust it for one command)";

/// How far past a folder's birth the clock must be before its trust is recorded: at least
/// the coarsest birth-time granularity of a file system that reports one (FAT and exFAT keep
/// creation times in 10 ms steps).
const SETTLE_MARGIN: std::time::Duration = std::time::Duration::from_millis(10);
/// A birth further ahead of the clock than this is not waited for: the clock was set back,
/// and a folder made now is born before the recorded one, not at the same instant.
const SETTLE_LIMIT: std::time::Duration = std::time::Duration::from_millis(100);

/// A folder as the record names it.
struct Folder {
    path: PathBuf,
    device: u64,
    inode: u64,
    /// `None` when the file system reports no birth time.
    birth: Option<Birth>,
}

/// How a record of a path compares with the folder at that path now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    /// The trusted folder itself.
    Same,
    /// Another folder: another device or inode, or the same inode born at another instant
    /// (deleted and made again).
    Replaced,
    /// The record has no birth time (version 1): the same inode proves nothing.
    Outdated,
    /// The folder's file system reports no birth time: the same inode proves nothing.
    Unverifiable,
}

impl Folder {
    /// The record's verdict on this folder, for a record of this folder's path. Device and
    /// inode alone never decide "the same": ext4 gives a folder made again the inode of the
    /// one deleted, and a tmpfs mounted again its first inode numbers and device.
    fn verdict(&self, record: &TrustRecord) -> Verdict {
        if record.device != self.device || record.inode != self.inode {
            return Verdict::Replaced;
        }
        match (record.birth, self.birth) {
            (None, _) => Verdict::Outdated,
            (Some(_), None) => Verdict::Unverifiable,
            (Some(recorded), Some(now)) if recorded == now => Verdict::Same,
            (Some(_), Some(_)) => Verdict::Replaced,
        }
    }
}

/// The warning for a workspace whose path has a record that does not trust the folder there.
fn not_the_trusted_folder(verdict: Verdict, path: &Path) -> Option<Diagnostic> {
    let shown = path.display();
    let (code, message) = match verdict {
        Verdict::Same => return None,
        Verdict::Replaced => (
            DiagnosticCode::TrustReplaced,
            format!(
                "the workspace {shown} was trusted, but the folder there now is not the one trusted (it was deleted and made again, as a new clone is, or replaced), so it is not trusted; if you trust what is there now, run `skills trust {shown}`"
            ),
        ),
        Verdict::Outdated => (
            DiagnosticCode::TrustReplaced,
            format!(
                "the workspace {shown} was trusted by an older version, whose record cannot tell this folder from one deleted and made again at the same path, so it is no longer trusted; if you trust it, run `skills trust {shown}` again"
            ),
        ),
        Verdict::Unverifiable => (
            DiagnosticCode::TrustUnverifiable,
            format!("the workspace {shown} was trusted, but {UNVERIFIABLE}"),
        ),
    };
    Some(Diagnostic::new(code, Severity::Warning, message).with_path(path))
}

/// The canonical path and identity of the folder at `path` (a symlinked path is the folder
/// it resolves to).
fn identity(path: &Path) -> std::io::Result<Folder> {
    let path = std::fs::canonicalize(path)?;
    let (device, inode, birth) = stat_folder(&path)?;
    Ok(Folder {
        path,
        device,
        inode,
        birth,
    })
}

fn not_a_directory(path: &Path) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::NotADirectory,
        format!("{} is not a directory", path.display()),
    )
}

/// Device, inode and birth time of the folder at `path`, from one `statx`: the three must
/// describe the same folder. A kernel or file system that reports no birth time (`statx`
/// missing, or `STATX_BTIME` left out of the answer: ramfs, NFSv3, ext4 with 128-byte inodes)
/// gives `None`, and trust fails closed.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn stat_folder(path: &Path) -> std::io::Result<(u64, u64, Option<Birth>)> {
    use rustix::fs::{AtFlags, CWD, FileType, StatxFlags, makedev, statx};
    let wanted = StatxFlags::TYPE | StatxFlags::INO | StatxFlags::BTIME;
    let stat = match statx(CWD, path, AtFlags::empty(), wanted) {
        Ok(stat) => stat,
        // No `statx` (Linux before 4.11, an old seccomp profile): no birth time, and the
        // folder is still told apart by `stat`.
        Err(rustix::io::Errno::NOSYS | rustix::io::Errno::PERM) => {
            let metadata = std::fs::metadata(path)?;
            if !metadata.is_dir() {
                return Err(not_a_directory(path));
            }
            use std::os::unix::fs::MetadataExt as _;
            return Ok((metadata.dev(), metadata.ino(), None));
        }
        Err(error) => return Err(error.into()),
    };
    if FileType::from_raw_mode(u32::from(stat.stx_mode)) != FileType::Directory {
        return Err(not_a_directory(path));
    }
    let reported = StatxFlags::from_bits_retain(stat.stx_mask);
    let birth = reported.contains(StatxFlags::BTIME).then_some(Birth {
        seconds: stat.stx_btime.tv_sec,
        nanoseconds: stat.stx_btime.tv_nsec,
    });
    Ok((
        makedev(stat.stx_dev_major, stat.stx_dev_minor),
        stat.stx_ino,
        birth,
    ))
}

/// Elsewhere the standard library's creation time is the birth time (`st_birthtime` on the
/// BSDs and macOS, the creation time on Windows).
#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn stat_folder(path: &Path) -> std::io::Result<(u64, u64, Option<Birth>)> {
    let metadata = std::fs::metadata(path)?;
    if !metadata.is_dir() {
        return Err(not_a_directory(path));
    }
    // A folder made before 1970 is treated as one without a birth time.
    let birth = metadata
        .created()
        .ok()
        .and_then(|created| created.duration_since(UNIX_EPOCH).ok())
        .map(|after| Birth {
            seconds: i64::try_from(after.as_secs()).unwrap_or(i64::MAX),
            nanoseconds: after.subsec_nanos(),
        });
    let (device, inode) = device_and_inode(&metadata);
    Ok((device, inode, birth))
}

#[cfg(all(unix, not(any(target_os = "linux", target_os = "android"))))]
fn device_and_inode(metadata: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt as _;
    (metadata.dev(), metadata.ino())
}

#[cfg(not(unix))]
fn device_and_inode(_metadata: &std::fs::Metadata) -> (u64, u64) {
    (0, 0)
}

/// Waits until the clock file systems stamp new folders with is at least [`SETTLE_MARGIN`]
/// past `birth`, so that every folder made at the path from now on is born later than the
/// recorded one. Without it a folder trusted in the first tick of its life could be deleted
/// and made again within the same tick: ext4 would hand back the inode, and the kernel's
/// coarse clock the very same birth time (measured: 97% of tight delete-and-make loops on
/// ext4 give both back). The wait is at most a few milliseconds, and only for a folder made
/// just now (a script that clones and trusts); a birth far ahead of the clock is not waited
/// for ([`SETTLE_LIMIT`]).
fn settle(birth: Birth) {
    let Some(target) = nanoseconds(birth).checked_add(SETTLE_MARGIN.as_nanos() as i128) else {
        return;
    };
    loop {
        let now = stamping_clock();
        if now >= target || target - now > SETTLE_LIMIT.as_nanos() as i128 {
            return;
        }
        let wait = u64::try_from(target - now).unwrap_or(0).max(1_000_000);
        std::thread::sleep(std::time::Duration::from_nanos(wait));
    }
}

fn nanoseconds(birth: Birth) -> i128 {
    i128::from(birth.seconds) * 1_000_000_000 + i128::from(birth.nanoseconds)
}

/// The clock the kernel stamps new inodes with: the coarse real-time clock (a multigrain
/// file system may stamp a little later, never earlier).
#[cfg(any(target_os = "linux", target_os = "android"))]
fn stamping_clock() -> i128 {
    let now = rustix::time::clock_gettime(rustix::time::ClockId::RealtimeCoarse);
    i128::from(now.tv_sec) * 1_000_000_000 + i128::from(now.tv_nsec)
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn stamping_clock() -> i128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |after| {
            i128::try_from(after.as_nanos()).unwrap_or(i128::MAX)
        })
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
    check_version(&record).map_err(invalid)?;
    Ok(record)
}

/// A record of a version this build reads: this one, or an older one whose records trust
/// nothing until trusted again (version 1 has no birth times; [`Verdict::Outdated`]).
fn check_version(record: &TrustFile) -> Result<(), String> {
    if (TRUST_FILE_OLDEST_VERSION..=TRUST_FILE_VERSION).contains(&record.version) {
        return Ok(());
    }
    Err(format!(
        "it has version {}, and this build reads versions {TRUST_FILE_OLDEST_VERSION} to {TRUST_FILE_VERSION}",
        record.version
    ))
}

/// Replaces the record atomically, creating `<home>/<app_dir>` when needed.
fn write_record(config: &SkillsConfig, record: &TrustFile) -> Result<(), Error> {
    let path = record_path(config);
    let mut bytes = serde_json::to_vec_pretty(record).map_err(|error| Error::Internal {
        action: "encoding the trust record".to_owned(),
        reason: error.to_string(),
    })?;
    bytes.push(b'\n');
    state::Folder::create(&state::app_dir(config), &[])
        .map_err(std::io::Error::from)
        .and_then(|folder| folder.replace(&TRUST_RECORD, TRUST_FILE, &bytes))
        .map_err(|source| Error::io("write", &path, source))
}

#[cfg(test)]
mod tests;
