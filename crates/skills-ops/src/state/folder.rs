//! [`Folder`]: a folder of state files, reached from its base without following a link at any
//! step below it, and every operation on the files in it (read, replace, create, lock, list,
//! rename, remove), each naming its file relative to the open folder.
//!
//! Holding the folder open is what makes the walk's check hold: a folder swapped for a link
//! after [`Folder::open`] looked at it cannot redirect a later read or write, which go to the
//! descriptor, not the path.

use std::fs::File;
use std::io::{self, Read as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{Kind, Refusal};

/// How long [`Folder::lock`] waits for a lock another process holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// Not at all: `None` when the lock is taken.
    No,
    /// Until it is free.
    Forever,
    /// At most this long, then `None`.
    AtMost(Duration),
}

/// What an entry of a folder is, as seen without following it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A folder.
    Folder,
    /// A symbolic link.
    Link,
    /// Anything else (a FIFO, a device, a socket).
    Other,
}

/// One entry of a folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Its name (entries whose name is not UTF-8 are left out: the program names its files in
    /// ASCII).
    pub name: String,
    /// What it is.
    pub kind: EntryKind,
    /// Its size in bytes, for a regular file.
    pub len: u64,
    /// Its permission bits (`0o755`).
    pub mode: u32,
}

/// A folder of state files, held open.
#[derive(Clone, Debug)]
pub struct Folder {
    #[cfg(unix)]
    fd: Arc<rustix::fd::OwnedFd>,
    path: PathBuf,
}

/// A lock on a state file, released (and its file removed) when dropped.
#[derive(Debug)]
pub struct Lock {
    file: File,
    #[cfg_attr(
        not(unix),
        expect(dead_code, reason = "locks are Unix-only in this build")
    )]
    folder: Folder,
    #[cfg_attr(
        not(unix),
        expect(dead_code, reason = "locks are Unix-only in this build")
    )]
    name: String,
}

/// A file of the program's own in a folder, made new under a unique dot-name, and removed
/// when dropped unless it was renamed into place ([`Temporary::persist`]).
#[derive(Debug)]
pub struct Temporary {
    folder: Folder,
    name: String,
    file: Option<File>,
    kept: bool,
}

/// How many fresh names [`Folder::temporary`] tries: a clash means another writer (or a
/// planted file) holds the name, and a new name is cheap.
const NAME_ATTEMPTS: u32 = 64;

/// The deepest tree [`Folder::remove_tree`] descends: deeper than any tree the program writes,
/// shallow enough that a planted deep tree cannot exhaust the stack.
const MAX_TREE_DEPTH: usize = 64;

/// A name that is one plain file name: not empty, not `.` or `..`, no separator, no NUL.
fn check_name(name: &str) -> Result<(), Refusal> {
    if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\\', '\0']) {
        return Err(Refusal::Name(name.to_owned()));
    }
    Ok(())
}

impl Folder {
    /// The folder `base` (resolved as given) and then each of `below`, none of which may be a
    /// link; `None` when one of them does not exist.
    pub fn open(base: &Path, below: &[&str]) -> Result<Option<Self>, Refusal> {
        let Some(mut folder) = imp::open_base(base)? else {
            return Ok(None);
        };
        for name in below {
            match folder.child(name)? {
                Some(child) => folder = child,
                None => return Ok(None),
            }
        }
        Ok(Some(folder))
    }

    /// Like [`Folder::open`], creating what is missing (`0700`, the base included).
    pub fn create(base: &Path, below: &[&str]) -> Result<Self, Refusal> {
        let mut folder = imp::create_base(base)?;
        for name in below {
            folder = folder.create_child(name)?;
        }
        Ok(folder)
    }

    /// The folder's path, for messages and for handing to a child process.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The path of `name` in this folder, for messages.
    pub fn join(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// The folder `name` in this one, not followed if it is a link; `None` when missing.
    pub fn child(&self, name: &str) -> Result<Option<Self>, Refusal> {
        check_name(name)?;
        imp::child(self, name, false)
    }

    /// The folder `name` in this one, made (`0700`) when missing, not followed if it is a link.
    pub fn create_child(&self, name: &str) -> Result<Self, Refusal> {
        check_name(name)?;
        imp::child(self, name, true)?.ok_or_else(|| Refusal::Io(io::ErrorKind::NotFound.into()))
    }

    /// Opens the file `name` of `kind` for reading: a regular file with one link and at most
    /// `kind.limit` bytes, opened without following a link and without blocking; the file and
    /// its length (the caller reads at most that much). `None` when nothing is there.
    pub fn open_file(&self, kind: &Kind, name: &str) -> Result<Option<(File, u64)>, Refusal> {
        check_name(name)?;
        imp::open_file(self, name, kind.limit)
    }

    /// Reads the file `name` of `kind` whole under the rules of [`Folder::open_file`]; `None`
    /// when nothing is there.
    pub fn read(&self, kind: &Kind, name: &str) -> Result<Option<Vec<u8>>, Refusal> {
        let Some((file, length)) = self.open_file(kind, name)? else {
            return Ok(None);
        };
        let mut bytes = Vec::with_capacity(usize::try_from(length).unwrap_or_default());
        // The file may have grown since `fstat`: never more than the limit, and one byte more
        // to tell that it did.
        file.take(kind.limit.saturating_add(1))
            .read_to_end(&mut bytes)?;
        if bytes.len() as u64 > kind.limit {
            return Err(Refusal::TooLarge {
                size: bytes.len() as u64,
                limit: kind.limit,
            });
        }
        Ok(Some(bytes))
    }

    /// Reads the file `name` of `kind`, or `None` when it is missing or refused; a trap found
    /// there is named in a warning ([`super::warn`]). For caches, where anything unusable is a
    /// miss.
    pub fn read_or_miss(&self, kind: &Kind, name: &str) -> Option<Vec<u8>> {
        match self.read(kind, name) {
            Ok(bytes) => bytes,
            Err(refusal) => {
                super::warn(kind, &self.join(name), &refusal);
                None
            }
        }
    }

    /// Replaces the file `name` with `bytes` in one step ([`crate::fs`]): whatever the name
    /// held (a link, a FIFO) is replaced, never written through. A new file is private.
    pub fn replace(&self, kind: &Kind, name: &str, bytes: &[u8]) -> io::Result<()> {
        self.replace_with(kind, name, |file| io::Write::write_all(file, bytes))
    }

    /// Like [`Folder::replace`], the bytes written by `fill` (which may stream them).
    pub fn replace_with(
        &self,
        kind: &Kind,
        name: &str,
        fill: impl FnOnce(&mut File) -> io::Result<()>,
    ) -> io::Result<()> {
        check_name(name)?;
        imp::replace(self, name, kind.base.file_mode(), fill)
    }

    /// Creates the file `name` (`0600`), which must not exist: a planted file or link fails
    /// the call.
    pub fn create_new(&self, kind: &Kind, name: &str) -> io::Result<File> {
        check_name(name)?;
        imp::create_new(self, &[name], kind.base.file_mode())
    }

    /// Leaves the marker `name`: `false` when something is there already.
    pub fn mark(&self, kind: &Kind, name: &str) -> io::Result<bool> {
        match self.create_new(kind, name) {
            Ok(_) => Ok(true),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => Ok(false),
            Err(error) => Err(error),
        }
    }

    /// Whether anything is at `name` (not followed: a dangling link counts).
    pub fn has(&self, name: &str) -> bool {
        check_name(name).is_ok() && imp::exists(self, name)
    }

    /// A new file of the program's own in this folder, named `.<what>.<unique>.tmp`.
    pub fn temporary(&self, what: &str) -> io::Result<Temporary> {
        let stem: String = what.chars().take(64).collect();
        let mut last_error = None;
        for _ in 0..NAME_ATTEMPTS {
            let name = format!(".{stem}.{}.tmp", crate::fs::unique_suffix());
            check_name(&name)?;
            match imp::create_new(self, &[&name], 0o600) {
                Ok(file) => {
                    return Ok(Temporary {
                        folder: self.clone(),
                        name,
                        file: Some(file),
                        kept: false,
                    });
                }
                Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
                    last_error = Some(error);
                }
                Err(error) => return Err(error),
            }
        }
        Err(last_error.unwrap_or_else(|| io::Error::other("no free temporary file name")))
    }

    /// Removes the file (or link, or FIFO) `name`; nothing there is not an error.
    pub fn remove(&self, name: &str) -> io::Result<()> {
        check_name(name)?;
        imp::remove(self, name)
    }

    /// Removes `name` and, when it is a folder, everything in it; links are removed, never
    /// followed. Nothing there is not an error.
    pub fn remove_tree(&self, name: &str) -> io::Result<()> {
        check_name(name)?;
        imp::remove_tree(self, name)
    }

    /// Renames `from` to `to` in this folder, replacing what `to` held.
    pub fn rename(&self, from: &str, to: &str) -> io::Result<()> {
        check_name(from)?;
        check_name(to)?;
        imp::rename(self, from, to, imp::Rename::Replace)
    }

    /// Renames `from` to `to` only if nothing is at `to`, atomically where the kernel can.
    pub fn rename_noreplace(&self, from: &str, to: &str) -> io::Result<()> {
        check_name(from)?;
        check_name(to)?;
        imp::rename(self, from, to, imp::Rename::NoReplace)
    }

    /// Exchanges `a` and `b` in one step where the kernel can (`RENAME_EXCHANGE`).
    pub fn exchange(&self, a: &str, b: &str) -> io::Result<()> {
        check_name(a)?;
        check_name(b)?;
        imp::rename(self, a, b, imp::Rename::Exchange)
    }

    /// Takes the lock `name` of `kind`: created when missing, never through a link and never
    /// on a FIFO (an `InvalidInput` error saying what is there and what to do). `None` when
    /// another holder kept it past `wait`.
    pub fn lock(&self, kind: &Kind, name: &str, wait: Wait) -> io::Result<Option<Lock>> {
        check_name(name)?;
        imp::lock(self, kind, name, wait)
    }

    /// What is at `name`, seen without following it; `None` when nothing is.
    pub fn entry(&self, name: &str) -> Option<Entry> {
        check_name(name).ok()?;
        imp::entry(self, name)
    }

    /// The entries of the folder, sorted by name.
    pub fn entries(&self) -> io::Result<Vec<Entry>> {
        let mut entries = imp::entries(self)?;
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(entries)
    }

    /// Flushes the folder's entries (a rename or a new file in it) to disk.
    pub fn sync(&self) -> io::Result<()> {
        imp::sync(self)
    }

    /// Writes a new file at `relative` below this folder (its folders made as needed, `0700`,
    /// none followed), with `mode`: how a tree is filled in a fresh staging folder.
    pub fn write_new_below(&self, relative: &[&str], bytes: &[u8], mode: u32) -> io::Result<()> {
        for name in relative {
            check_name(name)?;
        }
        let mut file = imp::create_new(self, relative, mode)?;
        io::Write::write_all(&mut file, bytes)?;
        file.sync_all()
    }

    /// Makes the folder at `relative` below this one (and its parents), none followed.
    pub fn create_below(&self, relative: &[&str]) -> Result<Self, Refusal> {
        let mut folder = self.clone();
        for name in relative {
            folder = folder.create_child(name)?;
        }
        Ok(folder)
    }

    /// Makes a symbolic link at `relative` below this folder pointing at `target` (a tree's
    /// own relative link, which the caller checked stays inside it).
    pub fn symlink_below(&self, relative: &[&str], target: &str) -> io::Result<()> {
        let Some((last, folders)) = relative.split_last() else {
            return Err(io::ErrorKind::InvalidInput.into());
        };
        let parent = self.create_below(folders)?;
        check_name(last)?;
        imp::symlink(&parent, last, target)
    }
}

impl Temporary {
    /// The open file.
    pub fn file(&mut self) -> io::Result<&mut File> {
        self.file
            .as_mut()
            .ok_or_else(|| io::Error::other("the temporary file was closed"))
    }

    /// Flushes the file to disk and renames it to `name` in its folder, replacing what was
    /// there (`replace`) or only if nothing was.
    pub fn persist(mut self, name: &str, replace: bool) -> io::Result<()> {
        if let Some(file) = self.file.take() {
            file.sync_all()?;
        }
        if replace {
            self.folder.rename(&self.name, name)?;
        } else {
            self.folder.rename_noreplace(&self.name, name)?;
        }
        self.kept = true;
        self.folder.sync()
    }
}

impl Drop for Temporary {
    fn drop(&mut self) {
        if !self.kept {
            drop(self.folder.remove(&self.name));
        }
    }
}

impl Lock {
    /// The locked file.
    pub fn file(&self) -> &File {
        &self.file
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        // Removed while still held: a waiter that opened the name meanwhile finds, once it has
        // the lock, that the name no longer leads to its file, and takes a fresh one.
        #[cfg(unix)]
        drop(self.folder.remove(&self.name));
        drop(self.file.unlock());
    }
}

/// Whether a lock another holder kept should be waited for a little longer.
fn keep_waiting(wait: Wait, started: Instant) -> bool {
    match wait {
        Wait::No => false,
        Wait::Forever => true,
        Wait::AtMost(limit) => started.elapsed() < limit,
    }
}

/// How often a waiting lock is tried again.
const LOCK_POLL: Duration = Duration::from_millis(10);

#[cfg(unix)]
mod imp {
    use std::fs::File;
    use std::io;
    use std::path::Path;
    use std::sync::Arc;
    use std::time::Instant;

    use rustix::fd::{AsFd, BorrowedFd};
    use rustix::fs::{AtFlags, FileType, Mode, OFlags, RenameFlags};
    use rustix::io::Errno;

    use super::{Entry, EntryKind, Folder, LOCK_POLL, Lock, MAX_TREE_DEPTH, Wait, keep_waiting};
    use crate::state::{Kind, Refusal};

    /// What [`rename`] does with the target.
    pub(super) enum Rename {
        Replace,
        NoReplace,
        Exchange,
    }

    fn folder_flags() -> OFlags {
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC
    }

    /// What a file type is, for a message.
    pub(super) fn describe(kind: FileType) -> &'static str {
        match kind {
            FileType::Fifo => "a FIFO (named pipe)",
            FileType::Socket => "a socket",
            FileType::CharacterDevice | FileType::BlockDevice => "a device",
            FileType::Symlink => "a symbolic link",
            FileType::Directory => "a folder",
            FileType::RegularFile => "a regular file",
            FileType::Unknown => "a special file",
        }
    }

    fn io_error(errno: Errno) -> io::Error {
        errno.into()
    }

    pub(super) fn open_base(base: &Path) -> Result<Option<Folder>, Refusal> {
        match rustix::fs::open(base, folder_flags(), Mode::empty()) {
            Ok(fd) => Ok(Some(Folder {
                fd: Arc::new(fd),
                path: base.to_path_buf(),
            })),
            Err(Errno::NOENT) => Ok(None),
            Err(errno) => Err(Refusal::Io(io_error(errno))),
        }
    }

    pub(super) fn create_base(base: &Path) -> Result<Folder, Refusal> {
        use std::os::unix::fs::DirBuilderExt as _;
        if let Some(folder) = open_base(base)? {
            return Ok(folder);
        }
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(base)?;
        open_base(base)?.ok_or_else(|| Refusal::Io(io::ErrorKind::NotFound.into()))
    }

    pub(super) fn child(
        folder: &Folder,
        name: &str,
        create: bool,
    ) -> Result<Option<Folder>, Refusal> {
        let open = || {
            rustix::fs::openat(
                &*folder.fd,
                name,
                folder_flags() | OFlags::NOFOLLOW,
                Mode::empty(),
            )
        };
        let opened = match open() {
            Err(Errno::NOENT) if create => {
                match rustix::fs::mkdirat(&*folder.fd, name, Mode::from_raw_mode(0o700)) {
                    Ok(()) | Err(Errno::EXIST) => {}
                    Err(errno) => return Err(Refusal::Io(io_error(errno))),
                }
                open()
            }
            other => other,
        };
        match opened {
            Ok(fd) => Ok(Some(Folder {
                fd: Arc::new(fd),
                path: folder.path.join(name),
            })),
            Err(Errno::NOENT) => Ok(None),
            // `O_DIRECTORY | O_NOFOLLOW` answers ENOTDIR or ELOOP for a link, ENOTDIR for a
            // file: say what is really there.
            Err(errno @ (Errno::NOTDIR | Errno::LOOP)) => {
                match rustix::fs::statat(&*folder.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
                    Ok(stat) => Err(Refusal::Folder {
                        path: folder.path.join(name),
                        found: describe(FileType::from_raw_mode(stat.st_mode)),
                    }),
                    Err(_) => Err(Refusal::Io(io_error(errno))),
                }
            }
            Err(errno) => Err(Refusal::Io(io_error(errno))),
        }
    }

    pub(super) fn open_file(
        folder: &Folder,
        name: &str,
        limit: u64,
    ) -> Result<Option<(File, u64)>, Refusal> {
        let flags =
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
        let fd = match rustix::fs::openat(&*folder.fd, name, flags, Mode::empty()) {
            Ok(fd) => fd,
            Err(Errno::NOENT) => return Ok(None),
            Err(Errno::LOOP) => return Err(Refusal::NotAFile("a symbolic link")),
            // Opening a Unix socket fails with ENXIO, before `fstat` could tell what it is.
            Err(Errno::NXIO) => return Err(Refusal::NotAFile("a socket")),
            Err(errno) => return Err(Refusal::Io(io_error(errno))),
        };
        let stat = rustix::fs::fstat(&fd).map_err(io_error)?;
        let kind = FileType::from_raw_mode(stat.st_mode);
        if kind != FileType::RegularFile {
            return Err(Refusal::NotAFile(describe(kind)));
        }
        #[expect(
            clippy::useless_conversion,
            reason = "`st_nlink`'s type differs between platforms"
        )]
        let links = u64::try_from(stat.st_nlink).unwrap_or(u64::MAX);
        if links > 1 {
            return Err(Refusal::HardLink(links));
        }
        let size = u64::try_from(stat.st_size).unwrap_or(u64::MAX);
        if size > limit {
            return Err(Refusal::TooLarge { size, limit });
        }
        Ok(Some((File::from(fd), size)))
    }

    pub(super) fn replace(
        folder: &Folder,
        name: &str,
        mode: u32,
        fill: impl FnOnce(&mut File) -> io::Result<()>,
    ) -> io::Result<()> {
        crate::fs::replace_in(folder.fd.as_fd(), name.as_ref(), mode, fill)
    }

    /// Creates the file at `relative` below `folder` (`O_CREAT | O_EXCL | O_NOFOLLOW`), its
    /// folders made as needed and none followed.
    pub(super) fn create_new(folder: &Folder, relative: &[&str], mode: u32) -> io::Result<File> {
        let Some((last, folders)) = relative.split_last() else {
            return Err(io::ErrorKind::InvalidInput.into());
        };
        let parent = folder.create_below(folders)?;
        let flags = OFlags::RDWR
            | OFlags::CREATE
            | OFlags::EXCL
            | OFlags::NOFOLLOW
            | OFlags::NOCTTY
            | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(&*parent.fd, *last, flags, Mode::from_raw_mode(mode))
            .map_err(io_error)?;
        Ok(File::from(fd))
    }

    pub(super) fn exists(folder: &Folder, name: &str) -> bool {
        rustix::fs::statat(&*folder.fd, name, AtFlags::SYMLINK_NOFOLLOW).is_ok()
    }

    pub(super) fn remove(folder: &Folder, name: &str) -> io::Result<()> {
        match rustix::fs::unlinkat(&*folder.fd, name, AtFlags::empty()) {
            Ok(()) | Err(Errno::NOENT) => Ok(()),
            Err(errno) => Err(io_error(errno)),
        }
    }

    pub(super) fn remove_tree(folder: &Folder, name: &str) -> io::Result<()> {
        remove_tree_at(folder.fd.as_fd(), name, 0)
    }

    fn remove_tree_at(dir: BorrowedFd<'_>, name: &str, depth: usize) -> io::Result<()> {
        match rustix::fs::unlinkat(dir, name, AtFlags::empty()) {
            Ok(()) | Err(Errno::NOENT) => return Ok(()),
            // A folder: emptied below.
            Err(Errno::ISDIR | Errno::PERM) => {}
            Err(errno) => return Err(io_error(errno)),
        }
        if depth >= MAX_TREE_DEPTH {
            return Err(io::Error::other(
                "the folder nests deeper than any the program writes",
            ));
        }
        let sub =
            match rustix::fs::openat(dir, name, folder_flags() | OFlags::NOFOLLOW, Mode::empty()) {
                Ok(sub) => sub,
                Err(Errno::NOENT) => return Ok(()),
                Err(errno) => return Err(io_error(errno)),
            };
        let mut names = Vec::new();
        for entry in rustix::fs::Dir::read_from(&sub).map_err(io_error)? {
            let entry = entry.map_err(io_error)?;
            let bytes = entry.file_name().to_bytes();
            if bytes != b"." && bytes != b".." {
                names.push(entry.file_name().to_owned());
            }
        }
        for child in names {
            let child = child.to_string_lossy().into_owned();
            remove_tree_at(sub.as_fd(), &child, depth + 1)?;
        }
        match rustix::fs::unlinkat(dir, name, AtFlags::REMOVEDIR) {
            Ok(()) | Err(Errno::NOENT) => Ok(()),
            Err(errno) => Err(io_error(errno)),
        }
    }

    pub(super) fn rename(folder: &Folder, from: &str, to: &str, how: Rename) -> io::Result<()> {
        let dir = &*folder.fd;
        let flags = match how {
            Rename::Replace => {
                return rustix::fs::renameat(dir, from, dir, to).map_err(io_error);
            }
            Rename::NoReplace => RenameFlags::NOREPLACE,
            Rename::Exchange => RenameFlags::EXCHANGE,
        };
        #[cfg(any(target_os = "linux", target_os = "android"))]
        match rustix::fs::renameat_with(dir, from, dir, to, flags) {
            Ok(()) => return Ok(()),
            Err(Errno::INVAL | Errno::NOSYS) => {}
            Err(errno) => return Err(io_error(errno)),
        }
        // The kernel or file system lacks the flag: the check-then-rename fallback.
        if flags == RenameFlags::NOREPLACE {
            if rustix::fs::statat(dir, to, AtFlags::SYMLINK_NOFOLLOW).is_ok() {
                return Err(io::ErrorKind::AlreadyExists.into());
            }
            return rustix::fs::renameat(dir, from, dir, to).map_err(io_error);
        }
        let aside = format!(".{to}.aside-{}", crate::fs::unique_suffix());
        rustix::fs::renameat(dir, to, dir, aside.as_str()).map_err(io_error)?;
        if let Err(errno) = rustix::fs::renameat(dir, from, dir, to) {
            let _ = rustix::fs::renameat(dir, aside.as_str(), dir, to);
            return Err(io_error(errno));
        }
        rustix::fs::renameat(dir, aside.as_str(), dir, from).map_err(io_error)
    }

    pub(super) fn lock(
        folder: &Folder,
        kind: &Kind,
        name: &str,
        wait: Wait,
    ) -> io::Result<Option<Lock>> {
        let started = Instant::now();
        let flags = OFlags::RDWR
            | OFlags::CREATE
            | OFlags::NOFOLLOW
            | OFlags::NONBLOCK
            | OFlags::NOCTTY
            | OFlags::CLOEXEC;
        let refused = |what: &str| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "it is {what}, not {}; remove it and run the command again",
                    kind.what
                ),
            )
        };
        loop {
            let fd = match rustix::fs::openat(&*folder.fd, name, flags, Mode::from_raw_mode(0o600))
            {
                Ok(fd) => fd,
                Err(Errno::LOOP) => return Err(refused("a symbolic link")),
                Err(Errno::NXIO) => return Err(refused("a socket")),
                Err(errno) => return Err(io_error(errno)),
            };
            let opened = rustix::fs::fstat(&fd).map_err(io_error)?;
            let file_type = FileType::from_raw_mode(opened.st_mode);
            if file_type != FileType::RegularFile {
                return Err(refused(describe(file_type)));
            }
            let file = File::from(fd);
            loop {
                match file.try_lock() {
                    Ok(()) => break,
                    Err(std::fs::TryLockError::WouldBlock) => {
                        if wait == Wait::Forever {
                            file.lock()?;
                            break;
                        }
                        if !keep_waiting(wait, started) {
                            return Ok(None);
                        }
                        std::thread::sleep(LOCK_POLL);
                    }
                    Err(std::fs::TryLockError::Error(error)) => return Err(error),
                }
            }
            // The holder before us may have removed the name after we opened it: a lock on a
            // removed file excludes nobody, so it is taken again on whatever the name holds.
            match rustix::fs::statat(&*folder.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(now) if now.st_dev == opened.st_dev && now.st_ino == opened.st_ino => {
                    return Ok(Some(Lock {
                        file,
                        folder: folder.clone(),
                        name: name.to_owned(),
                    }));
                }
                Ok(_) | Err(Errno::NOENT) => {}
                Err(errno) => return Err(io_error(errno)),
            }
        }
    }

    pub(super) fn entries(folder: &Folder) -> io::Result<Vec<Entry>> {
        let mut found = Vec::new();
        for entry in rustix::fs::Dir::read_from(&*folder.fd).map_err(io_error)? {
            let entry = entry.map_err(io_error)?;
            let Ok(name) = entry.file_name().to_str() else {
                continue;
            };
            if name == "." || name == ".." {
                continue;
            }
            if let Some(found_entry) = self::entry(folder, name) {
                found.push(found_entry);
            }
        }
        Ok(found)
    }

    pub(super) fn entry(folder: &Folder, name: &str) -> Option<Entry> {
        let stat = rustix::fs::statat(&*folder.fd, name, AtFlags::SYMLINK_NOFOLLOW).ok()?;
        let (kind, len) = match FileType::from_raw_mode(stat.st_mode) {
            FileType::RegularFile => (
                EntryKind::File,
                u64::try_from(stat.st_size).unwrap_or_default(),
            ),
            FileType::Directory => (EntryKind::Folder, 0),
            FileType::Symlink => (EntryKind::Link, 0),
            _ => (EntryKind::Other, 0),
        };
        Some(Entry {
            name: name.to_owned(),
            kind,
            len,
            mode: stat.st_mode & 0o7777,
        })
    }

    pub(super) fn sync(folder: &Folder) -> io::Result<()> {
        rustix::fs::fsync(&*folder.fd).map_err(io_error)
    }

    pub(super) fn symlink(folder: &Folder, name: &str, target: &str) -> io::Result<()> {
        rustix::fs::symlinkat(target, &*folder.fd, name).map_err(io_error)
    }
}

#[cfg(not(unix))]
mod imp {
    //! No safe way to open a file beneath a folder in this build: every state file is absent
    //! and every write refused, as the safe reader does.

    use std::fs::File;
    use std::io;
    use std::path::Path;

    use super::{Entry, Folder, Lock, Wait};
    use crate::state::{Kind, Refusal};

    pub(super) enum Rename {
        Replace,
        NoReplace,
        Exchange,
    }

    fn unsupported() -> io::Error {
        Refusal::Unsupported.into()
    }

    pub(super) fn open_base(_base: &Path) -> Result<Option<Folder>, Refusal> {
        Err(Refusal::Unsupported)
    }
    pub(super) fn create_base(_base: &Path) -> Result<Folder, Refusal> {
        Err(Refusal::Unsupported)
    }
    pub(super) fn child(_: &Folder, _: &str, _: bool) -> Result<Option<Folder>, Refusal> {
        Err(Refusal::Unsupported)
    }
    pub(super) fn open_file(_: &Folder, _: &str, _: u64) -> Result<Option<(File, u64)>, Refusal> {
        Err(Refusal::Unsupported)
    }
    pub(super) fn replace(
        _: &Folder,
        _: &str,
        _: u32,
        _: impl FnOnce(&mut File) -> io::Result<()>,
    ) -> io::Result<()> {
        Err(unsupported())
    }
    pub(super) fn create_new(_: &Folder, _: &[&str], _: u32) -> io::Result<File> {
        Err(unsupported())
    }
    pub(super) fn exists(_: &Folder, _: &str) -> bool {
        false
    }
    pub(super) fn remove(_: &Folder, _: &str) -> io::Result<()> {
        Err(unsupported())
    }
    pub(super) fn remove_tree(_: &Folder, _: &str) -> io::Result<()> {
        Err(unsupported())
    }
    pub(super) fn rename(_: &Folder, _: &str, _: &str, _: Rename) -> io::Result<()> {
        Err(unsupported())
    }
    pub(super) fn lock(_: &Folder, _: &Kind, _: &str, _: Wait) -> io::Result<Option<Lock>> {
        Err(unsupported())
    }
    pub(super) fn entries(_: &Folder) -> io::Result<Vec<Entry>> {
        Err(unsupported())
    }
    pub(super) fn entry(_: &Folder, _: &str) -> Option<Entry> {
        None
    }
    pub(super) fn sync(_: &Folder) -> io::Result<()> {
        Err(unsupported())
    }
    pub(super) fn symlink(_: &Folder, _: &str, _: &str) -> io::Result<()> {
        Err(unsupported())
    }
}
