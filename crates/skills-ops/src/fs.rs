//! The file operations every writer here shares: replacing a file atomically (the one way
//! this crate rewrites a file a person owns, such as `AGENTS.md`, so a crash, a full disk or a
//! concurrent reader never sees half a file), publishing folders with one rename, and reading
//! a file someone named without following a link or blocking on a FIFO.
//!
//! The bytes of a replaced file go to a fresh temporary file beside the target (same
//! directory, so the final rename stays on one file system and is atomic), which is flushed to
//! disk, given the target's permissions and renamed over it; the directory is then flushed so
//! the rename itself survives a power cut. `replace_in` does that relative to an open folder,
//! which is how [`crate::state`] replaces the program's own files (their folders reached
//! without following a link).

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// How many fresh names to try before giving up: a clash means another writer (or a planted
/// file) holds the name, and a new name is cheap.
const NAME_ATTEMPTS: u32 = 64;

/// How much of the target's name the temporary name repeats (to show what it belongs to).
const MAX_STEM_CHARS: usize = 64;

/// Distinguishes temporary files of concurrent writers in one process.
static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Writes `bytes` to `path`, replacing any file there in one step.
///
/// The target either keeps its old bytes or holds all the new ones. The temporary file is
/// created with `O_CREAT | O_EXCL | O_NOFOLLOW`, which refuses an existing name and any
/// symlink at it: a link planted under a predictable temporary name cannot redirect the
/// write into another file. When `path` is a symlink, the link itself is replaced by a
/// regular file; the file it pointed to is never written. The folder is the caller's and is
/// resolved as given (the program's own state files go through [`crate::state`], which
/// follows no link on the way).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let file_name = path.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} does not name a file", path.display()),
        )
    })?;
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    imp::write_atomic(dir, file_name, bytes)
}

/// Replaces `name` in the open folder `dir` with what `fill` writes, in one step: a fresh
/// temporary file beside it (`O_EXCL | O_NOFOLLOW`, mode `mode`, or the replaced file's when
/// it is a regular file), filled, flushed to disk, renamed over the name, and the folder
/// flushed. A failure leaves the old file and no temporary one.
#[cfg(unix)]
pub(crate) fn replace_in(
    dir: rustix::fd::BorrowedFd<'_>,
    name: &std::ffi::OsStr,
    mode: u32,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<()> {
    use rustix::fs::{AtFlags, FileType, Mode, OFlags};
    // A long target name plus the suffix could exceed the file system's name limit.
    let stem: String = name
        .to_string_lossy()
        .chars()
        .take(MAX_STEM_CHARS)
        .collect();
    // A replaced file keeps its mode (a private `0600` file stays private). The mode is set
    // before any byte is written, so the temporary file never exposes the new contents more
    // widely than the target does. The name itself is looked at: a symlink's target is not
    // ours to copy from, and the link is what gets replaced.
    let kept_mode = match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        // A hard link is a file from elsewhere: its mode is not ours to copy either.
        Ok(stat)
            if FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile
                && stat.st_nlink == 1 =>
        {
            Some(stat.st_mode & 0o7777)
        }
        Ok(_) | Err(rustix::io::Errno::NOENT) => None,
        Err(errno) => return Err(errno.into()),
    };
    let flags = OFlags::WRONLY
        | OFlags::CREATE
        | OFlags::EXCL
        | OFlags::NOFOLLOW
        | OFlags::NOCTTY
        | OFlags::CLOEXEC;
    let mut last_error = None;
    let mut created = None;
    for _ in 0..NAME_ATTEMPTS {
        let temporary = format!(".{stem}.{}.tmp", unique_suffix());
        match rustix::fs::openat(dir, temporary.as_str(), flags, Mode::from_raw_mode(mode)) {
            Ok(fd) => {
                created = Some((temporary, File::from(fd)));
                break;
            }
            Err(rustix::io::Errno::EXIST) => {
                last_error = Some(io::Error::from(rustix::io::Errno::EXIST))
            }
            Err(errno) => return Err(errno.into()),
        }
    }
    let Some((temporary, mut file)) = created else {
        return Err(last_error.unwrap_or_else(|| io::Error::other("no free temporary file name")));
    };
    let result = (|| {
        if let Some(kept) = kept_mode {
            rustix::fs::fchmod(&file, Mode::from_raw_mode(kept))?;
        }
        fill(&mut file)?;
        // Without this flush, a crash after the rename can leave the target empty on file
        // systems that reorder metadata before data.
        file.sync_all()?;
        rustix::fs::renameat(dir, temporary.as_str(), dir, name)?;
        Ok(())
    })();
    drop(file);
    if let Err(error) = result {
        let _ = rustix::fs::unlinkat(dir, temporary.as_str(), AtFlags::empty());
        return Err(error);
    }
    // So the rename itself survives a power cut.
    rustix::fs::fsync(dir)?;
    Ok(())
}

#[cfg(unix)]
mod imp {
    use std::io;
    use std::path::Path;

    pub(super) fn write_atomic(dir: &Path, name: &std::ffi::OsStr, bytes: &[u8]) -> io::Result<()> {
        use rustix::fs::{Mode, OFlags};
        let dir = rustix::fs::open(
            dir,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        super::replace_in(rustix::fd::AsFd::as_fd(&dir), name, 0o666, |file| {
            io::Write::write_all(file, bytes)
        })
    }
}

#[cfg(not(unix))]
mod imp {
    use std::fs::{File, OpenOptions};
    use std::io::{self, Write as _};
    use std::path::{Path, PathBuf};

    use super::{MAX_STEM_CHARS, NAME_ATTEMPTS, unique_suffix};

    pub(super) fn write_atomic(dir: &Path, name: &std::ffi::OsStr, bytes: &[u8]) -> io::Result<()> {
        let path = dir.join(name);
        let stem: String = name
            .to_string_lossy()
            .chars()
            .take(MAX_STEM_CHARS)
            .collect();
        let (temporary, mut file) = create_temporary(dir, &stem)?;
        let result = fill_and_rename(&mut file, &temporary, &path, bytes);
        drop(file);
        if result.is_err() {
            let _ = std::fs::remove_file(&temporary);
        }
        result
    }

    fn create_temporary(dir: &Path, stem: &str) -> io::Result<(PathBuf, File)> {
        let mut last_error = None;
        for _ in 0..NAME_ATTEMPTS {
            let candidate = dir.join(format!(".{stem}.{}.tmp", unique_suffix()));
            match OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&candidate)
            {
                Ok(file) => return Ok((candidate, file)),
                Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
                    last_error = Some(error);
                }
                Err(error) => return Err(error),
            }
        }
        Err(last_error.unwrap_or_else(|| io::Error::other("no free temporary file name")))
    }

    fn fill_and_rename(
        file: &mut File,
        temporary: &Path,
        path: &Path,
        bytes: &[u8],
    ) -> io::Result<()> {
        match std::fs::symlink_metadata(path) {
            Ok(metadata) if metadata.is_file() => file.set_permissions(metadata.permissions())?,
            Ok(_) => {}
            Err(error) if error.kind() == io::ErrorKind::NotFound => {}
            Err(error) => return Err(error),
        }
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(temporary, path)
    }
}

/// A short name part no other writer uses at the same time: process, time and a counter.
pub fn unique_suffix() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| elapsed.subsec_nanos())
        .unwrap_or_default();
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("{}-{nanos:x}-{count}", std::process::id())
}

/// Creates `path`, which must not exist (a planted file or symlink fails the call), writes
/// `bytes` and flushes them to disk.
pub fn write_new(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = OpenOptions::new().write(true).create_new(true).open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// Renames `from` to `to` only if nothing is at `to`: `renameat2(RENAME_NOREPLACE)` on Linux,
/// atomically. (`std::fs::rename` silently replaces an empty directory, and a check followed by
/// a rename leaves a window for another writer.) Where the kernel or file system lacks it, the
/// check-then-rename fallback is used.
pub fn rename_noreplace(from: &Path, to: &Path) -> io::Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        match renameat_with(CWD, from, CWD, to, RenameFlags::NOREPLACE) {
            Ok(()) => return Ok(()),
            Err(rustix::io::Errno::INVAL | rustix::io::Errno::NOSYS) => {}
            Err(errno) => return Err(errno.into()),
        }
    }
    if std::fs::symlink_metadata(to).is_ok() {
        return Err(io::Error::from(io::ErrorKind::AlreadyExists));
    }
    std::fs::rename(from, to)
}

/// Exchanges `a` and `b` in one step (`renameat2(RENAME_EXCHANGE)`): a replaced skill is
/// never missing, not even for an instant. Where the kernel or file system lacks it, `b` is
/// moved aside to `a` first, which leaves a short window without `b`.
pub fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        match renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE) {
            Ok(()) => return Ok(()),
            Err(rustix::io::Errno::INVAL | rustix::io::Errno::NOSYS) => {}
            Err(errno) => return Err(errno.into()),
        }
    }
    let aside = a.with_extension(format!("aside-{}", unique_suffix()));
    std::fs::rename(b, &aside)?;
    if let Err(error) = std::fs::rename(a, b) {
        let _ = std::fs::rename(&aside, b);
        return Err(error);
    }
    std::fs::rename(&aside, a)
}

/// What a file that is not a regular file is, for a message ("a FIFO (named pipe)").
pub fn file_kind(metadata: &std::fs::Metadata) -> &'static str {
    let kind = metadata.file_type();
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if kind.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_block_device() || kind.is_char_device() {
            return "a device";
        }
    }
    if kind.is_symlink() {
        "a symbolic link"
    } else if kind.is_dir() {
        "a folder"
    } else if kind.is_file() {
        "a regular file"
    } else {
        "a special file"
    }
}

/// Reads a file someone named (a local install's archive, a file of a folder being
/// installed), at most `limit` bytes of it: never through a final symlink and never blocking
/// on a FIFO or device under its name, which would hang the command (the check of the name
/// and the open are one step, so nothing can be swapped in between). `Ok(None)` when nothing
/// is there; otherwise the error is a clause saying what is wrong ("it is a FIFO (named
/// pipe), not a regular file"). The program's own files go through [`crate::state`].
pub fn read_no_follow(path: &Path, limit: u64) -> Result<Option<Vec<u8>>, String> {
    use std::io::Read as _;
    let file = match open_no_follow(path) {
        Ok(file) => file,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(error) if is_symlink_refusal(path, &error) => {
            return Err("it is a symbolic link, not a regular file".to_owned());
        }
        Err(error) => return Err(format!("it cannot be opened ({error})")),
    };
    let metadata = file
        .metadata()
        .map_err(|error| format!("it cannot be examined ({error})"))?;
    if !metadata.is_file() {
        return Err(format!(
            "it is {}, not a regular file",
            file_kind(&metadata)
        ));
    }
    if metadata.len() > limit {
        return Err(format!(
            "it is {} bytes long, more than the {limit} allowed",
            metadata.len()
        ));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(metadata.len()).unwrap_or_default());
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|error| format!("it cannot be read ({error})"))?;
    if bytes.len() as u64 > limit {
        return Err(format!("it is longer than the {limit} bytes allowed"));
    }
    Ok(Some(bytes))
}

/// Reads the first `limit` bytes of a file by the rules of [`read_no_follow`] (no final
/// symlink, no FIFO or device, a regular file only), whatever its size: what a scanner reads
/// of a file it must not load whole. `Ok(Some((bytes, size)))`, `size` being the whole file's
/// length when it was opened; `Ok(None)` when nothing is there.
pub fn read_prefix_no_follow(path: &Path, limit: u64) -> Result<Option<(Vec<u8>, u64)>, String> {
    use std::io::Read as _;
    let file = match open_no_follow(path) {
        Ok(file) => file,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(error) if is_symlink_refusal(path, &error) => {
            return Err("it is a symbolic link, not a regular file".to_owned());
        }
        Err(error) => return Err(format!("it cannot be opened ({error})")),
    };
    let metadata = file
        .metadata()
        .map_err(|error| format!("it cannot be examined ({error})"))?;
    if !metadata.is_file() {
        return Err(format!(
            "it is {}, not a regular file",
            file_kind(&metadata)
        ));
    }
    let mut bytes =
        Vec::with_capacity(usize::try_from(metadata.len().min(limit)).unwrap_or_default());
    file.take(limit)
        .read_to_end(&mut bytes)
        .map_err(|error| format!("it cannot be read ({error})"))?;
    let size = metadata.len().max(bytes.len() as u64);
    Ok(Some((bytes, size)))
}

#[cfg(unix)]
fn is_symlink_refusal(_path: &Path, error: &io::Error) -> bool {
    error.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error())
}

#[cfg(not(unix))]
fn is_symlink_refusal(path: &Path, _error: &io::Error) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|metadata| metadata.is_symlink())
}

/// Opens a file for reading without following a final symlink (closing the race with an
/// earlier check of the name) and without blocking on a FIFO planted under it; the caller
/// still checks that it is a regular file.
#[cfg(unix)]
pub(crate) fn open_no_follow(path: &Path) -> io::Result<File> {
    use rustix::fs::OFlags;
    use std::os::unix::fs::OpenOptionsExt as _;
    OpenOptions::new()
        .read(true)
        .custom_flags((OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY).bits() as i32)
        .open(path)
}

#[cfg(not(unix))]
pub(crate) fn open_no_follow(path: &Path) -> io::Result<File> {
    if std::fs::symlink_metadata(path)?.is_symlink() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is a symbolic link", path.display()),
        ));
    }
    File::open(path)
}

/// Flushes a directory's entries (a rename or a new file in it) to disk.
#[cfg(unix)]
pub fn sync_directory(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Flushes a directory's entries to disk (nothing to do on Windows).
#[cfg(not(unix))]
pub fn sync_directory(_dir: &Path) -> io::Result<()> {
    // Windows cannot open a directory as a file; its rename is flushed with the volume.
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leftovers(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with('.'))
            .collect();
        names.sort();
        names
    }

    #[test]
    fn creates_a_new_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("AGENTS.md");
        write_atomic(&path, b"hello\n").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"hello\n");
        assert!(leftovers(dir.path()).is_empty());
    }

    #[test]
    fn replaces_an_existing_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("AGENTS.md");
        std::fs::write(&path, b"a much longer old content\n").unwrap();
        write_atomic(&path, b"new\n").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new\n");
        assert!(leftovers(dir.path()).is_empty());
    }

    #[test]
    fn a_missing_directory_fails_without_leaving_anything() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing").join("AGENTS.md");
        let error = write_atomic(&path, b"x").unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotFound);
        assert!(!path.exists());
    }

    #[test]
    fn a_failed_rename_removes_the_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        // A non-empty directory cannot be replaced by a file.
        let path = dir.path().join("target");
        std::fs::create_dir(&path).unwrap();
        std::fs::write(path.join("inside"), b"keep").unwrap();
        assert!(write_atomic(&path, b"x").is_err());
        assert!(leftovers(dir.path()).is_empty());
        assert_eq!(std::fs::read(path.join("inside")).unwrap(), b"keep");
    }

    #[cfg(unix)]
    #[test]
    fn keeps_the_permissions_of_the_replaced_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("AGENTS.md");
        std::fs::write(&path, b"old").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&path, b"new").unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
    }

    #[cfg(unix)]
    #[test]
    fn replaces_a_symlink_without_writing_through_it() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside.txt");
        std::fs::write(&outside, b"secret").unwrap();
        let path = dir.path().join("AGENTS.md");
        std::os::unix::fs::symlink(&outside, &path).unwrap();
        write_atomic(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&outside).unwrap(), b"secret");
        assert!(std::fs::symlink_metadata(&path).unwrap().is_file());
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
    }

    #[cfg(unix)]
    #[test]
    fn named_files_are_read_only_when_regular() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        assert_eq!(read_no_follow(&path, 10), Ok(None));
        std::fs::write(&path, b"{}").unwrap();
        assert_eq!(read_no_follow(&path, 10), Ok(Some(b"{}".to_vec())));
        std::fs::write(&path, b"0123456789ab").unwrap();
        assert!(read_no_follow(&path, 10).unwrap_err().contains("more than"));
        std::fs::remove_file(&path).unwrap();
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            &path,
            rustix::fs::Mode::from_raw_mode(0o600),
        )
        .unwrap();
        assert!(read_no_follow(&path, 10).unwrap_err().contains("FIFO"));
        std::fs::remove_file(&path).unwrap();
        std::fs::create_dir(&path).unwrap();
        assert!(read_no_follow(&path, 10).unwrap_err().contains("folder"));
    }
}
