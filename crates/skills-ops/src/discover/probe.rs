//! Looking at a folder's children by name, relative to a handle on the folder.
//!
//! A listing `lstat`s two paths per skill (its folder and its `SKILL.md`). Given as absolute
//! paths, the kernel walks every component of each, every time: on a tree of ten thousand
//! skills that walk is most of the listing's system time. On Unix the folder is opened once and
//! its children are looked up with `fstatat` relative to it, a walk of one or two components.
//! Elsewhere, and whenever the folder cannot be opened, the plain path is used.

use std::fs::Metadata;
use std::path::{Path, PathBuf};

use super::cache::Stamp;

/// What identifies a directory however it is reached: device and inode on Unix (no path to
/// build or hash), the canonical path elsewhere.
#[cfg(unix)]
pub(crate) type DirKey = (u64, u64);
#[cfg(not(unix))]
pub(crate) type DirKey = PathBuf;

/// What kind of entry a name is, without following a symlink.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    File,
    Symlink,
    /// A directory, FIFO, socket or device.
    Other,
}

/// An entry's kind and stamp.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Info {
    pub(crate) kind: Kind,
    pub(crate) stamp: Stamp,
    /// The device it lives on (0 where unknown).
    pub(crate) device: u64,
}

impl Info {
    pub(crate) fn of(metadata: &Metadata) -> Self {
        let kind = if metadata.is_file() {
            Kind::File
        } else if metadata.is_symlink() {
            Kind::Symlink
        } else {
            Kind::Other
        };
        #[cfg(unix)]
        let device = std::os::unix::fs::MetadataExt::dev(metadata);
        #[cfg(not(unix))]
        let device = 0;
        Self {
            kind,
            stamp: Stamp::of(metadata),
            device,
        }
    }

    /// The identity of the directory this entry is, when it is one (not a symlink).
    pub(crate) fn key(&self) -> Option<DirKey> {
        #[cfg(unix)]
        {
            (self.kind == Kind::Other).then_some((self.device, self.stamp.inode))
        }
        #[cfg(not(unix))]
        {
            None
        }
    }
}

/// A folder whose children are looked at by name.
#[derive(Debug)]
pub(crate) struct Folder {
    path: PathBuf,
    #[cfg(unix)]
    handle: Option<rustix::fd::OwnedFd>,
}

impl Folder {
    /// A handle on `path`; failing to open it only costs speed.
    pub(crate) fn open(path: &Path) -> Self {
        #[cfg(unix)]
        {
            use rustix::fs::{Mode, OFlags};
            let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC | OFlags::NOCTTY;
            Self {
                path: path.to_path_buf(),
                handle: rustix::fs::open(path, flags, Mode::empty()).ok(),
            }
        }
        #[cfg(not(unix))]
        {
            Self {
                path: path.to_path_buf(),
            }
        }
    }

    /// Opens the file `name` below the folder as [`crate::load::read_definition`] opens a
    /// definition file (read-only, non-blocking, never as a controlling terminal); `None` when
    /// there is no handle, so the caller opens it by its path.
    pub(crate) fn open_file(&self, name: &str) -> Option<std::io::Result<std::fs::File>> {
        #[cfg(unix)]
        {
            use rustix::fs::{Mode, OFlags};
            let handle = self.handle.as_ref()?;
            let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
            Some(
                rustix::fs::openat(handle, name, flags, Mode::empty())
                    .map(std::fs::File::from)
                    .map_err(std::io::Error::from),
            )
        }
        #[cfg(not(unix))]
        {
            let _ = name;
            None
        }
    }

    /// `lstat` of `relative` below the folder.
    pub(crate) fn lstat(&self, relative: &str) -> std::io::Result<Info> {
        #[cfg(unix)]
        if let Some(handle) = &self.handle {
            let stat = rustix::fs::statat(handle, relative, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)?;
            let kind = match rustix::fs::FileType::from_raw_mode(stat.st_mode) {
                rustix::fs::FileType::RegularFile => Kind::File,
                rustix::fs::FileType::Symlink => Kind::Symlink,
                _ => Kind::Other,
            };
            return Ok(Info {
                kind,
                stamp: Stamp::of_stat(&stat),
                #[expect(
                    clippy::useless_conversion,
                    reason = "`st_dev`'s type differs between platforms"
                )]
                device: u64::try_from(stat.st_dev).unwrap_or(0),
            });
        }
        std::fs::symlink_metadata(self.path.join(relative)).map(|metadata| Info::of(&metadata))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_and_absolute_lookups_agree() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("skill")).unwrap();
        std::fs::write(dir.path().join("skill/SKILL.md"), "x").unwrap();
        let folder = Folder::open(dir.path());
        let file = folder.lstat("skill/SKILL.md").unwrap();
        assert_eq!(file.kind, Kind::File);
        let metadata = std::fs::symlink_metadata(dir.path().join("skill/SKILL.md")).unwrap();
        assert_eq!(file.stamp, Stamp::of(&metadata));
        assert_eq!(folder.lstat("skill").unwrap().kind, Kind::Other);
        assert_eq!(
            folder.lstat("missing/SKILL.md").unwrap_err().kind(),
            std::io::ErrorKind::NotFound
        );
    }
}
