//! A stamp of a skill folder's files: cheap enough for a listing, good enough to know the
//! files changed since a verdict was recorded (`verdicts.rs`).

use std::path::Path;

use sha2::{Digest, Sha256};

use crate::files::Caps;

/// A stamp of the skill folder `dir`'s files, good enough to know they changed: the path,
/// kind, size, modification and change times and inode of every entry below it (no link
/// followed, no file opened, within the scan's depth and file caps), hashed. `None` when the
/// folder cannot be listed. A change the scan would see changes it: new bytes move the
/// modification time (and the change time, which no tool can set back), a file added,
/// removed or renamed changes the list.
pub fn stamp(dir: &Path, caps: &Caps) -> Option<String> {
    let mut hasher = Sha256::new();
    let mut files = 0;
    stamp_walk(dir, "", 0, caps, &mut files, &mut hasher).ok()?;
    let digest = hasher.finalize();
    Some(
        digest
            .iter()
            .take(16)
            .map(|byte| format!("{byte:02x}"))
            .collect(),
    )
}

fn stamp_walk(
    dir: &Path,
    prefix: &str,
    depth: usize,
    caps: &Caps,
    files: &mut usize,
    hasher: &mut Sha256,
) -> std::io::Result<()> {
    let mut entries = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .collect::<Vec<_>>();
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        let relative = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        // Read through the listed folder (no link followed), not by the whole path again.
        let Ok(metadata) = entry.metadata() else {
            continue;
        };
        hasher.update((relative.len() as u64).to_le_bytes());
        hasher.update(relative.as_bytes());
        hash_metadata(&metadata, hasher);
        if metadata.is_dir() {
            if depth + 1 < caps.depth {
                stamp_walk(&entry.path(), &relative, depth + 1, caps, files, hasher)?;
            }
        } else {
            *files += 1;
            if *files > caps.files {
                return Ok(());
            }
        }
    }
    Ok(())
}

#[cfg(unix)]
fn hash_metadata(metadata: &std::fs::Metadata, hasher: &mut Sha256) {
    use std::os::unix::fs::MetadataExt;
    hasher.update([u8::from(metadata.is_dir()), u8::from(metadata.is_symlink())]);
    for value in [
        metadata.size(),
        metadata.ino(),
        metadata.mtime().cast_unsigned(),
        metadata.mtime_nsec().cast_unsigned(),
        metadata.ctime().cast_unsigned(),
        metadata.ctime_nsec().cast_unsigned(),
    ] {
        hasher.update(value.to_le_bytes());
    }
}

#[cfg(not(unix))]
fn hash_metadata(metadata: &std::fs::Metadata, hasher: &mut Sha256) {
    hasher.update([u8::from(metadata.is_dir()), u8::from(metadata.is_symlink())]);
    hasher.update(metadata.len().to_le_bytes());
    let modified = metadata
        .modified()
        .ok()
        .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |since| since.as_nanos());
    hasher.update(modified.to_le_bytes());
}
