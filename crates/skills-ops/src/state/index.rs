//! [`IndexFolder`]: the search index's folder as tantivy sees it, a `Directory` whose every
//! file operation is one of [`Folder`]'s.
//!
//! tantivy's own `MmapDirectory` opens its files by path with a plain `open`: a FIFO at
//! `meta.json` or at a segment hangs it, a link to `/dev/zero` makes it read without end, and
//! a lock file that is a link is created and locked wherever it points. Here a file is read
//! whole through [`Folder::read`] (no link, no FIFO or device, at most its kind's limit: an
//! index of 10,000 skills is about a megabyte, so reading instead of mapping costs nothing
//! that shows), written new through [`Folder::create_new`] or replaced through
//! [`Folder::replace`], and locked through [`Folder::lock`]. Anything wrong with a file is an
//! error tantivy reports, which makes the search rebuild the index.

use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use tantivy::directory::error::{DeleteError, LockError, OpenReadError, OpenWriteError};
use tantivy::directory::{
    AntiCallToken, Directory, DirectoryLock, FileHandle, OwnedBytes, TerminatingWrite,
    WatchCallback, WatchHandle, WritePtr,
};

use super::{Folder, SEARCH_LOCK, SEARCH_META, SEARCH_SEGMENT, Wait};

/// How long a blocking lock of tantivy's (the meta lock) is waited for: tantivy's own
/// directories give up after ten seconds too.
const BLOCKING_LOCK_WAIT: Duration = Duration::from_secs(10);

/// A search index's folder, for tantivy.
#[derive(Clone, Debug)]
pub struct IndexFolder {
    folder: Folder,
}

impl IndexFolder {
    /// The index in `folder` (opened by [`Folder::open`] or [`Folder::create`]).
    pub fn new(folder: Folder) -> Self {
        Self { folder }
    }
}

/// The one plain file name tantivy gives (its files all sit at the top of the folder).
fn name_of(path: &Path) -> io::Result<&str> {
    let mut components = path.components();
    match (components.next(), components.next()) {
        (Some(std::path::Component::Normal(name)), None) => name
            .to_str()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not UTF-8")),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not a file name of the index", path.display()),
        )),
    }
}

/// tantivy's small records (`meta.json`, `.managed.json`) and its segment files have limits
/// of their own.
fn kind_of(name: &str) -> &'static super::Kind {
    if name.ends_with(".json") {
        &SEARCH_META
    } else {
        &SEARCH_SEGMENT
    }
}

impl IndexFolder {
    fn read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        let failed = |error: io::Error| OpenReadError::wrap_io_error(error, path.to_path_buf());
        let name = name_of(path).map_err(failed)?;
        let kind = kind_of(name);
        match self.folder.read(kind, name) {
            Ok(Some(bytes)) => Ok(bytes),
            Ok(None) => Err(OpenReadError::FileDoesNotExist(path.to_path_buf())),
            Err(refusal) => {
                super::warn(kind, &self.folder.join(name), &refusal);
                Err(failed(refusal.into()))
            }
        }
    }
}

/// A new file of the index, flushed to disk when tantivy is done with it.
struct NewFile(std::fs::File);

impl Write for NewFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

impl TerminatingWrite for NewFile {
    fn terminate_ref(&mut self, _: AntiCallToken) -> io::Result<()> {
        self.0.flush()?;
        self.0.sync_data()
    }
}

impl Directory for IndexFolder {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        Ok(Arc::new(OwnedBytes::new(self.read(path)?)))
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        let failed = |io_error: io::Error| DeleteError::IoError {
            io_error: Arc::new(io_error),
            filepath: path.to_path_buf(),
        };
        let name = name_of(path).map_err(failed)?;
        if !self.folder.has(name) {
            return Err(DeleteError::FileDoesNotExist(path.to_path_buf()));
        }
        self.folder.remove(name).map_err(failed)
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        let name = name_of(path)
            .map_err(|error| OpenReadError::wrap_io_error(error, path.to_path_buf()))?;
        Ok(self.folder.has(name))
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        let failed = |error: io::Error| OpenWriteError::wrap_io_error(error, path.to_path_buf());
        let name = name_of(path).map_err(failed)?;
        match self.folder.create_new(kind_of(name), name) {
            Ok(file) => {
                let file: Box<dyn TerminatingWrite + Send + Sync> = Box::new(NewFile(file));
                Ok(BufWriter::new(file))
            }
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
                Err(OpenWriteError::FileAlreadyExists(path.to_path_buf()))
            }
            Err(error) => Err(failed(error)),
        }
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        self.read(path)
    }

    fn atomic_write(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        let name = name_of(path)?;
        self.folder.replace(kind_of(name), name, data)
    }

    fn sync_directory(&self) -> io::Result<()> {
        self.folder.sync()
    }

    fn acquire_lock(&self, lock: &tantivy::directory::Lock) -> Result<DirectoryLock, LockError> {
        let name = name_of(&lock.filepath).map_err(LockError::wrap_io_error)?;
        let wait = if lock.is_blocking {
            Wait::AtMost(BLOCKING_LOCK_WAIT)
        } else {
            Wait::No
        };
        match self.folder.lock(&SEARCH_LOCK, name, wait) {
            Ok(Some(held)) => Ok(DirectoryLock::from(Box::new(held))),
            Ok(None) => Err(LockError::LockBusy),
            Err(error) => Err(LockError::wrap_io_error(error)),
        }
    }

    fn watch(&self, _: WatchCallback) -> tantivy::Result<WatchHandle> {
        // The index is reloaded by hand (`ReloadPolicy::Manual`), never on a change.
        Ok(WatchHandle::empty())
    }
}
