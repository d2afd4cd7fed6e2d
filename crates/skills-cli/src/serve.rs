//! `skills serve`: JSON-RPC 2.0 over stdin and stdout, one message per line (04 §RPC), and
//! `skills schemas`: every method's schemas as one JSON document.
//!
//! Stdout carries protocol messages only: responses and `skills.event` notifications, each
//! one line, written by one task so lines never interleave. Lines are handled in the order
//! they arrive, each to the end before the next starts, so a client that sends `create` then
//! `describe` without waiting still gets what it means (a core wanting installs beside
//! listings opens a second server). Logs go to stderr. At the end of stdin the server
//! finishes the line in hand and exits.

use std::sync::Arc;

use serde_json::json;
use skills::bus::{EventBus, Received};
use skills::rpc::{
    Dispatcher, RpcError, all_skills_controller_schemas, all_skills_registered_controllers,
};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, watch};

use crate::Exit;
use crate::cli::Global;
use crate::context;
use crate::output;

/// The longest line read; a longer one is answered with a parse error and skipped.
const MAX_LINE_BYTES: u64 = 16 * 1024 * 1024;

/// The method whose success starts the event notifications.
const SUBSCRIBE: &str = "skills.subscribe";

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
    let skills = Arc::new(skills.with_events(bus.clone()));
    runtime.spawn(refresh_remotes(skills.clone()));
    let dispatcher = Dispatcher::new(all_skills_registered_controllers(skills));
    match runtime.block_on(run(dispatcher, bus)) {
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

async fn run(dispatcher: Dispatcher, bus: EventBus) -> std::io::Result<()> {
    let (lines, mut outgoing) = mpsc::unbounded_channel::<String>();
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(line) = outgoing.recv().await {
            stdout.write_all(line.as_bytes()).await?;
            stdout.write_all(b"\n").await?;
            stdout.flush().await?;
        }
        Ok::<(), std::io::Error>(())
    });

    let mut subscribed = false;
    // Told when stdin ends, so the event forwarder lets go of stdout.
    let (stopping, stop) = watch::channel(false);
    let mut stdin = BufReader::new(tokio::io::stdin());
    let mut buffer = Vec::new();
    loop {
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
            let error = RpcError::parse_error(format!("a line longer than {MAX_LINE_BYTES} bytes"));
            send(&lines, error_line(&error));
            continue;
        }
        let text = match std::str::from_utf8(&buffer) {
            Ok(text) => text.trim().to_owned(),
            Err(error) => {
                send(&lines, error_line(&RpcError::parse_error(error)));
                continue;
            }
        };
        if text.is_empty() {
            continue;
        }
        let handled = dispatcher.handle_text(&text).await;
        // Subscribe before the reply goes out: once the client reads it, no event is lost.
        if handled.succeeded.iter().any(|method| method == SUBSCRIBE) && !subscribed {
            subscribed = true;
            tokio::spawn(forward(bus.subscribe(), lines.clone(), stop.clone()));
        }
        if let Some(reply) = handled.reply {
            send(&lines, reply);
        }
    }
    stopping.send_replace(true);
    drop(lines);
    writer.await.map_err(std::io::Error::other)?
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

fn error_line(error: &RpcError) -> String {
    json!({ "jsonrpc": "2.0", "id": null, "error": error }).to_string()
}

fn send(lines: &mpsc::UnboundedSender<String>, line: String) {
    // The writer only stops when stdout is gone; then there is no one to tell.
    drop(lines.send(line));
}
