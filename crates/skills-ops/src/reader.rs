//! The safe reader (03 §Reading files safely): the one way any path that comes from outside
//! (a resource an agent asks for, a compliance evidence file, an install) is turned into bytes.
//!
//! Order matters, and each step closes a hole another tool left open:
//!
//! 1. the lexical check ([`skills_types::path::check_relative`]): no `..`, no absolute or drive paths,
//!    no hidden components, no Windows device names, bounded length and depth (leading `./`
//!    prefixes are dropped first: `./references/x.md` is a spelling of `references/x.md`);
//! 2. the skill folder is opened as a handle, refusing a folder that is itself a symlink;
//! 3. the file is opened *relative to that handle* without following a symlink at any step:
//!    `openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
//!    RESOLVE_NO_XDEV` on Linux, and a component-by-component `O_NOFOLLOW` walk that stays on
//!    one device where `openat2` is missing. Checking a path and then opening it would leave
//!    a window in which the file can be swapped for a symlink; opening first and inspecting
//!    the open descriptor leaves none;
//! 4. `fstat` of the opened descriptor: a regular file (a FIFO is opened non-blocking and
//!    refused, so it cannot hang the reader), no larger than the cap, and with one link (a hard
//!    link to a file outside the skill is refused);
//! 5. at most cap + 1 bytes are read (the file may grow after `fstat`), and the text must be
//!    UTF-8 ([`read_beneath`]); [`read_bytes_beneath`] stops before that last check, for the
//!    callers that serve files as bytes.

use std::fmt;
use std::path::Path;

use skills_types::path::{self, check_relative};

/// What a successful read returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Read {
    /// The path as checked, with `/` separators.
    pub relative_path: String,
    /// The text.
    pub content: String,
    /// Its size in bytes.
    pub bytes: u64,
}

/// What a successful read of any file returns ([`read_bytes_beneath`]): its bytes as they
/// are, text or not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadBytes {
    /// The path as checked, with `/` separators.
    pub relative_path: String,
    /// The file's bytes.
    pub data: Vec<u8>,
}

/// Why a read was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    /// The path failed the lexical check.
    Path(path::Refusal),
    /// The skill folder itself is a symlink.
    SymlinkedRoot,
    /// The skill folder cannot be opened.
    RootUnavailable(String),
    /// A component of the path, or the file itself, is a symlink.
    Symlink,
    /// The path would leave the skill folder or cross onto another filesystem.
    Escapes,
    /// Nothing exists at the path (or a component is not a folder).
    NotFound,
    /// The path names something other than a regular file.
    NotAFile(&'static str),
    /// The file has more than one hard link, so it may be a file from elsewhere.
    HardLink(u64),
    /// The file is larger than the cap.
    TooLarge {
        /// The size seen.
        size: u64,
        /// The cap.
        cap: u64,
    },
    /// The file is not UTF-8 text.
    NotUtf8 {
        /// Offset of the first invalid byte.
        offset: usize,
    },
    /// The operating system refused for another reason.
    Io(String),
    /// This platform has no safe way to open a file beneath a folder in this build.
    Unsupported,
}

impl Refusal {
    /// A stable snake_case name, for programs and tests.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Path(_) => "invalid_path",
            Self::SymlinkedRoot => "symlinked_root",
            Self::RootUnavailable(_) => "root_unavailable",
            Self::Symlink => "symlink",
            Self::Escapes => "escapes",
            Self::NotFound => "not_found",
            Self::NotAFile(_) => "not_a_file",
            Self::HardLink(_) => "hard_link",
            Self::TooLarge { .. } => "too_large",
            Self::NotUtf8 { .. } => "not_utf8",
            Self::Io(_) => "io",
            Self::Unsupported => "unsupported",
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Path(refusal) => write!(f, "{refusal}"),
            Self::SymlinkedRoot => f.write_str("the skill folder is a symlink"),
            Self::RootUnavailable(why) => write!(f, "the skill folder cannot be opened: {why}"),
            Self::Symlink => f.write_str("the path goes through a symlink"),
            Self::Escapes => f.write_str("the path leaves the skill folder"),
            Self::NotFound => f.write_str("no file exists at that path"),
            Self::NotAFile(kind) => write!(f, "the path names a {kind}, not a regular file"),
            Self::HardLink(links) => write!(
                f,
                "the file has {links} hard links; a file linked from elsewhere is not read"
            ),
            Self::TooLarge { size, cap } => {
                write!(f, "the file is {size} bytes; at most {cap} are read")
            }
            Self::NotUtf8 { offset } => write!(
                f,
                "the file is not UTF-8 text (the first invalid byte is at offset {offset})"
            ),
            Self::Io(why) => write!(f, "the file cannot be read: {why}"),
            Self::Unsupported => {
                f.write_str("reading bundled files safely is not supported on this platform")
            }
        }
    }
}

impl std::error::Error for Refusal {}

/// Reads `relative` beneath the folder `dir`, refusing anything that is not a plain regular
/// UTF-8 file of at most `cap` bytes inside it. Leading `./` prefixes are dropped before the
/// check ([`path::strip_current_dir_prefix`]); the path returned is the checked one.
pub fn read_beneath(dir: &Path, relative: &str, cap: u64) -> Result<Read, Refusal> {
    let read = read_bytes_beneath(dir, relative, cap)?;
    let size = read.data.len() as u64;
    let content = String::from_utf8(read.data).map_err(|error| Refusal::NotUtf8 {
        offset: error.utf8_error().valid_up_to(),
    })?;
    Ok(Read {
        relative_path: read.relative_path,
        content,
        bytes: size,
    })
}

/// Reads `relative` beneath the folder `dir` by every rule of [`read_beneath`] but the last:
/// the bytes come back as they are, so an image or an archive a skill bundles can be served
/// (as base64, by the MCP server) without being mistaken for text.
pub fn read_bytes_beneath(dir: &Path, relative: &str, cap: u64) -> Result<ReadBytes, Refusal> {
    let relative = path::strip_current_dir_prefix(relative);
    let components = check_relative(relative).map_err(Refusal::Path)?;
    let data = imp::read(dir, &components, cap)?;
    Ok(ReadBytes {
        relative_path: components.join("/"),
        data,
    })
}

/// Opens each of `folders` in turn beneath the folder `dir`, creating the missing ones, and
/// following no symlink at any step (each component is opened with `O_NOFOLLOW` relative to
/// the one before). A writer that resolves its target this way cannot be sent outside `dir`
/// by a link a repository committed (`docs -> /home/me/.ssh`). `dir` itself is the caller's
/// and is resolved as the caller gave it.
pub fn create_folders_beneath(dir: &Path, folders: &[&str]) -> Result<(), Refusal> {
    imp::create_folders(dir, folders)
}

#[cfg(unix)]
mod imp {
    use std::io::Read as _;
    use std::path::Path;

    use rustix::fd::AsFd;
    pub(super) use rustix::fd::OwnedFd;
    use rustix::fs::{FileType, Mode, OFlags};
    use rustix::io::Errno;

    use super::Refusal;

    /// Flags of every open: never block (a FIFO), never become a controlling terminal (a
    /// device), never leak into a child process.
    fn base_flags() -> OFlags {
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC
    }

    pub(super) fn read(dir: &Path, components: &[&str], cap: u64) -> Result<Vec<u8>, Refusal> {
        // `O_NOFOLLOW` applies to the last component only, and a trailing `/` or `/.` makes the
        // kernel resolve a symlinked folder before it: `skill-link/.` would open the target.
        // Rebuilding the path from its components drops both.
        let dir: std::path::PathBuf = dir.components().collect();
        let dir = dir.as_path();
        let root = rustix::fs::open(dir, base_flags() | OFlags::DIRECTORY, Mode::empty()).map_err(
            |errno| match errno {
                Errno::LOOP | Errno::NOTDIR if is_symlink(dir) => Refusal::SymlinkedRoot,
                other => Refusal::RootUnavailable(other.to_string()),
            },
        )?;
        let file = open_beneath(&root, components)?;
        let stat = rustix::fs::fstat(&file).map_err(|errno| Refusal::Io(errno.to_string()))?;
        match FileType::from_raw_mode(stat.st_mode) {
            FileType::RegularFile => {}
            FileType::Directory => return Err(Refusal::NotAFile("folder")),
            FileType::Fifo => return Err(Refusal::NotAFile("FIFO")),
            FileType::CharacterDevice => return Err(Refusal::NotAFile("character device")),
            FileType::BlockDevice => return Err(Refusal::NotAFile("block device")),
            FileType::Socket => return Err(Refusal::NotAFile("socket")),
            FileType::Symlink => return Err(Refusal::Symlink),
            FileType::Unknown => return Err(Refusal::NotAFile("special file")),
        }
        #[expect(
            clippy::useless_conversion,
            reason = "`st_nlink`'s type differs between platforms"
        )]
        let links = u64::try_from(stat.st_nlink).unwrap_or(u64::MAX);
        if links != 1 {
            return Err(Refusal::HardLink(links));
        }
        let size = u64::try_from(stat.st_size).unwrap_or(u64::MAX);
        if size > cap {
            return Err(Refusal::TooLarge { size, cap });
        }
        let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
        std::fs::File::from(file)
            .take(cap.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|error| Refusal::Io(error.to_string()))?;
        if bytes.len() as u64 > cap {
            return Err(Refusal::TooLarge {
                size: bytes.len() as u64,
                cap,
            });
        }
        Ok(bytes)
    }

    pub(super) fn create_folders(dir: &Path, folders: &[&str]) -> Result<(), Refusal> {
        let mut current = rustix::fs::open(dir, base_flags() | OFlags::DIRECTORY, Mode::empty())
            .map_err(|errno| Refusal::RootUnavailable(errno.to_string()))?;
        for folder in folders {
            let open = |parent: &OwnedFd| {
                rustix::fs::openat(
                    parent,
                    *folder,
                    base_flags() | OFlags::DIRECTORY,
                    Mode::empty(),
                )
            };
            let next = match open(&current) {
                Err(Errno::NOENT) => {
                    match rustix::fs::mkdirat(&current, *folder, Mode::from_raw_mode(0o777)) {
                        Ok(()) | Err(Errno::EXIST) => {}
                        Err(errno) => return Err(refusal(errno)),
                    }
                    open(&current)
                }
                other => other,
            };
            current = next.map_err(|errno| folder_refusal(current.as_fd(), folder, errno))?;
        }
        Ok(())
    }

    fn is_symlink(path: &Path) -> bool {
        std::fs::symlink_metadata(path).is_ok_and(|metadata| metadata.is_symlink())
    }

    /// Opens the file beneath `root` following no symlink: `openat2` where the kernel has it,
    /// the component walk elsewhere.
    fn open_beneath(root: &OwnedFd, components: &[&str]) -> Result<OwnedFd, Refusal> {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        {
            use rustix::fs::ResolveFlags;
            let resolve = ResolveFlags::BENEATH
                | ResolveFlags::NO_SYMLINKS
                | ResolveFlags::NO_MAGICLINKS
                | ResolveFlags::NO_XDEV;
            let relative = components.join("/");
            match rustix::fs::openat2(
                root,
                relative.as_str(),
                base_flags(),
                Mode::empty(),
                resolve,
            ) {
                Ok(file) => return Ok(file),
                // Kernels before 5.6, or a seccomp filter that hides the call.
                Err(Errno::NOSYS | Errno::PERM) => {}
                Err(errno) => return Err(refusal(errno)),
            }
        }
        walk(root, components)
    }

    /// One `openat` per component, each with `O_NOFOLLOW`, staying on the root's device.
    pub(super) fn walk(root: &OwnedFd, components: &[&str]) -> Result<OwnedFd, Refusal> {
        let device = rustix::fs::fstat(root)
            .map_err(|errno| Refusal::Io(errno.to_string()))?
            .st_dev;
        let Some((last, folders)) = components.split_last() else {
            return Err(Refusal::NotFound);
        };
        let mut current: Option<OwnedFd> = None;
        for folder in folders {
            let parent = current.as_ref().map_or(root.as_fd(), AsFd::as_fd);
            let next = rustix::fs::openat(
                parent,
                *folder,
                base_flags() | OFlags::DIRECTORY,
                Mode::empty(),
            )
            .map_err(|errno| folder_refusal(parent, folder, errno))?;
            let stat = rustix::fs::fstat(&next).map_err(|errno| Refusal::Io(errno.to_string()))?;
            if stat.st_dev != device {
                return Err(Refusal::Escapes);
            }
            current = Some(next);
        }
        let parent = current.as_ref().map_or(root.as_fd(), AsFd::as_fd);
        let file =
            rustix::fs::openat(parent, *last, base_flags(), Mode::empty()).map_err(refusal)?;
        let stat = rustix::fs::fstat(&file).map_err(|errno| Refusal::Io(errno.to_string()))?;
        if stat.st_dev != device {
            return Err(Refusal::Escapes);
        }
        Ok(file)
    }

    /// Why opening the folder `name` beneath `parent` failed. `O_DIRECTORY | O_NOFOLLOW` on a
    /// symlink answers ENOTDIR on Linux; say what it really is.
    fn folder_refusal(parent: rustix::fd::BorrowedFd<'_>, name: &str, errno: Errno) -> Refusal {
        let linked = rustix::fs::statat(parent, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)
            .is_ok_and(|stat| FileType::from_raw_mode(stat.st_mode) == FileType::Symlink);
        if linked {
            Refusal::Symlink
        } else {
            refusal(errno)
        }
    }

    fn refusal(errno: Errno) -> Refusal {
        match errno {
            // RESOLVE_NO_SYMLINKS and O_NOFOLLOW both answer ELOOP.
            Errno::LOOP => Refusal::Symlink,
            // RESOLVE_BENEATH and RESOLVE_NO_XDEV answer EXDEV.
            Errno::XDEV => Refusal::Escapes,
            Errno::NOENT | Errno::NOTDIR => Refusal::NotFound,
            // Opening a Unix socket fails with ENXIO, before `fstat` could tell what it is.
            Errno::NXIO => Refusal::NotAFile("socket"),
            other => Refusal::Io(other.to_string()),
        }
    }
}

#[cfg(not(unix))]
mod imp {
    use std::path::Path;

    use super::Refusal;

    pub(super) fn read(_dir: &Path, _components: &[&str], _cap: u64) -> Result<Vec<u8>, Refusal> {
        Err(Refusal::Unsupported)
    }

    pub(super) fn create_folders(_dir: &Path, _folders: &[&str]) -> Result<(), Refusal> {
        Err(Refusal::Unsupported)
    }
}

#[cfg(test)]
mod tests;
