//! `skills serve`: JSON-RPC 2.0 over stdin and stdout, one message per line (04 §RPC), and
//! `skills schemas`: every method's schemas as one JSON document.
//!
//! Stdout carries protocol messages only: responses, `skills.event` notifications and the
//! runtime's `skill_runtime.output` / `skill_runtime.finished` notifications, each one line,
//! all written by one task so lines never interleave. That task is the one exit: every line
//! goes through the one sanitiser there ([`sanitize::message_text`]), so a run's output, an
//! event naming a skill or an error quoting a file reaches the client with no control,
//! escape, bidi or zero-width character, whoever built the line (the dispatcher's answers
//! already are; a second pass changes nothing). Logs go to stderr.
//!
//! Order. Lines are handled in the order they arrive, each to the end before the next starts,
//! so a client that sends `create` then `describe` without waiting still gets what it means
//! (a core wanting installs beside listings opens a second server). The runtime's methods
//! (`skill_runtime.*` and their aliases `skills.run`, `skills.cancel`, `workflows.run`,
//! `workflows.cancel`) are the exception: each is answered by a task of its own, so a run
//! with `wait: true` does not hold the connection and a `cancel` sent on the same connection
//! is answered while the run goes on. Their answers may therefore come out of order (match
//! them by id), and a run's first notifications may arrive before the reply that gives its
//! id. A batch is one line and is handled in order, whatever methods it holds.
//!
//! End. At the end of stdin the server finishes the line in hand, waits for every runtime
//! request still being answered, and then for every run it started to end, so each run's
//! `finished` notification is sent and no script is left running unsupervised with a log
//! that never ends; a client that wants to leave sooner cancels its runs first. Then it exits.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Value, json};
use skills::bus::{EventBus, Received};
use skills::rpc::methods::{FinishedNotification, OutputNotification};
use skills::rpc::{Dispatcher, all_skills_controller_schemas, all_skills_registered_controllers};
use skills::sanitize;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;

use crate::Exit;
use crate::cli::Global;
use crate::context;
use crate::output;

/// The longest line read; a longer one is answered with a parse error and skipped.
const MAX_LINE_BYTES: u64 = 16 * 1024 * 1024;

/// The method whose success starts the event notifications.
const SUBSCRIBE: &str = "skills.subscribe";

/// The namespace of the methods answered concurrently (by canonical name).
const RUNTIME_NAMESPACE: &str = "skill_runtime.";

/// The method whose answer names a run that goes on.
const RUN: &str = "skill_runtime.run";

/// The method whose answer comes after its run ended (a tool call waits for its script).
const EXECUTE_TOOL: &str = "skill_runtime.execute_tool";

/// The notification of a run's output.
const OUTPUT_NOTIFICATION: &str = "skill_runtime.output";

/// The notification of a run's end.
const FINISHED_NOTIFICATION: &str = "skill_runtime.finished";

pub(crate) fn schemas() -> Exit {
    output::print_json(&json!({ "methods": all_skills_controller_schemas() }));
    Exit::Success
}

pub(crate) fn serve(global: &Global) -> Exit {
    let skills = match context::skills(global, None) {
        Ok(skills) => skills,
        Err(message) => return output::usage(global, &message),
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            return output::usage(global, &format!("the async runtime cannot start: {error}"));
        }
    };
    let bus = EventBus::default();
    let (lines, outgoing) = mpsc::unbounded_channel::<String>();
    let outbox = Arc::new(Outbox(Mutex::new(Some(lines))));
    let runs = Arc::new(Runs::new());
    let skills = Arc::new(
        skills
            .with_events(bus.clone())
            .with_run_notices(notice_sink(outbox.clone(), runs.clone())),
    );
    runtime.spawn(refresh_remotes(skills.clone()));
    // Before the first request: from its answer on, the answers follow the files.
    match skills.watch(&skills::watch::Options::default()) {
        Ok(watch) => drop(runtime.spawn(follow_files(watch))),
        Err(error) => tracing::debug!(%error, "the catalog is not watched"),
    }
    let dispatcher = Arc::new(Dispatcher::new(all_skills_registered_controllers(skills)));
    let connection = Connection {
        dispatcher,
        bus,
        outbox,
        runs,
    };
    match runtime.block_on(connection.run(outgoing)) {
        Ok(()) => Exit::Success,
        Err(error) => {
            output::print_error(&format!("serve stopped: {error}"), None);
            Exit::Failure
        }
    }
}

/// Keeps the remote packs (`urls`) fresh while the server runs, off every request's path:
/// the stale ones now, then again each hour (a pack is stale after a day). A failure is
/// recorded with the pack, where the next listing reports it; nothing is printed to stdout.
async fn refresh_remotes(skills: Arc<skills::Skills>) {
    let every = std::time::Duration::from_secs(60 * 60);
    loop {
        if let Err(error) = skills
            .refresh_remotes(&skills::remote::Refresh::stale())
            .await
        {
            tracing::debug!(%error, "remote packs were not refreshed");
        }
        tokio::time::sleep(every).await;
    }
}

/// Keeps the catalog live while the server runs (08 §The live catalog): a watch of the roots,
/// whose changes the handle publishes on its bus (so they reach the client as `skills.event`
/// notifications and the answers follow the files), and whose skills keep their last valid
/// version while their file is broken. A watch that cannot start (the subsystem compiled out)
/// leaves the server as it was.
async fn follow_files(mut watch: skills::watch::Watch) {
    while let Some(event) = watch.next().await {
        // The catalog's changes travel on the bus; a path polled instead is the operator's
        // business, on stderr (stdout carries protocol messages only).
        if let skills::watch::Event::Watching { diagnostic, .. } = event {
            tracing::warn!("{}", diagnostic.message);
        }
    }
}

/// Where every line to stdout goes first. The run notice sink holds it for as long as the
/// handle lives (the remote refresher keeps the handle to the end), so it is closed by hand
/// at the end instead of by dropping the last sender.
struct Outbox(Mutex<Option<mpsc::UnboundedSender<String>>>);

impl Outbox {
    fn send(&self, line: String) {
        let sender = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(sender) = sender.as_ref() {
            send(sender, line);
        }
    }

    /// A sender for a task of this connection.
    fn sender(&self) -> Option<mpsc::UnboundedSender<String>> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn close(&self) {
        drop(self.0.lock().unwrap_or_else(PoisonError::into_inner).take());
    }
}

/// The runs this server started and that have not ended, so the end of stdin can wait for
/// them. A run's `finished` notice can come before the reply that names it (a quick script),
/// so an end seen first is remembered until its reply comes.
struct Runs {
    state: Mutex<RunsState>,
    going: watch::Sender<usize>,
}

#[derive(Default)]
struct RunsState {
    going: HashSet<String>,
    ended_before_reply: HashSet<String>,
}

impl Runs {
    fn new() -> Self {
        Self {
            state: Mutex::new(RunsState::default()),
            going: watch::Sender::new(0),
        }
    }

    /// A `run` reply named `run_id`; `still_going` unless it carried the outcome.
    fn replied(&self, run_id: &str, still_going: bool) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if !state.ended_before_reply.remove(run_id) && still_going {
            state.going.insert(run_id.to_owned());
        }
        self.going.send_replace(state.going.len());
    }

    fn finished(&self, run_id: &str) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if !state.going.remove(run_id) {
            state.ended_before_reply.insert(run_id.to_owned());
        }
        self.going.send_replace(state.going.len());
    }

    async fn all_ended(&self) {
        let mut going = self.going.subscribe();
        // The sender lives in `self`, so this ends only when the count is 0.
        drop(going.wait_for(|count| *count == 0).await);
    }
}

/// The handle's run notice sink: each notice one JSON-RPC notification line.
fn notice_sink(outbox: Arc<Outbox>, runs: Arc<Runs>) -> skills::run::Sink {
    Arc::new(move |notice: &skills::run::Notice| {
        let notification = match notice {
            skills::run::Notice::Output {
                run_id,
                stream,
                text,
            } => json!({
                "jsonrpc": "2.0",
                "method": OUTPUT_NOTIFICATION,
                "params": OutputNotification {
                    run_id: run_id.clone(),
                    stream: *stream,
                    text: text.clone(),
                },
            }),
            skills::run::Notice::Finished {
                run_id,
                status,
                outcome,
            } => json!({
                "jsonrpc": "2.0",
                "method": FINISHED_NOTIFICATION,
                "params": FinishedNotification {
                    run_id: run_id.clone(),
                    status: *status,
                    outcome: outcome.clone(),
                },
            }),
            _ => return,
        };
        outbox.send(notification.to_string());
        if let skills::run::Notice::Finished { run_id, .. } = notice {
            runs.finished(run_id);
        }
    })
}

/// One client on stdin and stdout.
struct Connection {
    dispatcher: Arc<Dispatcher>,
    bus: EventBus,
    outbox: Arc<Outbox>,
    runs: Arc<Runs>,
}

impl Connection {
    async fn run(self, mut outgoing: mpsc::UnboundedReceiver<String>) -> std::io::Result<()> {
        let writer = tokio::spawn(async move {
            let mut stdout = tokio::io::stdout();
            while let Some(line) = outgoing.recv().await {
                let line = sanitize::message_text(&line);
                stdout.write_all(line.as_bytes()).await?;
                stdout.write_all(b"\n").await?;
                stdout.flush().await?;
            }
            Ok::<(), std::io::Error>(())
        });
        let read = self.read_lines().await;
        self.outbox.close();
        drop(self);
        let written = writer.await.map_err(std::io::Error::other)?;
        read.and(written)
    }

    /// Reads and answers lines until stdin ends, then waits as the module documentation says.
    async fn read_lines(&self) -> std::io::Result<()> {
        let Some(lines) = self.outbox.sender() else {
            return Ok(());
        };
        let mut subscribed = false;
        // Told when stdin ends, so the event forwarder lets go of stdout.
        let (stopping, stop) = watch::channel(false);
        let mut in_flight = JoinSet::new();
        let mut stdin = BufReader::new(tokio::io::stdin());
        let mut buffer = Vec::new();
        loop {
            // Answered runtime requests need no more keeping.
            while in_flight.try_join_next().is_some() {}
            buffer.clear();
            let read = (&mut stdin)
                .take(MAX_LINE_BYTES + 1)
                .read_until(b'\n', &mut buffer)
                .await?;
            if read == 0 {
                break;
            }
            if buffer.len() as u64 > MAX_LINE_BYTES && !buffer.ends_with(b"\n") {
                skip_rest_of_line(&mut stdin).await?;
                let error = skills::rpc::Error::parse_error(format!(
                    "a line longer than {MAX_LINE_BYTES} bytes"
                ));
                send(&lines, error_line(&error));
                continue;
            }
            let text = match std::str::from_utf8(&buffer) {
                Ok(text) => text.trim().to_owned(),
                Err(error) => {
                    send(&lines, error_line(&skills::rpc::Error::parse_error(error)));
                    continue;
                }
            };
            if text.is_empty() {
                continue;
            }
            if self.is_runtime_request(&text) {
                let dispatcher = self.dispatcher.clone();
                let runs = self.runs.clone();
                let lines = lines.clone();
                in_flight.spawn(async move {
                    let handled = dispatcher.handle_text(&text).await;
                    if let Some(reply) = handled.reply {
                        if handled.succeeded.iter().any(|method| method == RUN) {
                            note_run(&runs, &reply);
                        }
                        if handled
                            .succeeded
                            .iter()
                            .any(|method| method == EXECUTE_TOOL)
                        {
                            note_tool_run(&runs, &reply);
                        }
                        send(&lines, reply);
                    }
                });
                continue;
            }
            let handled = self.dispatcher.handle_text(&text).await;
            // Subscribe before the reply goes out: once the client reads it, no event is lost.
            if handled.succeeded.iter().any(|method| method == SUBSCRIBE) && !subscribed {
                subscribed = true;
                tokio::spawn(forward(self.bus.subscribe(), lines.clone(), stop.clone()));
            }
            if let Some(reply) = handled.reply {
                send(&lines, reply);
            }
        }
        while in_flight.join_next().await.is_some() {}
        self.runs.all_ended().await;
        stopping.send_replace(true);
        Ok(())
    }

    /// Whether `text` is one request (not a batch) for a runtime method.
    fn is_runtime_request(&self, text: &str) -> bool {
        let Ok(Value::Object(message)) = serde_json::from_str::<Value>(text) else {
            return false;
        };
        message
            .get("method")
            .and_then(Value::as_str)
            .and_then(|method| self.dispatcher.resolve(method))
            .is_some_and(|controller| controller.schema.method.starts_with(RUNTIME_NAMESPACE))
    }
}

/// Records the run a successful `run` reply names: still going unless the reply is its
/// outcome (`wait: true`).
fn note_run(runs: &Runs, reply: &str) {
    let Ok(reply) = serde_json::from_str::<Value>(reply) else {
        return;
    };
    let result = &reply["result"];
    if let Some(run_id) = result["run_id"].as_str() {
        runs.replied(run_id, result.get("status").is_none());
    }
}

/// Records the end of the run an `execute_tool` reply names. Its `finished` notice came
/// before the reply (the call waits for the run), so this forgets that early end instead of
/// keeping it for a `run` reply that never comes.
fn note_tool_run(runs: &Runs, reply: &str) {
    let Ok(reply) = serde_json::from_str::<Value>(reply) else {
        return;
    };
    if let Some(run_id) = reply["result"]["run_id"].as_str() {
        runs.replied(run_id, false);
    }
}

/// After a line that was too long: discards input up to and including the next newline.
async fn skip_rest_of_line<R: tokio::io::AsyncBufRead + Unpin>(
    input: &mut R,
) -> std::io::Result<()> {
    loop {
        let available = input.fill_buf().await?;
        if available.is_empty() {
            return Ok(());
        }
        if let Some(end) = available.iter().position(|byte| *byte == b'\n') {
            input.consume(end + 1);
            return Ok(());
        }
        let length = available.len();
        input.consume(length);
    }
}

/// Sends bus events to the client as `skills.event` notifications, and a
/// `skills.events_missed` notification when the connection fell behind.
async fn forward(
    mut subscription: skills::bus::Subscription,
    lines: mpsc::UnboundedSender<String>,
    mut stop: watch::Receiver<bool>,
) {
    loop {
        let received = tokio::select! {
            received = subscription.recv() => received,
            _ = stop.changed() => return,
        };
        let Some(received) = received else { return };
        let notification = match received {
            Received::Event(event) => {
                json!({ "jsonrpc": "2.0", "method": "skills.event", "params": event })
            }
            Received::Lagged(missed) => {
                json!({ "jsonrpc": "2.0", "method": "skills.events_missed", "params": { "missed": missed } })
            }
        };
        if lines.send(notification.to_string()).is_err() {
            return;
        }
    }
}

fn error_line(error: &skills::rpc::Error) -> String {
    json!({ "jsonrpc": "2.0", "id": null, "error": error }).to_string()
}

fn send(lines: &mpsc::UnboundedSender<String>, line: String) {
    // The writer only stops when stdout is gone; then there is no one to tell.
    drop(lines.send(line));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn going(runs: &Runs) -> usize {
        *runs.going.borrow()
    }

    #[test]
    fn runs_are_counted_whichever_of_reply_and_end_comes_first() {
        let runs = Runs::new();
        // The usual order: the id, later the end.
        note_run(&runs, r#"{"jsonrpc":"2.0","id":1,"result":{"run_id":"a"}}"#);
        assert_eq!(going(&runs), 1);
        runs.finished("a");
        assert_eq!(going(&runs), 0);
        // A quick script: its end is seen before the reply that names it.
        runs.finished("b");
        note_run(&runs, r#"{"jsonrpc":"2.0","id":2,"result":{"run_id":"b"}}"#);
        assert_eq!(going(&runs), 0);
        // `wait: true`: the reply is the outcome, so the run has ended.
        runs.finished("c");
        note_run(
            &runs,
            r#"{"jsonrpc":"2.0","id":3,"result":{"run_id":"c","status":"succeeded"}}"#,
        );
        assert_eq!(going(&runs), 0);
        let state = runs.state.lock().unwrap();
        assert!(state.going.is_empty() && state.ended_before_reply.is_empty());
    }
}
