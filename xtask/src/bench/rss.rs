//! `xtask __rss -- CMD [ARGS...]`: the peak-memory wrapper of `cargo xtask bench`. It runs the
//! command with its output discarded, waits for it, and prints the command's peak resident
//! set size in KiB on standard output.
//!
//! The figure is `getrusage(RUSAGE_CHILDREN).ru_maxrss`: the largest peak among the waited-for
//! children of this process. The wrapper is a fresh process whose only child is the measured
//! command, so the number is that command's alone — not the bench's, not cargo's, and not a
//! sample that could miss a short peak, as polling `/proc` would.

use std::process::{Command, ExitCode, Stdio};

pub(crate) fn main(args: &[String]) -> ExitCode {
    let usage = "usage: xtask __rss [--ok STATUS]... -- CMD [ARGS...]";
    // Exit statuses besides 0 that mean the command did its work (`skills audit` exits 1
    // when a skill is flagged).
    let mut ok = vec![0];
    let mut rest = args;
    while let [flag, status, after @ ..] = rest
        && flag == "--ok"
    {
        match status.parse::<i32>() {
            Ok(status) => ok.push(status),
            Err(_) => {
                eprintln!("{usage}");
                return ExitCode::from(2);
            }
        }
        rest = after;
    }
    let Some((program, rest)) = rest.split_first() else {
        eprintln!("{usage}");
        return ExitCode::from(2);
    };
    let (program, rest) = if program == "--" {
        match rest.split_first() {
            Some(command) => command,
            None => {
                eprintln!("{usage}");
                return ExitCode::from(2);
            }
        }
    } else {
        (program, rest)
    };
    let status = Command::new(program)
        .args(rest)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    match status {
        Ok(status) if status.code().is_some_and(|code| ok.contains(&code)) => {}
        Ok(status) => {
            eprintln!("`{program}` failed ({status})");
            return ExitCode::FAILURE;
        }
        Err(error) => {
            eprintln!("could not start `{program}`: {error}");
            return ExitCode::FAILURE;
        }
    }
    match children_peak_kib() {
        Ok(Some(kib)) => println!("{kib}"),
        // Nothing printed: the bench reports the figure as not measured.
        Ok(None) => {}
        Err(error) => {
            eprintln!("getrusage failed: {error}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

/// The largest peak RSS among the waited-for children, in KiB.
#[cfg(unix)]
fn children_peak_kib() -> Result<Option<u64>, String> {
    use nix::sys::resource::{UsageWho, getrusage};
    let usage = getrusage(UsageWho::RUSAGE_CHILDREN).map_err(|error| error.to_string())?;
    let max_rss = u64::try_from(usage.max_rss()).unwrap_or(0);
    // Linux counts kilobytes; macOS counts bytes.
    let kib = if cfg!(target_os = "macos") {
        max_rss / 1024
    } else {
        max_rss
    };
    Ok(Some(kib))
}

#[cfg(not(unix))]
fn children_peak_kib() -> Result<Option<u64>, String> {
    Ok(None)
}
