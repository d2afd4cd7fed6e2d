//! Table-driven tests of the validator: every rule and code of 01 in every profile it applies
//! to, each case on a real directory so the name-versus-directory rule and the package rules
//! see what they would see in use.

use std::path::{Path, PathBuf};

use skills_types::validate::{Options, Profile, Report};
use skills_types::{DiagnosticCode, Severity};

use super::*;
use DiagnosticCode::*;
use Severity::{Error as E, Warning as W};

/// Writes `SKILL.md` holding `text` into `<root>/<dir>` and validates it.
fn run_in(root: &Path, dir: &str, text: &[u8], options: &Options) -> Report {
    let skill = root.join(dir);
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(skill.join("SKILL.md"), text).unwrap();
    validate_path(&skill, options).unwrap()
}

type Finding = (Severity, DiagnosticCode);

fn findings(report: &Report) -> Vec<Finding> {
    report
        .diagnostics
        .iter()
        .map(|diagnostic| (diagnostic.severity, diagnostic.code))
        .collect()
}

fn frontmatter(fields: &str) -> String {
    format!("---\n{fields}---\n# Body\n\nText.\n")
}

struct Case {
    what: &'static str,
    dir: &'static str,
    text: String,
    profile: Profile,
    expect: Vec<(Severity, DiagnosticCode)>,
}

fn case(
    what: &'static str,
    dir: &'static str,
    fields: &str,
    expect: &[(Severity, DiagnosticCode)],
) -> Case {
    Case {
        what,
        dir,
        text: frontmatter(fields),
        profile: Profile::Agentskills,
        expect: expect.to_vec(),
    }
}

impl Case {
    fn profile(mut self, profile: Profile) -> Self {
        self.profile = profile;
        self
    }
}

fn check_cases(cases: Vec<Case>) {
    let root = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (index, case) in cases.iter().enumerate() {
        // Each case gets its own parent, so the skill directory can have any name.
        let parent = root.path().join(index.to_string());
        let report = run_in(
            &parent,
            case.dir,
            case.text.as_bytes(),
            &Options::new(case.profile),
        );
        let found = findings(&report);
        let valid = !case.expect.iter().any(|(severity, _)| *severity == E);
        if found != case.expect || report.valid != valid {
            failures.push(format!(
                "{} ({}): expected {:?}, found {:?}\n  {:#?}",
                case.what, case.profile, case.expect, found, report.diagnostics
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

const BASE: &str = "name: pdf-tools\ndescription: Reads PDFs.\n";

#[test]
fn agentskills_field_rules() {
    let long_description = "d".repeat(1025);
    let max_description = "d".repeat(1024);
    let emoji_1024 = "😀".repeat(1024);
    let emoji_1025 = "😀".repeat(1025);
    let name_64 = "a".repeat(64);
    let name_65 = "a".repeat(65);
    let cases = vec![
        case("minimal", "pdf-tools", BASE, &[]),
        case(
            "every optional field",
            "pdf-tools",
            &format!(
                "{BASE}license: Apache-2.0\ncompatibility: Needs poppler-utils\nmetadata:\n  version: 1.0\n  author: me\nallowed-tools: Read Bash(pdftotext:*)\n"
            ),
            &[],
        ),
        case(
            "allowed-tools as a list",
            "pdf-tools",
            &format!("{BASE}allowed-tools: [Read, Write]\n"),
            &[],
        ),
        case(
            "Chinese name",
            "数据分析",
            "name: 数据分析\ndescription: 分析数据。\n",
            &[],
        ),
        case(
            "Cyrillic name",
            "обработка-данных",
            "name: обработка-данных\ndescription: Обработка.\n",
            &[],
        ),
        case(
            "NFKC combining accent against precomposed directory",
            "café",
            "name: cafe\u{301}\ndescription: d\n",
            &[],
        ),
        case(
            "name padded with spaces",
            "pdf-tools",
            "name: '  pdf-tools  '\ndescription: d\n",
            &[],
        ),
        case(
            "64-character name",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            &format!("name: {name_64}\ndescription: d\n"),
            &[],
        ),
        case(
            "65-character name",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            &format!("name: {name_65}\ndescription: d\n"),
            &[(E, NameTooLong)],
        ),
        case(
            "uppercase",
            "PDF-Tools",
            "name: PDF-Tools\ndescription: d\n",
            &[(E, NameNotLowercase)],
        ),
        case(
            "leading hyphen",
            "-pdf",
            "name: -pdf\ndescription: d\n",
            &[(E, NameLeadingTrailingHyphen)],
        ),
        case(
            "trailing hyphen",
            "pdf-",
            "name: pdf-\ndescription: d\n",
            &[(E, NameLeadingTrailingHyphen)],
        ),
        case(
            "double hyphen",
            "pdf--tools",
            "name: pdf--tools\ndescription: d\n",
            &[(E, NameConsecutiveHyphens)],
        ),
        case(
            "underscore",
            "pdf_tools",
            "name: pdf_tools\ndescription: d\n",
            &[(E, NameInvalidCharacters)],
        ),
        case(
            "dot",
            "pdf.tools",
            "name: pdf.tools\ndescription: d\n",
            &[(E, NameInvalidCharacters)],
        ),
        case(
            "combining marks are not letters",
            "हिंदी",
            "name: हिंदी\ndescription: d\n",
            &[(E, NameInvalidCharacters)],
        ),
        case(
            "name differs from directory",
            "pdf",
            BASE,
            &[(E, NameDirectoryMismatch)],
        ),
        case(
            "number as name",
            "2048",
            "name: 2048\ndescription: d\n",
            &[],
        ),
        case(
            "missing name",
            "pdf-tools",
            "description: d\n",
            &[(E, NameMissing)],
        ),
        case(
            "empty name",
            "pdf-tools",
            "name:\ndescription: d\n",
            &[(E, NameEmpty)],
        ),
        case(
            "blank name",
            "pdf-tools",
            "name: '  '\ndescription: d\n",
            &[(E, NameEmpty)],
        ),
        case(
            "list as name",
            "pdf-tools",
            "name: [pdf-tools]\ndescription: d\n",
            &[(E, InvalidFieldType)],
        ),
        case(
            "missing description",
            "pdf-tools",
            "name: pdf-tools\n",
            &[(E, DescriptionMissing)],
        ),
        case(
            "empty description",
            "pdf-tools",
            "name: pdf-tools\ndescription: ''\n",
            &[(E, DescriptionEmpty)],
        ),
        case(
            "null description",
            "pdf-tools",
            "name: pdf-tools\ndescription:\n",
            &[(E, DescriptionEmpty)],
        ),
        case(
            "mapping as description",
            "pdf-tools",
            "name: pdf-tools\ndescription: {a: b}\n",
            &[(E, InvalidFieldType)],
        ),
        case(
            "1,024-character description",
            "pdf-tools",
            &format!("name: pdf-tools\ndescription: {max_description}\n"),
            &[],
        ),
        case(
            "1,025-character description",
            "pdf-tools",
            &format!("name: pdf-tools\ndescription: {long_description}\n"),
            &[(E, DescriptionTooLong)],
        ),
        case(
            "1,024 emoji",
            "pdf-tools",
            &format!("name: pdf-tools\ndescription: {emoji_1024}\n"),
            &[],
        ),
        case(
            "1,025 emoji",
            "pdf-tools",
            &format!("name: pdf-tools\ndescription: {emoji_1025}\n"),
            &[(E, DescriptionTooLong)],
        ),
        case(
            "500-character compatibility",
            "pdf-tools",
            &format!("{BASE}compatibility: {}\n", "c".repeat(500)),
            &[],
        ),
        case(
            "501-character compatibility",
            "pdf-tools",
            &format!("{BASE}compatibility: {}\n", "c".repeat(501)),
            &[(E, CompatibilityTooLong)],
        ),
        case(
            "empty compatibility",
            "pdf-tools",
            &format!("{BASE}compatibility:\n"),
            &[(E, CompatibilityEmpty)],
        ),
        case(
            "list as compatibility",
            "pdf-tools",
            &format!("{BASE}compatibility: [a]\n"),
            &[(E, InvalidFieldType)],
        ),
        case(
            "list as license",
            "pdf-tools",
            &format!("{BASE}license: [MIT]\n"),
            &[(W, InvalidFieldType)],
        ),
        case(
            "metadata as text",
            "pdf-tools",
            &format!("{BASE}metadata: v1\n"),
            &[(E, MetadataNotMap)],
        ),
        case(
            "empty metadata",
            "pdf-tools",
            &format!("{BASE}metadata:\n"),
            &[],
        ),
        case(
            "nested metadata",
            "pdf-tools",
            &format!("{BASE}metadata:\n  a: [1]\n"),
            &[(W, InvalidFieldType)],
        ),
        case(
            "allowed-tools as a mapping",
            "pdf-tools",
            &format!("{BASE}allowed-tools: {{a: b}}\n"),
            &[(E, AllowedToolsInvalid)],
        ),
        case(
            "allowed-tools with nested list",
            "pdf-tools",
            &format!("{BASE}allowed-tools: [[a]]\n"),
            &[(E, AllowedToolsInvalid)],
        ),
        case(
            "unexpected fields are named in one error",
            "pdf-tools",
            &format!("{BASE}version: 1\nmodel: opus\nx-team: docs\nallowed_tools: Read\n"),
            &[(E, UnexpectedField)],
        ),
    ];
    check_cases(cases);
}

#[test]
fn unexpected_fields_error_lists_every_field_once() {
    let root = tempfile::tempdir().unwrap();
    let report = run_in(
        root.path(),
        "pdf-tools",
        frontmatter(&format!("{BASE}zeta: 1\nalpha: 2\nmodel: 3\n")).as_bytes(),
        &Options::default(),
    );
    assert_eq!(report.diagnostics.len(), 1);
    assert!(
        report.diagnostics[0]
            .message
            .starts_with("unexpected fields in frontmatter: alpha, model, zeta;"),
        "{}",
        report.diagnostics[0].message
    );
}

#[test]
fn profiles_differ_where_01_says() {
    let extras = format!("{BASE}platforms: [linux]\ntriggers: [cron/daily]\nx-team: docs\n");
    let legacy = format!("{BASE}version: 2\nauthor: me\ntags: [a]\n");
    let astron = format!("{BASE}x-astron-owner: team\n");
    let cases = vec![
        case("openhuman extras", "pdf-tools", &extras, &[]).profile(Profile::Openhuman),
        case(
            "openhuman extras under agentskills",
            "pdf-tools",
            &extras,
            &[(E, UnexpectedField)],
        ),
        case(
            "openhuman extras under lenient",
            "pdf-tools",
            &extras,
            &[(W, UnexpectedField)],
        )
        .profile(Profile::Lenient),
        case(
            "legacy fields are deprecated in openhuman",
            "pdf-tools",
            &legacy,
            &[
                (W, DeprecatedTopLevelField),
                (W, DeprecatedTopLevelField),
                (W, DeprecatedTopLevelField),
            ],
        )
        .profile(Profile::Openhuman),
        case(
            "platforms must be a list",
            "pdf-tools",
            &format!("{BASE}platforms: {{a: b}}\n"),
            &[(E, InvalidFieldType)],
        )
        .profile(Profile::Openhuman),
        case(
            "lenient forgives the directory",
            "pdf",
            BASE,
            &[(W, NameDirectoryMismatch)],
        )
        .profile(Profile::Lenient),
        case(
            "lenient warns of the name the loader forgives",
            "pdf",
            "name: Pdf\ndescription: d\n",
            &[(W, NameNotLowercase), (W, NameDirectoryMismatch)],
        )
        .profile(Profile::Lenient),
        case("skillhub allows x-astron keys", "pdf-tools", &astron, &[]).profile(Profile::Skillhub),
        case(
            "skillhub refuses other x- keys",
            "pdf-tools",
            &format!("{BASE}x-team: a\n"),
            &[(E, UnexpectedField)],
        )
        .profile(Profile::Skillhub),
        case("openhuman allows any x- key", "pdf-tools", &astron, &[]).profile(Profile::Openhuman),
    ];
    check_cases(cases);
}

/// Every field Claude Code documents, each with a value of the documented type.
const CLAUDE_CODE_ALL: &str = "name: deploy\n\
description: Deploys the current branch to staging.\n\
when_to_use: When the user says ship it.\n\
argument-hint: \"[environment] [version]\"\n\
arguments: environment version\n\
disable-model-invocation: true\n\
user-invocable: yes\n\
allowed-tools: Bash(git push:*) Read\n\
disallowed-tools: [Write]\n\
model: sonnet\n\
effort: high\n\
context: fork\n\
agent: Explore\n\
hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: ./check.sh\n\
paths: [\"src/**\", \"deploy/*.yaml\"]\n\
shell: bash\n\
license: MIT\n\
compatibility: Needs git\n\
metadata:\n  owner: platform\n";

#[test]
fn host_profiles_take_the_fields_and_names_their_hosts_document() {
    let cases = vec![
        case("every Claude Code field", "deploy", CLAUDE_CODE_ALL, &[])
            .profile(Profile::ClaudeCode),
        case(
            "Claude Code's name is optional and need not match the folder",
            "anything",
            "description: Commits.\nallowed-tools: [\"Read\", \"Bash\"]\n",
            &[],
        )
        .profile(Profile::ClaudeCode),
        case(
            "Claude Code's name rule",
            "skill-development",
            "name: Skill Development\ndescription: d\n",
            &[(E, NameNotLowercase), (E, NameInvalidCharacters)],
        )
        .profile(Profile::ClaudeCode),
        case(
            "Claude Code allows no Unicode letters in a name",
            "дата",
            "name: дата\ndescription: d\n",
            &[(E, NameInvalidCharacters)],
        )
        .profile(Profile::ClaudeCode),
        case(
            "a capital that is not ASCII is not only a case problem",
            "дата",
            "name: Дата\ndescription: d\n",
            &[(E, NameNotLowercase), (E, NameInvalidCharacters)],
        )
        .profile(Profile::ClaudeCode),
        case(
            "Claude Code documents no top-level version",
            "pdf-tools",
            &format!("{BASE}version: 0.1.0\n"),
            &[(E, UnexpectedField)],
        )
        .profile(Profile::ClaudeCode),
        case(
            "Claude Code's field types",
            "pdf-tools",
            &format!(
                "{BASE}disable-model-invocation: sometimes\nuser-invocable: [a]\nhooks: run.sh\npaths: {{a: b}}\nmodel: [a]\n"
            ),
            &[
                (E, InvalidFieldType),
                (E, InvalidFieldType),
                (E, InvalidFieldType),
                (E, InvalidFieldType),
                (E, InvalidFieldType),
            ],
        )
        .profile(Profile::ClaudeCode),
        case(
            "Claude Code's documented values",
            "pdf-tools",
            &format!("{BASE}effort: ultra\nshell: zsh\ncontext: inline\nagent: Plan\n"),
            &[
                (W, InvalidFieldValue),
                (W, InvalidFieldValue),
                (W, InvalidFieldValue),
                (W, InvalidFieldValue),
            ],
        )
        .profile(Profile::ClaudeCode),
        case(
            "an unquoted argument-hint is a list Claude Code turns into text",
            "pdf-tools",
            &format!("{BASE}argument-hint: [issue-number]\n"),
            &[(W, InvalidFieldType)],
        )
        .profile(Profile::ClaudeCode),
        case(
            "Claude Code takes the body's paragraph for a missing description",
            "pdf-tools",
            "name: pdf-tools\n",
            &[(W, DescriptionMissing)],
        )
        .profile(Profile::ClaudeCode),
        case(
            "Claude Code cuts description and when_to_use at 1,536",
            "pdf-tools",
            &format!(
                "name: pdf-tools\ndescription: {}\nwhen_to_use: {}\n",
                "d".repeat(1000),
                "w".repeat(600)
            ),
            &[(W, DescriptionTooLong)],
        )
        .profile(Profile::ClaudeCode),
        case(
            "Codex takes any one-line name up to 64",
            "tools",
            "name: PDF Tools (beta)\ndescription: d\nmetadata:\n  short-description: Reads PDFs\n",
            &[],
        )
        .profile(Profile::Codex),
        case(
            "Codex requires both fields, as strings",
            "pdf-tools",
            "name: 3000\n",
            &[(E, InvalidFieldType), (E, DescriptionMissing)],
        )
        .profile(Profile::Codex),
        case(
            "Codex's limits",
            "pdf-tools",
            &format!(
                "name: {}\ndescription: {}\nmetadata:\n  short-description: {}\n",
                "n".repeat(65),
                "d".repeat(1025),
                "s".repeat(1025)
            ),
            &[(E, NameTooLong), (E, DescriptionTooLong), (E, DescriptionTooLong)],
        )
        .profile(Profile::Codex),
        case(
            "Codex refuses a metadata that is not a mapping",
            "pdf-tools",
            &format!("{BASE}metadata: [a]\n"),
            &[(E, MetadataNotMap)],
        )
        .profile(Profile::Codex),
        case(
            "Codex ignores Claude Code's fields",
            "pdf-tools",
            &format!("{BASE}disable-model-invocation: true\n"),
            &[(E, UnexpectedField)],
        )
        .profile(Profile::Codex),
        case(
            "OpenCode's fields",
            "git-release",
            "name: git-release\ndescription: d\nlicense: MIT\ncompatibility: opencode\nmetadata:\n  audience: maintainers\n",
            &[],
        )
        .profile(Profile::Opencode),
        case(
            "OpenCode does not document allowed-tools",
            "pdf-tools",
            &format!("{BASE}allowed-tools: Read\n"),
            &[(E, UnexpectedField)],
        )
        .profile(Profile::Opencode),
        case(
            "OpenCode's name rule",
            "дата",
            "name: дата\ndescription: d\n",
            &[(E, NameInvalidCharacters)],
        )
        .profile(Profile::Opencode),
        case(
            "OpenCode's separators",
            "pdf--tools-",
            "name: PDF--tools-\ndescription: d\n",
            &[
                (E, NameNotLowercase),
                (E, NameLeadingTrailingHyphen),
                (E, NameConsecutiveHyphens),
                (E, NameDirectoryMismatch),
            ],
        )
        .profile(Profile::Opencode),
        case(
            "OpenCode requires the directory's name",
            "pdf",
            BASE,
            &[(E, NameDirectoryMismatch)],
        )
        .profile(Profile::Opencode),
        case(
            "OpenCode's metadata maps strings to strings",
            "pdf-tools",
            &format!("{BASE}metadata:\n  tags: [a, b]\n"),
            &[(E, InvalidFieldType)],
        )
        .profile(Profile::Opencode),
        case(
            "the default names the profile for Claude Code's fields",
            "pdf-tools",
            &format!("{BASE}disable-model-invocation: true\n"),
            &[(E, UnexpectedField)],
        ),
        case("lenient takes every Claude Code field", "deploy", CLAUDE_CODE_ALL, &[])
            .profile(Profile::Lenient),
        case(
            "lenient warns of a Claude Code field's type",
            "pdf-tools",
            &format!("{BASE}hooks: run.sh\n"),
            &[(W, InvalidFieldType)],
        )
        .profile(Profile::Lenient),
    ];
    check_cases(cases);
}

#[test]
fn unexpected_field_messages_point_to_the_claude_code_profile() {
    let root = tempfile::tempdir().unwrap();
    let text = frontmatter(&format!("{BASE}user-invocable: false\ncolour: red\n"));
    let message = |profile| {
        let report = run_in(
            root.path(),
            "pdf-tools",
            text.as_bytes(),
            &Options::new(profile),
        );
        report.diagnostics[0].message.clone()
    };
    let default = message(Profile::Agentskills);
    assert!(
        default.contains("colour, user-invocable")
            && default.contains("user-invocable is Claude Code's")
            && default.contains("--profile claude-code"),
        "{default}"
    );
    let codex = message(Profile::Codex);
    assert!(codex.contains("Codex ignores it"), "{codex}");
    let claude = message(Profile::ClaudeCode);
    assert!(
        claude.starts_with("unexpected fields in frontmatter: colour;")
            && !claude.contains("Claude Code's"),
        "{claude}"
    );
}

#[test]
fn codex_reads_the_policy_file_beside_the_skill() {
    let root = tempfile::tempdir().unwrap();
    let skill = root.path().join("pdf-tools");
    std::fs::create_dir_all(skill.join("agents")).unwrap();
    let options = Options::new(Profile::Codex);
    std::fs::write(
        skill.join("agents/openai.yaml"),
        "interface:\n  display_name: \"PDF\"\npolicy:\n  allow_implicit_invocation: false\n",
    )
    .unwrap();
    let report = run_in(
        root.path(),
        "pdf-tools",
        frontmatter(BASE).as_bytes(),
        &options,
    );
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
    std::fs::write(
        skill.join("agents/openai.yaml"),
        "policy:\n  allow_implicit_invocation: \"no\"\n",
    )
    .unwrap();
    let report = validate_path(&skill, &options).unwrap();
    assert!(report.valid);
    assert_eq!(findings(&report), [(W, InvalidSidecar)]);
    assert!(
        report.diagnostics[0]
            .message
            .contains("Codex ignores the file"),
        "{}",
        report.diagnostics[0].message
    );
    // Other profiles do not look at a Codex file.
    let report = validate_path(&skill, &Options::default()).unwrap();
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
}

#[test]
fn lenient_errs_only_where_discovery_refuses() {
    let root = tempfile::tempdir().unwrap();
    let lenient = Options::new(Profile::Lenient);
    let cases: [(&str, &[u8], &[Finding]); 5] = [
        (
            "loads with guesses",
            b"No frontmatter at all.\n",
            &[(W, NoFrontmatter)],
        ),
        (
            "wrong types",
            b"---\nname: [a]\ndescription: {b: c}\nmetadata: x\n---\nBody\n",
            &[
                (W, InvalidFieldType),
                (W, InvalidFieldType),
                (W, MetadataNotMap),
            ],
        ),
        (
            "bad yaml",
            b"---\nname: a\n  b: : c\n---\nBody\n",
            &[(E, YamlError)],
        ),
        ("not utf-8", b"---\nname: \xff\n---\n", &[(E, NotUtf8)]),
        (
            "unterminated",
            b"---\nname: a\n",
            &[(E, UnterminatedFrontmatter)],
        ),
    ];
    let mut failures = Vec::new();
    for (index, (what, text, expect)) in cases.iter().enumerate() {
        let report = run_in(
            &root.path().join(index.to_string()),
            "skill",
            text,
            &lenient,
        );
        let found = findings(&report);
        if found.as_slice() != *expect {
            failures.push(format!("{what}: expected {expect:?}, found {found:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // A name the folder can stand in for loads; when neither can be shown, nothing does.
    let report = run_in(
        root.path(),
        "fine",
        frontmatter("name: \"x\\u200by\"\ndescription: d\n").as_bytes(),
        &lenient,
    );
    assert!(report.valid, "{:?}", report.diagnostics);
    let report = run_in(
        root.path(),
        "bad\u{200b}folder",
        frontmatter("description: d\n").as_bytes(),
        &lenient,
    );
    assert!(!report.valid);
    assert!(
        findings(&report).contains(&(E, NameUnshowable)),
        "{report:?}"
    );
}

#[test]
fn strict_turns_warnings_into_errors() {
    let root = tempfile::tempdir().unwrap();
    let text = frontmatter(&format!("{BASE}license: [MIT]\n"));
    let relaxed = run_in(
        root.path(),
        "pdf-tools",
        text.as_bytes(),
        &Options::default(),
    );
    assert!(relaxed.valid);
    assert_eq!(findings(&relaxed), [(W, InvalidFieldType)]);
    let strict = validate_path(
        &root.path().join("pdf-tools"),
        &Options::default().strict(true),
    )
    .unwrap();
    assert!(!strict.valid);
    assert!(strict.strict);
    assert_eq!(findings(&strict), [(E, InvalidFieldType)]);
}

#[test]
fn file_level_rules() {
    let root = tempfile::tempdir().unwrap();
    let options = Options::default();
    let cases: Vec<(&str, Vec<u8>, Vec<Finding>)> = vec![
        (
            "no frontmatter",
            b"# Just markdown\n".to_vec(),
            vec![(E, NoFrontmatter)],
        ),
        (
            "unterminated",
            b"---\nname: pdf-tools\n".to_vec(),
            vec![(E, UnterminatedFrontmatter)],
        ),
        (
            "bad yaml",
            b"---\nname: a\n  b: c: d\n---\n".to_vec(),
            vec![(E, YamlError)],
        ),
        (
            "list frontmatter",
            b"---\n- a\n- b\n---\n".to_vec(),
            vec![(E, YamlError)],
        ),
        (
            "duplicate key",
            b"---\nname: pdf-tools\nname: pdf-tools\ndescription: d\n---\n".to_vec(),
            vec![(E, YamlError)],
        ),
        (
            "not utf-8",
            b"---\nname: pdf-tools\ndescription: \xff\n---\n".to_vec(),
            vec![(E, NotUtf8)],
        ),
        (
            "alias bomb",
            {
                let mut text = String::from(
                    "---\nname: pdf-tools\ndescription: d\na: &a [x, x, x, x, x, x, x, x, x, x]\n",
                );
                for level in 1..10 {
                    text.push_str(&format!(
                        "l{level}: &l{level} [{}]\n",
                        vec![
                            if level == 1 {
                                "*a".to_owned()
                            } else {
                                format!("*l{}", level - 1)
                            };
                            10
                        ]
                        .join(", ")
                    ));
                }
                text.push_str("---\n");
                text.into_bytes()
            },
            vec![(E, YamlTooComplex)],
        ),
        (
            "bom and crlf",
            b"\xef\xbb\xbf---\r\nname: pdf-tools\r\ndescription: d\r\n---\r\nBody\r\n".to_vec(),
            vec![],
        ),
        (
            "dashes inside a value",
            b"---\nname: pdf-tools\ndescription: before --- after\n---\n".to_vec(),
            vec![],
        ),
        (
            "rules in the body",
            b"---\nname: pdf-tools\ndescription: d\n---\nA\n\n---\n\nB\n---\n".to_vec(),
            vec![],
        ),
    ];
    for (index, (what, bytes, expect)) in cases.into_iter().enumerate() {
        let report = run_in(
            &root.path().join(index.to_string()),
            "pdf-tools",
            &bytes,
            &options,
        );
        assert_eq!(
            findings(&report),
            expect,
            "{what}: {:#?}",
            report.diagnostics
        );
        assert_eq!(report.valid, expect.is_empty(), "{what}");
    }
}

#[test]
fn too_large_file_is_a_finding_not_an_error() {
    let root = tempfile::tempdir().unwrap();
    let mut text = frontmatter(BASE).into_bytes();
    text.resize(usize::try_from(MAX_SKILL_MD_BYTES).unwrap() + 1, b'x');
    let report = run_in(root.path(), "pdf-tools", &text, &Options::default());
    assert_eq!(findings(&report), [(E, TooLarge)]);
}

#[test]
fn noncanonical_file_name_is_a_warning() {
    let root = tempfile::tempdir().unwrap();
    let skill = root.path().join("pdf-tools");
    std::fs::create_dir(&skill).unwrap();
    std::fs::write(skill.join("skill.md"), frontmatter(BASE)).unwrap();
    let report = validate_path(&skill, &Options::default()).unwrap();
    assert!(report.valid);
    assert_eq!(findings(&report), [(W, NoncanonicalFilename)]);
    assert_eq!(report.file, skill.join("skill.md"));
}

#[test]
fn paths_resolve_to_the_real_directory_name() {
    let root = tempfile::tempdir().unwrap();
    let skill = root.path().join("pdf-tools");
    std::fs::create_dir(&skill).unwrap();
    let file = skill.join("SKILL.md");
    std::fs::write(&file, frontmatter(BASE)).unwrap();
    assert!(validate_path(&file, &Options::default()).unwrap().valid);
    assert!(
        validate_path(&skill.join("."), &Options::default())
            .unwrap()
            .valid
    );
    let nested = skill.join("references");
    std::fs::create_dir(&nested).unwrap();
    assert!(
        validate_path(&nested.join(".."), &Options::default())
            .unwrap()
            .valid
    );
}

#[test]
fn unusable_paths_are_errors_of_the_call() {
    let root = tempfile::tempdir().unwrap();
    let options = Options::default();
    let kind = |path: PathBuf| validate_path(&path, &options).unwrap_err().kind();
    assert_eq!(kind(root.path().join("missing")), "not_found");
    assert_eq!(kind(root.path().to_path_buf()), "no_definition_file");
    std::fs::write(root.path().join("notes.md"), "x").unwrap();
    assert_eq!(kind(root.path().join("notes.md")), "not_a_directory");
}

#[test]
fn validate_bytes_checks_text_without_reading_it() {
    let options = Options::default();
    let file = Path::new("/nowhere/pdf-tools/SKILL.md");
    let valid = validate_bytes(file, frontmatter(BASE).as_bytes(), &options).unwrap();
    assert!(valid.valid);
    let invalid = validate_bytes(file, b"---\nname: pdf\ndescription: d\n---\n", &options).unwrap();
    assert_eq!(findings(&invalid), [(E, NameDirectoryMismatch)]);
}

#[test]
fn tree_validation_finds_every_skill_in_path_order() {
    let root = tempfile::tempdir().unwrap();
    let write = |relative: &str, text: &str| {
        let dir = root.path().join(relative);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("SKILL.md"), text).unwrap();
    };
    write("b-skill", &frontmatter("name: b-skill\ndescription: d\n"));
    write(
        "category/a-skill",
        &frontmatter("name: a-skill\ndescription: d\n"),
    );
    write(
        "category/a-skill/nested",
        &frontmatter("name: nested\ndescription: d\n"),
    );
    write(
        "node_modules/junk",
        &frontmatter("name: junk\ndescription: d\n"),
    );
    write(
        ".agents/skills/hidden-root",
        &frontmatter("name: hidden-root\ndescription: d\n"),
    );
    write(
        ".git/secret",
        &frontmatter("name: secret\ndescription: d\n"),
    );
    write("bad", &frontmatter("name: Bad\ndescription: d\n"));
    let results = validate_tree(root.path(), &Options::default()).unwrap();
    let names: Vec<(String, bool)> = results
        .into_iter()
        .map(|result| {
            let report = result.unwrap();
            (report.name.unwrap(), report.valid)
        })
        .collect();
    // The nested skill is validated too (after the skill holding it), and told why agents
    // will not find it.
    assert_eq!(
        names,
        [
            ("hidden-root".to_owned(), true),
            ("b-skill".to_owned(), true),
            ("Bad".to_owned(), false),
            ("a-skill".to_owned(), true),
            ("nested".to_owned(), true),
        ]
    );
    let results = validate_tree(root.path(), &Options::default()).unwrap();
    let nested = results[4].as_ref().unwrap();
    assert_eq!(findings(nested), [(W, NestedSkill)]);
    assert!(
        nested.diagnostics[0]
            .message
            .contains(&root.path().join("category/a-skill").display().to_string()),
        "{:?}",
        nested.diagnostics
    );
    assert!(findings(results[3].as_ref().unwrap()).is_empty());
    // Strict: the nested skill fails.
    let strict = validate_tree(root.path(), &Options::default().strict(true)).unwrap();
    assert!(!strict[4].as_ref().unwrap().valid);
    let empty = tempfile::tempdir().unwrap();
    assert_eq!(
        validate_tree(empty.path(), &Options::default())
            .unwrap_err()
            .kind(),
        "no_definition_file"
    );
}

fn skillhub_skill(root: &Path, extra_fields: &str) -> PathBuf {
    let skill = root.join("pdf-tools");
    std::fs::create_dir_all(skill.join("docs")).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        frontmatter(&format!("{BASE}{extra_fields}")),
    )
    .unwrap();
    std::fs::write(skill.join("docs/policy.md"), "policy").unwrap();
    skill
}

fn skillhub(skill: &Path) -> Report {
    validate_path(skill, &Options::new(Profile::Skillhub)).unwrap()
}

#[test]
fn package_rules() {
    let root = tempfile::tempdir().unwrap();
    let skill = skillhub_skill(root.path(), "");
    assert_eq!(findings(&skillhub(&skill)), []);

    std::fs::write(skill.join("run.exe"), "x").unwrap();
    std::fs::write(skill.join(".env"), "SECRET=1").unwrap();
    std::fs::write(skill.join("docs/Policy.md"), "twin").unwrap();
    let report = skillhub(&skill);
    assert_eq!(
        findings(&report),
        [
            (E, PackageInvalidPath),
            (E, PackageCaseCollision),
            (E, PackageExtensionNotAllowed)
        ],
        "{:#?}",
        report.diagnostics
    );
    assert_eq!(
        report.diagnostics[0].path.as_deref(),
        Some(Path::new(".env"))
    );
    assert_eq!(
        report.diagnostics[1].path.as_deref(),
        Some(Path::new("docs/policy.md"))
    );
}

#[cfg(unix)]
#[test]
fn package_refuses_links_and_special_files() {
    let root = tempfile::tempdir().unwrap();
    let skill = skillhub_skill(root.path(), "");
    let outside = root.path().join("outside.md");
    std::fs::write(&outside, "secret").unwrap();
    std::os::unix::fs::symlink(&outside, skill.join("link.md")).unwrap();
    std::fs::hard_link(&outside, skill.join("hard.md")).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        skill.join("pipe.md"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    let report = skillhub(&skill);
    let paths: Vec<String> = report
        .diagnostics
        .iter()
        .map(|diagnostic| {
            format!(
                "{}:{}",
                diagnostic.code,
                diagnostic.path.as_ref().unwrap().display()
            )
        })
        .collect();
    assert_eq!(
        paths,
        [
            "package-special-file:hard.md",
            "package-special-file:link.md",
            "package-special-file:pipe.md"
        ]
    );
}

#[test]
fn package_limits() {
    let root = tempfile::tempdir().unwrap();
    let skill = skillhub_skill(root.path(), "");
    std::fs::write(skill.join("big.txt"), vec![b'x'; 2048]).unwrap();
    for index in 0..3 {
        std::fs::write(skill.join(format!("f{index}.txt")), "x").unwrap();
    }
    let mut options = Options::new(Profile::Skillhub);
    options.package_limits.max_file_bytes = 1024;
    options.package_limits.max_total_bytes = 2048;
    options.package_limits.max_files = 4;
    let report = validate_path(&skill, &options).unwrap();
    assert_eq!(
        findings(&report),
        [
            (E, PackageFileTooLarge),
            (E, PackageTooManyFiles),
            (E, PackageTooLarge)
        ],
        "{:#?}",
        report.diagnostics
    );
}

const COMPLIANCE: &str = "x-astron-compliance:
  - standard: ISO-27001
    version: 2022
    controlId: A.5.1
    title: Policies
    evidence:
      - {type: packaged-file, path: docs/policy.md}
      - {type: external-url, url: 'https://example.com/policy'}
  - standard: SOC2
    version: 2017
    controlId: CC6.1
";

#[test]
fn compliance_snapshot_is_normalised_and_stable() {
    let root = tempfile::tempdir().unwrap();
    let skill = skillhub_skill(&root.path().join("one"), COMPLIANCE);
    let report = skillhub(&skill);
    assert!(report.valid, "{:#?}", report.diagnostics);
    let snapshot = report.compliance.unwrap();
    assert!(snapshot.digest.starts_with("sha256:") && snapshot.digest.len() == 71);
    assert_eq!(snapshot.entries[0].version, "2022");

    // Same claims, other order and formatting: same digest.
    let reordered = "x-astron-compliance:
  - {controlId: CC6.1, standard: SOC2, version: 2017}
  - controlId: A.5.1
    version: 2022
    title: Policies
    standard: ISO-27001
    evidence:
      - url: https://example.com/policy
        type: external-url
      - path: docs/policy.md
        type: packaged-file
";
    let other = skillhub_skill(&root.path().join("two"), reordered);
    assert_eq!(skillhub(&other).compliance.unwrap().digest, snapshot.digest);

    let changed = skillhub_skill(
        &root.path().join("three"),
        &COMPLIANCE.replace("CC6.1", "CC6.2"),
    );
    assert_ne!(
        skillhub(&changed).compliance.unwrap().digest,
        snapshot.digest
    );
}

#[test]
fn compliance_errors() {
    let root = tempfile::tempdir().unwrap();
    let cases = [
        ("x-astron-compliance: yes\n", vec![(E, ComplianceInvalid)]),
        (
            "x-astron-compliance:\n  - standard: ISO\n    version: 1\n",
            vec![(E, ComplianceInvalid)],
        ),
        (
            "x-astron-compliance:\n  - {standard: ISO, version: 1, controlId: A, owner: me}\n",
            vec![(E, ComplianceInvalid)],
        ),
        (
            "x-astron-compliance:\n  - {standard: ISO, version: 1, controlId: A}\n  - {standard: ISO, version: 1, controlId: A}\n",
            vec![(E, ComplianceDuplicate)],
        ),
        (
            "x-astron-compliance:\n  - standard: ISO\n    version: 1\n    controlId: A\n    evidence:\n      - {type: packaged-file, path: ../outside.md}\n      - {type: packaged-file, path: docs/missing.md}\n      - {type: external-url, url: 'http://example.com'}\n      - {type: video, url: x}\n",
            vec![
                (E, ComplianceEvidenceInvalid),
                (E, ComplianceEvidenceInvalid),
                (E, ComplianceEvidenceInvalid),
                (E, ComplianceEvidenceInvalid),
            ],
        ),
    ];
    for (index, (fields, expect)) in cases.into_iter().enumerate() {
        let skill = skillhub_skill(&root.path().join(index.to_string()), fields);
        let report = skillhub(&skill);
        assert_eq!(
            findings(&report),
            expect,
            "{fields}\n{:#?}",
            report.diagnostics
        );
        assert!(report.compliance.is_none());
    }
}

#[cfg(unix)]
#[test]
fn compliance_evidence_through_a_symlink_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let outside = root.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("policy.md"), "x").unwrap();
    let skill = skillhub_skill(
        &root.path().join("s"),
        "x-astron-compliance:\n  - standard: ISO\n    version: 1\n    controlId: A\n    evidence:\n      - {type: packaged-file, path: linked/policy.md}\n",
    );
    std::os::unix::fs::symlink(&outside, skill.join("linked")).unwrap();
    let codes: Vec<DiagnosticCode> = skillhub(&skill)
        .diagnostics
        .iter()
        .map(|d| d.code)
        .collect();
    assert!(codes.contains(&ComplianceEvidenceInvalid), "{codes:?}");
    assert!(codes.contains(&PackageSpecialFile), "{codes:?}");
}

/// `validate --recursive` passes over nothing in silence: a folder whose name is not UTF-8 is
/// an entry of its own (discovery skips it), a symlinked skill folder is validated through the
/// link, a folder reached twice is validated once, a loop ends, and a dangling link is named.
#[cfg(unix)]
#[test]
fn tree_validation_reports_or_follows_what_it_used_to_skip() {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::symlink;
    let base = tempfile::tempdir().unwrap();
    let root = base.path().join("root");
    let write = |dir: &Path, name: &str| {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(
            dir.join("SKILL.md"),
            frontmatter(&format!("name: {name}\ndescription: d\n")),
        )
        .unwrap();
    };
    write(&root.join("a-real"), "a-real");
    let odd = root.join(std::ffi::OsStr::from_bytes(b"b-odd-\xff"));
    write(&odd, "b-odd");
    // Inside a skill, an odd folder name is the package's business, not the walk's.
    std::fs::create_dir_all(
        root.join("a-real")
            .join(std::ffi::OsStr::from_bytes(b"\xfe")),
    )
    .unwrap();
    let checkout = base.path().join("checkout/c-linked");
    write(&checkout, "c-linked");
    symlink(&checkout, root.join("c-linked")).unwrap();
    symlink(root.join("a-real"), root.join("d-again")).unwrap();
    symlink(&root, root.join("e-loop")).unwrap();
    symlink(base.path().join("nowhere"), root.join("f-dangling")).unwrap();

    let results = validate_tree(&root, &Options::default()).unwrap();
    let outcome: Vec<String> = results
        .iter()
        .map(|result| match result {
            Ok(report) => format!("ok {}", report.dir.strip_prefix(&root).unwrap().display()),
            Err(error) => format!("{} {}", error.kind(), error),
        })
        .collect();
    let odd_text = odd.display().to_string();
    assert_eq!(
        outcome,
        [
            "ok a-real".to_owned(),
            format!(
                "not_validated {odd_text} was not validated: its name is not valid UTF-8, and discovery skips such folders (rename it)"
            ),
            "ok c-linked".to_owned(),
            format!(
                "io could not follow the symlink {}: No such file or directory (os error 2)",
                root.join("f-dangling").display()
            ),
        ]
    );
    let linked = results[2].as_ref().unwrap();
    assert_eq!(linked.name.as_deref(), Some("c-linked"));
    assert!(linked.valid, "{:?}", linked.diagnostics);
}

/// A tree validated on many threads gives the reports, and the skipped folders, in the order
/// one thread gives them: path order, whatever finishes first.
#[test]
fn parallel_validation_keeps_path_order() {
    let root = tempfile::tempdir().unwrap();
    for index in 0..120 {
        let dir = root
            .path()
            .join(format!("cat-{}/skill-{index:03}", index % 3));
        std::fs::create_dir_all(&dir).unwrap();
        let text = match index % 4 {
            0 => format!("---\nname: skill-{index:03}\ndescription: d\n---\n"),
            1 => "---\nname: Wrong\n---\n".to_owned(),
            2 => "---\nname: [x\n".to_owned(),
            _ => format!("---\nname: skill-{index:03}\ndescription: d\nextra: 1\n---\n"),
        };
        std::fs::write(dir.join("SKILL.md"), text).unwrap();
    }
    std::os::unix::fs::symlink("/nonexistent/target", root.path().join("cat-1/dangling")).unwrap();
    let on = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let results = pool.install(|| validate_tree(root.path(), &Options::default()).unwrap());
        format!("{results:?}")
    };
    let sequential = on(1);
    assert!(sequential.contains("follow the symlink"), "{sequential}");
    for threads in [2, 4, 8] {
        assert_eq!(on(threads), sequential, "{threads} threads");
    }
}

/// The tree walk reads each skill's sidecar off its listing; the pick must be the one a
/// single-skill validation (and discovery) makes: `skill.toml` before `workflow.toml`, a
/// regular file only (a folder or a link under the name does not count).
#[test]
fn the_walk_picks_the_sidecar_a_lookup_picks() {
    let root = tempfile::tempdir().unwrap();
    let skill = |name: &str| {
        let dir = root.path().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("SKILL.md"),
            frontmatter(&format!("name: {name}\ndescription: d\n")),
        )
        .unwrap();
        dir
    };
    let broken = "this is = = not toml";
    let first = skill("first");
    std::fs::write(first.join("skill.toml"), broken).unwrap();
    std::fs::write(first.join("workflow.toml"), "").unwrap();
    let second = skill("second");
    std::fs::create_dir(second.join("skill.toml")).unwrap();
    std::fs::write(second.join("workflow.toml"), broken).unwrap();
    let none = skill("third");
    #[cfg(unix)]
    std::os::unix::fs::symlink(first.join("skill.toml"), none.join("skill.toml")).unwrap();
    let walked = validate_tree(root.path(), &Options::default()).unwrap();
    let mut sidecars = Vec::new();
    for (report, dir) in walked.iter().zip([&first, &second, &none]) {
        let report = report.as_ref().unwrap();
        let alone = validate_path(dir, &Options::default()).unwrap();
        assert_eq!(report.diagnostics, alone.diagnostics, "{}", dir.display());
        sidecars.push(
            report
                .diagnostics
                .iter()
                .filter(|diagnostic| diagnostic.code == InvalidSidecar)
                .filter_map(|diagnostic| diagnostic.path.as_deref()?.file_name())
                .map(|name| name.to_string_lossy().into_owned())
                .collect::<Vec<_>>(),
        );
    }
    assert_eq!(
        sidecars,
        [
            vec!["skill.toml".to_owned()],
            vec!["workflow.toml".to_owned()],
            vec![]
        ]
    );
}
