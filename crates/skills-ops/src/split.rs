//! Splitting a definition file into frontmatter and body (01 §Splitting frontmatter from
//! body).
//!
//! The split is line-based, never a substring search: a `---` inside a YAML value, or a
//! Markdown horizontal rule in the body, must not end the frontmatter or lose body bytes.

/// A definition file cut in two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Split<'a> {
    /// The YAML between the fences, or `None` when the file does not open with `---`.
    pub(crate) frontmatter: Option<&'a str>,
    /// Every byte after the closing fence line, verbatim.
    pub(crate) body: &'a str,
}

/// The 1-based line of the file on which frontmatter text starts (after the opening fence).
pub(crate) const FRONTMATTER_FIRST_LINE: u32 = 2;

/// The file opens a frontmatter that never closes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Unterminated;

/// Removes one leading UTF-8 byte order mark.
pub(crate) fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Splits BOM-free text. Accepts `\n` and `\r\n` line ends; fence lines may carry trailing
/// spaces or tabs.
pub(crate) fn split(text: &str) -> Result<Split<'_>, Unterminated> {
    let mut lines = Lines { text, at: 0 };
    let no_frontmatter = Split {
        frontmatter: None,
        body: text,
    };
    let Some((first, _)) = lines.next() else {
        return Ok(no_frontmatter);
    };
    if !is_fence(first, "---") {
        return Ok(no_frontmatter);
    }
    let yaml_start = lines.at;
    while let Some((line, line_start)) = lines.next() {
        if is_fence(line, "---") || is_fence(line, "...") {
            return Ok(Split {
                frontmatter: Some(&text[yaml_start..line_start]),
                body: &text[lines.at..],
            });
        }
    }
    Err(Unterminated)
}

fn is_fence(line: &str, fence: &str) -> bool {
    line.trim_end_matches([' ', '\t', '\r']) == fence
}

/// Lines without their `\n`, each with the byte offset it starts at; `at` is the offset just
/// past the last line returned (after its `\n`).
struct Lines<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Iterator for Lines<'a> {
    type Item = (&'a str, usize);

    fn next(&mut self) -> Option<Self::Item> {
        let start = self.at;
        let rest = self.text.get(start..).filter(|rest| !rest.is_empty())?;
        let (line, advance) = match rest.find('\n') {
            Some(end) => (&rest[..end], end + 1),
            None => (rest, rest.len()),
        };
        self.at = start + advance;
        Some((line, start))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_lf_and_crlf() {
        let split_lf = split("---\nname: a\n---\nbody\n").unwrap();
        assert_eq!(split_lf.frontmatter, Some("name: a\n"));
        assert_eq!(split_lf.body, "body\n");

        let split_crlf = split("---\r\nname: a\r\n---\r\nbody\r\n").unwrap();
        assert_eq!(split_crlf.frontmatter, Some("name: a\r\n"));
        assert_eq!(split_crlf.body, "body\r\n");
    }

    #[test]
    fn body_keeps_later_rules_verbatim() {
        let text = "---\nname: a\n---\n\nintro\n\n---\n\nmore\n---\n";
        let parts = split(text).unwrap();
        assert_eq!(parts.body, "\nintro\n\n---\n\nmore\n---\n");
    }

    #[test]
    fn fences_allow_trailing_spaces_and_dots_close() {
        let parts = split("--- \t\nname: a\n... \nbody").unwrap();
        assert_eq!(parts.frontmatter, Some("name: a\n"));
        assert_eq!(parts.body, "body");
    }

    #[test]
    fn dashes_inside_a_value_do_not_close() {
        let parts = split("---\ndescription: a --- b\n---x\n---\nbody").unwrap();
        assert_eq!(parts.frontmatter, Some("description: a --- b\n---x\n"));
        assert_eq!(parts.body, "body");
    }

    #[test]
    fn no_opening_fence_means_all_body() {
        for text in ["", "# Title\n", " ---\nname: a\n---\n", "----\n", "text"] {
            let parts = split(text).unwrap();
            assert_eq!(parts.frontmatter, None, "{text:?}");
            assert_eq!(parts.body, text);
        }
    }

    #[test]
    fn unterminated_frontmatter_is_an_error() {
        assert_eq!(split("---\nname: a\n"), Err(Unterminated));
        assert_eq!(split("---"), Err(Unterminated));
        assert_eq!(split("---\n"), Err(Unterminated));
    }

    #[test]
    fn closing_fence_at_end_of_file() {
        let parts = split("---\nname: a\n---").unwrap();
        assert_eq!(parts.frontmatter, Some("name: a\n"));
        assert_eq!(parts.body, "");
        let empty = split("---\n---\n").unwrap();
        assert_eq!(empty.frontmatter, Some(""));
    }

    #[test]
    fn bom_is_stripped_once() {
        assert_eq!(strip_bom("\u{feff}\u{feff}x"), "\u{feff}x");
        assert_eq!(strip_bom("x"), "x");
    }
}
