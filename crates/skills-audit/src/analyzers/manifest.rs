//! The `manifest` analyzer: what a skill says about itself against what its files do.
//!
//! - `allowed-tools` that grant more than the skill uses (a shell when nothing runs one, the
//!   web when nothing mentions it): a skill that asks for everything makes every other
//!   finding worse;
//! - declared tools (`[[tools]]` in `skill.toml`) whose script does more than their
//!   description says — the "formatter" that talks to the network;
//! - scripts that use the network while nothing the user reads says so;
//! - native executables and compiled code shipped in the skill, which no reviewer reads;
//! - secrets committed in the skill: private keys and live provider tokens;
//! - MCP server entries (`.mcp.json`) that are not servers at all, hand secrets to a network
//!   client, read secrets in inline code, or name a package one typo away from a known one.

use std::sync::LazyLock;

use regex::Regex;
use skills_types::audit::{Category, Severity};

use super::code;
use super::examine::{self, Examined};
use super::{Lean, constant_words, pattern};
use super::{mcp, scripts, sidecar};
use crate::files::{FileKind, ScannedFile, Skill};
use crate::findings::{Collector, Rule};

const fn rule(
    id: &'static str,
    severity: Severity,
    category: Category,
    title: &'static str,
    remediation: &'static str,
) -> Rule {
    Rule {
        id,
        analyzer: "manifest",
        severity,
        category,
        title,
        remediation,
    }
}

const UNUSED_SHELL: Rule = rule(
    "MANIFEST_UNUSED_SHELL",
    Severity::Medium,
    Category::UnauthorizedToolUse,
    "Grants an unrestricted shell it never uses",
    "Remove `Bash` (or `*`) from `allowed-tools`, or restrict it to the commands the skill \
     runs (`Bash(git status:*)`).",
);
const UNUSED_TOOLS: Rule = rule(
    "MANIFEST_UNUSED_TOOLS",
    Severity::Low,
    Category::UnauthorizedToolUse,
    "Grants tools its text never needs",
    "List in `allowed-tools` only the tools the skill's instructions use.",
);
const TOOL_MISMATCH: Rule = rule(
    "MANIFEST_TOOL_MISMATCH",
    Severity::High,
    Category::UnauthorizedToolUse,
    "A declared tool's script does more than its description says",
    "Make the description say what the script does (network, files written, credentials \
     read), or make the script do only what it says.",
);
const UNDECLARED_NETWORK: Rule = rule(
    "MANIFEST_UNDECLARED_NETWORK",
    Severity::Medium,
    Category::DataExfiltration,
    "Scripts use the network, and nothing says so",
    "Say in the description or SKILL.md which hosts the skill talks to and why.",
);
const BINARY: Rule = rule(
    "MANIFEST_BINARY",
    Severity::Medium,
    Category::SupplyChainAttack,
    "Ships a native executable or compiled code",
    "Ship source, or build the tool from a pinned, verifiable release.",
);
const BINARY_RUN: Rule = rule(
    "MANIFEST_BINARY_RUN",
    Severity::High,
    Category::SupplyChainAttack,
    "Runs a native executable or compiled code it ships",
    "Ship source, or build the tool from a pinned, verifiable release.",
);
const PRIVATE_KEY: Rule = rule(
    "MANIFEST_PRIVATE_KEY",
    Severity::Critical,
    Category::HardcodedSecrets,
    "Contains a private key",
    "Remove the key and revoke it: anything published with a skill is public.",
);
const LIVE_SECRET: Rule = rule(
    "MANIFEST_LIVE_SECRET",
    Severity::Critical,
    Category::HardcodedSecrets,
    "Contains a live provider token",
    "Remove the token and revoke it; read it from the environment instead.",
);
const SECRET: Rule = rule(
    "MANIFEST_SECRET",
    Severity::High,
    Category::HardcodedSecrets,
    "Contains a key or token",
    "Remove it and rotate it if it was ever valid; read it from the environment instead.",
);
const MCP_NOT_A_SERVER: Rule = rule(
    "MANIFEST_MCP_NOT_A_SERVER",
    Severity::High,
    Category::CommandInjection,
    "An MCP server entry runs a one-shot command, not a server",
    "An MCP entry starts a server program; remove entries that run network or file commands.",
);
const MCP_SECRET_EGRESS: Rule = rule(
    "MANIFEST_MCP_SECRET_EGRESS",
    Severity::Critical,
    Category::DataExfiltration,
    "An MCP entry hands secrets to a network command",
    "Do not install this skill: the entry gives a secret to a program that sends data out.",
);
const MCP_SECRET_READ: Rule = rule(
    "MANIFEST_MCP_SECRET_READ",
    Severity::High,
    Category::CredentialAccess,
    "An MCP entry's inline code reads a secret",
    "Remove the inline code; a server reads its own settings.",
);
const MCP_TYPOSQUAT: Rule = rule(
    "MANIFEST_MCP_TYPOSQUAT",
    Severity::High,
    Category::SupplyChainAttack,
    "An MCP entry names a package one typo away from a known one",
    "Check the package name letter by letter against the publisher's.",
);
const MCP_HIDDEN_URL: Rule = rule(
    "MANIFEST_MCP_HIDDEN_URL",
    Severity::High,
    Category::Obfuscation,
    "An MCP entry hides an address in base64 or hex",
    "Write the address in clear text in the entry, so a reviewer sees where the server \
     connects.",
);

/// This analyzer's rules.
pub(crate) const RULES: &[Rule] = &[
    UNUSED_SHELL,
    UNUSED_TOOLS,
    TOOL_MISMATCH,
    UNDECLARED_NETWORK,
    BINARY,
    BINARY_RUN,
    PRIVATE_KEY,
    LIVE_SECRET,
    SECRET,
    MCP_NOT_A_SERVER,
    MCP_SECRET_EGRESS,
    MCP_SECRET_READ,
    MCP_TYPOSQUAT,
    MCP_HIDDEN_URL,
];

/// Adds this analyzer's findings about `skill` to `out`.
#[cfg(test)]
pub(crate) fn analyze(skill: &Skill, out: &mut Collector) {
    analyze_examined(skill, &scripts::examine_units(skill), out);
}

/// Adds this analyzer's findings about `skill`, whose code the `scripts` analyzer examined
/// ([`scripts::examine_units`]: each bundled script examined once for both), to `out`.
pub(super) fn analyze_examined(
    skill: &Skill,
    units: &[(scripts::Unit<'_>, Examined)],
    out: &mut Collector,
) {
    // Bundled scripts only: Markdown blocks are the `scripts` analyzer's.
    let examined: Vec<(&ScannedFile, &Examined)> = scripts::bundled(units)
        .map(|(unit, examined)| (unit.file, examined))
        .collect();
    allowed_tools(skill, &examined, out);
    declared_tools(skill, &examined, out);
    undeclared_network(skill, &examined, out);
    binaries(skill, &examined, out);
    for file in &skill.files {
        secrets(file, out);
        mcp_servers(file, out);
    }
}

/// Whether anything the user reads about the skill (its description, the body of
/// `SKILL.md`, its other Markdown, sidecar and metadata) matches `words`. The frontmatter is
/// left out: `allowed-tools: WebFetch` says nothing about what the skill needs.
fn mentions(skill: &Skill, words: &Lean) -> bool {
    words.is_match(&skill.description)
        || skill.files.iter().any(|file| {
            let path = file.path.to_ascii_lowercase();
            let readable = path.ends_with(".md")
                || path.ends_with(".txt")
                || path.ends_with(".toml")
                || path.ends_with(".yaml")
                || path.ends_with(".yml")
                || path.ends_with(".json") && !path.contains('/');
            readable
                && file.text().is_some_and(|text| {
                    let text = if file.path == skills_types::files::SKILL_MD {
                        body_of(text)
                    } else {
                        text
                    };
                    words.is_match(text)
                })
        })
}

/// The text of a definition file after its frontmatter.
fn body_of(text: &str) -> &str {
    let Some(rest) = text.trim_start_matches('\u{feff}').strip_prefix("---") else {
        return text;
    };
    rest.find("\n---").map_or(text, |end| &rest[end + 4..])
}

/// Words that say a skill talks to the network.
static NETWORK_WORDS: LazyLock<Lean> = LazyLock::new(|| constant_words(NETWORK_WORDS_SOURCE));

const NETWORK_WORDS_SOURCE: &str = r"(?i)://|\b(?:apis?|https?|network|internet|online|web\w*|download\w*|upload\w*|fetch\w*|requests?|remote|servers?|endpoints?|cloud|urls?|webhooks?|hosts?|hosted|github|gitlab|slack|notion|google|aws|azure|openai|anthropic|search\w*|quer(?:y|ies)|sync\w*|publish\w*|deploy\w*|send\w*|post\w*|install\w*|registry|database|services?|e-?mail|sockets?|connect\w*)\b";

/// Words that say a skill writes or changes files.
static WRITE_WORDS: LazyLock<Lean> = LazyLock::new(|| constant_words(WRITE_WORDS_SOURCE));

const WRITE_WORDS_SOURCE: &str = r"(?i)\b(?:writ\w*|edit\w*|creat\w*|sav\w*|generat\w*|modif\w*|updat\w*|output\w*|chang\w*|fix\w*|add\w*|produc\w*|build\w*|mak\w*|convert\w*|format\w*|replac\w*|refactor\w*|implement\w*|draft\w*|patch\w*)\b";

/// Words and shapes that say a skill runs commands: an inline `tool --flag`, "run", "shell".
static COMMAND_WORDS: LazyLock<Lean> = LazyLock::new(|| constant_words(COMMAND_WORDS_SOURCE));

const COMMAND_WORDS_SOURCE: &str = r"(?i)```|\b(?:run\w*|command\w*|execut\w*|terminal|shell|cli|invok\w*)\b|\s--?[a-z]|`(?:git|npm|npx|python3?|uv|node|make|cargo|go|bash|sh) ";

/// The word lists above, for the file of shipped automata (`lean.rs`).
#[cfg(test)]
pub(super) const WORDS: [&str; 3] = [
    NETWORK_WORDS_SOURCE,
    WRITE_WORDS_SOURCE,
    COMMAND_WORDS_SOURCE,
];

/// `allowed-tools` wider than what the skill uses.
fn allowed_tools(skill: &Skill, examined: &[(&ScannedFile, &Examined)], out: &mut Collector) {
    let Some(frontmatter) = &skill.frontmatter else {
        return;
    };
    let Some(definition) = skill.definition() else {
        return;
    };
    let tools: Vec<&str> = frontmatter
        .allowed_tools
        .iter()
        .flat_map(|entry| entry.split([',', ' ']))
        .map(str::trim)
        .filter(|tool| !tool.is_empty())
        .collect();
    if tools.is_empty() {
        return;
    }
    let runs_code = !examined.is_empty()
        || skill
            .files
            .iter()
            .any(|file| matches!(file.kind, FileKind::Script(_)))
        || mentions(skill, &COMMAND_WORDS);
    let place = definition
        .text()
        .and_then(|text| {
            text.find("allowed-tools")
                .or_else(|| text.find("allowed_tools"))
        })
        .unwrap_or(0);
    let unrestricted_shell = tools
        .iter()
        .find(|tool| matches!(**tool, "*" | "Bash" | "Bash(*)" | "Bash(*:*)" | "Bash(:*)"));
    if let Some(tool) = unrestricted_shell
        && !runs_code
    {
        out.at(
            &UNUSED_SHELL,
            definition,
            place,
            "allowed-tools".len(),
            format!(
                "allowed-tools grants `{tool}`, but the skill has no script and no code to run"
            ),
        );
    }
    let mut unused = Vec::new();
    for tool in &tools {
        let name = tool.split('(').next().unwrap_or(tool);
        let needed = match name {
            "WebFetch" | "WebSearch" => mentions(skill, &NETWORK_WORDS),
            "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => mentions(skill, &WRITE_WORDS),
            _ => true,
        };
        if !needed {
            unused.push(*tool);
        }
    }
    if !unused.is_empty() {
        out.at(
            &UNUSED_TOOLS,
            definition,
            place,
            "allowed-tools".len(),
            format!(
                "allowed-tools grants {}, which nothing in the skill needs",
                unused.join(", ")
            ),
        );
    }
}

/// Declared tools whose script does more than their description says.
fn declared_tools(skill: &Skill, examined: &[(&ScannedFile, &Examined)], out: &mut Collector) {
    let sidecar = sidecar::read(skill);
    let Some(sidecar_file) = sidecar::file(skill) else {
        return;
    };
    for tool in &sidecar.tools {
        let script = tool.script.trim_start_matches("./");
        let Some((_, facts)) = examined.iter().find(|(file, _)| file.path == script) else {
            continue;
        };
        let description = tool.description.to_lowercase();
        let mut extra = Vec::new();
        if facts.network && !NETWORK_WORDS.is_match(&description) {
            extra.push(if facts.hosts.is_empty() {
                "uses the network".to_owned()
            } else {
                format!("talks to {}", facts.hosts.join(", "))
            });
        }
        if facts.writes_outside
            && !["write", "install", "save", "config", "set"]
                .iter()
                .any(|w| description.contains(w))
        {
            extra.push("writes outside its folder".to_owned());
        }
        if facts
            .facts
            .iter()
            .any(|fact| matches!(fact.behaviour, examine::Behaviour::CredentialRead))
            && ![
                "credential",
                "key",
                "token",
                "password",
                "secret",
                "login",
                "auth",
            ]
            .iter()
            .any(|w| description.contains(w))
        {
            extra.push("reads credentials".to_owned());
        }
        if !extra.is_empty() {
            let place = sidecar.text.find(&tool.script).unwrap_or(0);
            out.at(
                &TOOL_MISMATCH,
                sidecar_file,
                place,
                tool.script.len(),
                format!(
                    "the tool `{}` says \"{}\" but its script {} {}",
                    tool.name,
                    tool.description.chars().take(80).collect::<String>(),
                    tool.script,
                    extra.join(" and ")
                ),
            );
        }
    }
}

/// Bundled scripts that use the network while nothing the user reads says so.
fn undeclared_network(skill: &Skill, examined: &[(&ScannedFile, &Examined)], out: &mut Collector) {
    if !examined.iter().any(|(_, facts)| facts.network) || mentions(skill, &NETWORK_WORDS) {
        return;
    }
    for (file, facts) in examined {
        if facts.network {
            let place = facts
                .facts
                .iter()
                .find(|fact| fact.behaviour == examine::Behaviour::NetworkEgress)
                .map_or((0, 0), |fact| (fact.offset, fact.len));
            out.at(
                &UNDECLARED_NETWORK,
                file,
                place.0,
                place.1,
                format!(
                    "{} uses the network{}; neither the description nor the skill's text mentions it",
                    file.path,
                    if facts.hosts.is_empty() { String::new() } else { format!(" ({})", facts.hosts.join(", ")) }
                ),
            );
        }
    }
}

/// Extensions of executables and compiled code.
const EXECUTABLE_EXTENSIONS: &[&str] = &[
    "exe", "dll", "so", "dylib", "jar", "pyc", "pyo", "class", "msi", "scr", "com", "bin", "elf",
    "node", "wasm", "apk", "dmg", "pkg", "deb", "rpm",
];

/// Native executables and compiled code; high when something in the skill runs them.
fn binaries(skill: &Skill, examined: &[(&ScannedFile, &Examined)], out: &mut Collector) {
    const MAGIC: [&[u8]; 6] = [
        b"\x7fELF",
        b"\xfe\xed\xfa\xce",
        b"\xfe\xed\xfa\xcf",
        b"\xcf\xfa\xed\xfe",
        b"\xca\xfe\xba\xbe",
        b"MZ",
    ];
    for file in &skill.files {
        let name = file.path.rsplit('/').next().unwrap_or(&file.path);
        let extension = name
            .rsplit_once('.')
            .map(|(_, extension)| extension.to_ascii_lowercase());
        let magic = file.kind == FileKind::Binary
            && MAGIC.iter().any(|magic| file.bytes.starts_with(magic));
        let by_name = file.kind == FileKind::Binary
            && extension
                .as_deref()
                .is_some_and(|extension| EXECUTABLE_EXTENSIONS.contains(&extension));
        if !magic && !by_name {
            continue;
        }
        let runs = examined.iter().any(|(_, facts)| {
            facts.programs.iter().any(|program| {
                let program = program.trim_start_matches("./");
                program == file.path || program.rsplit('/').next() == Some(name)
            })
        }) || runs_from_markdown(skill, &file.path);
        let what = if magic {
            "a native executable"
        } else {
            "compiled code"
        };
        if runs {
            out.whole(
                &BINARY_RUN,
                &file.path,
                format!("{} is {what}, and the skill runs it", file.path),
            );
        } else {
            out.whole(
                &BINARY,
                &file.path,
                format!("{} is {what} no reviewer can read", file.path),
            );
        }
    }
}

/// Whether a code block of the skill's Markdown runs `path` (`./bin/tool`, `bin/tool --x`,
/// `java -jar lib/x.jar`).
fn runs_from_markdown(skill: &Skill, path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    skill.files.iter().any(|file| {
        file.path.to_ascii_lowercase().ends_with(".md")
            && file.text().is_some_and(|text| {
                text.contains(name)
                    && code::fenced_blocks(text).iter().any(|block| {
                        text.get(block.range.clone()).is_some_and(|code| {
                            code.lines().any(|line| {
                                let line = line.trim_start().trim_start_matches("$ ");
                                let first = line.split_whitespace().next().unwrap_or("");
                                first.trim_start_matches("./").ends_with(name)
                                    || (line.contains(path) || line.contains(name))
                                        && [
                                            "java -jar",
                                            "python",
                                            "node ",
                                            "sh ",
                                            "bash ",
                                            "chmod +x",
                                        ]
                                        .iter()
                                        .any(|runner| line.contains(runner))
                            })
                        })
                    })
            })
    })
}

/// Secrets: (pattern, what it is, whether it is live — a private key is its own rule).
static SECRETS: LazyLock<Vec<(Regex, &'static str, &'static Rule)>> = LazyLock::new(|| {
    [
        (r"-----BEGIN (?:RSA |EC |OPENSSH |DSA |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----\s*(?:[A-Za-z0-9-]+: [^\n]*\n\s*)*([A-Za-z0-9+/=\s]{64,})", "a private key", &PRIVATE_KEY),
        (r"\b(gh[pousr]_[A-Za-z0-9]{36,})\b", "a GitHub token", &LIVE_SECRET),
        (r"\b(github_pat_[A-Za-z0-9_]{60,})\b", "a GitHub fine-grained token", &LIVE_SECRET),
        (r"\b(glpat-[A-Za-z0-9_\-]{20,})\b", "a GitLab token", &LIVE_SECRET),
        (r"\b(xox[abpr]-[0-9]{8,}-[0-9A-Za-z\-]{10,})\b", "a Slack token", &LIVE_SECRET),
        (r"\b([sr]k_live_[A-Za-z0-9]{20,})\b", "a Stripe live key", &LIVE_SECRET),
        (r"\b(sk-ant-(?:api|admin)[0-9]{2}-[A-Za-z0-9_\-]{60,})", "an Anthropic key", &LIVE_SECRET),
        (r"\b(sk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{40,})", "an OpenAI key", &LIVE_SECRET),
        (r"\b(sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20})\b", "an OpenAI key", &LIVE_SECRET),
        (r"\b((?:AKIA|ASIA)[A-Z0-9]{16})\b", "an AWS access key id", &SECRET),
        (r"\b(AIza[0-9A-Za-z_\-]{35})\b", "a Google API key", &SECRET),
        (r"\b(eyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{20,})", "a signed JSON Web Token", &SECRET),
        (r"(https://hooks\.slack\.com/services/T[A-Z0-9]{6,}/B[A-Z0-9]{6,}/[A-Za-z0-9]{20,})", "a Slack webhook", &SECRET),
    ]
    .into_iter()
    .map(|(source, label, rule)| (pattern(source), label, rule))
    .collect()
});

/// Prefixes one of [`SECRETS`] needs: one pass over a file that has none.
static SECRET_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"PRIVATE KEY|gh[pousr]_|github_pat_|glpat-|xox[abpr]-|k_live_|sk-ant-|sk-proj-|sk-svcacct-|sk-admin-|T3BlbkFJ|AKIA|ASIA|AIza|eyJ|hooks\.slack\.com",
    )
});

static AWS_SECRET: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r#"(?i)(?:aws_?secret_?access_?key|secret_?access_?key|aws_?secret)["']?\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})\b"#,
    )
});

/// Whether a matched token is a placeholder: `AKIAIOSFODNN7EXAMPLE`, `ghp_xxxx…`, `sk-...`,
/// runs of one character, words like "example", "your", "dummy".
fn is_placeholder(token: &str) -> bool {
    let lower = token.to_ascii_lowercase();
    const WORDS: &[&str] = &[
        "example",
        "your",
        "dummy",
        "placeholder",
        "sample",
        "redacted",
        "fake",
        "xxxx",
        "test",
        "1234567890",
        "abcdef",
        "0000",
        "replace",
        "token_here",
        "key_here",
        "changeme",
        "insert",
        "...",
        "***",
        "<",
        ">",
        "${",
        "{{",
    ];
    if WORDS.iter().any(|word| lower.contains(word)) {
        return true;
    }
    let mut longest = 0;
    let mut run = 0;
    let mut previous = None;
    for character in token.chars() {
        run = if Some(character) == previous {
            run + 1
        } else {
            1
        };
        longest = longest.max(run);
        previous = Some(character);
    }
    let mut distinct: Vec<char> = token.chars().collect();
    distinct.sort_unstable();
    distinct.dedup();
    longest >= 6 || distinct.len() < 10 || counts_up(token)
}

/// Whether the letters (or the digits) of `token` count up for six or more steps
/// (`A1B2C3D4E5F6`, `abcdefgh`, `123456`): made up by a person, not a generator.
fn counts_up(token: &str) -> bool {
    let ascending = |characters: Vec<u8>| {
        let mut run = 1;
        characters.windows(2).any(|pair| {
            run = if pair[1] == pair[0] + 1 || pair[0] == b'9' && pair[1] == b'0' {
                run + 1
            } else {
                1
            };
            run >= 6
        })
    };
    let letters: Vec<u8> = token
        .bytes()
        .filter(u8::is_ascii_alphabetic)
        .map(|b| b.to_ascii_lowercase())
        .collect();
    let digits: Vec<u8> = token.bytes().filter(u8::is_ascii_digit).collect();
    ascending(letters) || ascending(digits)
}

/// Secrets committed in `file`.
fn secrets(file: &ScannedFile, out: &mut Collector) {
    let Some(text) = file.text() else { return };
    if !SECRET_WORDS.is_match(text) {
        return;
    }
    for (pattern, label, rule) in SECRETS.iter() {
        for captures in pattern.captures_iter(text) {
            let (Some(whole), Some(token)) = (captures.get(0), captures.get(1)) else {
                continue;
            };
            let body: String = token.as_str().split_whitespace().collect();
            let line_start = text[..whole.start()]
                .rfind('\n')
                .map_or(0, |index| index + 1);
            let line_end = text[whole.end()..]
                .find('\n')
                .map_or(text.len(), |index| whole.end() + index);
            let line = text[line_start..line_end].to_ascii_lowercase();
            let example_line = [
                "example",
                "e.g.",
                "placeholder",
                "sample",
                "fake",
                "dummy",
                "redacted",
            ]
            .iter()
            .any(|word| line.contains(word));
            let placeholder = if rule.id == PRIVATE_KEY.id {
                // A key's body has runs of `A` (zero bytes): only a written-out elision is a
                // placeholder.
                ["...", "xxxx", "XXXX", "<", "…"]
                    .iter()
                    .any(|word| body.contains(word))
            } else {
                is_placeholder(&body) || example_line
            };
            if placeholder {
                continue;
            }
            let mut rule = *rule;
            let mut what = (*label).to_owned();
            if label.starts_with("an AWS") {
                let window = &text[floor_boundary(text, whole.start().saturating_sub(300))
                    ..floor_boundary(text, (whole.end() + 300).min(text.len()))];
                let window = code::lex(window, code::Lang::Generic).code;
                if AWS_SECRET
                    .captures(&window)
                    .and_then(|c| c.get(1))
                    .is_some_and(|secret| !is_placeholder(secret.as_str()))
                {
                    rule = &LIVE_SECRET;
                    what = "an AWS access key with its secret".to_owned();
                }
            }
            let shown: String = body.chars().take(8).collect();
            out.at(
                rule,
                file,
                whole.start(),
                8.min(whole.len()),
                format!("{what} ({shown}…)"),
            );
            break;
        }
    }
}

/// The nearest character boundary of `text` at or before `index`.
fn floor_boundary(text: &str, index: usize) -> usize {
    let mut index = index.min(text.len());
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

/// The MCP rules of one configuration file.
fn mcp_servers(file: &ScannedFile, out: &mut Collector) {
    for server in mcp::servers(file) {
        let line = server.command_line();
        let examined = examine::examine(&line, code::Lang::Shell);
        let program = server.command.rsplit('/').next().unwrap_or(&server.command);
        let inline = server
            .args
            .iter()
            .position(|arg| matches!(arg.as_str(), "-c" | "-e" | "--eval" | "-p"))
            .and_then(|index| server.args.get(index + 1));
        let first_command = match (program, inline) {
            ("sh" | "bash" | "zsh" | "dash", Some(code)) => code
                .split_whitespace()
                .next()
                .unwrap_or("")
                .rsplit('/')
                .next()
                .unwrap_or("")
                .to_owned(),
            _ => program.to_owned(),
        };
        let one_shot = matches!(
            first_command.as_str(),
            "curl"
                | "wget"
                | "nc"
                | "ncat"
                | "netcat"
                | "dig"
                | "nslookup"
                | "host"
                | "rm"
                | "chmod"
                | "chown"
                | "dd"
                | "scp"
                | "rsync"
                | "socat"
                | "telnet"
                | "base64"
                | "echo"
                | "printf"
        );
        let secrets_given: Vec<&String> = server
            .env
            .iter()
            .filter(|name| examine::is_secret_name(name))
            .collect();
        let at = server.offset;
        let len = server.name.len() + 2;
        let inline_network = inline.is_some() && examined.network;
        if (one_shot || inline_network) && examined.network && !secrets_given.is_empty() {
            out.at(
                &MCP_SECRET_EGRESS,
                file,
                at,
                len,
                format!(
                    "the MCP server `{}` gives {} to `{first_command}`, which sends data{}",
                    server.name,
                    secrets_given
                        .iter()
                        .map(|name| format!("${name}"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    if examined.hosts.is_empty() {
                        String::new()
                    } else {
                        format!(" to {}", examined.hosts.join(", "))
                    }
                ),
            );
        } else if one_shot {
            out.at(
                &MCP_NOT_A_SERVER,
                file,
                at,
                len,
                format!(
                    "the MCP server `{}` runs `{first_command}`, a one-shot command, not a server",
                    server.name
                ),
            );
        }
        if let Some(code_text) = inline
            && let Some(secret) = SECRET_NAME_IN_CODE
                .find_iter(code_text)
                .map(|found| found.as_str())
                .find(|name| examine::is_secret_name(name))
        {
            out.at(
                &MCP_SECRET_READ,
                file,
                at,
                len,
                format!(
                    "the MCP server `{}` runs inline code that reads ${secret}",
                    server.name
                ),
            );
        }
        // An address hidden in an argument, an `env` value or inline code.
        if let Some(url) = server
            .args
            .iter()
            .chain(&server.env_values)
            .flat_map(|value| ENCODED_RUN.find_iter(value))
            .find_map(|run| examine::encoded_url(run.as_str()))
        {
            out.at(
                &MCP_HIDDEN_URL,
                file,
                at,
                len,
                format!("the MCP server `{}` hides the address {url}", server.name),
            );
        }
        if let Some(package) = typosquat(&server) {
            out.at(
                &MCP_TYPOSQUAT,
                file,
                at,
                len,
                format!("the MCP server `{}` installs {package}", server.name),
            );
        }
    }
}

/// Runs of base64 or hex long enough to hold an address.
static ENCODED_RUN: LazyLock<Regex> = LazyLock::new(|| pattern(r"[A-Za-z0-9+/=_-]{16,}"));

static SECRET_NAME_IN_CODE: LazyLock<Regex> = LazyLock::new(|| pattern(r"\b[A-Z][A-Z0-9_]{3,}\b"));

/// The official MCP packages' scope and names, which lookalikes imitate.
const OFFICIAL_SCOPE: &str = "@modelcontextprotocol";
const OFFICIAL_SERVERS: &[&str] = &[
    "server-filesystem",
    "server-memory",
    "server-github",
    "server-fetch",
    "server-git",
    "server-postgres",
    "server-sqlite",
    "server-slack",
    "server-puppeteer",
    "server-brave-search",
    "server-google-maps",
    "server-everything",
    "server-sequential-thinking",
    "server-time",
    "server-gdrive",
    "server-redis",
    "server-sentry",
    "server-gitlab",
    "server-everart",
    "server-aws-kb-retrieval",
    "inspector",
    "sdk",
];

/// Publishers whose npm scope a lookalike imitates (`@anthropc/…`), without the `@`: the
/// real scopes, and the brand a real scope adds a suffix to (`anthropic` of `@anthropic-ai`).
const KNOWN_SCOPES: &[&str] = &[
    "modelcontextprotocol",
    "anthropic-ai",
    "anthropic",
    "openai",
    "microsoft",
    "google",
    "googleapis",
    "cloudflare",
    "playwright",
    "supabase",
    "upstash",
    "stripe",
    "github",
    "vercel",
    "sentry",
    "notionhq",
    "huggingface",
    "langchain",
    "azure",
    "aws-sdk",
];

/// Whether the scope `@scope` is one slip from a known publisher's and is not one.
fn lookalike_scope(scope: &str) -> bool {
    let stem = scope.trim_start_matches('@');
    if KNOWN_SCOPES.contains(&stem) {
        return false;
    }
    KNOWN_SCOPES.iter().any(|known| {
        let allowed = match known.len() {
            0..=5 => 0,
            6..=11 => 1,
            _ => 2,
        };
        allowed > 0 && distance(stem, known) <= allowed
    })
}

/// The package an `npx`/`uvx`/`bunx` entry names, when it is one or two letters away from an
/// official one (and not it).
fn typosquat(server: &mcp::Server) -> Option<String> {
    let program = server.command.rsplit('/').next().unwrap_or(&server.command);
    if !matches!(program, "npx" | "bunx" | "pnpx" | "uvx" | "pipx") {
        return None;
    }
    let package = server.args.iter().find(|arg| !arg.starts_with('-'))?;
    let bare = package.as_str();
    let (scope, name) = match bare.strip_prefix('@').and_then(|rest| rest.split_once('/')) {
        Some((scope, name)) => (
            format!("@{scope}"),
            name.split('@').next().unwrap_or(name).to_owned(),
        ),
        None => (
            String::new(),
            bare.split('@').next().unwrap_or(bare).to_owned(),
        ),
    };
    let near = |a: &str, b: &str| a != b && distance(a, b) <= 2;
    let squats = if scope == OFFICIAL_SCOPE {
        !OFFICIAL_SERVERS.contains(&name.as_str())
            && OFFICIAL_SERVERS
                .iter()
                .any(|official| near(&name, official))
    } else if !scope.is_empty() {
        near(&scope, OFFICIAL_SCOPE) || lookalike_scope(&scope)
    } else {
        OFFICIAL_SERVERS
            .iter()
            .any(|official| near(&name, &format!("mcp-{official}")))
    };
    squats.then(|| package.clone())
}

/// Levenshtein distance, bounded by the short names it compares.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().take(64).collect();
    let b: Vec<char> = b.chars().take(64).collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            let value = (previous[j] + cost)
                .min(previous[j + 1] + 1)
                .min(current[j] + 1);
            current.push(value);
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests;
