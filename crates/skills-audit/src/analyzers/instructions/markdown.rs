//! Where in a Markdown file text is code, or hidden: fenced code blocks, inline code spans
//! and HTML comments, as byte ranges.
//!
//! The instruction rules need it both ways. Text in a fence or a code span is quoted
//! material (a command to show, a prompt template, an attack a security guide explains), so
//! a phrase there is not the skill talking to the agent; text in an HTML comment is never
//! shown to the person reading the rendered skill but is read by the model, so a phrase there
//! is worse than in prose. One pass, linear in the text; an unclosed fence or comment runs to
//! the end of the file, as a renderer shows it.

/// What a span of Markdown is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::analyzers) enum Region {
    /// A fenced code block (```` ``` ```` or `~~~`), fence lines included.
    Fence,
    /// An inline code span, backticks included.
    InlineCode,
    /// An HTML comment, `<!--` and `-->` included.
    Comment,
}

/// The code and comment spans of one text, in order, not overlapping.
#[derive(Debug, Default)]
pub(in crate::analyzers) struct Spans {
    spans: Vec<(usize, usize, Region)>,
}

impl Spans {
    /// The spans of `text`, read as Markdown.
    pub(in crate::analyzers) fn markdown(text: &str) -> Self {
        let mut spans = Vec::new();
        let bytes = text.as_bytes();
        let mut line_start = 0;
        while line_start < text.len() {
            let line_end = line_end(text, line_start);
            if let Some((marker, width)) = fence_open(&text[line_start..line_end]) {
                let end = fence_end(text, line_end, marker, width);
                spans.push((line_start, end, Region::Fence));
                line_start = end;
                continue;
            }
            // Inline code and comments on this line; a comment may run over later lines,
            // and the scan goes on after it on the line where it ends.
            let mut at = line_start;
            let mut end_of_line = line_end;
            while at < end_of_line {
                match bytes[at] {
                    b'`' => {
                        let run = count(bytes, at, end_of_line, b'`');
                        match closing_run(bytes, at + run, end_of_line, run) {
                            Some(close) => {
                                spans.push((at, close + run, Region::InlineCode));
                                at = close + run;
                            }
                            None => at += run,
                        }
                    }
                    b'<' if bytes[at..].starts_with(b"<!--") => {
                        let end = text[at + 4..]
                            .find("-->")
                            .map_or(text.len(), |index| at + 4 + index + 3);
                        spans.push((at, end, Region::Comment));
                        at = end;
                        if at > end_of_line {
                            end_of_line = self::line_end(text, at);
                        }
                    }
                    _ => at += 1,
                }
            }
            line_start = next_line(text, end_of_line);
        }
        Self { spans }
    }

    /// The region `offset` lies in, if any.
    pub(in crate::analyzers) fn region(&self, offset: usize) -> Option<Region> {
        let index = self.spans.partition_point(|(start, _, _)| *start <= offset);
        let (start, end, region) = *self.spans.get(index.checked_sub(1)?)?;
        (start <= offset && offset < end).then_some(region)
    }

    /// The HTML comments: the whole span, and the range of what is between `<!--` and `-->`.
    pub(in crate::analyzers) fn comments(
        &self,
        text: &str,
    ) -> impl Iterator<Item = (usize, std::ops::Range<usize>)> {
        let length = text.len();
        let closed = |end: usize| text.get(..end).is_some_and(|head| head.ends_with("-->"));
        self.spans
            .iter()
            .filter(|(_, _, region)| *region == Region::Comment)
            .map(move |&(start, end, _)| {
                let inner_end = if closed(end) && end >= start + 7 {
                    end - 3
                } else {
                    end.min(length)
                };
                (start, (start + 4).min(inner_end)..inner_end)
            })
    }
}

/// The end of the line that starts at `start` (the `\n`, or the end of the text).
fn line_end(text: &str, start: usize) -> usize {
    text[start..]
        .find('\n')
        .map_or(text.len(), |index| start + index)
}

/// The start of the line after the one ending at `end`.
fn next_line(text: &str, end: usize) -> usize {
    (end + 1).min(text.len())
}

/// How many `byte`s in a row start at `at` (stopping at `end`).
fn count(bytes: &[u8], at: usize, end: usize, byte: u8) -> usize {
    bytes[at..end].iter().take_while(|&&b| b == byte).count()
}

/// Where a run of exactly `run` backticks starts between `from` and `end`.
fn closing_run(bytes: &[u8], from: usize, end: usize, run: usize) -> Option<usize> {
    let mut at = from;
    while at < end {
        if bytes[at] == b'`' {
            let length = count(bytes, at, end, b'`');
            if length == run {
                return Some(at);
            }
            at += length;
        } else {
            at += 1;
        }
    }
    None
}

/// A fence's marker and width when `line` opens one. Any indentation is taken: skills put
/// fences inside list items, indented by the item's width.
fn fence_open(line: &str) -> Option<(u8, usize)> {
    let trimmed = line.trim_start();
    let marker = *trimmed.as_bytes().first()?;
    if marker != b'`' && marker != b'~' {
        return None;
    }
    let width = trimmed.bytes().take_while(|&b| b == marker).count();
    let info = &trimmed[width..];
    // A backtick fence's info string holds no backtick (else it is inline code).
    (width >= 3 && !(marker == b'`' && info.contains('`'))).then_some((marker, width))
}

/// The end of the fence whose opening line ends at `open_end`: after its closing line, or
/// the end of the text when it is never closed.
fn fence_end(text: &str, open_end: usize, marker: u8, width: usize) -> usize {
    let mut start = next_line(text, open_end);
    while start < text.len() {
        let end = line_end(text, start);
        let trimmed = text[start..end].trim();
        let run = trimmed.bytes().take_while(|&b| b == marker).count();
        if run >= width && run == trimmed.len() {
            return next_line(text, end);
        }
        start = next_line(text, end);
    }
    text.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region_of(text: &str, needle: &str) -> Option<Region> {
        let spans = Spans::markdown(text);
        spans.region(text.find(needle).unwrap())
    }

    #[test]
    fn fences_inline_code_and_comments_are_found_and_prose_is_not() {
        let text = "Say hi.\n```sh\nrm -rf x\n```\nUse `ls -la` here.\n<!-- hidden\nnote -->after\n  ~~~\n  tilde\n  ~~~\nend\n";
        assert_eq!(region_of(text, "Say"), None);
        assert_eq!(region_of(text, "rm -rf"), Some(Region::Fence));
        assert_eq!(region_of(text, "```\nUse"), Some(Region::Fence));
        assert_eq!(region_of(text, "ls -la"), Some(Region::InlineCode));
        assert_eq!(region_of(text, "here"), None);
        assert_eq!(region_of(text, "note"), Some(Region::Comment));
        assert_eq!(region_of(text, "after"), None);
        assert_eq!(region_of(text, "tilde"), Some(Region::Fence));
        assert_eq!(region_of(text, "end"), None);
    }

    #[test]
    fn a_comment_in_a_fence_or_in_code_is_not_a_comment() {
        let text = "```html\n<!-- template -->\n```\n`<!-- code -->` and <!-- real -->\n";
        let spans = Spans::markdown(text);
        let comments: Vec<&str> = spans.comments(text).map(|(_, r)| &text[r]).collect();
        assert_eq!(comments, [" real "]);
    }

    #[test]
    fn unclosed_fences_and_comments_run_to_the_end() {
        assert_eq!(region_of("a\n```\nb\nc", "c"), Some(Region::Fence));
        let text = "a <!-- b\nc";
        assert_eq!(region_of(text, "c"), Some(Region::Comment));
        let spans = Spans::markdown(text);
        let comments: Vec<&str> = spans.comments(text).map(|(_, r)| &text[r]).collect();
        assert_eq!(comments, [" b\nc"]);
    }

    #[test]
    fn a_longer_fence_is_closed_only_by_as_many_markers() {
        let text = "````\n```\ninside\n```\nstill\n````\nout\n";
        assert_eq!(region_of(text, "still"), Some(Region::Fence));
        assert_eq!(region_of(text, "out"), None);
    }

    #[test]
    fn unmatched_backticks_are_plain_text() {
        let text = "a ` b ``c`` d\n";
        assert_eq!(region_of(text, "b"), None);
        assert_eq!(region_of(text, "c"), Some(Region::InlineCode));
        assert_eq!(region_of(text, "d"), None);
    }

    #[test]
    fn odd_inputs_do_not_panic() {
        for text in ["", "`", "<!--", "<!---->", "```", "\n\n", "é`é`", "<!-- é"] {
            let spans = Spans::markdown(text);
            for offset in 0..=text.len() {
                let _ = spans.region(offset);
            }
            let _ = spans.comments(text).count();
        }
    }
}
