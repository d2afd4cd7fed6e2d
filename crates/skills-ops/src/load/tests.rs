//! Tests of the lenient loader: the splitting, decoding and normalisation rules of 01.

use std::path::{Path, PathBuf};

use skills_types::limits::MAX_SKILL_MD_BYTES;
use skills_types::{DiagnosticCode, Error, SkillDocument};

use super::*;

fn path() -> PathBuf {
    PathBuf::from("/skills/pdf-tools/SKILL.md")
}

fn parse(text: &str) -> SkillDocument {
    parse_document(&path(), text.as_bytes()).unwrap()
}

fn codes(document: &SkillDocument) -> Vec<DiagnosticCode> {
    document.diagnostics.iter().map(|d| d.code).collect()
}

fn unloadable_code(result: Result<SkillDocument, Error>) -> DiagnosticCode {
    match result {
        Err(Error::Unloadable { diagnostic, .. }) => diagnostic.code,
        other => panic!("expected an unloadable file, got {other:?}"),
    }
}

#[test]
fn a_complete_file_loads_without_diagnostics() {
    let document = parse(
        "---\nname: pdf-tools\ndescription: Reads PDFs.\nlicense: MIT\ncompatibility: Needs poppler\n\
         metadata:\n  version: 1.0\n  author: Ann\nallowed-tools: Read Write\n---\n# PDF\n\nBody.\n",
    );
    assert!(
        document.diagnostics.is_empty(),
        "{:?}",
        document.diagnostics
    );
    let frontmatter = &document.frontmatter;
    assert_eq!(frontmatter.name, "pdf-tools");
    assert_eq!(frontmatter.description, "Reads PDFs.");
    assert_eq!(frontmatter.license.as_deref(), Some("MIT"));
    assert_eq!(frontmatter.compatibility.as_deref(), Some("Needs poppler"));
    assert_eq!(frontmatter.metadata["version"], "1.0");
    assert_eq!(frontmatter.version().as_deref(), Some("1.0"));
    assert_eq!(frontmatter.allowed_tools, ["Read", "Write"]);
    assert_eq!(document.body, "# PDF\n\nBody.\n");
}

#[test]
fn metadata_scalars_keep_their_source_text() {
    let document = parse(
        "---\nname: a\ndescription: d\nmetadata: {version: 1.0, build: 007, beta: yes, flag: True, n: ~, nested: {a: [1, 2]}}\n---\n",
    );
    let metadata = &document.frontmatter.metadata;
    assert_eq!(metadata["version"], "1.0");
    assert_eq!(metadata["build"], "007");
    assert_eq!(metadata["beta"], "yes");
    assert_eq!(metadata["flag"], "True");
    assert_eq!(metadata["n"], "~");
    assert_eq!(metadata["nested"], r#"{"a":[1,2]}"#);
    let block = parse("---\nname: a\ndescription: d\nmetadata:\n  version: 1.10\n---\n");
    assert_eq!(block.frontmatter.metadata["version"], "1.10");
}

#[test]
fn numbers_and_booleans_are_accepted_as_text() {
    let document = parse("---\nname: 2048\ndescription: true\nlicense: 1.0\n---\n");
    assert_eq!(document.frontmatter.name, "2048");
    assert_eq!(document.frontmatter.description, "true");
    assert_eq!(document.frontmatter.license.as_deref(), Some("1.0"));
}

#[test]
fn bom_and_crlf_files_load() {
    let document =
        parse("\u{feff}---\r\nname: pdf-tools\r\ndescription: Reads PDFs.\r\n---\r\nBody\r\n");
    assert!(
        document.diagnostics.is_empty(),
        "{:?}",
        document.diagnostics
    );
    assert_eq!(document.frontmatter.name, "pdf-tools");
    assert_eq!(document.frontmatter.description, "Reads PDFs.");
    assert_eq!(document.body, "Body\r\n");
}

#[test]
fn body_with_rules_is_returned_intact() {
    let body = "Intro\n\n---\n\nSection two\n---\n...\n--- \nend";
    let document = parse(&format!("---\nname: a\ndescription: d\n---\n{body}"));
    assert_eq!(document.body, body);
}

#[test]
fn non_utf8_is_a_clean_error() {
    let mut bytes = b"---\nname: a\ndescription: caf".to_vec();
    bytes.extend_from_slice(&[0xe9, b'\n']);
    bytes.extend_from_slice(b"---\n");
    let result = parse_document(&path(), &bytes);
    assert_eq!(unloadable_code(result), DiagnosticCode::NotUtf8);
}

#[test]
fn unterminated_frontmatter_is_an_error() {
    let result = parse_document(&path(), b"---\nname: a\ndescription: d\n");
    assert_eq!(
        unloadable_code(result),
        DiagnosticCode::UnterminatedFrontmatter
    );
}

#[test]
fn no_frontmatter_keeps_the_whole_file_as_body() {
    let text = "# Deploy\n\nShips the app to production.\n\nMore.\n";
    let document = parse(text);
    assert_eq!(document.body, text);
    assert_eq!(document.frontmatter.name, "pdf-tools");
    assert_eq!(
        document.frontmatter.description,
        "Ships the app to production."
    );
    assert_eq!(
        codes(&document),
        [
            DiagnosticCode::NoFrontmatter,
            DiagnosticCode::NameDefaulted,
            DiagnosticCode::DescriptionDefaulted
        ]
    );
}

#[test]
fn description_defaults_skip_headings_code_and_comments() {
    let document = parse(
        "---\nname: a\n---\n# Title\n<!-- note -->\n```\ncode\n```\n\nFirst line\nsecond line.\n\nLater.\n",
    );
    assert_eq!(document.frontmatter.description, "First line second line.");
    let none = parse("---\nname: a\n---\n# Only a heading\n");
    assert_eq!(none.frontmatter.description, "");
    assert_eq!(codes(&none), [DiagnosticCode::DescriptionMissing]);
}

#[test]
fn yaml_errors_are_diagnostics_with_file_lines() {
    let document = parse("---\nname: a\ndescription: [unclosed\n---\nBody\n");
    assert_eq!(document.body, "Body\n");
    assert_eq!(document.frontmatter.name, "pdf-tools");
    let yaml = &document.diagnostics[0];
    assert_eq!(yaml.code, DiagnosticCode::YamlError);
    assert!(yaml.line.is_some_and(|line| line >= 3), "{yaml:?}");

    let scalar = parse("---\njust words\n---\n");
    assert_eq!(scalar.diagnostics[0].code, DiagnosticCode::YamlError);
    assert!(scalar.diagnostics[0].message.contains("not a mapping"));
}

#[test]
fn allowed_tools_in_all_three_shapes() {
    let spaced =
        parse("---\nname: a\ndescription: d\nallowed-tools: Read Bash(git status:*)  Write\n---\n");
    assert_eq!(
        spaced.frontmatter.allowed_tools,
        ["Read", "Bash(git status:*)", "Write"]
    );
    let commas = parse("---\nname: a\ndescription: d\nallowed-tools: Read, Grep,Write\n---\n");
    assert_eq!(commas.frontmatter.allowed_tools, ["Read", "Grep", "Write"]);
    let list =
        parse("---\nname: a\ndescription: d\nallowed-tools:\n  - Read\n  - Bash(npm run *)\n---\n");
    assert_eq!(list.frontmatter.allowed_tools, ["Read", "Bash(npm run *)"]);
    let underscore = parse("---\nname: a\ndescription: d\nallowed_tools: [Read]\n---\n");
    assert_eq!(underscore.frontmatter.allowed_tools, ["Read"]);
    let both = parse("---\nname: a\ndescription: d\nallowed-tools: A\nallowed_tools: B\n---\n");
    assert_eq!(both.frontmatter.allowed_tools, ["A"]);
    assert_eq!(codes(&both), [DiagnosticCode::ConflictingFields]);
    let mapping = parse("---\nname: a\ndescription: d\nallowed-tools: {a: b}\n---\n");
    assert!(mapping.frontmatter.allowed_tools.is_empty());
    assert_eq!(codes(&mapping), [DiagnosticCode::AllowedToolsInvalid]);
}

#[test]
fn legacy_top_level_fields_move_into_metadata() {
    let document = parse(
        "---\nname: a\ndescription: d\nversion: 2.0\nauthor: Old\ntags: [x, y]\nmetadata:\n  author: New\n---\n",
    );
    let frontmatter = &document.frontmatter;
    assert_eq!(frontmatter.metadata["version"], "2.0");
    assert_eq!(frontmatter.metadata["author"], "New");
    assert_eq!(frontmatter.author().as_deref(), Some("New"));
    assert_eq!(frontmatter.tags(), ["x", "y"]);
    assert!(frontmatter.extra.is_empty());
    assert_eq!(
        codes(&document),
        [DiagnosticCode::DeprecatedTopLevelField; 3]
    );
    assert!(document.diagnostics[1].message.contains("metadata wins"));
}

#[test]
fn unknown_keys_are_kept_in_extra() {
    let document = parse(
        "---\nname: a\ndescription: d\nx-team: docs\nmodel: opus\nhooks: {pre: [1, 2]}\nplatforms: [linux, macos]\ntriggers: cron/daily\n---\n",
    );
    let frontmatter = &document.frontmatter;
    assert_eq!(frontmatter.extra["x-team"], serde_json::json!("docs"));
    assert_eq!(
        frontmatter.extra["hooks"],
        serde_json::json!({"pre": [1, 2]})
    );
    assert_eq!(frontmatter.extra.len(), 3);
    assert_eq!(frontmatter.platforms, ["linux", "macos"]);
    assert_eq!(frontmatter.triggers, ["cron/daily"]);
    assert!(document.diagnostics.is_empty());
}

#[test]
fn invalid_trigger_patterns_are_warnings_on_the_skill() {
    let document = parse(
        "---\nname: a\ndescription: d\ntriggers: [channel/inbound_message, /x, 'cron job', cron/*]\n---\n",
    );
    assert_eq!(
        document.frontmatter.triggers,
        ["channel/inbound_message", "/x", "cron job", "cron/*"]
    );
    assert_eq!(codes(&document), [DiagnosticCode::TriggerInvalid; 2]);
    assert!(document.diagnostics[0].message.contains("'/x'"));
    assert!(document.diagnostics[1].message.contains("'cron job'"));
}

#[test]
fn wrong_types_and_long_values_are_forgiven_with_warnings() {
    let long = "d".repeat(1025);
    let document = parse(&format!(
        "---\nname: [a]\ndescription: {long}\nlicense: {{a: b}}\nmetadata: text\n---\n"
    ));
    assert_eq!(document.frontmatter.name, "pdf-tools");
    assert_eq!(document.frontmatter.license, None);
    assert_eq!(
        codes(&document),
        [
            DiagnosticCode::InvalidFieldType,
            DiagnosticCode::InvalidFieldType,
            DiagnosticCode::MetadataNotMap,
            DiagnosticCode::NameDefaulted,
            DiagnosticCode::DescriptionTooLong,
        ]
    );
}

#[test]
fn yaml_alias_bomb_is_refused_as_too_complex() {
    let mut bomb = String::from(
        "---\nname: a\ndescription: d\nx0: &x0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n",
    );
    for level in 1..12 {
        let previous = format!("*x{}", level - 1);
        bomb.push_str(&format!(
            "x{level}: &x{level} [{}]\n",
            [previous.as_str(); 10].join(", ")
        ));
    }
    bomb.push_str("---\n");
    // Refused by counting expansions before they happen, not by a clock: a timed assertion
    // would flake on a loaded machine, and the count is what keeps the work bounded.
    let document = parse(&bomb);
    assert_eq!(document.diagnostics[0].code, DiagnosticCode::YamlTooComplex);
}

#[test]
fn case_variant_file_name_is_noted() {
    let document = parse_document(
        Path::new("/s/a/skill.md"),
        b"---\nname: a\ndescription: d\n---\n",
    )
    .unwrap();
    assert_eq!(codes(&document), [DiagnosticCode::NoncanonicalFilename]);
}

#[test]
fn size_limit_is_exact() {
    let dir = tempfile::tempdir().unwrap();
    let skill = dir.path().join("big");
    std::fs::create_dir(&skill).unwrap();
    let file = skill.join("SKILL.md");
    let head = "---\nname: big\ndescription: d\n---\n";
    let limit = usize::try_from(MAX_SKILL_MD_BYTES).unwrap();

    std::fs::write(&file, format!("{head}{}", "x".repeat(limit - head.len()))).unwrap();
    let document = load_document(&file).unwrap();
    assert_eq!(document.frontmatter.name, "big");

    std::fs::write(
        &file,
        format!("{head}{}", "x".repeat(limit + 1 - head.len())),
    )
    .unwrap();
    assert_eq!(
        unloadable_code(load_document(&file)),
        DiagnosticCode::TooLarge
    );
}

#[test]
fn definition_file_lookup() {
    let dir = tempfile::tempdir().unwrap();
    assert!(matches!(
        find_definition(&dir.path().join("missing")),
        Err(Error::NotFound { .. })
    ));
    assert!(matches!(
        find_definition(dir.path()),
        Err(Error::NoDefinitionFile { .. })
    ));
    std::fs::write(dir.path().join("WORKFLOW.md"), "x").unwrap();
    assert_eq!(
        find_definition(dir.path()).unwrap(),
        dir.path().join("WORKFLOW.md")
    );
    std::fs::write(dir.path().join("skill.md"), "x").unwrap();
    assert_eq!(
        find_definition(dir.path()).unwrap(),
        dir.path().join("skill.md")
    );
    assert!(matches!(
        find_definition(&dir.path().join("skill.md")),
        Err(Error::NotADirectory { .. })
    ));
}

/// A definition file that is not a regular file is named for what it is: `SKILL.md` a
/// directory, a FIFO, a socket, a dangling symlink.
#[cfg(unix)]
#[test]
fn a_definition_that_is_not_a_file_says_what_it_is() {
    let message = |result: Result<Vec<u8>, Error>| match result {
        Err(Error::Unloadable { diagnostic, .. }) => {
            assert_eq!(diagnostic.code, DiagnosticCode::NotAFile);
            diagnostic.message
        }
        other => panic!("expected not-a-file, got {other:?}"),
    };
    let dir = tempfile::tempdir().unwrap();
    let directory = dir.path().join("a/SKILL.md");
    std::fs::create_dir_all(&directory).unwrap();
    assert_eq!(
        message(read_definition(&directory, 1024)),
        "`SKILL.md` is a directory, not a file"
    );
    let fifo = dir.path().join("b/SKILL.md");
    std::fs::create_dir_all(fifo.parent().unwrap()).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    assert_eq!(
        message(read_definition(&fifo, 1024)),
        "`SKILL.md` is a FIFO, not a regular file"
    );
    let socket = dir.path().join("c/SKILL.md");
    std::fs::create_dir_all(socket.parent().unwrap()).unwrap();
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    assert_eq!(
        message(read_definition(&socket, 1024)),
        "`SKILL.md` is a socket, not a regular file"
    );
    let dangling = dir.path().join("d/skill.md");
    std::fs::create_dir_all(dangling.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink("nowhere", &dangling).unwrap();
    let text = message(read_definition(&dangling, 1024));
    assert!(
        text.starts_with(
            "`skill.md` is a symlink, not a regular file (its target cannot be opened"
        ),
        "{text}"
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_named_skill_md_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("SKILL.md");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    assert_eq!(
        unloadable_code(load_document(&fifo)),
        DiagnosticCode::NotAFile
    );
}
