//! The server's two exits, where everything it says leaves through the one sanitiser
//! ([`sanitize::message_text`]): [`Lines`] in front of stdout for `skills mcp`, and
//! [`response`] around every HTTP answer of `skills mcp --http`.
//!
//! Whatever the SDK or our handlers put in a message — a declared tool's input schema with a
//! `description` nested five levels down, a tool result's `structuredContent`, a resource's
//! text, a prompt, the instructions, a log line, an elicitation's question, an error's
//! message — is JSON text by the time it reaches these two places, and each message is
//! sanitised whole there: every string by its member's form (a body, a file or a run's output
//! keeps its lines), every key, at any depth. A field added tomorrow is covered without
//! anyone remembering it. Only a message's `id` is echoed as the client sent it.
//!
//! What is left as it is, on purpose: a binary resource's `blob` is base64 (nothing to
//! remove); a resource's `uri` is percent-encoded, so it names its file exactly and is never
//! changed; the `id`.

use std::convert::Infallible;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use bytes::Bytes;
use http_body_util::BodyExt as _;
use http_body_util::combinators::BoxBody;
use hyper::Response;
use hyper::body::{Body, Frame};
use hyper::header::{CONTENT_LENGTH, CONTENT_TYPE};
use skills_types::sanitize;
use tokio::io::AsyncWrite;

/// The stdio exit: a writer that passes each line written to it (one JSON-RPC message, as
/// the SDK frames them) through the sanitiser before `inner` sees it.
#[derive(Debug)]
pub(crate) struct Lines<W> {
    inner: W,
    /// Bytes of a line not yet ended.
    partial: Vec<u8>,
    /// Sanitised lines not yet taken by `inner`, from `written` on.
    ready: Vec<u8>,
    written: usize,
}

impl<W> Lines<W> {
    pub(crate) fn new(inner: W) -> Self {
        Self {
            inner,
            partial: Vec::new(),
            ready: Vec::new(),
            written: 0,
        }
    }
}

impl<W: AsyncWrite + Unpin> Lines<W> {
    /// Hands `inner` every sanitised byte waiting.
    fn drain(&mut self, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.written < self.ready.len() {
            let taken =
                ready!(Pin::new(&mut self.inner).poll_write(context, &self.ready[self.written..]))?;
            if taken == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.written += taken;
        }
        self.ready.clear();
        self.written = 0;
        Poll::Ready(Ok(()))
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for Lines<W> {
    fn poll_write(
        self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buffer: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        // What an earlier write left must go first: this bounds what is held to one write.
        ready!(this.drain(context))?;
        this.partial.extend_from_slice(buffer);
        while let Some(end) = this.partial.iter().position(|byte| *byte == b'\n') {
            let line: Vec<u8> = this.partial.drain(..=end).collect();
            let text = String::from_utf8_lossy(&line[..end]);
            this.ready
                .extend_from_slice(sanitize::message_text(&text).as_bytes());
            this.ready.push(b'\n');
        }
        Poll::Ready(Ok(buffer.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.drain(context))?;
        Pin::new(&mut this.inner).poll_flush(context)
    }

    fn poll_shutdown(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        // A line the SDK never ended is still a message: it leaves sanitised too.
        if !this.partial.is_empty() {
            let text = String::from_utf8_lossy(&this.partial).into_owned();
            this.partial.clear();
            this.ready
                .extend_from_slice(sanitize::message_text(&text).as_bytes());
        }
        ready!(this.drain(context))?;
        Pin::new(&mut this.inner).poll_shutdown(context)
    }
}

type Boxed = BoxBody<Bytes, Infallible>;

/// The HTTP exit: `answer` with its body sanitised message by message — each event of an
/// event stream as it completes (a stream stays live), any other body whole.
pub(crate) fn response(answer: Response<Boxed>) -> Response<Boxed> {
    let (mut parts, body) = answer.into_parts();
    let events = parts
        .headers
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("text/event-stream"));
    // The length changes with what is removed; hyper frames the new body itself.
    parts.headers.remove(CONTENT_LENGTH);
    let body = Sanitised {
        inner: body,
        events,
        pending: Vec::new(),
        ended: false,
    };
    Response::from_parts(parts, body.boxed())
}

/// A body passed through the sanitiser.
struct Sanitised {
    inner: Boxed,
    /// An event stream (`text/event-stream`): sanitised event by event.
    events: bool,
    /// Bytes not yet sanitised: an event not yet complete, or the whole of another body.
    pending: Vec<u8>,
    ended: bool,
}

impl Body for Sanitised {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        context: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        loop {
            if this.ended {
                return Poll::Ready(None);
            }
            let Some(frame) = ready!(Pin::new(&mut this.inner).poll_frame(context)) else {
                this.ended = true;
                if this.pending.is_empty() {
                    return Poll::Ready(None);
                }
                let rest = std::mem::take(&mut this.pending);
                let out = if this.events {
                    events(&rest)
                } else {
                    whole(&rest)
                };
                return Poll::Ready(Some(Ok(Frame::data(out))));
            };
            let frame = match frame {
                Ok(frame) => frame,
                Err(never) => match never {},
            };
            match frame.into_data() {
                Ok(data) => {
                    this.pending.extend_from_slice(&data);
                    if !this.events {
                        continue;
                    }
                    // Everything up to the last blank line is whole events.
                    let Some(end) = this.pending.windows(2).rposition(|pair| pair == b"\n\n")
                    else {
                        continue;
                    };
                    let complete: Vec<u8> = this.pending.drain(..end + 2).collect();
                    return Poll::Ready(Some(Ok(Frame::data(events(&complete)))));
                }
                // Trailers carry no text of ours; they pass.
                Err(other) => return Poll::Ready(Some(Ok(other))),
            }
        }
    }
}

/// A whole body: one JSON-RPC message, or a short text of the SDK's own.
fn whole(bytes: &[u8]) -> Bytes {
    let text = String::from_utf8_lossy(bytes);
    Bytes::from(sanitize::message_text(&text).into_owned())
}

/// Server-sent events: each `data:` line's payload is one message, sanitised; the other
/// fields (`id:`, `event:`, `retry:`, comments) are the SDK's own and pass as one-line text.
fn events(bytes: &[u8]) -> Bytes {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::with_capacity(text.len());
    for (index, line) in text.split('\n').enumerate() {
        if index > 0 {
            out.push('\n');
        }
        match line.strip_prefix("data:") {
            Some(payload) => {
                out.push_str("data: ");
                let payload = payload.strip_prefix(' ').unwrap_or(payload);
                out.push_str(&sanitize::message_text(payload));
            }
            None => out.push_str(&sanitize::line(line)),
        }
    }
    Bytes::from(out)
}

#[cfg(test)]
mod tests;
