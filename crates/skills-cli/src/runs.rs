//! `skills runs`, `skills logs` and `skills cancel`: the run logs under
//! `<home>/<app_dir>/runs/`, read and acted on through the library (which refuses a run id
//! that could name a path).
//!
//! `logs` replays a run as `skills run` showed it: each output record's text to the stream it
//! came from (raw into a pipe, sanitised onto a terminal), then one line on stderr saying how
//! the run ended. `--json` prints the log's JSON Lines as they are stored.

use std::time::Duration;

use anstyle::Style;
use skills::run::{LogRecord, MAX_LOG_READ_BYTES};

use crate::Exit;
use crate::cli::{CancelArgs, Global, LogsArgs, RunsArgs};
use crate::context;
use crate::output;
use crate::run::{Terminals, write_output};

/// How often `logs --follow` looks for more of a running run's log.
const FOLLOW_POLL: Duration = Duration::from_millis(100);

pub(crate) fn runs(global: &Global, args: &RunsArgs) -> Exit {
    let skills = match context::skills(global, None) {
        Ok(skills) => skills,
        Err(message) => return output::usage(global, &message),
    };
    let runs = match skills.recent_runs(args.limit) {
        Ok(runs) => runs,
        Err(error) => return output::fail(global, &error),
    };
    if global.json {
        output::print_json(&runs);
    } else if runs.is_empty() {
        if !global.quiet {
            output::line("no runs recorded yet");
        }
    } else {
        output::block(&table(&runs));
    }
    Exit::Success
}

/// The human table of `skills runs`: id, skill, status, started, duration.
fn table(runs: &[skills::run::Summary]) -> String {
    let rows: Vec<[String; 5]> = runs
        .iter()
        .map(|run| {
            [
                output::shown(&run.run_id).into_owned(),
                output::shown(&run.skill).into_owned(),
                run.status.as_str().to_owned(),
                started(&run.started_at),
                run.duration_ms.map_or_else(|| "-".to_owned(), duration),
            ]
        })
        .collect();
    let header = ["RUN", "SKILL", "STATUS", "STARTED", "DURATION"];
    let mut widths = header.map(str::len);
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut text = String::new();
    let heading: Vec<String> = header
        .iter()
        .zip(widths)
        .map(|(cell, width)| format!("{cell:width$}"))
        .collect();
    text.push_str(&format!("{}\n", heading.join("  ").trim_end()));
    for (row, run) in rows.iter().zip(runs) {
        let style = status_style(run.status);
        let [id, skill, status, started, duration] = row;
        text.push_str(&format!(
            "{id:w0$}  {skill:w1$}  {style}{status:w2$}{style:#}  {started:w3$}  {duration}\n",
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2],
            w3 = widths[3],
        ));
    }
    text
}

fn status_style(status: skills::run::Status) -> Style {
    match status {
        skills::run::Status::Succeeded => output::OK,
        skills::run::Status::Running => Style::new(),
        skills::run::Status::TimedOut
        | skills::run::Status::Cancelled
        | skills::run::Status::Interrupted => output::WARNING,
        skills::run::Status::Failed => output::FAIL,
    }
}

/// `2026-12-04T00:45:33.123Z` as `2026-12-04 00:45:33`.
fn started(at: &str) -> String {
    let shown = output::shown(at);
    let seconds: String = shown.chars().take(19).collect();
    seconds.replacen('T', " ", 1)
}

/// Milliseconds as a person reads them: `340 ms`, `2.1 s`, `3 min 4 s`.
fn duration(millis: u64) -> String {
    if millis < 1000 {
        format!("{millis} ms")
    } else if millis < 60_000 {
        format!("{}.{} s", millis / 1000, millis % 1000 / 100)
    } else {
        let seconds = millis / 1000;
        format!("{} min {} s", seconds / 60, seconds % 60)
    }
}

pub(crate) fn logs(global: &Global, args: &LogsArgs) -> Exit {
    let skills = match context::skills(global, None) {
        Ok(skills) => skills,
        Err(message) => return output::usage(global, &message),
    };
    let terminal = Terminals::now();
    let mut offset = 0;
    // The log's bytes after its last complete line: a read may stop mid-record.
    let mut pending = String::new();
    let mut ending: Option<LogRecord> = None;
    let finished = loop {
        let chunk = match skills.read_run_log(&args.run_id, offset, MAX_LOG_READ_BYTES) {
            Ok(chunk) => chunk,
            Err(error) => return output::fail(global, &error),
        };
        let progressed = chunk.next_offset > offset;
        offset = chunk.next_offset;
        pending.push_str(&chunk.text);
        while let Some(end) = pending.find('\n') {
            let line: String = pending.drain(..=end).collect();
            let record = serde_json::from_str::<LogRecord>(line.trim_end()).ok();
            if global.json {
                output::raw(&line);
            } else if let Some(record) = &record {
                replay(record, terminal);
            }
            if let Some(record @ LogRecord::End { .. }) = record {
                ending = Some(record);
            }
        }
        let at_end = !progressed || chunk.next_offset >= chunk.size;
        if ending.is_some() && at_end {
            break true;
        }
        if at_end {
            if chunk.finished || !args.follow {
                break chunk.finished;
            }
            std::thread::sleep(FOLLOW_POLL);
        }
    };
    if global.json {
        if !pending.is_empty() {
            output::raw(&pending);
        }
    } else if !global.quiet {
        print_ending(&args.run_id, ending.as_ref(), finished);
    }
    Exit::Success
}

/// One record as `skills run` showed it: output to its stream, a truncation as a note.
fn replay(record: &LogRecord, terminal: Terminals) {
    match record {
        LogRecord::Output { stream, text } => write_output(*stream, text, terminal),
        LogRecord::Truncated { stream } => output::warn(&format!(
            "the log keeps at most 1 MiB of {}; the rest was counted, not kept",
            stream_name(*stream)
        )),
        _ => {}
    }
}

fn stream_name(stream: skills::run::Stream) -> &'static str {
    match stream {
        skills::run::Stream::Stdout => "stdout",
        skills::run::Stream::Stderr => "stderr",
    }
}

/// The line under a replayed log: how the run ended, or that it has not (yet).
fn print_ending(run_id: &str, ending: Option<&LogRecord>, finished: bool) {
    let run = output::shown(run_id);
    let text = match ending {
        Some(LogRecord::End {
            status,
            exit_code,
            signal,
            duration_ms,
            stdout_bytes,
            stderr_bytes,
            ..
        }) => {
            let how = match (exit_code, signal) {
                (Some(code), _) => format!("exit status {code}"),
                (None, Some(signal)) => format!("signal {signal}"),
                (None, None) => "no exit status".to_owned(),
            };
            format!(
                "run {run} {}: {how}, {}, {stdout_bytes} bytes on stdout, {stderr_bytes} on stderr",
                status.as_str(),
                duration(*duration_ms)
            )
        }
        _ if finished => format!(
            "run {run} was interrupted: its log has no end (the process recording it stopped)"
        ),
        _ => format!("run {run} is still running ('skills logs --follow {run}' keeps reading)"),
    };
    anstream::eprintln!("{}{text}{:#}", output::DIM, output::DIM);
}

pub(crate) fn cancel(global: &Global, args: &CancelArgs) -> Exit {
    let skills = match context::skills(global, None) {
        Ok(skills) => skills,
        Err(message) => return output::usage(global, &message),
    };
    let signalled = match skills.cancel_run(&args.run_id) {
        Ok(signalled) => signalled,
        Err(error) => return output::fail(global, &error),
    };
    if global.json {
        output::print_json(&serde_json::json!({
            "run_id": args.run_id,
            "cancelled": signalled,
        }));
    }
    if signalled {
        if !global.json && !global.quiet {
            output::line(format_args!(
                "cancelled run {}",
                output::shown(&args.run_id)
            ));
        }
        Exit::Success
    } else {
        output::print_error(
            &format!(
                "run {} is not running: it is unknown or has already ended",
                args.run_id
            ),
            Some("'skills runs' lists the runs and their status"),
        );
        Exit::Failure
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_naturally() {
        assert_eq!(duration(340), "340 ms");
        assert_eq!(duration(2_150), "2.1 s");
        assert_eq!(duration(184_000), "3 min 4 s");
    }

    #[test]
    fn start_times_drop_the_fraction_and_zone() {
        assert_eq!(started("2026-12-04T00:45:33.123Z"), "2026-12-04 00:45:33");
    }
}
