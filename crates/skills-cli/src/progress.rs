//! The progress display of long operations: a spinner line on a terminal's stderr, nothing
//! when stderr is not a terminal, with `--quiet` or with `--json` (05 §Conventions).

use std::io::IsTerminal;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use indicatif::{HumanBytes, ProgressBar, ProgressDrawTarget, ProgressStyle};
use skills::install::ProgressSink;

use crate::cli::Global;

/// A progress display; cleared when dropped.
pub(crate) struct Progress {
    bar: ProgressBar,
}

#[derive(Default)]
struct Counts {
    planned: Option<usize>,
    requests: usize,
}

impl Progress {
    /// A display for this invocation, or `None` when progress must not be shown.
    pub(crate) fn start(global: &Global, what: &str) -> Option<Self> {
        if global.quiet || global.json || !std::io::stderr().is_terminal() {
            return None;
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{spinner} {prefix} {wide_msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.set_prefix(what.to_owned());
        bar.enable_steady_tick(Duration::from_millis(100));
        Some(Self { bar })
    }

    /// A sink that turns install reports into the display's message.
    pub(crate) fn sink(&self) -> ProgressSink {
        let bar = self.bar.clone();
        let counts = Mutex::new(Counts::default());
        Arc::new(move |report: &skills::install::Progress| {
            let mut counts = counts.lock().unwrap_or_else(PoisonError::into_inner);
            match report {
                skills::install::Progress::Request { url } => {
                    counts.requests += 1;
                    bar.set_message(crate::output::shown(url).into_owned());
                }
                skills::install::Progress::Received { bytes, expected } => {
                    let amount = match expected {
                        Some(total) => format!("{} of {}", HumanBytes(*bytes), HumanBytes(*total)),
                        None => HumanBytes(*bytes).to_string(),
                    };
                    let files = match counts.planned {
                        // The index itself was the first request.
                        Some(planned) => format!(
                            "file {} of {planned}, ",
                            counts.requests.saturating_sub(1).min(planned)
                        ),
                        None => String::new(),
                    };
                    bar.set_message(format!("{files}{amount}"));
                }
                skills::install::Progress::Planned { files } => counts.planned = Some(*files),
                skills::install::Progress::Writing { slug } => {
                    bar.set_message(format!("writing {}", crate::output::shown(slug)));
                }
                _ => {}
            }
        })
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}
