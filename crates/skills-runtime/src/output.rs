//! Capped capture of one output stream, and the decoder that turns its chunks into text.
//!
//! A stream keeps at most [`MAX_STREAM_BYTES`]; everything after is counted and dropped as it
//! is read, so a script printing 50 MiB costs what one printing 1 MiB does. Chunks arrive cut
//! wherever a `read` ended, which may be inside a multibyte character: the decoder holds the
//! unfinished bytes back for the next chunk instead of printing two replacement characters.

use skills_types::run::{MAX_STREAM_BYTES, Stream};

/// The longest prefix of `bytes` that does not end inside a UTF-8 sequence (invalid bytes are
/// left to the lossy conversion; only an unfinished sequence at the end is cut off).
pub(crate) fn complete_prefix(bytes: &[u8]) -> usize {
    let len = bytes.len();
    for back in 1..=len.min(3) {
        let Some(&byte) = bytes.get(len - back) else {
            break;
        };
        if byte & 0xC0 == 0x80 {
            continue;
        }
        let needed = match byte {
            0xF0..=0xFF => 4,
            0xE0..=0xEF => 3,
            0xC0..=0xDF => 2,
            _ => 1,
        };
        return if needed > back { len - back } else { len };
    }
    len
}

/// Chunks to text, a character split across two chunks kept whole.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    pending: Vec<u8>,
}

impl Decoder {
    /// The text of `chunk` (with what was held back before it), minus an unfinished
    /// character at its end.
    pub(crate) fn decode(&mut self, chunk: &[u8]) -> String {
        self.pending.extend_from_slice(chunk);
        let cut = complete_prefix(&self.pending);
        let text = String::from_utf8_lossy(&self.pending[..cut]).into_owned();
        self.pending.drain(..cut);
        text
    }

    /// Whatever was held back, when the stream ends.
    pub(crate) fn finish(&mut self) -> String {
        let text = String::from_utf8_lossy(&self.pending).into_owned();
        self.pending.clear();
        text
    }
}

/// What a run keeps of one stream.
#[derive(Debug)]
pub(crate) struct Capture {
    stream: Stream,
    kept: Vec<u8>,
    total: u64,
}

impl Capture {
    /// An empty capture of `stream`.
    pub(crate) fn new(stream: Stream) -> Self {
        Self {
            stream,
            kept: Vec::new(),
            total: 0,
        }
    }

    /// Counts `chunk` and keeps what fits.
    pub(crate) fn push(&mut self, chunk: &[u8]) {
        self.total = self.total.saturating_add(chunk.len() as u64);
        let room = MAX_STREAM_BYTES.saturating_sub(self.kept.len());
        self.kept
            .extend_from_slice(chunk.get(..room.min(chunk.len())).unwrap_or_default());
    }

    /// Every byte read.
    pub(crate) fn total(&self) -> u64 {
        self.total
    }

    /// The text kept, ended by the truncation marker when bytes were dropped, and whether
    /// they were.
    pub(crate) fn text(&self) -> (String, bool) {
        if self.total <= self.kept.len() as u64 {
            return (String::from_utf8_lossy(&self.kept).into_owned(), false);
        }
        let cut = complete_prefix(&self.kept);
        let mut text = String::from_utf8_lossy(&self.kept[..cut]).into_owned();
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        let name = match self.stream {
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
        };
        text.push_str(&format!(
            "[{name} truncated at 1 MiB: {} bytes not kept]",
            self.total - cut as u64
        ));
        (text, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_character_split_across_chunks_is_decoded_whole() {
        let text = "aé€😀z";
        let bytes = text.as_bytes();
        for split in 0..=bytes.len() {
            let mut decoder = Decoder::default();
            let mut out = decoder.decode(&bytes[..split]);
            out.push_str(&decoder.decode(&bytes[split..]));
            out.push_str(&decoder.finish());
            assert_eq!(out, text, "split at {split}");
        }
        let mut decoder = Decoder::default();
        assert_eq!(decoder.decode(b"a\xffb"), "a\u{fffd}b");
        assert_eq!(decoder.decode(b"\xe2\x82"), "");
        assert_eq!(decoder.finish(), "\u{fffd}");
    }

    #[test]
    fn a_capture_keeps_one_mebibyte_and_counts_the_rest() {
        let mut capture = Capture::new(Stream::Stderr);
        // A two-byte character straddles the cap, so the kept text ends before it.
        let mut chunk = vec![b'x'; MAX_STREAM_BYTES - 1];
        chunk.extend_from_slice("é".as_bytes());
        capture.push(&chunk);
        capture.push(&[b'y'; 100]);
        assert_eq!(capture.total(), MAX_STREAM_BYTES as u64 + 101);
        let (text, truncated) = capture.text();
        assert!(truncated);
        assert!(
            text.ends_with("\n[stderr truncated at 1 MiB: 102 bytes not kept]"),
            "{}",
            &text[text.len() - 60..]
        );
        assert_eq!(text.matches('x').count(), MAX_STREAM_BYTES - 1);

        let mut small = Capture::new(Stream::Stdout);
        small.push(b"hello");
        assert_eq!(small.text(), ("hello".to_owned(), false));
    }
}
