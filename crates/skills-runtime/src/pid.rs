//! A process known by its pid: whether it exists and when it started.
//!
//! A pid is reused once its process is gone, so the runtime never trusts a pid alone: the
//! start time in `/proc/PID/stat`, recorded when the run spawned its child, tells the child
//! from whatever process got the number next. Both the canceller and the log's reader ask
//! here, below either of them.

use std::path::Path;

/// Whether a process `pid` exists (a zombie counts until it is reaped).
pub(crate) fn process_exists(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// The start time of `pid` (field 22 of `/proc/PID/stat`, clock ticks since boot), unless it
/// is gone or a zombie.
pub(crate) fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_start_time(&stat)
}

/// Field 22 of a `/proc/PID/stat` line. The second field is the command name in parentheses,
/// and the name may itself hold spaces and parentheses (`a) (b`), so the fields are counted
/// from after the last `)`: the state is field 3 there, the start time field 22.
pub(crate) fn parse_start_time(stat: &str) -> Option<u64> {
    let (_, rest) = stat.rsplit_once(')')?;
    let mut fields = rest.split_whitespace();
    let state = fields.next()?;
    if state == "Z" || state == "X" {
        return None;
    }
    fields.nth(22 - 4)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_time_is_counted_after_the_last_parenthesis() {
        let fields: Vec<String> = (4..=52).map(|n| n.to_string()).collect();
        let tail = fields.join(" ");
        // Field 22 is the 19th number after the state (fields 4..=52 hold their own number).
        let line = format!("1234 (a) (b c) S {tail}");
        assert_eq!(parse_start_time(&line), Some(22));
        let zombie = format!("1234 (x) Z {tail}");
        assert_eq!(parse_start_time(&zombie), None);
        assert_eq!(parse_start_time("garbage"), None);
        assert_eq!(parse_start_time("1 (x) S 4 5"), None);
        let own = start_time(std::process::id()).unwrap();
        assert_eq!(start_time(std::process::id()), Some(own));
    }
}
