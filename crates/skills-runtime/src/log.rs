//! Run logs (07 §Run logs): `<home>/<app_dir>/runs/<run_id>.jsonl`, one typed record a line,
//! written only by the runtime (text a script prints is always inside an `output` record).
//!
//! The folder is the user's (mode 0700) and every path into it is built from a run id that
//! was first checked to be a canonical UUID, so a caller's `../x` or `/etc/passwd` can never
//! name a file. Logs are opened without following symlinks, and a symlinked runs folder is
//! refused rather than written through. Reading a log's status looks at its head (`start`,
//! `spawned`) and its tail (`end`) only, so listing a hundred runs does not read their output.

use std::fs::{File, OpenOptions};
use std::io::{Read as _, Seek as _, SeekFrom, Write as _};
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _};
use std::path::{Path, PathBuf};

use skills_types::run::{
    LogRecord, MAX_KEPT_LOG_BYTES, MAX_KEPT_RUNS, MAX_LOG_READ_BYTES, MAX_RECENT_RUNS,
    MAX_STREAM_BYTES, RunLogChunk, RunStatus, RunSummary, Stream,
};
use skills_types::{Error, SkillsConfig};

use crate::output::complete_prefix;

/// The folder of the run logs, below the application directory of the home.
pub(crate) const RUNS_DIR: &str = "runs";
/// A log's extension.
const LOG_EXTENSION: &str = "jsonl";
/// A cancel marker's extension: `<run_id>.cancel` tells the recording process that the TERM
/// its child got came from a cancel in another process.
const MARKER_EXTENSION: &str = "cancel";
/// How much of a log's head is read for its `start` and `spawned` records.
const HEAD_BYTES: u64 = 256 * 1024;
/// The opening of each record the status is read from, as serde writes it (tag first).
const START_TAG: &str = r#"{"record":"start""#;
const SPAWNED_TAG: &str = r#"{"record":"spawned""#;
const END_TAG: &str = r#"{"record":"end""#;
/// How much of a log's tail is read for its `end` record.
const TAIL_BYTES: u64 = 16 * 1024;

/// `run_id` when it is a canonical UUID (lowercase, hyphenated): the only text ever joined
/// onto the runs folder.
pub(crate) fn check_run_id(run_id: &str) -> Result<&str, Error> {
    match uuid::Uuid::try_parse(run_id) {
        Ok(parsed) if parsed.hyphenated().to_string() == run_id => Ok(run_id),
        _ => Err(Error::InvalidInput(format!(
            "'{}' is not a run id (run ids are UUIDs such as 0190b3c2-7d4e-7000-8000-000000000000)",
            run_id.escape_debug()
        ))),
    }
}

/// The runs folder of `config` (not created).
pub(crate) fn runs_dir(config: &SkillsConfig) -> Result<PathBuf, Error> {
    skills_types::config::check_app_dir(&config.app_dir)
        .map_err(|error| Error::InvalidInput(error.to_string()))?;
    Ok(config.home.join(&config.app_dir).join(RUNS_DIR))
}

/// The log of `run_id` (checked) in `dir`.
pub(crate) fn log_path(dir: &Path, run_id: &str) -> PathBuf {
    dir.join(format!("{run_id}.{LOG_EXTENSION}"))
}

/// The cancel marker of `run_id` (checked) in `dir`.
pub(crate) fn marker_path(dir: &Path, run_id: &str) -> PathBuf {
    dir.join(format!("{run_id}.{MARKER_EXTENSION}"))
}

/// Whether the runs folder exists as a real folder; a symlink there is refused, since logs
/// written through it would land wherever it points.
pub(crate) fn existing_dir(dir: &Path) -> Result<bool, Error> {
    match std::fs::symlink_metadata(dir) {
        Ok(metadata) if metadata.is_dir() => Ok(true),
        Ok(_) => Err(Error::StateFileInvalid {
            path: dir.to_path_buf(),
            reason: "it is not a plain folder (a symlink or a file); remove it so run logs can be written"
                .to_owned(),
        }),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(error) => Err(Error::io("inspect", dir, error)),
    }
}

/// Creates the runs folder (0700) when it is missing.
pub(crate) fn ensure_dir(dir: &Path) -> Result<(), Error> {
    if existing_dir(dir)? {
        return Ok(());
    }
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|error| Error::io("create the runs folder", dir, error))?;
    existing_dir(dir).map(drop)
}

fn no_follow() -> i32 {
    (rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK).bits() as i32
}

/// Opens an existing log for reading, refusing anything but a regular file.
fn open_log(path: &Path) -> Result<Option<File>, Error> {
    match OpenOptions::new()
        .read(true)
        .custom_flags(no_follow())
        .open(path)
    {
        Ok(file) => {
            let metadata = file
                .metadata()
                .map_err(|error| Error::io("inspect", path, error))?;
            if metadata.is_file() {
                Ok(Some(file))
            } else {
                Err(Error::StateFileInvalid {
                    path: path.to_path_buf(),
                    reason: "it is not a regular file".to_owned(),
                })
            }
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(Error::io("open", path, error)),
    }
}

/// The writer of one run's log. Output past what the log keeps (1 MiB per stream) is
/// dropped after one `truncated` record; nothing is written after `end`.
#[derive(Debug)]
pub(crate) struct LogWriter {
    file: File,
    path: PathBuf,
    logged: [usize; 2],
    truncated: [bool; 2],
    closed: bool,
}

const fn index(stream: Stream) -> usize {
    match stream {
        Stream::Stdout => 0,
        Stream::Stderr => 1,
    }
}

impl LogWriter {
    /// Creates the log (exclusively: a file already there is never reused) and writes `start`.
    pub(crate) fn create(dir: &Path, run_id: &str, start: &LogRecord) -> Result<Self, Error> {
        ensure_dir(dir)?;
        let path = log_path(dir, run_id);
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(no_follow())
            .open(&path)
            .map_err(|error| Error::io("create the run log", &path, error))?;
        let mut writer = Self {
            file,
            path,
            logged: [0; 2],
            truncated: [false; 2],
            closed: false,
        };
        let line = line_of(start);
        writer
            .file
            .write_all(line.as_bytes())
            .map_err(|error| Error::io("write the run log", &writer.path, error))?;
        Ok(writer)
    }

    /// Appends `record`. A failed write is reported once in the trace and does not stop the
    /// run: the script's result matters more than its record.
    pub(crate) fn write(&mut self, record: &LogRecord) {
        if self.closed {
            return;
        }
        if matches!(record, LogRecord::End { .. }) {
            self.closed = true;
        }
        if let Err(error) = self.file.write_all(line_of(record).as_bytes()) {
            tracing::warn!(path = %self.path.display(), %error, "could not write the run log");
        }
    }

    /// Appends output, at most 1 MiB of each stream in all.
    pub(crate) fn output(&mut self, stream: Stream, text: &str) {
        let slot = index(stream);
        if self.closed || self.truncated[slot] || text.is_empty() {
            return;
        }
        let room = MAX_STREAM_BYTES.saturating_sub(self.logged[slot]);
        if text.len() <= room {
            self.logged[slot] += text.len();
            self.write(&LogRecord::Output {
                stream,
                text: text.to_owned(),
            });
            return;
        }
        let mut cut = room;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        if cut > 0 {
            self.write(&LogRecord::Output {
                stream,
                text: text[..cut].to_owned(),
            });
        }
        self.logged[slot] = MAX_STREAM_BYTES;
        self.truncated[slot] = true;
        self.write(&LogRecord::Truncated { stream });
    }
}

fn line_of(record: &LogRecord) -> String {
    let mut line = serde_json::to_string(record).unwrap_or_else(|_| "{}".to_owned());
    line.push('\n');
    line
}

/// What a log says about its run.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scanned {
    pub(crate) start: Option<LogRecord>,
    pub(crate) spawned: Option<(u32, u64)>,
    pub(crate) end: Option<LogRecord>,
}

impl Scanned {
    fn recorder_pid(&self) -> Option<u32> {
        match &self.start {
            Some(LogRecord::Start { recorder_pid, .. }) => Some(*recorder_pid),
            _ => None,
        }
    }

    /// Where the run stands: its `end`, or running while the process recording it (or its
    /// child) is alive, or interrupted.
    pub(crate) fn status(&self) -> RunStatus {
        if let Some(LogRecord::End { status, .. }) = &self.end {
            return *status;
        }
        let recorder_alive = self
            .recorder_pid()
            .is_some_and(crate::cancel::process_exists);
        let child_alive = self
            .spawned
            .is_some_and(|(pid, start_time)| crate::cancel::start_time(pid) == Some(start_time));
        if recorder_alive || child_alive {
            RunStatus::Running
        } else {
            RunStatus::Interrupted
        }
    }

    fn summary(&self, run_id: &str) -> Option<RunSummary> {
        let Some(LogRecord::Start {
            skill,
            target,
            started_at,
            ..
        }) = &self.start
        else {
            return None;
        };
        let (duration_ms, exit_code) = match &self.end {
            Some(LogRecord::End {
                duration_ms,
                exit_code,
                ..
            }) => (Some(*duration_ms), *exit_code),
            _ => (None, None),
        };
        let mut summary = RunSummary::new(
            run_id,
            skill.clone(),
            self.status(),
            target.clone(),
            started_at.clone(),
        );
        summary.duration_ms = duration_ms;
        summary.exit_code = exit_code;
        Some(summary)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// Lines that open with the tag of `start`, `spawned` or `end`, as the runtime writes them.
    Tagged,
    /// Every line: a log written by something else (an older version, a hand) still reads.
    Every,
}

fn read_head(head: &[u8], pass: Pass, scanned: &mut Scanned) {
    for line in head.split(|&byte| byte == b'\n') {
        let tagged = [START_TAG, SPAWNED_TAG, END_TAG]
            .iter()
            .any(|tag| line.starts_with(tag.as_bytes()));
        if pass == Pass::Tagged && !tagged {
            continue;
        }
        match serde_json::from_slice::<LogRecord>(line) {
            Ok(record @ LogRecord::Start { .. }) if scanned.start.is_none() => {
                scanned.start = Some(record);
            }
            Ok(LogRecord::Spawned { pid, start_time }) => {
                scanned.spawned = Some((pid, start_time));
            }
            Ok(record @ LogRecord::End { .. }) => scanned.end = Some(record),
            _ => {}
        }
    }
}

/// Reads the head and tail of the log of `run_id` (checked); `None` when there is none.
pub(crate) fn scan(dir: &Path, run_id: &str) -> Result<Option<Scanned>, Error> {
    let path = log_path(dir, run_id);
    let Some(mut file) = open_log(&path)? else {
        return Ok(None);
    };
    let size = file
        .metadata()
        .map_err(|error| Error::io("inspect", &path, error))?
        .len();
    let mut scanned = Scanned::default();
    let mut head = Vec::new();
    (&mut file)
        .take(HEAD_BYTES)
        .read_to_end(&mut head)
        .map_err(|error| Error::io("read", &path, error))?;
    // The runtime writes the tag first, so the three records that matter are found by their
    // opening without parsing every output line.
    for pass in [Pass::Tagged, Pass::Every] {
        if pass == Pass::Every && scanned.start.is_some() {
            break;
        }
        read_head(&head, pass, &mut scanned);
    }
    if scanned.end.is_none() && size > HEAD_BYTES {
        let from = size.saturating_sub(TAIL_BYTES);
        file.seek(SeekFrom::Start(from))
            .map_err(|error| Error::io("read", &path, error))?;
        let mut tail = Vec::new();
        file.take(TAIL_BYTES)
            .read_to_end(&mut tail)
            .map_err(|error| Error::io("read", &path, error))?;
        scanned.end = tail
            .split(|&byte| byte == b'\n')
            .filter_map(|line| serde_json::from_slice::<LogRecord>(line).ok())
            .rfind(|record| matches!(record, LogRecord::End { .. }));
    }
    Ok(Some(scanned))
}

/// The run ids with a log in `dir`, newest first (UUIDv7 ids sort by start time). Entries
/// that are not regular files or not named by a run id are passed over.
fn log_ids(dir: &Path) -> Result<Vec<(String, u64)>, Error> {
    if !existing_dir(dir)? {
        return Ok(Vec::new());
    }
    let entries = std::fs::read_dir(dir).map_err(|error| Error::io("list", dir, error))?;
    let mut ids: Vec<(String, u64)> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let id = name.strip_suffix(".jsonl")?;
            check_run_id(id).ok()?;
            // `DirEntry::metadata` does not follow a symlink.
            let metadata = entry.metadata().ok()?;
            metadata.is_file().then(|| (id.to_owned(), metadata.len()))
        })
        .collect();
    ids.sort_by(|a, b| b.0.cmp(&a.0));
    Ok(ids)
}

/// The newest runs, at most `limit` (clamped to 1..=100). A log whose `start` cannot be read
/// is passed over and named in the trace; it never fails the listing.
pub(crate) fn recent(config: &SkillsConfig, limit: usize) -> Result<Vec<RunSummary>, Error> {
    let dir = runs_dir(config)?;
    let limit = limit.clamp(1, MAX_RECENT_RUNS);
    let mut runs = Vec::new();
    for (id, _) in log_ids(&dir)? {
        if runs.len() >= limit {
            break;
        }
        match scan(&dir, &id) {
            Ok(Some(scanned)) => match scanned.summary(&id) {
                Some(summary) => runs.push(summary),
                None => {
                    tracing::warn!(run_id = %id, "a run log without a readable start record was skipped")
                }
            },
            Ok(None) => {}
            Err(error) => tracing::warn!(run_id = %id, %error, "a run log was skipped"),
        }
    }
    Ok(runs)
}

/// Up to `max_bytes` (clamped to 1..=256 KiB) of a log from `offset`, never ending inside a
/// UTF-8 character (unless a single character is more than was asked for).
pub(crate) fn read(
    config: &SkillsConfig,
    run_id: &str,
    offset: u64,
    max_bytes: usize,
) -> Result<RunLogChunk, Error> {
    let run_id = check_run_id(run_id)?;
    let dir = runs_dir(config)?;
    existing_dir(&dir)?;
    let path = log_path(&dir, run_id);
    let Some(scanned) = scan(&dir, run_id)? else {
        return Err(Error::NotFound { path });
    };
    let finished = scanned.status() != RunStatus::Running;
    let Some(mut file) = open_log(&path)? else {
        return Err(Error::NotFound { path });
    };
    let size = file
        .metadata()
        .map_err(|error| Error::io("inspect", &path, error))?
        .len();
    let offset = offset.min(size);
    let max_bytes = max_bytes.clamp(1, MAX_LOG_READ_BYTES);
    file.seek(SeekFrom::Start(offset))
        .map_err(|error| Error::io("read", &path, error))?;
    let mut bytes = Vec::new();
    file.take(max_bytes as u64)
        .read_to_end(&mut bytes)
        .map_err(|error| Error::io("read", &path, error))?;
    let cut = match complete_prefix(&bytes) {
        0 => bytes.len(),
        cut => cut,
    };
    bytes.truncate(cut);
    let mut chunk = RunLogChunk::new(run_id, offset);
    chunk.text = String::from_utf8_lossy(&bytes).into_owned();
    chunk.next_offset = offset + bytes.len() as u64;
    chunk.size = size;
    chunk.finished = finished;
    Ok(chunk)
}

/// Removes the oldest logs beyond the newest 200 or 64 MiB in all, whichever is reached
/// first; `keep` (runs still going in this process) are never removed.
pub(crate) fn apply_retention(dir: &Path, keep: &[String]) {
    let Ok(ids) = log_ids(dir) else {
        return;
    };
    let mut count = 0usize;
    let mut total = 0u64;
    for (id, size) in ids {
        let fits = count < MAX_KEPT_RUNS && total.saturating_add(size) <= MAX_KEPT_LOG_BYTES;
        if fits || keep.contains(&id) {
            count += 1;
            total = total.saturating_add(size);
            continue;
        }
        drop(std::fs::remove_file(log_path(dir, &id)));
        drop(std::fs::remove_file(marker_path(dir, &id)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_canonical_uuids_are_run_ids() {
        assert!(check_run_id("0190b3c2-7d4e-7000-8000-000000000000").is_ok());
        for bad in [
            "../x",
            "/etc/passwd",
            "x/y",
            "",
            "0190B3C2-7D4E-7000-8000-000000000000",
            "0190b3c27d4e70008000000000000000",
            "{0190b3c2-7d4e-7000-8000-000000000000}",
            "0190b3c2-7d4e-7000-8000-000000000000/../../x",
        ] {
            let error = check_run_id(bad).unwrap_err();
            assert_eq!(error.kind(), "invalid_input", "{bad}");
        }
    }

    #[test]
    fn retention_keeps_the_newest_runs() {
        let dir = tempfile::tempdir().unwrap();
        let mut ids = Vec::new();
        for _ in 0..(MAX_KEPT_RUNS + 3) {
            let id = uuid::Uuid::now_v7().hyphenated().to_string();
            std::fs::write(log_path(dir.path(), &id), "{}\n").unwrap();
            ids.push(id);
        }
        std::fs::write(marker_path(dir.path(), &ids[0]), "").unwrap();
        // The oldest is still going in this process: it stays.
        apply_retention(dir.path(), &[ids[1].clone()]);
        let left: Vec<_> = log_ids(dir.path())
            .unwrap()
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        assert_eq!(left.len(), MAX_KEPT_RUNS + 1);
        assert!(!left.contains(&ids[0]));
        assert!(!marker_path(dir.path(), &ids[0]).exists());
        assert!(left.contains(&ids[1]));
        assert!(!left.contains(&ids[2]));
        assert!(left.contains(&ids[MAX_KEPT_RUNS + 2]));
    }
}
