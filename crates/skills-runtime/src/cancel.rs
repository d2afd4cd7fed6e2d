//! Stopping a run: signals to a whole process group, and the cancel from another process.
//!
//! A process that did not start a run knows it only through its log: the `spawned` record
//! holds the child's pid (which is also its process group) and its start time. Before any
//! signal, the start time in `/proc/PID/stat` must equal the recorded one: a pid is reused
//! once its process is gone, and a cancel must never signal whatever process got it next.
//! The canceller first leaves a marker beside the log, so the process recording the run
//! knows the TERM its child got was a cancel (and reports `cancelled`, not `failed`).

use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};
use skills_ops::state::Folder;
use skills_types::Error;
use skills_types::run::KILL_GRACE_MILLIS;

use crate::log;
use crate::pid::start_time;

/// How often a canceller looks whether the group is gone during the grace.
const POLL: Duration = Duration::from_millis(25);

/// Sends `signal` to the process group `pgid`. A group that is gone is not an error.
pub(crate) fn signal_group(pgid: u32, signal: Signal) {
    if let Some(pid) = i32::try_from(pgid).ok().and_then(Pid::from_raw) {
        rustix::process::kill_process_group(pid, signal).ok();
    }
}

/// Whether the process group `pgid` still has a member.
pub(crate) fn group_exists(pgid: u32) -> bool {
    i32::try_from(pgid)
        .ok()
        .and_then(Pid::from_raw)
        .is_some_and(|pid| rustix::process::test_kill_process_group(pid).is_ok())
}

/// TERM to the group, then KILL once the grace has passed if any of it is left.
fn stop_group(pid: u32, start: u64) {
    signal_group(pid, Signal::TERM);
    let deadline = Instant::now() + Duration::from_millis(KILL_GRACE_MILLIS);
    while Instant::now() < deadline {
        if start_time(pid) != Some(start) && !group_exists(pid) {
            return;
        }
        std::thread::sleep(POLL);
    }
    signal_group(pid, Signal::KILL);
}

/// A cancel of a run this process does not hold, through its log: `true` when a running run
/// was signalled (or, not spawned yet, told not to start), `false` when it is unknown,
/// ended, or its process is gone.
pub(crate) fn cancel_elsewhere(runs: &Folder, run_id: &str) -> Result<bool, Error> {
    let Some(scanned) = log::scan(runs, run_id)? else {
        return Ok(false);
    };
    if scanned.end.is_some() {
        return Ok(false);
    }
    match scanned.spawned {
        Some((pid, recorded)) => {
            if start_time(pid) != Some(recorded) {
                return Ok(false);
            }
            log::mark_cancelled(runs, run_id)?;
            // The start time is checked again after the marker, just before the signal.
            if start_time(pid) != Some(recorded) {
                return Ok(false);
            }
            stop_group(pid, recorded);
            Ok(true)
        }
        None => {
            if scanned.status() != skills_types::run::RunStatus::Running {
                return Ok(false);
            }
            // Registered, not spawned: the recorder looks for the marker before it spawns.
            log::mark_cancelled(runs, run_id)?;
            Ok(true)
        }
    }
}
