//! The `scripts` analyzer: what a skill's code would do when it runs.
//!
//! It reads every bundled script in the language the runtime would run it as
//! ([`ScriptLanguage`](skills_types::run::ScriptLanguage) decides, a `#!` line for a file
//! without an extension, and the skill's `[interpreters]` for other extensions, read with the
//! rules that hold in any language), and the shell, Python and JavaScript blocks of its
//! Markdown, which an agent runs when the text tells it to. What the code does comes from
//! [`examine`](super::examine) as facts; each kind of fact is one rule here.
//!
//! Code in Markdown is not the same as a bundled script: a block under "Usage" or after
//! "Run:" is what the agent will run, and keeps its rule's severity; a block merely shown is
//! one level lower; a block the text presents as an attack, a vulnerable pattern or what not
//! to do is at most low, because a security guide that shows `curl … | sh` is not doing it.

use skills_types::audit::{Category, Severity};

use super::code::{self, Lang, Presented};
use super::examine::{self, Behaviour, Examined};
use super::{mcp, sidecar};
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
        analyzer: "scripts",
        severity,
        category,
        title,
        remediation,
    }
}

const CREDENTIAL_READ: Rule = rule(
    "SCRIPT_CREDENTIAL_READ",
    Severity::High,
    Category::CredentialAccess,
    "Reads a credential store",
    "Remove the read, or take the credential as an input the user gives on purpose.",
);
const CREDENTIAL_EXFIL: Rule = rule(
    "SCRIPT_CREDENTIAL_EXFIL",
    Severity::Critical,
    Category::DataExfiltration,
    "Sends credentials over the network",
    "Do not install this skill; a skill has no reason to send keys or passwords anywhere.",
);
const ENV_EXFIL: Rule = rule(
    "SCRIPT_ENV_EXFIL",
    Severity::Critical,
    Category::DataExfiltration,
    "Sends the whole environment over the network",
    "Do not install this skill; send only the named values an API needs.",
);
const SECRET_EGRESS: Rule = rule(
    "SCRIPT_SECRET_EGRESS",
    Severity::Critical,
    Category::DataExfiltration,
    "Sends a secret where it does not belong",
    "Do not install this skill: it sends a secret hidden (encoded, in a DNS name, out of an \
     environment dump) or a well-known service's token to another host.",
);
const SECRET_SENT: Rule = rule(
    "SCRIPT_SECRET_SENT",
    Severity::Medium,
    Category::DataExfiltration,
    "Sends a secret to a host not named like its service",
    "Check the host is the secret's own service; send tokens in an Authorization header.",
);
const SECRET_PAYLOAD: Rule = rule(
    "SCRIPT_SECRET_PAYLOAD",
    Severity::High,
    Category::DataExfiltration,
    "Sends a secret as the whole content of a request",
    "Do not install this skill unless the host is the secret's own service: an API takes \
     its key to authenticate a request, not as the thing the request sends.",
);
const SECRET_HARVEST: Rule = rule(
    "SCRIPT_SECRET_HARVEST",
    Severity::High,
    Category::CredentialAccess,
    "Gathers the secrets of several services",
    "Read only the one secret the skill's own service needs.",
);
const NETWORK_EGRESS: Rule = rule(
    "SCRIPT_NETWORK_EGRESS",
    Severity::Low,
    Category::DataExfiltration,
    "Uses the network",
    "Check the hosts named are the ones the skill says it talks to.",
);
const DOWNLOAD_EXEC: Rule = rule(
    "SCRIPT_DOWNLOAD_EXEC",
    Severity::Critical,
    Category::CommandInjection,
    "Runs code it downloads",
    "Ship the code with the skill, or download a pinned release and verify its checksum \
     before running it.",
);
const REMOTE_INSTALLER: Rule = rule(
    "SCRIPT_REMOTE_INSTALLER",
    Severity::Medium,
    Category::SupplyChainAttack,
    "Pipes a vendor's installer into a shell",
    "Prefer a package manager, or tell the user to install the tool themselves.",
);
const INSTALL_FROM_URL: Rule = rule(
    "SCRIPT_INSTALL_FROM_URL",
    Severity::High,
    Category::SupplyChainAttack,
    "Installs a package from a URL or another index at run time",
    "Install from the public registry with a pinned version, or ship the dependency.",
);
const PACKAGE_INSTALL: Rule = rule(
    "SCRIPT_PACKAGE_INSTALL",
    Severity::Low,
    Category::SupplyChainAttack,
    "Installs packages at run time",
    "Declare the dependencies (requirements, package.json) and pin their versions.",
);
const REVERSE_SHELL: Rule = rule(
    "SCRIPT_REVERSE_SHELL",
    Severity::Critical,
    Category::Malware,
    "Opens a shell to the network",
    "Do not install this skill: it gives a remote party a shell on the machine.",
);
const PERSISTENCE: Rule = rule(
    "SCRIPT_PERSISTENCE",
    Severity::High,
    Category::Persistence,
    "Makes itself run again later",
    "Do not write shell start-up files, crontabs, services, launch agents or git hooks; \
     tell the user what to add instead.",
);
const AUTHORIZED_KEYS: Rule = rule(
    "SCRIPT_AUTHORIZED_KEYS",
    Severity::Critical,
    Category::Persistence,
    "Adds an SSH key to authorized_keys",
    "Do not install this skill: a key added there lets its holder log in.",
);
const DESTRUCTIVE: Rule = rule(
    "SCRIPT_DESTRUCTIVE",
    Severity::Critical,
    Category::DestructiveAction,
    "Destroys a home, the system or a disk",
    "Remove the command; a skill deletes only what it created, in its own folders.",
);
const SYSTEM_DELETE: Rule = rule(
    "SCRIPT_SYSTEM_DELETE",
    Severity::High,
    Category::DestructiveAction,
    "Removes a system folder",
    "Remove the command; system folders and logs are not a skill's to delete.",
);
const OBFUSCATED_EXEC: Rule = rule(
    "SCRIPT_OBFUSCATED_EXEC",
    Severity::High,
    Category::Obfuscation,
    "Runs decoded or hidden code",
    "Ship the code as readable source; nothing a reviewer cannot read should run.",
);
const ENCODED_URL: Rule = rule(
    "SCRIPT_ENCODED_URL",
    Severity::High,
    Category::Obfuscation,
    "Hides a URL in base64",
    "Write the URL in clear text so a reviewer sees where the code connects.",
);
const DYNAMIC_EXEC: Rule = rule(
    "SCRIPT_DYNAMIC_EXEC",
    Severity::Low,
    Category::CommandInjection,
    "Evaluates text as code",
    "Avoid eval/exec of text that is not a literal; parse the input instead.",
);
const CRYPTO_MINER: Rule = rule(
    "SCRIPT_CRYPTO_MINER",
    Severity::Critical,
    Category::ResourceAbuse,
    "Mines cryptocurrency",
    "Do not install this skill: it spends the machine's power for someone else.",
);
const PRIVILEGE_ESCALATION: Rule = rule(
    "SCRIPT_PRIVILEGE_ESCALATION",
    Severity::High,
    Category::UnauthorizedToolUse,
    "Raises privileges",
    "Do not change sudoers, setuid bits or system folders' permissions; ask the user to do \
     what needs root.",
);
const PERMISSIONS_WEAKENED: Rule = rule(
    "SCRIPT_PERMISSIONS_WEAKENED",
    Severity::Medium,
    Category::UnauthorizedToolUse,
    "Makes files writable by every user",
    "Use the narrowest permissions (700 for folders, 600 for files the user owns).",
);
const ENCODED_SEND: Rule = rule(
    "SCRIPT_ENCODED_SEND",
    Severity::High,
    Category::DataExfiltration,
    "Encodes data before sending it",
    "Send data in clear text, to a host the skill names and says why; encoding what leaves \
     hides it from the user and from logs.",
);

const HIDDEN_DROP: Rule = rule(
    "SCRIPT_HIDDEN_DROP",
    Severity::High,
    Category::Obfuscation,
    "Writes decoded or downloaded data to a hidden temporary file",
    "Write files the skill needs under visible names in its own folder; a decoded or \
     downloaded payload hidden in /tmp is how a stager waits for its next step.",
);

/// This analyzer's rules.
pub(crate) const RULES: &[Rule] = &[
    CREDENTIAL_READ,
    CREDENTIAL_EXFIL,
    ENV_EXFIL,
    SECRET_EGRESS,
    SECRET_SENT,
    SECRET_PAYLOAD,
    SECRET_HARVEST,
    NETWORK_EGRESS,
    DOWNLOAD_EXEC,
    REMOTE_INSTALLER,
    INSTALL_FROM_URL,
    PACKAGE_INSTALL,
    REVERSE_SHELL,
    PERSISTENCE,
    AUTHORIZED_KEYS,
    DESTRUCTIVE,
    SYSTEM_DELETE,
    OBFUSCATED_EXEC,
    ENCODED_URL,
    DYNAMIC_EXEC,
    CRYPTO_MINER,
    PRIVILEGE_ESCALATION,
    PERMISSIONS_WEAKENED,
    ENCODED_SEND,
    HIDDEN_DROP,
];

/// The rule of a kind of fact.
pub(super) fn rule_of(behaviour: Behaviour) -> &'static Rule {
    match behaviour {
        Behaviour::CredentialRead => &CREDENTIAL_READ,
        Behaviour::CredentialExfil => &CREDENTIAL_EXFIL,
        Behaviour::EnvExfil => &ENV_EXFIL,
        Behaviour::SecretEgress => &SECRET_EGRESS,
        Behaviour::SecretSent => &SECRET_SENT,
        Behaviour::SecretPayload => &SECRET_PAYLOAD,
        Behaviour::SecretHarvest => &SECRET_HARVEST,
        Behaviour::NetworkEgress => &NETWORK_EGRESS,
        Behaviour::DownloadExec | Behaviour::InstallerPipe => &DOWNLOAD_EXEC,
        Behaviour::RemoteInstaller => &REMOTE_INSTALLER,
        Behaviour::InstallFromUrl => &INSTALL_FROM_URL,
        Behaviour::PackageInstall => &PACKAGE_INSTALL,
        Behaviour::ReverseShell => &REVERSE_SHELL,
        Behaviour::Persistence => &PERSISTENCE,
        Behaviour::AuthorizedKeys => &AUTHORIZED_KEYS,
        Behaviour::Destructive => &DESTRUCTIVE,
        Behaviour::SystemDelete => &SYSTEM_DELETE,
        Behaviour::ObfuscatedExec => &OBFUSCATED_EXEC,
        Behaviour::EncodedUrl => &ENCODED_URL,
        Behaviour::DynamicExec => &DYNAMIC_EXEC,
        Behaviour::CryptoMiner => &CRYPTO_MINER,
        Behaviour::PrivilegeEscalation => &PRIVILEGE_ESCALATION,
        Behaviour::PermissionsWeakened => &PERMISSIONS_WEAKENED,
        Behaviour::EncodedSend => &ENCODED_SEND,
        Behaviour::HiddenDrop => &HIDDEN_DROP,
    }
}

/// How code reaches the agent: a bundled script runs as written; a Markdown block runs if
/// the agent is told to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Source {
    Script,
    Block(Presented),
}

/// The rule of a fact found in code from `source`: an installer named as such (`…/install.sh`)
/// piped into a shell is a vendor's setup step in Markdown, a download run anywhere else.
fn rule_for(behaviour: Behaviour, source: Source) -> &'static Rule {
    match (behaviour, source) {
        (Behaviour::InstallerPipe, Source::Block(_)) => &REMOTE_INSTALLER,
        _ => rule_of(behaviour),
    }
}

/// The severity of `rule` for code from `source`. Installing software is what setup
/// sections of Markdown are for, so those rules are one level lower there even when the
/// text says to run the block.
pub(super) fn severity_for(rule: &Rule, source: Source) -> Severity {
    let installs =
        [PACKAGE_INSTALL.id, INSTALL_FROM_URL.id, REMOTE_INSTALLER.id].contains(&rule.id);
    let source = match source {
        Source::Block(Presented::Instructed) if installs => Source::Block(Presented::Shown),
        other => other,
    };
    match source {
        Source::Script | Source::Block(Presented::Instructed) => rule.severity,
        Source::Block(Presented::Shown) => match rule.severity {
            Severity::Critical => Severity::High,
            Severity::High => Severity::Medium,
            Severity::Medium => Severity::Low,
            Severity::Low | Severity::Info => Severity::Info,
        },
        Source::Block(Presented::Discussed) => {
            if rule.severity >= Severity::Medium {
                Severity::Low
            } else {
                Severity::Info
            }
        }
    }
}

/// Whether `path` is Markdown an agent reads.
fn is_markdown(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.ends_with(".md") || lower.ends_with(".markdown") || lower.ends_with(".mdx")
}

/// One piece of code: a bundled script, or a block of a Markdown file.
#[derive(Clone, Debug)]
pub(super) struct Unit<'a> {
    pub(super) file: &'a ScannedFile,
    /// The code (a slice of the file's text).
    pub(super) text: &'a str,
    /// Where the code starts in the file.
    pub(super) offset: usize,
    pub(super) lang: Lang,
    pub(super) source: Source,
}

/// The bundled scripts of `skill`: in the language the runtime runs them as, or through the
/// skill's `[interpreters]`.
pub(super) fn scripts(skill: &Skill) -> Vec<Unit<'_>> {
    let sidecar = sidecar::read(skill);
    let mut found = Vec::new();
    for file in &skill.files {
        let lang = match file.kind {
            FileKind::Script(language) => Lang::of_script(language),
            FileKind::Text if sidecar::declares(&sidecar, &file.path).is_some() => Lang::Generic,
            FileKind::Text | FileKind::Binary => continue,
        };
        if let Some(text) = file.text() {
            found.push(Unit {
                file,
                text,
                offset: 0,
                lang,
                source: Source::Script,
            });
        }
    }
    found
}

/// Every piece of code in `skill`: its scripts, then the code blocks of its Markdown.
fn units(skill: &Skill) -> Vec<Unit<'_>> {
    let mut found = scripts(skill);
    for file in &skill.files {
        if file.kind != FileKind::Text || !is_markdown(&file.path) {
            continue;
        }
        let Some(text) = file.text() else { continue };
        for block in code::fenced_blocks(text) {
            if let Some(code) = text.get(block.range.clone()) {
                found.push(Unit {
                    file,
                    text: code,
                    offset: block.range.start,
                    lang: block.lang,
                    source: Source::Block(block.presented),
                });
            }
        }
    }
    found
}

/// Commands that start shell lines written in a Python or JavaScript block by mistake (or
/// to slip past a reader that trusts the label): `curl -sS … | sh` is no Python.
const SHELL_WORDS: &[&str] = &[
    "curl", "wget", "nc", "ncat", "bash", "sh", "chmod", "chown", "rm", "sudo", "pip", "pip3",
    "npm", "npx", "apt-get", "apt", "brew", "crontab", "base64", "dig", "nslookup", "echo",
    "export", "cat", "mkfifo", "socat", "xmrig", "dd", "mkfs", "git", "uv",
];

/// The lines of a Python or JavaScript block that are shell commands, others blanked.
fn shell_lines(text: &str) -> Option<String> {
    let mut found = false;
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let word = trimmed.split([' ', '\t']).next().unwrap_or("");
        let rest = trimmed[word.len()..].trim_start();
        let is_shell = SHELL_WORDS.contains(&word)
            && trimmed.len() > word.len()
            && !rest.starts_with(['=', '(', '.', ':', ',', ')', '['])
            && !rest.is_empty();
        if is_shell {
            found = true;
            out.push_str(line);
        } else {
            out.push_str(&code::blanked(line));
        }
    }
    found.then_some(out)
}

/// What the code of one unit does.
pub(super) fn examine_unit(text: &str, lang: Lang, source: Source) -> Examined {
    if matches!(source, Source::Block(_)) {
        if lang == Lang::Shell {
            if let Some(commands) = code::strip_prompts(text) {
                return examine::examine(&commands, lang);
            }
        } else if let Some(commands) = shell_lines(text) {
            let mut examined = examine::examine(text, lang);
            let shell = examine::examine(&commands, Lang::Shell);
            examined.merge(shell);
            return examined;
        }
    }
    examine::examine(text, lang)
}

/// Every piece of code in `skill` ([`units`]: its scripts first) with what it does: examined
/// once per scan, for this analyzer and the `manifest` one ([`bundled`]).
pub(super) fn examine_units(skill: &Skill) -> Vec<(Unit<'_>, Examined)> {
    units(skill)
        .into_iter()
        .map(|unit| {
            let examined = examine_unit(unit.text, unit.lang, unit.source);
            (unit, examined)
        })
        .collect()
}

/// The bundled scripts of [`examine_units`]' list, with what each does.
pub(super) fn bundled<'s, 'a>(
    examined: &'s [(Unit<'a>, Examined)],
) -> impl Iterator<Item = &'s (Unit<'a>, Examined)> {
    examined
        .iter()
        .filter(|(unit, _)| unit.source == Source::Script)
}

/// Adds this analyzer's findings about `skill` to `out`.
#[cfg(test)]
pub(crate) fn analyze(skill: &Skill, out: &mut Collector) {
    analyze_examined(skill, &examine_units(skill), out);
}

/// Adds this analyzer's findings about `skill`, whose code [`examine_units`] examined, to
/// `out`.
pub(super) fn analyze_examined(skill: &Skill, units: &[(Unit<'_>, Examined)], out: &mut Collector) {
    // One network finding per file, naming every host it talks to.
    let mut egress: Vec<(&ScannedFile, usize, usize, Source, Vec<String>)> = Vec::new();
    for (
        Unit {
            file,
            offset: start,
            source,
            ..
        },
        examined,
    ) in units
    {
        let (file, start, source) = (*file, *start, *source);
        for fact in &examined.facts {
            let offset = start + fact.offset;
            if fact.behaviour == Behaviour::NetworkEgress {
                match egress.iter_mut().find(|entry| std::ptr::eq(entry.0, file)) {
                    Some(entry) => {
                        for host in &examined.hosts {
                            if !entry.4.contains(host) {
                                entry.4.push(host.clone());
                            }
                        }
                    }
                    None => egress.push((file, offset, fact.len, source, examined.hosts.clone())),
                }
                continue;
            }
            let rule = rule_for(fact.behaviour, source);
            let adjusted = Rule {
                severity: severity_for(rule, source),
                ..*rule
            };
            let message = match source {
                Source::Script => fact.message.clone(),
                Source::Block(Presented::Instructed) => format!(
                    "{} (in a code block the text tells the agent to run)",
                    fact.message
                ),
                Source::Block(Presented::Shown) => {
                    format!("{} (in a code block shown in the text)", fact.message)
                }
                Source::Block(Presented::Discussed) => format!(
                    "{} (in a code block the text discusses as an example)",
                    fact.message
                ),
            };
            out.at(&adjusted, file, offset, fact.len, message);
        }
    }
    // MCP servers a host starts by itself: their command lines are code that runs.
    for file in &skill.files {
        for server in mcp::servers(file) {
            if server.command.is_empty() {
                continue;
            }
            let examined = examine::examine(&server.command_line(), Lang::Shell);
            for fact in &examined.facts {
                if fact.behaviour == Behaviour::NetworkEgress {
                    continue;
                }
                let rule = rule_of(fact.behaviour);
                out.at(
                    rule,
                    file,
                    server.offset,
                    server.name.len() + 2,
                    format!("the MCP server `{}` {}", server.name, fact.message),
                );
            }
        }
    }
    for (file, offset, len, source, hosts) in egress {
        let adjusted = Rule {
            severity: severity_for(&NETWORK_EGRESS, source),
            ..NETWORK_EGRESS
        };
        let message = if hosts.is_empty() {
            "uses the network".to_owned()
        } else {
            format!("uses the network: {}", hosts.join(", "))
        };
        out.at(&adjusted, file, offset, len, message);
    }
}

#[cfg(test)]
mod tests;
