//! The live catalog through the built binary (08 §The live catalog): `skills watch --json`
//! started on a throwaway home and workspace, files changed under it the way editors, `git`
//! and people change them, and the JSON Lines it prints read as they come.
//!
//! Every test waits for `ready` before it touches a file (the watches are in place by then),
//! then reads events until the one it expects, each read waiting at most [`PATIENCE`]: a
//! watcher that misses a change fails the test with its transcript and stderr instead of
//! hanging the suite, and no sleep stands in for synchronisation. Bursts are debounced, so
//! one change may be reported in two `catalog_changed` events and two changes in one: the
//! waits accumulate the ids of every `catalog_changed` until the expected ones were seen.
//! A claim that something did *not* happen ("no `removed`") is checked up to a barrier: a
//! fresh skill written after the change, whose `added` can only be reported by a
//! rediscovery that also saw the change.
//!
//! [`Session`] is the fixture; the submodules hold the tests, one concern each.

#[cfg(target_os = "linux")]
mod bounds;
mod human;
mod lifecycle;
#[cfg(target_os = "linux")]
mod polling;
mod replaced;
mod roots;
mod serve;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::discovery::{Place, Tree};

/// How long one awaited line may take. Generous, because the machine may be busy; a change
/// the watcher missed still fails, only later.
pub(crate) const PATIENCE: Duration = Duration::from_secs(20);

/// One of the three lists of a `catalog_changed` event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Change {
    Added,
    Changed,
    Removed,
}

impl Change {
    fn field(self) -> &'static str {
        match self {
            Change::Added => "added",
            Change::Changed => "changed",
            Change::Removed => "removed",
        }
    }
}

/// A running `skills watch` and the lines it has printed so far.
pub(crate) struct Session {
    child: Child,
    lines: mpsc::Receiver<String>,
    stderr: Arc<Mutex<String>>,
    /// Every stdout line read, for the failure messages.
    transcript: Vec<String>,
}

/// What `ready` said, and the events printed before it (a path that falls back to polling is
/// reported while the watch starts, before the baseline is taken).
pub(crate) struct Ready {
    pub(crate) skills: u64,
    pub(crate) watching: Vec<String>,
    pub(crate) before: Vec<Value>,
}

impl Session {
    /// `skills --home H --workspace W watch --json ARGS` on `tree`.
    pub(crate) fn json(tree: &Tree, args: &[&str]) -> Self {
        Self::spawn(Self::command(tree, skills_tests::skills(), true, args))
    }

    /// `skills --home H --workspace W watch ARGS` on `tree`, for a person (no `--json`).
    pub(crate) fn human(tree: &Tree, args: &[&str]) -> Self {
        Self::spawn(Self::command(tree, skills_tests::skills(), false, args))
    }

    /// `command` (the binary, or a wrapper that ends up executing it) with the tree's global
    /// options and `watch`.
    pub(crate) fn command(tree: &Tree, mut command: Command, json: bool, args: &[&str]) -> Command {
        command
            .current_dir(&tree.base)
            .arg("--home")
            .arg(&tree.home)
            .arg("--workspace")
            .arg(&tree.workspace)
            .arg("watch")
            .args(json.then_some("--json"))
            .args(args)
            .env_remove("COLUMNS");
        command
    }

    /// Starts `command` with its stdout read line by line on a thread and its stderr kept.
    pub(crate) fn spawn(mut command: Command) -> Self {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|error| panic!("cannot start {command:?}: {error}"));
        let skills_tests::pipes::Pipes { lines, stderr } =
            skills_tests::pipes::Pipes::take(&mut child);
        Self {
            child,
            lines,
            stderr,
            transcript: Vec::new(),
        }
    }

    /// The watch's process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    fn stderr(&self) -> String {
        self.stderr
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// What the watch printed so far, for a failure message.
    pub(crate) fn report(&mut self) -> String {
        format!(
            "status {:?}\nstdout:\n{}\nstderr:\n{}",
            self.child.try_wait(),
            self.transcript.join("\n"),
            self.stderr()
        )
    }

    /// The next stdout line, waiting at most [`PATIENCE`] for it while `waiting_for`.
    pub(crate) fn next_line(&mut self, waiting_for: &str) -> String {
        match self.lines.recv_timeout(PATIENCE) {
            Ok(line) => {
                self.transcript.push(line.clone());
                line
            }
            Err(RecvTimeoutError::Timeout) => panic!(
                "no line within {PATIENCE:?} while waiting for {waiting_for}; {}",
                self.report()
            ),
            Err(RecvTimeoutError::Disconnected) => {
                // The reader saw the end: let the exit status be known before reporting.
                let _ = self.child.wait();
                panic!(
                    "the watch closed stdout while waiting for {waiting_for}; {}",
                    self.report()
                )
            }
        }
    }

    /// The next event (one JSON line).
    pub(crate) fn next_event(&mut self, waiting_for: &str) -> Value {
        let line = self.next_line(waiting_for);
        serde_json::from_str(&line).unwrap_or_else(|error| {
            panic!("stdout held a line that is not JSON ({error}): {line:?}")
        })
    }

    /// Reads up to and including `ready`, which must come before any catalog change.
    pub(crate) fn ready(&mut self) -> Ready {
        let mut before = Vec::new();
        loop {
            let event = self.next_event("ready");
            match event["kind"].as_str() {
                Some("ready") => {
                    let watching = event["watching"]
                        .as_array()
                        .unwrap_or_else(|| panic!("ready without watching: {event}"))
                        .iter()
                        .map(|path| path.as_str().unwrap().to_owned())
                        .collect();
                    return Ready {
                        skills: event["skills"]
                            .as_u64()
                            .unwrap_or_else(|| panic!("ready without skills: {event}")),
                        watching,
                        before,
                    };
                }
                Some("watching") => before.push(event),
                _ => panic!("{event} came before ready; {}", self.report()),
            }
        }
    }

    /// Reads events until `done` says the ones read so far are enough; returns them all.
    pub(crate) fn events_until(
        &mut self,
        waiting_for: &str,
        mut done: impl FnMut(&[Value]) -> bool,
    ) -> Vec<Value> {
        let mut events = Vec::new();
        loop {
            events.push(self.next_event(waiting_for));
            if done(&events) {
                return events;
            }
        }
    }

    /// Reads events until the `catalog_changed` events among them have listed `id` under
    /// `change`; returns every event read.
    pub(crate) fn until(&mut self, change: Change, id: &str) -> Vec<Value> {
        self.until_all(change, &BTreeSet::from([id.to_owned()]))
    }

    /// [`Session::until`] for several ids, which may be spread over several events.
    pub(crate) fn until_all(&mut self, change: Change, ids: &BTreeSet<String>) -> Vec<Value> {
        let waiting_for = format!("{} {ids:?}", change.field());
        self.events_until(&waiting_for, |events| {
            ids.is_subset(&changed_ids(events, change))
        })
    }

    /// Writes a fresh user skill `name` and waits for its `added`: every change made before
    /// this call has been seen by a rediscovery when it returns. Returns every event read.
    pub(crate) fn barrier(&mut self, tree: &Tree, name: &str) -> Vec<Value> {
        // Saved atomically, so the barrier itself never shows a half-written file.
        let folder = tree.root(Place::UserOpenhuman).join(name);
        std::fs::create_dir_all(&folder).unwrap();
        save_atomically(
            &folder,
            &skill_text(
                name,
                "A barrier: reported after everything written before it.",
            ),
        );
        self.until(Change::Added, name)
    }
}

impl Drop for Session {
    /// A watch runs until interrupted: the test ends it.
    fn drop(&mut self) {
        drop(self.child.kill());
        drop(self.child.wait());
    }
}

/// The union of the `change` lists of the `catalog_changed` events among `events`.
pub(crate) fn changed_ids(events: &[Value], change: Change) -> BTreeSet<String> {
    events
        .iter()
        .filter(|event| event["kind"] == "catalog_changed")
        .flat_map(|event| {
            event[change.field()]
                .as_array()
                .unwrap_or_else(|| panic!("catalog_changed without {}: {event}", change.field()))
                .iter()
                .map(|id| id.as_str().unwrap().to_owned())
        })
        .collect()
}

/// The `load_error` events among `events`.
pub(crate) fn load_errors(events: &[Value]) -> Vec<&Value> {
    events
        .iter()
        .filter(|event| event["kind"] == "load_error")
        .collect()
}

/// `SKILL.md` text declaring `name` and `description`.
pub(crate) fn skill_text(name: &str, description: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: {}\n---\n# {name}\n\nBody of {name}.\n",
        serde_json::to_string(description).unwrap()
    )
}

/// Replaces `<folder>/SKILL.md` the way editors save: the whole text to a hidden temporary
/// file beside it, then a rename over the original.
pub(crate) fn save_atomically(folder: &Path, text: &str) {
    let temporary = folder.join(".SKILL.md.tmp");
    std::fs::write(&temporary, text).unwrap();
    std::fs::rename(&temporary, folder.join("SKILL.md")).unwrap();
}

/// How long has passed since `start`, for messages.
pub(crate) fn since(start: Instant) -> String {
    format!("{:.2} s", start.elapsed().as_secs_f64())
}
