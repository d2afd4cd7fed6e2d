//! Both exits, fed the way the SDK feeds them: lines split across writes and several in one,
//! event streams split across frames, a whole JSON answer; nothing that steers comes out,
//! and what needs no change comes out as it went in.

use std::collections::VecDeque;

use http_body_util::{BodyExt as _, Full};
use hyper::header::HeaderValue;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt as _;

use super::*;

/// A `tools/list` answer as the issue reported it: raw ESC, BEL and U+202E inside a declared
/// tool's input schema, and a body with escape sequences in `structuredContent`.
fn hostile() -> String {
    json!({
        "jsonrpc": "2.0",
        "id": 3,
        "result": {
            "tools": [{
                "name": "evil__greet",
                "inputSchema": {
                    "title": "T\u{202e}itle",
                    "properties": { "who": { "description": "Who \u{7}\u{1b}[2J" } },
                },
            }],
            "structuredContent": { "body": "# B\n\u{1b}[31mred\u{1b}[0m\n" },
        },
    })
    .to_string()
}

fn assert_clean(text: &str) {
    let value: Value = serde_json::from_str(text).unwrap_or_else(|error| panic!("{error}: {text}"));
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::String(text) => assert!(
                !text
                    .chars()
                    .any(|character| sanitize::is_removed(character) && character != '\n'),
                "{text:?}"
            ),
            Value::Array(items) => stack.extend(items),
            Value::Object(members) => stack.extend(members.into_iter().map(|(_, member)| member)),
            _ => {}
        }
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
}

#[test]
fn stdio_lines_leave_sanitised_however_they_are_written() {
    let message = hostile();
    let clean = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;
    let written = format!("{message}\n{clean}\n{message}");
    let out = runtime().block_on(async {
        let mut lines = Lines::new(Vec::new());
        // Split at every awkward place: inside an escape, between lines, mid-character.
        for chunk in written.as_bytes().chunks(7) {
            lines.write_all(chunk).await.unwrap();
        }
        lines.flush().await.unwrap();
        lines.shutdown().await.unwrap();
        lines.inner
    });
    let out = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = out.split('\n').collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert_clean(lines[0]);
    assert_eq!(lines[1], clean, "a clean line passes byte for byte");
    assert_clean(lines[2]);
    let answer: Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(answer["id"], 3);
    assert_eq!(answer["result"]["structuredContent"]["body"], "# B\nred\n");
    assert_eq!(
        answer["result"]["tools"][0]["inputSchema"]["title"],
        "Title"
    );
}

/// A body that yields its frames one at a time, as a stream of events does.
struct Chunks(VecDeque<Bytes>);

impl Body for Chunks {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        _context: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Poll::Ready(
            self.get_mut()
                .0
                .pop_front()
                .map(|data| Ok(Frame::data(data))),
        )
    }
}

fn body(frames: Vec<String>) -> Boxed {
    Chunks(frames.into_iter().map(Bytes::from).collect()).boxed()
}

fn collected(answer: Response<Boxed>) -> String {
    let bytes = runtime()
        .block_on(answer.into_body().collect())
        .unwrap()
        .to_bytes();
    String::from_utf8(bytes.to_vec()).unwrap()
}

#[test]
fn event_streams_leave_sanitised_event_by_event() {
    let message = hostile();
    let (head, tail) = message.split_at(message.len() / 2);
    let head = format!("id: 0\ndata: {head}");
    let tail = format!("{tail}\n\n:\n\ndata:\n\n");
    let mut answer = Response::new(body(vec![head, tail]));
    answer
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    let out = collected(response(answer));
    let events: Vec<&str> = out.split("\n\n").collect();
    assert_eq!(events.len(), 4, "{out:?}");
    let (id, data) = events[0].split_once('\n').unwrap();
    assert_eq!(id, "id: 0");
    assert_clean(data.strip_prefix("data: ").unwrap());
    assert_eq!(events[1], ":", "a keep-alive passes");
    assert_eq!(events[2], "data: ", "the priming event passes");
}

#[test]
fn whole_answers_leave_sanitised_and_unmeasured() {
    let message = hostile();
    let length = message.len();
    let mut answer = Response::new(Full::new(Bytes::from(message)).boxed());
    answer
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    answer
        .headers_mut()
        .insert(CONTENT_LENGTH, HeaderValue::from(length));
    let answer = response(answer);
    assert!(answer.headers().get(CONTENT_LENGTH).is_none());
    let out = collected(answer);
    assert_clean(&out);
    let empty = collected(response(Response::new(Full::new(Bytes::new()).boxed())));
    assert_eq!(empty, "");
}
