//! One skill's scan, from files to [`Report`]: parse what the analyzers need once, run them,
//! and put the verdict together.

use std::path::Path;
use std::sync::Arc;

use sha2::{Digest, Sha256};
use skills_types::Error;
use skills_types::audit::{Report, Severity, Skipped};
use skills_types::files::SKILL_MD;

use crate::analyzers::{self, RuleSet};
use crate::files::{self, Caps, Neighbours, ScannedFile, Skill};
use crate::findings::Collector;

/// The version of the built-in rules. A report records it, and an install records the
/// report's: when it changes, `skills check` scans again. Bump it with any change to a rule
/// (the rules' fingerprint test fails until it is bumped).
pub const RULES_VERSION: &str = "2026.12.5";

/// Every [`RULES_VERSION`] with the fingerprint of the built-in rules it names, oldest
/// first: a test recomputes the fingerprint, so changing a rule (an id, a severity, a
/// category, a pattern or word list of an analyzer, a shipped YARA file) without a new
/// version and a new line here fails. (2026.12.1's line was recomputed when the fingerprint
/// came to cover the analyzers' patterns; its rules did not change.)
#[cfg(test)]
const RULES_FINGERPRINTS: &[(&str, &str)] = &[
    (
        "2026.12.0",
        "662dd4852394f4a678304b1e5e95a78339fdc4d4f1c2c37a3da7303550f61f04",
    ),
    (
        "2026.12.1",
        "906541d69d04d5e531d50e064ae49d4b0057001d3dca2154e41690a0b057fd81",
    ),
    (
        "2026.12.2",
        "f71b39dc483c7c91ed15eddab78c16bde4f035a0a0b703745ce88ee3843fa0dc",
    ),
    (
        "2026.12.3",
        "b724909b568f06eeff7fcf943163e619299aecf6be1c983630e9b617c31b80c1",
    ),
    // The same rules as 2026.12.3: their wide classes are written unfolded for the compiler
    // (`analyzers::unfolded`, proved to parse to the same expressions).
    (
        "2026.12.4",
        "265d59da3b7aa312e6701b276bb732d62d428add2d22797d7dbf8b57894b9298",
    ),
    // The same rules as 2026.12.4: the package-install and import expressions are run only
    // on a text holding a word every match of theirs holds (`supply.rs`).
    (
        "2026.12.5",
        "e9a77c994d5241c9cdc71897f10ec4dd9ebd9bb69ca591dbcbc17e49e3c082ee",
    ),
];

/// How a scan runs.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    /// A report is not safe with a finding at or above this.
    pub fail_on: Severity,
    /// How much of a skill is read.
    pub caps: Caps,
    /// The names of the other skills the user has, for names that imitate one.
    pub neighbours: Vec<String>,
    /// The user's YARA rules, compiled once for every skill the options scan
    /// ([`Options::with_rule_dirs`]).
    user_rules: Option<Arc<RuleSet>>,
}

impl Options {
    /// Failing on high, with the default caps and no neighbours.
    pub fn new() -> Self {
        Self {
            fail_on: Severity::High,
            caps: Caps::default(),
            neighbours: Vec::new(),
            user_rules: None,
        }
    }

    /// This threshold instead.
    pub fn with_fail_on(mut self, fail_on: Severity) -> Self {
        self.fail_on = fail_on;
        self
    }

    /// These neighbours instead.
    pub fn with_neighbours(mut self, neighbours: Vec<String>) -> Self {
        self.neighbours = neighbours;
        self
    }

    /// The YARA rule files (`*.yar`, `*.yara`) directly in these folders, compiled once, run
    /// on every skill these options scan besides the shipped rules (replacing folders given
    /// before). An error, and no scan, when a folder or rule file cannot be read, is a
    /// link, or holds a rule that does not compile or is outside the supported subset of
    /// YARA: the message names the file and line. A rule the user wrote is never skipped.
    pub fn with_rule_dirs<P: AsRef<Path>>(mut self, dirs: &[P]) -> Result<Self, Error> {
        let dirs: Vec<&Path> = dirs.iter().map(AsRef::as_ref).collect();
        self.user_rules = RuleSet::from_dirs(&dirs)?.map(Arc::new);
        Ok(self)
    }

    /// The neighbours, to share between the scans of one request.
    pub(crate) fn shared_neighbours(&self) -> Neighbours {
        Neighbours::new(self.neighbours.clone())
    }

    /// The version of the rules a scan with these options applies, as reports record it:
    /// [`RULES_VERSION`], followed by `+user.` and a short digest of the user's rule files
    /// when there are some, so a change to them makes `skills check` scan again.
    pub fn rules_version(&self) -> String {
        match &self.user_rules {
            None => RULES_VERSION.to_owned(),
            Some(rules) => format!("{RULES_VERSION}+user.{}", rules.short_digest()),
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Self::new()
    }
}

/// Scans the skill folder `dir`. An error only when the folder cannot be read at all; a file
/// that cannot be read is in the report's `skipped`.
pub fn scan_dir(dir: &Path, options: &Options) -> Result<Report, Error> {
    scan_dir_among(dir, options, &options.shared_neighbours())
}

/// [`scan_dir`] with the neighbours shared by every scan of a request (built once by
/// [`Options::shared_neighbours`] rather than copied for each skill).
pub(crate) fn scan_dir_among(
    dir: &Path,
    options: &Options,
    neighbours: &Neighbours,
) -> Result<Report, Error> {
    let read = files::read_dir(dir, &options.caps)?;
    Ok(scan(dir, read.files, read.skipped, options, neighbours))
}

/// Scans a skill held in memory (`(relative path, bytes)`, as an install stages it) before
/// anything is written. `path` is what the report names it by.
pub fn scan_files(path: &Path, staged: &[(String, Vec<u8>)], options: &Options) -> Report {
    let cap = usize::try_from(options.caps.bytes_per_file).unwrap_or(usize::MAX);
    let mut skipped = Vec::new();
    let mut files = Vec::new();
    for (relative, bytes) in staged {
        if files.len() >= options.caps.files {
            skipped.push(Skipped {
                file: relative.clone(),
                reason: format!("more than {} files in the skill", options.caps.files),
            });
            continue;
        }
        let kept = &bytes[..bytes.len().min(cap)];
        if kept.len() < bytes.len() {
            skipped.push(Skipped {
                file: relative.clone(),
                reason: format!("read the first {} bytes of {}", kept.len(), bytes.len()),
            });
        }
        files.push(ScannedFile::new(
            relative.clone(),
            kept.to_vec(),
            bytes.len() as u64,
        ));
    }
    files.sort_by(|a, b| {
        (a.path != SKILL_MD)
            .cmp(&(b.path != SKILL_MD))
            .then_with(|| a.path.cmp(&b.path))
    });
    scan(path, files, skipped, options, &options.shared_neighbours())
}

fn scan(
    path: &Path,
    files: Vec<ScannedFile>,
    skipped: Vec<Skipped>,
    options: &Options,
    neighbours: &Neighbours,
) -> Report {
    let digest = digest(&files);
    let frontmatter = files
        .iter()
        .find(|file| file.path == SKILL_MD)
        .and_then(|file| skills_ops::load::parse_document(&path.join(SKILL_MD), &file.bytes).ok())
        .map(|document| document.frontmatter);
    let field = |pick: fn(&skills_types::Frontmatter) -> &str| {
        frontmatter
            .as_ref()
            .map(pick)
            .filter(|value| !value.is_empty())
            .map(str::to_owned)
    };
    let folder = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let skill = Skill {
        name: field(|frontmatter| &frontmatter.name).unwrap_or(folder),
        description: field(|frontmatter| &frontmatter.description).unwrap_or_default(),
        frontmatter,
        files,
        neighbours: neighbours.clone(),
    };
    let mut out = Collector::default();
    analyzers::run(&skill, options.user_rules.as_deref(), &mut out);
    let findings = out.into_sorted();
    Report::new(
        skills_types::sanitize::line(&skill.name).into_owned(),
        path.to_path_buf(),
        findings,
        options.fail_on,
        &options.rules_version(),
        digest,
        skipped,
    )
}

/// The digest of the files as scanned: each path and its bytes, in path order, so the same
/// files always give the same digest and any change (a byte, a name, a file added) gives
/// another.
fn digest(files: &[ScannedFile]) -> String {
    let mut sorted: Vec<&ScannedFile> = files.iter().collect();
    sorted.sort_by(|a, b| a.path.cmp(&b.path));
    let mut hasher = Sha256::new();
    for file in sorted {
        hasher.update((file.path.len() as u64).to_le_bytes());
        hasher.update(file.path.as_bytes());
        hasher.update(file.size.to_le_bytes());
        hasher.update((file.bytes.len() as u64).to_le_bytes());
        hasher.update(&file.bytes);
    }
    format!("sha256:{:x}", hasher.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The analyzers' sources whose string literals are their patterns, word lists and
    /// thresholds' words (the YARA engine is not among them: the shipped rule files are
    /// hashed whole).
    const PATTERN_SOURCES: &[(&str, &str)] = &[
        ("analyzers.rs", include_str!("analyzers.rs")),
        ("instructions.rs", include_str!("analyzers/instructions.rs")),
        (
            "instructions/patterns.rs",
            include_str!("analyzers/instructions/patterns.rs"),
        ),
        (
            "instructions/context.rs",
            include_str!("analyzers/instructions/context.rs"),
        ),
        (
            "instructions/markdown.rs",
            include_str!("analyzers/instructions/markdown.rs"),
        ),
        ("hidden.rs", include_str!("analyzers/hidden.rs")),
        (
            "hidden/decode.rs",
            include_str!("analyzers/hidden/decode.rs"),
        ),
        ("hidden/names.rs", include_str!("analyzers/hidden/names.rs")),
        (
            "hidden/payload.rs",
            include_str!("analyzers/hidden/payload.rs"),
        ),
        ("scripts.rs", include_str!("analyzers/scripts.rs")),
        ("examine.rs", include_str!("analyzers/examine.rs")),
        (
            "examine/python.rs",
            include_str!("analyzers/examine/python.rs"),
        ),
        (
            "examine/javascript.rs",
            include_str!("analyzers/examine/javascript.rs"),
        ),
        ("manifest.rs", include_str!("analyzers/manifest.rs")),
        ("code.rs", include_str!("analyzers/code.rs")),
        ("shell.rs", include_str!("analyzers/shell.rs")),
        ("hosts.rs", include_str!("analyzers/hosts.rs")),
        ("mcp.rs", include_str!("analyzers/mcp.rs")),
        ("sidecar.rs", include_str!("analyzers/sidecar.rs")),
        ("supply.rs", include_str!("analyzers/supply.rs")),
    ];

    /// The string literals of a Rust source before its test module: `"…"`, `b"…"` and raw
    /// `r#"…"#`, each as written between its quotes. Comments and character literals are
    /// stepped over.
    fn string_literals(source: &str) -> Vec<&str> {
        let code = source
            .split("#[cfg(test)]\nmod tests")
            .next()
            .unwrap_or(source);
        let bytes = code.as_bytes();
        let mut literals = Vec::new();
        let mut at = 0;
        let identifier = |byte: u8| byte.is_ascii_alphanumeric() || byte == b'_';
        while at < bytes.len() {
            let rest = &code[at..];
            if rest.starts_with("//") {
                at += rest.find('\n').unwrap_or(rest.len());
            } else if rest.starts_with('\'') {
                // A character literal (`'a'`, `'\''`, `'\u{200b}'`, `'а'`) or a lifetime.
                let mut characters = rest.char_indices().skip(1);
                match (characters.next(), characters.next()) {
                    (Some((_, '\\')), _) => {
                        at += rest[3..].find('\'').map_or(rest.len(), |end| end + 4);
                    }
                    (Some(_), Some((end, '\''))) => at += end + 1,
                    _ => at += 1,
                }
            } else if (rest.starts_with("r\"") || rest.starts_with("r#"))
                && (at == 0 || !identifier(bytes[at - 1]) || bytes[at - 1] == b'b')
            {
                let hashes = rest[1..].bytes().take_while(|&byte| byte == b'#').count();
                let open = 1 + hashes;
                if rest.as_bytes().get(open) != Some(&b'"') {
                    at += 1;
                    continue;
                }
                let close = format!("\"{}", "#".repeat(hashes));
                let body = &rest[open + 1..];
                let end = body.find(&close).unwrap_or(body.len());
                literals.push(&body[..end]);
                at += open + 1 + end + close.len();
            } else if let Some(body) = rest.strip_prefix('"') {
                let mut end = 0;
                let mut escaped = false;
                for (offset, byte) in body.bytes().enumerate() {
                    end = offset;
                    match byte {
                        b'\\' if !escaped => escaped = true,
                        b'"' if !escaped => break,
                        _ => escaped = false,
                    }
                }
                literals.push(&body[..end]);
                at += end + 2;
            } else {
                at += rest.chars().next().map_or(1, char::len_utf8);
            }
        }
        literals
    }

    /// The fingerprint of the built-in rules: every rule's id, severity and category, the
    /// patterns and word lists of every analyzer (the string literals of its sources), and
    /// every shipped YARA file's name and text.
    fn rules_fingerprint() -> String {
        let mut rules = analyzers::all_rules();
        rules.sort_by_key(|rule| rule.id);
        let mut hasher = Sha256::new();
        for rule in rules {
            for part in [rule.id, rule.severity.as_str(), rule.category.as_str()] {
                hasher.update((part.len() as u64).to_le_bytes());
                hasher.update(part.as_bytes());
            }
        }
        for (name, source) in PATTERN_SOURCES {
            for part in std::iter::once(*name).chain(string_literals(source)) {
                hasher.update((part.len() as u64).to_le_bytes());
                hasher.update(part.as_bytes());
            }
        }
        for (name, text) in analyzers::SHIPPED_RULE_FILES {
            for part in [name, text] {
                hasher.update((part.len() as u64).to_le_bytes());
                hasher.update(part.as_bytes());
            }
        }
        format!("{:x}", hasher.finalize())
    }

    #[test]
    fn string_literals_are_read_as_written() {
        let source = concat!(
            "// \"not this\"\n",
            "const A: &str = r\"\\bsend\\b\"; const B: &str = \"a \\\" b\";\n",
            "const C: char = '\"'; const D: char = '\\''; fn f<'a>(x: &'a str) {}\n",
            "const E: &[u8] = br#\"x\"y\"#; const F: char = 'а';\n",
            "#[cfg(test)]\nmod tests { const G: &str = \"later\"; }\n",
        );
        assert_eq!(
            string_literals(source),
            [r"\bsend\b", r#"a \" b"#, r#"x"y"#]
        );
    }

    #[test]
    fn the_fingerprint_reads_every_pattern_source() {
        for (name, source) in PATTERN_SOURCES {
            assert!(!string_literals(source).is_empty(), "{name}");
        }
        let listed: Vec<&str> = PATTERN_SOURCES.iter().map(|(name, _)| *name).collect();
        assert!(listed.contains(&"instructions/patterns.rs"));
        // Every analyzer file but the tests, the literal gate and its automaton (engines, no
        // rule), the instruction phrases' written literals, the shipped automata and the
        // YARA engine (its shipped rule files are hashed whole) is read: a new analyzer file
        // that is not would let its patterns change under an unchanged version.
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/analyzers");
        let mut pending = vec![dir.clone()];
        while let Some(folder) = pending.pop() {
            for entry in std::fs::read_dir(&folder).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    pending.push(path);
                    continue;
                }
                let name = path
                    .strip_prefix(&dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                // `instructions/required.rs` and `lean/frozen.nfa` are derived from the
                // patterns, and their tests fail when they differ: they hold no rule of their
                // own.
                let engine = name.ends_with("tests.rs")
                    || name == "literals.rs"
                    || name == "automaton.rs"
                    || name == "instructions/required.rs"
                    || name == "lean.rs"
                    || name.starts_with("lean/")
                    || name == "rules.rs"
                    || name.starts_with("yara");
                assert!(
                    engine || listed.contains(&name.as_str()),
                    "{name} holds rules the fingerprint does not read: add it to PATTERN_SOURCES"
                );
            }
        }
    }

    #[test]
    fn the_rules_fingerprint_is_recorded_for_this_rules_version() {
        let fingerprint = rules_fingerprint();
        let Some((version, recorded)) = RULES_FINGERPRINTS.last() else {
            panic!("RULES_FINGERPRINTS is empty")
        };
        assert_eq!(
            (*version, *recorded),
            (RULES_VERSION, fingerprint.as_str()),
            "the built-in rules changed: bump RULES_VERSION and add (\"<new version>\", \"{fingerprint}\") to RULES_FINGERPRINTS"
        );
        for (index, (version, fingerprint)) in RULES_FINGERPRINTS.iter().enumerate() {
            assert!(
                RULES_FINGERPRINTS[..index]
                    .iter()
                    .all(|(older, print)| older != version && print != fingerprint),
                "{version} repeats an older version or fingerprint: each change of the rules is a new version"
            );
        }
    }

    fn staged(files: &[(&str, &str)]) -> Vec<(String, Vec<u8>)> {
        files
            .iter()
            .map(|(path, text)| ((*path).to_owned(), text.as_bytes().to_vec()))
            .collect()
    }

    #[test]
    fn the_digest_changes_with_any_byte_or_name_and_not_with_order() {
        let options = Options::new();
        let a = scan_files(
            Path::new("x"),
            &staged(&[("SKILL.md", "a"), ("b.py", "b")]),
            &options,
        );
        let reordered = scan_files(
            Path::new("x"),
            &staged(&[("b.py", "b"), ("SKILL.md", "a")]),
            &options,
        );
        let changed = scan_files(
            Path::new("x"),
            &staged(&[("SKILL.md", "a"), ("b.py", "c")]),
            &options,
        );
        let renamed = scan_files(
            Path::new("x"),
            &staged(&[("SKILL.md", "a"), ("c.py", "b")]),
            &options,
        );
        assert_eq!(a.digest, reordered.digest);
        assert_ne!(a.digest, changed.digest);
        assert_ne!(a.digest, renamed.digest);
    }

    #[test]
    fn the_name_comes_from_the_frontmatter_else_the_folder() {
        let options = Options::new();
        let named = scan_files(
            Path::new("dir/folder"),
            &staged(&[("SKILL.md", "---\nname: pdf\ndescription: d\n---\nbody\n")]),
            &options,
        );
        assert_eq!(named.skill_name, "pdf");
        let bare = scan_files(
            Path::new("dir/folder"),
            &staged(&[("SKILL.md", "no frontmatter")]),
            &options,
        );
        assert_eq!(bare.skill_name, "folder");
    }

    #[test]
    fn a_file_over_the_cap_is_read_in_part_and_reported() {
        let mut options = Options::new();
        options.caps.bytes_per_file = 4;
        let report = scan_files(
            Path::new("x"),
            &staged(&[("SKILL.md", "0123456789")]),
            &options,
        );
        assert_eq!(report.skipped.len(), 1);
        assert!(
            report.skipped[0].reason.contains("first 4 bytes of 10"),
            "{:?}",
            report.skipped
        );
    }
}
