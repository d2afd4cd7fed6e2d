//! The lexical check every relative path from outside passes first (03 §Reading files
//! safely): resource reads, package entries, compliance evidence, uninstall names.
//!
//! It is deliberately stricter than any one filesystem needs. A path that is fine on Linux but
//! means something else on Windows (`a\b`, `C:x`, `nul.txt`, a trailing dot) is refused
//! everywhere, so a skill that passes here behaves the same on every machine it is copied to.
//! Passing this check proves nothing about symlinks: the opener does that part.

use std::fmt;

use crate::limits::{MAX_RELATIVE_PATH_BYTES, MAX_RELATIVE_PATH_COMPONENTS};

/// Windows device names, refused as a component's stem in any letter case.
const DEVICE_NAMES: &[&str] = &[
    "CON", "PRN", "AUX", "NUL", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8",
    "COM9", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9",
];

/// Why a relative path was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    /// The path is empty.
    Empty,
    /// The path is longer than the byte limit.
    TooLong(usize),
    /// The path has more components than the limit.
    TooManyComponents(usize),
    /// The path starts with `/`.
    Absolute,
    /// The path holds a NUL byte.
    Nul,
    /// The path holds a control character.
    ControlCharacter,
    /// The path holds `\` (a separator on Windows).
    Backslash,
    /// The path holds `:` (a drive or stream separator on Windows).
    Colon,
    /// A component is empty (`a//b`, or a trailing `/`).
    EmptyComponent,
    /// A component is `.`.
    CurrentDirectory,
    /// A component is `..`.
    ParentDirectory,
    /// A component starts with `.` (hidden files, `.git`, `.env`).
    Hidden(String),
    /// A component ends with `.` or a space (silently stripped on Windows).
    TrailingDotOrSpace(String),
    /// A component is a Windows device name.
    DeviceName(String),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => f.write_str("the path is empty"),
            Self::TooLong(bytes) => write!(
                f,
                "the path is {bytes} bytes long; at most {MAX_RELATIVE_PATH_BYTES} are allowed"
            ),
            Self::TooManyComponents(count) => write!(
                f,
                "the path has {count} components; at most {MAX_RELATIVE_PATH_COMPONENTS} are allowed"
            ),
            Self::Absolute => f.write_str("the path is absolute; a relative path is required"),
            Self::Nul => f.write_str("the path contains a NUL byte"),
            Self::ControlCharacter => f.write_str("the path contains a control character"),
            Self::Backslash => f.write_str("the path contains '\\'; use '/' between components"),
            Self::Colon => f.write_str("the path contains ':' (a drive or stream on Windows)"),
            Self::EmptyComponent => {
                f.write_str("the path has an empty component ('//' or a trailing '/')")
            }
            Self::CurrentDirectory => f.write_str("the path has a '.' component"),
            Self::ParentDirectory => {
                f.write_str("the path has a '..' component, which could leave the skill directory")
            }
            Self::Hidden(component) => write!(f, "'{component}' is hidden (starts with '.')"),
            Self::TrailingDotOrSpace(component) => {
                write!(f, "'{component}' ends with a dot or a space")
            }
            Self::DeviceName(component) => {
                write!(f, "'{component}' is a reserved device name on Windows")
            }
        }
    }
}

impl std::error::Error for Refusal {}

/// `path` without its leading `./` prefixes (`./references/x.md`, `././x`): a harmless
/// spelling a person or an agent types, which names the same file. Only whole leading `./`
/// components followed by more path are dropped; a `.` anywhere else (`a/./b`, `./`, `.//x`)
/// is left for [`check_relative`] to refuse, so what is accepted is still exactly one spelling
/// of a path below the base. Resource reads apply it before the check (`reader::read_beneath`).
pub fn strip_current_dir_prefix(path: &str) -> &str {
    let mut rest = path;
    while let Some(after) = rest.strip_prefix("./") {
        if after.is_empty() || after.starts_with('/') {
            break;
        }
        rest = after;
    }
    rest
}

/// Checks a `/`-separated relative path and returns its components.
pub fn check_relative(path: &str) -> Result<Vec<&str>, Refusal> {
    if path.is_empty() {
        return Err(Refusal::Empty);
    }
    if path.len() > MAX_RELATIVE_PATH_BYTES {
        return Err(Refusal::TooLong(path.len()));
    }
    if path.contains('\0') {
        return Err(Refusal::Nul);
    }
    if path.chars().any(char::is_control) {
        return Err(Refusal::ControlCharacter);
    }
    if path.contains('\\') {
        return Err(Refusal::Backslash);
    }
    if path.contains(':') {
        return Err(Refusal::Colon);
    }
    if path.starts_with('/') {
        return Err(Refusal::Absolute);
    }
    let components: Vec<&str> = path.split('/').collect();
    if components.len() > MAX_RELATIVE_PATH_COMPONENTS {
        return Err(Refusal::TooManyComponents(components.len()));
    }
    for component in &components {
        check_component(component)?;
    }
    Ok(components)
}

/// [`check_relative`] for a path a person names on purpose to say where skills are in a
/// source (`install owner/repo/skills/.curated/pdf`, a GitHub `tree/` page, an archive's
/// folder): every rule but the one refusing hidden components. OpenAI keeps its catalog under
/// `skills/.curated`, so a hidden folder on the way to a skill is a place, not a secret; what
/// is *installed* still never holds a hidden component, because every file written passes
/// [`check_relative`] itself. `..`, absolute paths, drives, backslashes, controls, device names
/// and trailing dots stay refused in every component, hidden ones included.
pub fn check_named(path: &str) -> Result<Vec<&str>, Refusal> {
    match check_relative(path) {
        Err(Refusal::Hidden(_)) => {
            // The whole-path checks passed before the components were looked at; each
            // component now gets the rest.
            let components: Vec<&str> = path.split('/').collect();
            for component in &components {
                check_component_of(component, true)?;
            }
            Ok(components)
        }
        other => other,
    }
}

fn check_component(component: &str) -> Result<(), Refusal> {
    check_component_of(component, false)
}

fn check_component_of(component: &str, hidden_allowed: bool) -> Result<(), Refusal> {
    match component {
        "" => return Err(Refusal::EmptyComponent),
        "." => return Err(Refusal::CurrentDirectory),
        ".." => return Err(Refusal::ParentDirectory),
        _ => {}
    }
    if component.starts_with('.') && !hidden_allowed {
        return Err(Refusal::Hidden(component.to_owned()));
    }
    if component.ends_with(['.', ' ']) {
        return Err(Refusal::TrailingDotOrSpace(component.to_owned()));
    }
    let stem = component.split('.').next().unwrap_or(component).trim_end();
    if DEVICE_NAMES
        .iter()
        .any(|device| device.eq_ignore_ascii_case(stem))
    {
        return Err(Refusal::DeviceName(component.to_owned()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn plain_paths_pass() {
        for path in [
            "a",
            "scripts/run.sh",
            "references/deep/er/file.md",
            "a b/c-d_e.txt",
            "日本/語.md",
        ] {
            assert!(check_relative(path).is_ok(), "{path}");
        }
        assert_eq!(check_relative("a/b/c").unwrap(), ["a", "b", "c"]);
    }

    #[test]
    fn hostile_paths_are_refused_with_their_reason() {
        let long = "a".repeat(MAX_RELATIVE_PATH_BYTES + 1);
        let deep = vec!["a"; MAX_RELATIVE_PATH_COMPONENTS + 1].join("/");
        let cases: Vec<(&str, Refusal)> = vec![
            ("", Refusal::Empty),
            (long.as_str(), Refusal::TooLong(MAX_RELATIVE_PATH_BYTES + 1)),
            (
                deep.as_str(),
                Refusal::TooManyComponents(MAX_RELATIVE_PATH_COMPONENTS + 1),
            ),
            ("/etc/passwd", Refusal::Absolute),
            ("a\0b", Refusal::Nul),
            ("a\nb", Refusal::ControlCharacter),
            ("a\\b", Refusal::Backslash),
            ("C:\\x", Refusal::Backslash),
            ("C:x", Refusal::Colon),
            ("a//b", Refusal::EmptyComponent),
            ("a/", Refusal::EmptyComponent),
            ("./a", Refusal::CurrentDirectory),
            ("a/./b", Refusal::CurrentDirectory),
            ("../x", Refusal::ParentDirectory),
            ("a/../../x", Refusal::ParentDirectory),
            (".env", Refusal::Hidden(".env".into())),
            (".git/config", Refusal::Hidden(".git".into())),
            ("a.", Refusal::TrailingDotOrSpace("a.".into())),
            ("a ", Refusal::TrailingDotOrSpace("a ".into())),
            ("CON", Refusal::DeviceName("CON".into())),
            ("nul.txt", Refusal::DeviceName("nul.txt".into())),
            ("x/Lpt9.md", Refusal::DeviceName("Lpt9.md".into())),
        ];
        for (path, refusal) in cases {
            assert_eq!(check_relative(path), Err(refusal), "{path:?}");
        }
        assert!(check_relative("console.md").is_ok());
        assert!(check_relative("com10").is_ok());
    }

    #[test]
    fn a_named_path_may_pass_through_hidden_folders_and_nothing_else() {
        assert_eq!(
            check_named("skills/.curated/pdf").unwrap(),
            ["skills", ".curated", "pdf"]
        );
        assert_eq!(check_named("a/b").unwrap(), ["a", "b"]);
        let cases: Vec<(&str, Refusal)> = vec![
            (".curated/..", Refusal::ParentDirectory),
            ("skills/.curated/../../x", Refusal::ParentDirectory),
            ("/.curated/x", Refusal::Absolute),
            (".x/./y", Refusal::CurrentDirectory),
            (".x//y", Refusal::EmptyComponent),
            (".x:y", Refusal::Colon),
            (".x\\y", Refusal::Backslash),
            (".hidden./x", Refusal::TrailingDotOrSpace(".hidden.".into())),
            (".x/nul.txt", Refusal::DeviceName("nul.txt".into())),
            (".x/a\u{7}", Refusal::ControlCharacter),
        ];
        for (path, refusal) in cases {
            assert_eq!(check_named(path), Err(refusal), "{path:?}");
        }
        // The ordinary check is unchanged.
        assert_eq!(
            check_relative("skills/.curated/pdf"),
            Err(Refusal::Hidden(".curated".into()))
        );
    }

    #[test]
    fn only_leading_current_dir_prefixes_are_stripped() {
        for (path, stripped) in [
            ("./references/x.md", "references/x.md"),
            ("././x", "x"),
            ("x", "x"),
            ("a/./b", "a/./b"),
            ("./", "./"),
            (".//x", ".//x"),
            ("./../x", "../x"),
            ("./.env", ".env"),
            (".", "."),
            ("", ""),
        ] {
            assert_eq!(strip_current_dir_prefix(path), stripped, "{path:?}");
        }
        // What is left still goes through the check: a stripped prefix hides nothing.
        assert_eq!(
            check_relative(strip_current_dir_prefix("./../x")),
            Err(Refusal::ParentDirectory)
        );
        assert_eq!(
            check_relative(strip_current_dir_prefix("./a/./b")),
            Err(Refusal::CurrentDirectory)
        );
    }

    proptest! {
        #[test]
        fn accepted_paths_stay_below_their_base(path in "[a-z./\\\\:]{0,24}") {
            if let Ok(components) = check_relative(&path) {
                let mut depth = 0usize;
                for component in components {
                    prop_assert!(component != ".." && component != "." && !component.is_empty());
                    depth += 1;
                }
                prop_assert!(depth >= 1);
                prop_assert!(!path.starts_with('/'));
            }
        }

        /// The same, for paths spelled with leading `./` prefixes the way resource reads
        /// accept them: stripping never lets a `.`, `..`, empty or absolute component through.
        #[test]
        fn stripped_paths_stay_below_their_base(
            prefixes in 0usize..4,
            path in "[a-z./\\\\:]{0,24}",
        ) {
            let spelled = format!("{}{path}", "./".repeat(prefixes));
            let stripped = strip_current_dir_prefix(&spelled);
            prop_assert!(spelled.ends_with(stripped));
            if let Ok(components) = check_relative(stripped) {
                prop_assert!(!components.is_empty());
                for component in components {
                    prop_assert!(component != ".." && component != "." && !component.is_empty());
                }
                prop_assert!(!stripped.starts_with('/'));
            }
        }
    }
}
