//! Run logs (07 §Run logs): `<home>/<app_dir>/runs/<run_id>.jsonl`, one typed record a line,
//! written only by the runtime (text a script prints is always inside an `output` record).
//!
//! The folder is the user's (mode 0700) and every name in it is built from a run id that was
//! first checked to be a canonical UUID, so a caller's `../x` or `/etc/passwd` can never name
//! a file. Every log and marker goes through the one state reader and writer
//! (`skills_ops::state`): opened without following a link or blocking on a FIFO, refused when
//! it is not a regular file of the runtime's size, and a symlinked runs folder is refused
//! rather than written through. Reading a log's status looks at its head (`start`,
//! `spawned`) and its tail (`end`) only, so listing a hundred runs does not read their output.

use std::fs::File;
use std::io::{Read as _, Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};

use skills_ops::state::{self, CANCEL_MARKER, EntryKind, Folder, RUN_LOG};

use skills_types::run::{
    LogRecord, MAX_KEPT_LOG_BYTES, MAX_KEPT_RUNS, MAX_LOG_READ_BYTES, MAX_RECENT_RUNS,
    MAX_STREAM_BYTES, RunLogChunk, RunStatus, RunSummary, Stream,
};
use skills_types::{Error, SkillsConfig};

use crate::output::complete_prefix;

/// The folder of the run logs, below the application directory of the home.
pub(crate) const RUNS_DIR: &str = state::RUNS_DIR;
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

/// The name of the log of `run_id` (checked).
pub(crate) fn log_name(run_id: &str) -> String {
    format!("{run_id}.{LOG_EXTENSION}")
}

/// The name of the cancel marker of `run_id` (checked).
pub(crate) fn marker_name(run_id: &str) -> String {
    format!("{run_id}.{MARKER_EXTENSION}")
}

/// The runs folder of `config` when it exists; a link or a file there is refused (logs
/// written through it would land wherever it points).
pub(crate) fn open_runs(config: &SkillsConfig) -> Result<Option<Folder>, Error> {
    let dir = runs_dir(config)?;
    Folder::open(&state::app_dir(config), &[RUNS_DIR]).map_err(|refusal| refused(&dir, &refusal))
}

/// The runs folder of `config`, made (0700) when missing, under the rules of [`open_runs`].
pub(crate) fn create_runs(config: &SkillsConfig) -> Result<Folder, Error> {
    let dir = runs_dir(config)?;
    Folder::create(&state::app_dir(config), &[RUNS_DIR]).map_err(|refusal| refused(&dir, &refusal))
}

/// A refusal of the state module as this module's error: a trap is a state file to remove.
fn refused(path: &Path, refusal: &state::Refusal) -> Error {
    match refusal {
        state::Refusal::Folder { path, found } => Error::StateFileInvalid {
            path: path.clone(),
            reason: format!(
                "it is {found}, not a plain folder of this program's, and is never followed; remove it so run logs can be written"
            ),
        },
        state::Refusal::Io(error) => Error::Io {
            action: "open",
            path: path.to_path_buf(),
            source: std::io::Error::new(error.kind(), error.to_string()),
        },
        _ => Error::StateFileInvalid {
            path: path.to_path_buf(),
            reason: format!("{refusal}; remove it"),
        },
    }
}

/// Whether a run's cancel marker is there (anything at its name counts: a cancel cannot be
/// hidden by what is planted there).
#[derive(Debug)]
pub(crate) struct Marker {
    runs: Folder,
    name: String,
}

impl Marker {
    /// The marker of `run_id` (checked) in `runs`.
    pub(crate) fn of(runs: &Folder, run_id: &str) -> Self {
        Self {
            runs: runs.clone(),
            name: marker_name(run_id),
        }
    }

    /// Whether a cancel was asked for from another process.
    pub(crate) fn exists(&self) -> bool {
        self.runs.has(&self.name)
    }
}

/// Leaves the cancel marker of `run_id` (checked); something already at its name counts as
/// left (a link or a FIFO there is never written through).
pub(crate) fn mark_cancelled(runs: &Folder, run_id: &str) -> Result<(), Error> {
    let name = marker_name(run_id);
    runs.mark(&CANCEL_MARKER, &name)
        .map(drop)
        .map_err(|error| Error::io("write the cancel marker", runs.join(&name), error))
}

/// Opens an existing log for reading, refusing anything but a regular file of a log's size.
fn open_log(runs: &Folder, run_id: &str) -> Result<Option<(File, u64)>, Error> {
    let name = log_name(run_id);
    runs.open_file(&RUN_LOG, &name)
        .map_err(|refusal| refused(&runs.join(&name), &refusal))
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
    pub(crate) fn create(runs: &Folder, run_id: &str, start: &LogRecord) -> Result<Self, Error> {
        let name = log_name(run_id);
        let path = runs.join(&name);
        let file = runs
            .create_new(&RUN_LOG, &name)
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
        let recorder_alive = self.recorder_pid().is_some_and(crate::pid::process_exists);
        let child_alive = self
            .spawned
            .is_some_and(|(pid, start_time)| crate::pid::start_time(pid) == Some(start_time));
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
pub(crate) fn scan(runs: &Folder, run_id: &str) -> Result<Option<Scanned>, Error> {
    let path = runs.join(&log_name(run_id));
    let Some((mut file, size)) = open_log(runs, run_id)? else {
        return Ok(None);
    };
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
fn log_ids(runs: &Folder) -> Result<Vec<(String, u64)>, Error> {
    let entries = runs
        .entries()
        .map_err(|error| Error::io("list", runs.path(), error))?;
    let mut ids: Vec<(String, u64)> = entries
        .into_iter()
        .filter_map(|entry| {
            let id = entry.name.strip_suffix(".jsonl")?;
            check_run_id(id).ok()?;
            // Seen without following: a link or a FIFO named like a log is not one.
            (entry.kind == EntryKind::File).then(|| (id.to_owned(), entry.len))
        })
        .collect();
    ids.sort_by(|a, b| b.0.cmp(&a.0));
    Ok(ids)
}

/// The newest runs, at most `limit` (clamped to 1..=100). A log whose `start` cannot be read
/// is passed over and named in the trace; it never fails the listing.
pub(crate) fn recent(config: &SkillsConfig, limit: usize) -> Result<Vec<RunSummary>, Error> {
    let Some(folder) = open_runs(config)? else {
        return Ok(Vec::new());
    };
    let limit = limit.clamp(1, MAX_RECENT_RUNS);
    let mut runs = Vec::new();
    for (id, _) in log_ids(&folder)? {
        if runs.len() >= limit {
            break;
        }
        match scan(&folder, &id) {
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
    let path = runs_dir(config)?.join(log_name(run_id));
    let Some(runs) = open_runs(config)? else {
        return Err(Error::NotFound { path });
    };
    let Some(scanned) = scan(&runs, run_id)? else {
        return Err(Error::NotFound { path });
    };
    let finished = scanned.status() != RunStatus::Running;
    let Some((mut file, size)) = open_log(&runs, run_id)? else {
        return Err(Error::NotFound { path });
    };
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
pub(crate) fn apply_retention(runs: &Folder, keep: &[String]) {
    let Ok(ids) = log_ids(runs) else {
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
        drop(runs.remove(&log_name(&id)));
        drop(runs.remove(&marker_name(&id)));
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
        let runs = Folder::open(dir.path(), &[]).unwrap().unwrap();
        let log_path = |dir: &Path, id: &str| dir.join(log_name(id));
        let marker_path = |dir: &Path, id: &str| dir.join(marker_name(id));
        let mut ids = Vec::new();
        for _ in 0..(MAX_KEPT_RUNS + 3) {
            let id = uuid::Uuid::now_v7().hyphenated().to_string();
            std::fs::write(log_path(dir.path(), &id), "{}\n").unwrap();
            ids.push(id);
        }
        std::fs::write(marker_path(dir.path(), &ids[0]), "").unwrap();
        // The oldest is still going in this process: it stays.
        apply_retention(&runs, &[ids[1].clone()]);
        let left: Vec<_> = log_ids(&runs)
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
