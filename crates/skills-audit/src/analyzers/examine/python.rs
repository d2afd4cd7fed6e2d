//! Python, as the `scripts` analyzer reads it: `subprocess` and `os.system` commands read as
//! shell, `exec`/`eval` of downloaded or decoded text, requests that carry the environment
//! or a secret, and the paths opened for reading or writing.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::{
    Behaviour, Binders, Examined, Origin, PERSISTENCE_PATHS, Sources, bindings, command_line,
    credential, follow, hosts_near, is_root_target, is_system_path, leak, literal_rules, pattern,
    place, shell_with, without_headers,
};
use crate::analyzers::code::{self, Lang, Lexed};
use crate::analyzers::hosts;
use crate::analyzers::{Lean, constant_words};

/// The expressions only asked whether and where they match, for the file of shipped
/// automata (`lean.rs`).
#[cfg(test)]
pub(in crate::analyzers) const WORDS: [&str; 9] = [
    NETWORK_CALL_SOURCE,
    SOCKET_SOURCE,
    EXEC_CALL_SOURCE,
    ENVIRONMENT_SOURCE,
    DECODER_SOURCE,
    WRITE_MODE_SOURCE,
    RMTREE_SOURCE,
    HOME_EXPRESSION_SOURCE,
    DNS_CALL_SOURCE,
];

/// Calls that use the network.
static NETWORK_CALL: LazyLock<Lean> = LazyLock::new(|| constant_words(NETWORK_CALL_SOURCE));

const NETWORK_CALL_SOURCE: &str = r"\b(?:(?:requests|httpx|session|self\.session|client\.session|aiohttp)\.(?:get|post|put|patch|delete|head|request|options)|urllib\.request\.urlopen|urllib2\.urlopen|urlopen|urllib\.request\.Request|http\.client\.HTTPS?Connection|HTTPSConnection|HTTPConnection|socket\.create_connection|smtplib\.SMTP(?:_SSL)?|ftplib\.FTP|paramiko\.SSHClient|websocket\.create_connection|websockets\.connect|urllib3\.PoolManager|socket\.gethostbyname|dns\.resolver\.(?:resolve|query)|\w+\.(?:sendall|sendto))\s*\(";

/// A socket made, for the reverse-shell shape.
static SOCKET: LazyLock<Lean> = LazyLock::new(|| constant_words(SOCKET_SOURCE));

const SOCKET_SOURCE: &str = r"\bsocket\.socket\s*\(|\bsocket\.create_connection\s*\(";

/// Calls that run a command line.
static EXEC_CALL: LazyLock<Lean> = LazyLock::new(|| constant_words(EXEC_CALL_SOURCE));

const EXEC_CALL_SOURCE: &str = r"\b(?:os\.system|os\.popen|subprocess\.(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput)|commands\.getoutput|os\.exec[lv]p?e?|os\.spawn[lv]p?e?|asyncio\.create_subprocess_(?:shell|exec)|pty\.spawn|__import__\(\s*['\x22](?:os|subprocess)['\x22]\s*\)\.(?:system|popen|run|call|check_output|Popen)|Popen|check_output|check_call|getoutput)\s*\(";

/// `exec(` and `eval(` of Python itself (not `model.eval()`, not `ast.literal_eval`).
static EVAL_CALL: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?:^|[^.\w])((?:exec|eval|pickle\.loads|marshal\.loads)\s*\()"));

/// Assignments: `name = …`, `name: T = …`.
static ASSIGNMENT: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?m)^[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?::[^=\n]*)?=[^=]"));

/// A secret variable read: `os.environ["X"]`, `os.environ.get("X")`, `os.getenv("X")`.
static SECRET_READ: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r#"\b(?:os\.environ\s*\[\s*|os\.environ\.get\s*\(\s*|os\.getenv\s*\(\s*|environ\.get\s*\(\s*|environ\s*\[\s*)["']([A-Z][A-Z0-9_]*)["']"#,
    )
});

/// The whole environment as a value (`dict(os.environ)`, `json=os.environ`, `{**os.environ}`).
static ENVIRONMENT: LazyLock<Lean> = LazyLock::new(|| constant_words(ENVIRONMENT_SOURCE));

const ENVIRONMENT_SOURCE: &str = r"(?:\bos|__import__\(\s*['\x22]os['\x22]\s*\))\.environ\b(?:\s*\.\s*(?:copy|items|values)\s*\(\s*\))?";

/// Decoders: a name assigned from one holds decoded text.
static DECODER: LazyLock<Lean> = LazyLock::new(|| constant_words(DECODER_SOURCE));

const DECODER_SOURCE: &str = r"\b(?:b64decode|b32decode|b85decode|a85decode|decodebytes|decodestring|unhexlify|fromhex|decompress|codecs\.decode|marshal\.loads|rot13|rot_13)\b|\[::-1\]|\bchr\s*\(";

/// Calls that read a file, for a credential path to count as read.
const READ_CALLS: &[&str] = &[
    "open(",
    ".read",
    "read_text(",
    "read_bytes(",
    "Path(",
    "expanduser(",
    "path.join(",
    "shutil.copy",
    "copyfile(",
    "glob(",
    "listdir(",
    "os.walk(",
    "sqlite3.connect(",
    "exists(",
    "is_file(",
    "home()",
    "load(",
    "tarfile",
    "zipfile",
    "ConfigParser",
    "make_archive(",
    "scandir(",
    "iterdir(",
];

/// Calls that write a file, for a persistence path to count as written.
const WRITE_CALLS: &[&str] = &[
    "write_text(",
    "write_bytes(",
    ".write(",
    ".writelines(",
    "shutil.copy",
    "copyfile(",
    "os.symlink(",
    "os.rename(",
    "os.replace(",
    "symlink_to(",
];

/// Calls whose string arguments are patterns or messages: data, not behaviour.
fn is_data_call(name: &str) -> bool {
    let last = name.rsplit('.').next().unwrap_or(name);
    matches!(
        last,
        "[" | "{"
            | "compile"
            | "search"
            | "match"
            | "fullmatch"
            | "findall"
            | "finditer"
            | "sub"
            | "fnmatch"
            | "endswith"
            | "startswith"
            | "print"
            | "debug"
            | "info"
            | "warning"
            | "warn"
            | "error"
            | "exception"
            | "critical"
            | "log"
            | "add_argument"
            | "format"
            | "append"
            | "extend"
            | "add"
            | "get"
            | "frozenset"
            | "set"
            | "tuple"
            | "list"
            | "Pattern"
            | "contains"
            | "replace"
            | "split"
            | "join"
            | "echo"
            | "write"
            | "secho"
    ) && !matches!(name, "os.path.join" | "path.join")
}

pub(super) fn examine(
    text: &str,
    base: usize,
    anchor: Option<(usize, usize)>,
    out: &mut Examined,
    depth: u8,
) {
    let lexed = code::lex(text, Lang::Python);
    let code_text = lexed.code.as_str();
    let at = |range: Range<usize>| place(anchor, base + range.start, range.len());
    let first_fact = out.facts.len();

    let mut file_hosts = Vec::new();
    for literal in &lexed.literals {
        for host in hosts::hosts(lexed.text(literal)) {
            hosts::push_host(&mut file_hosts, &host);
        }
    }

    // Network calls outside strings.
    let network_calls: Vec<Range<usize>> = NETWORK_CALL
        .find_iter(code_text)
        .filter(|found| lexed.inside_literal(found.start()).is_none())
        .map(|found| found.range())
        .collect();
    let network = !network_calls.is_empty() || SOCKET.is_match(code_text);
    if network {
        out.network = true;
        out.note_hosts(file_hosts.iter().cloned());
        if let Some(first) = network_calls.first() {
            out.add(
                Behaviour::NetworkEgress,
                at(first.start..first.end - 1),
                format!(
                    "uses the network{}",
                    if file_hosts.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", file_hosts.join(", "))
                    }
                ),
            );
        }
    }

    // Credential paths in literals, read.
    let mut credential_literals: Vec<(Range<usize>, &'static str, bool)> = Vec::new();
    let has_reads = READ_CALLS.iter().any(|call| code_text.contains(call));
    for literal in &lexed.literals {
        let content = lexed.text(literal);
        if content.len() > 300 {
            continue;
        }
        let Some((label, store)) = credential(content) else {
            continue;
        };
        let line = line_of(code_text, literal.range.clone());
        let enclosing = lexed
            .enclosing(literal.range.start, 300)
            .map(|(name, _)| name);
        let data = enclosing.is_some_and(is_data_call);
        let read_here = READ_CALLS.iter().any(|call| line.contains(call));
        let in_home = [
            "~/",
            "$HOME",
            "/home/",
            "/Users/",
            "/root/",
            "%USERPROFILE%",
        ]
        .iter()
        .any(|home| content.starts_with(home));
        // A list of full paths in a home, read by a file that sends: a stealer's shopping
        // list. Fragments (`'/.ssh/'`) are a deny list's patterns.
        let stealer_list =
            data && matches!(enclosing, Some("[" | "{" | "(")) && in_home && has_reads && network;
        if read_here && !data || stealer_list {
            credential_literals.push((literal.range.clone(), label, store));
            if store {
                out.add(
                    Behaviour::CredentialRead,
                    at(literal.range.clone()),
                    format!("reads {label}"),
                );
            }
        }
    }

    // What names hold.
    let sources = sources(&lexed, &credential_literals);
    let binders = Binders {
        subscript: &SUBSCRIPT,
        mutate: &MUTATE,
        for_loop: &FOR_LOOP,
    };
    let (mut taint, assigned) = follow(
        &lexed,
        &bindings(&lexed, &ASSIGNMENT, &binders, false),
        &sources,
        &ENCODER,
    );
    // `env = os.environ.copy()` handed to a child process is how a script sets a variable
    // for it, not a capture of the environment.
    let child_env: Vec<String> = taint
        .names
        .iter()
        .filter(|(name, origins)| {
            origins.contains(&Origin::Environment)
                && pattern(&format!(
                    r"\benv\s*=\s*(?:\{{\s*\*\*\s*)?{}\b",
                    regex::escape(name)
                ))
                .is_match(code_text)
        })
        .map(|(name, _)| name.clone())
        .collect();
    for name in child_env {
        if let Some(origins) = taint.names.get_mut(&name) {
            origins.retain(|origin| *origin != Origin::Environment);
        }
    }

    // What network calls carry.
    for call in &network_calls {
        let span = lexed.call_span(call.end - 1);
        let near = hosts_near(&lexed, span.clone(), &file_hosts);
        for part in without_headers(&lexed, span.clone()) {
            let mut origins = taint.origins_in(&lexed, part.clone());
            origins.extend(sources.within(&lexed, part.clone()));
            let hides = lexed
                .code
                .get(part.clone())
                .is_some_and(|text| ENCODER.is_match(text))
                || DNS_CALL.is_match(&code_text[call.clone()]);
            for origin in origins {
                let origin = if hides {
                    super::encoded(origin)
                } else {
                    origin
                };
                if let Some((behaviour, message)) = leak(&origin, &near) {
                    out.add(behaviour, at(call.start..call.end - 1), message);
                }
            }
        }
    }

    // Command lines.
    for found in EXEC_CALL.find_iter(code_text) {
        if lexed.inside_literal(found.start()).is_some()
            || code_text[..found.start()].ends_with('.')
                && !code_text[found.range()].starts_with("os.")
                && !code_text[found.range()].starts_with("subprocess.")
        {
            continue;
        }
        let span = lexed.call_span(found.end() - 1);
        if let Some(line) = command_line(&lexed, span, &assigned) {
            shell_with(
                &line,
                at(found.start()..found.end() - 1),
                &taint,
                out,
                depth,
            );
        }
    }

    // exec / eval.
    for captures in EVAL_CALL.captures_iter(code_text) {
        let Some(call) = captures.get(1) else {
            continue;
        };
        if lexed.inside_literal(call.start()).is_some() {
            continue;
        }
        let span = lexed.call_span(call.end() - 1);
        let inside = &code_text[span.clone()];
        let origins = taint.origins_in(&lexed, span.clone());
        let name = call.as_str().trim_end_matches(['(', ' ']);
        let place_of = at(call.start()..call.end() - 1);
        if NETWORK_CALL.is_match(inside) || origins.contains(&Origin::Download) {
            out.add(
                Behaviour::DownloadExec,
                place_of,
                format!("{name} runs code it downloads"),
            );
        } else if DECODER.is_match(inside)
            || inside.contains("base64")
            || origins.contains(&Origin::Decoded)
        {
            out.add(
                Behaviour::ObfuscatedExec,
                place_of,
                format!("{name} runs decoded or assembled code"),
            );
        } else if inside.contains("compile(") && inside.contains("open(") {
            let outside = lexed
                .literals_in(span.clone())
                .iter()
                .map(|l| lexed.text(l))
                .find(|path| path.starts_with('/') || path.starts_with('~'));
            if let Some(path) = outside {
                out.add(
                    Behaviour::ObfuscatedExec,
                    place_of,
                    format!("{name} runs code from {path}, outside the skill"),
                );
            } else {
                out.add(
                    Behaviour::DynamicExec,
                    place_of,
                    format!("{name} runs code read from a file"),
                );
            }
        } else if name != "pickle.loads"
            && name != "marshal.loads"
            && super::references(&lexed, span.clone())
                .iter()
                .any(|r| !matches!(*r, "globals" | "locals" | "None" | "True" | "False"))
        {
            out.add(
                Behaviour::DynamicExec,
                place_of,
                format!("{name} runs text that is not a literal"),
            );
        }
    }

    // Literals written to, removed, or naming pools.
    for literal in &lexed.literals {
        let content = lexed.text(literal);
        if content.len() > 1000 {
            literal_rules(content, at(literal.range.clone()), out);
            continue;
        }
        let flagged = super::MINING_TEXT.is_match(content)
            || content.starts_with("aHR0")
            || content.starts_with("68747470");
        let target = content.contains("authorized_keys")
            || content.starts_with("/etc/sudoers")
            || super::is_outside(content)
            || PERSISTENCE_PATHS.is_match(content)
            || PERSISTENCE_PATHS.is_match(&content.replace("~/", "/~/"));
        if !flagged && !target {
            continue;
        }
        let line = line_of(code_text, literal.range.clone());
        let enclosing = lexed.enclosing(literal.range.start, 300);
        let data = enclosing.is_some_and(|(name, _)| is_data_call(name));
        // A pattern list naming a pool is data; a hidden URL is hidden wherever it is.
        if !data || super::encoded_url(content).is_some() {
            literal_rules(content, at(literal.range.clone()), out);
        }
        let writes = WRITE_CALLS.iter().any(|call| line.contains(call))
            || line.contains("open(") && WRITE_MODE.is_match(line);
        if writes && !data {
            let expanded = content.replace("~/", "/~/");
            if super::is_outside(content) {
                out.writes_outside = true;
            }
            if content.contains("authorized_keys") {
                out.add(
                    Behaviour::AuthorizedKeys,
                    at(literal.range.clone()),
                    "adds a key to ~/.ssh/authorized_keys: whoever holds it can log in",
                );
            } else if PERSISTENCE_PATHS.is_match(content) || PERSISTENCE_PATHS.is_match(&expanded) {
                out.add(Behaviour::Persistence, at(literal.range.clone()), format!("writes to {content}, which runs again later (login, shell, schedule or commit)"));
            } else if content.starts_with("/etc/sudoers") {
                out.add(
                    Behaviour::PrivilegeEscalation,
                    at(literal.range.clone()),
                    format!("writes to {content}"),
                );
            }
        }
    }
    if code_text.contains("CronTab(")
        && code_text.contains(".write(")
        && let Some(offset) = code_text.find("CronTab(")
    {
        out.add(
            Behaviour::Persistence,
            at(offset..offset + 7),
            "installs a cron job: runs again on a schedule",
        );
    }

    // Removal of a home or the root.
    for found in RMTREE.find_iter(code_text) {
        if lexed.inside_literal(found.start()).is_some() {
            continue;
        }
        let span = lexed.call_span(found.end() - 1);
        let argument = code_text[span.clone()]
            .split(',')
            .next()
            .unwrap_or("")
            .trim();
        let literal = lexed
            .literals_in(span)
            .first()
            .map(|l| lexed.text(l))
            .filter(|_| argument.starts_with(['"', '\'']));
        if HOME_EXPRESSION.is_match(argument) || literal.is_some_and(is_root_target) {
            out.add(
                Behaviour::Destructive,
                at(found.start()..found.end() - 1),
                format!("removes {argument} recursively"),
            );
        } else if let Some(path) = literal.filter(|path| is_system_path(path)) {
            out.add(
                Behaviour::SystemDelete,
                at(found.start()..found.end() - 1),
                format!("removes the system folder {path} recursively"),
            );
        }
    }

    // Privileges.
    if let Some(found) = SETUID
        .find(code_text)
        .filter(|f| lexed.inside_literal(f.start()).is_none())
    {
        out.add(
            Behaviour::PrivilegeEscalation,
            at(found.range()),
            format!("{} gains or grants root", found.as_str()),
        );
    }

    // Reverse shell: a socket wired to a shell's input and output.
    if SOCKET.is_match(code_text)
        && (code_text.contains("os.dup2(") || code_text.contains("pty.spawn("))
        // A local socket (a language server, a database) is not the network.
        && (!code_text.contains("AF_UNIX") || code_text.contains("AF_INET"))
        && (code_text.contains(".connect(") || code_text.contains("create_connection("))
    {
        let offset = code_text
            .find(".connect(")
            .or_else(|| code_text.find("create_connection("))
            .unwrap_or(0);
        out.add(
            Behaviour::ReverseShell,
            at(offset..offset + 8),
            "wires a network socket to a shell's input and output",
        );
    }

    // Secrets of several services gathered into one structure and written or sent.
    harvest(&lexed, &assigned, anchor, base, out);

    // A credential store read in a file that also sends: the brief's "taint-lite".
    let read_credentials: Vec<(usize, usize, String)> = out.facts[first_fact..]
        .iter()
        .filter(|fact| fact.behaviour == Behaviour::CredentialRead)
        .map(|fact| (fact.offset, fact.len, fact.message.clone()))
        .collect();
    if network && !network_calls.is_empty() {
        for (offset, len, message) in read_credentials {
            out.add(
                Behaviour::CredentialExfil,
                (offset, len),
                format!(
                    "{message} and sends over the network in the same file{}",
                    super::to_hosts(&file_hosts).replacen(" over the network", "", 1)
                ),
            );
        }
    }
}

static WRITE_MODE: LazyLock<Lean> = LazyLock::new(|| constant_words(WRITE_MODE_SOURCE));

const WRITE_MODE_SOURCE: &str = r#"["'](?:a|w|a\+|w\+|ab|wb|at|wt|x)["']|mode\s*=\s*["'][aw]"#;

static RMTREE: LazyLock<Lean> = LazyLock::new(|| constant_words(RMTREE_SOURCE));

const RMTREE_SOURCE: &str = r"\b(?:shutil\.rmtree|os\.removedirs|rmtree)\s*\(";

static HOME_EXPRESSION: LazyLock<Lean> = LazyLock::new(|| constant_words(HOME_EXPRESSION_SOURCE));

const HOME_EXPRESSION_SOURCE: &str = r#"^(?:os\.path\.expanduser\(\s*["']~/?["']\s*\)|(?:pathlib\.)?Path\.home\(\)|os\.environ\[\s*["']HOME["']\s*\]|os\.getenv\(\s*["']HOME["']\s*\)|Path\(\s*["']/["']\s*\))$"#;

static SETUID: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"\bos\.set(?:e?uid|e?gid|resuid)\s*\(\s*0\s*\)|\bstat\.S_IS[UG]ID\b|\bos\.chmod\s*\([^)]*0o[246][0-7]{3}",
    )
});

/// The line around `range`.
fn line_of(code: &str, range: Range<usize>) -> &str {
    let start = code[..range.start].rfind('\n').map_or(0, |index| index + 1);
    let end = code[range.end.min(code.len())..]
        .find('\n')
        .map_or(code.len(), |index| range.end + index);
    &code[start..end]
}

static SUBSCRIPT: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?m)^[ \t]*([A-Za-z_][A-Za-z0-9_]*)\s*\[[^\]\n]*\]\s*=[^=]"));
static MUTATE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"\b([A-Za-z_][A-Za-z0-9_]*)\.(?:append|extend|update|add|insert|setdefault)\s*\(")
});
static FOR_LOOP: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?m)^[ \t]*(?:async\s+)?for\s+([^\n:]+?)\s+in\s+"));

static ENCODER: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"\b(?:b64encode|b32encode|b85encode|a85encode|urlsafe_b64encode|encodebytes|hexlify)\b|\.hex\(\)|\bcodecs\.encode\b",
    )
});
static DNS_CALL: LazyLock<Lean> = LazyLock::new(|| constant_words(DNS_CALL_SOURCE));

const DNS_CALL_SOURCE: &str = r"gethostbyname|getaddrinfo|dns\.resolver";

/// Where the file reads secrets, the environment, credentials, downloads and decoded text.
fn sources(lexed: &Lexed, credentials: &[(Range<usize>, &'static str, bool)]) -> Sources {
    let code_text = lexed.code.as_str();
    let mut found = Sources::default();
    if code_text.contains("environ") || code_text.contains("getenv") {
        for captures in SECRET_READ.captures_iter(code_text) {
            if let (Some(whole), Some(name)) = (captures.get(0), captures.get(1))
                && super::is_secret_name(name.as_str())
            {
                found.push(whole.range(), Origin::Secret(name.as_str().to_owned()));
            }
        }
        for environment in ENVIRONMENT.find_iter(code_text) {
            let after = code_text[environment.end()..].trim_start();
            let whole = code_text[environment.range()].contains('(')
                || !(after.starts_with('[') || after.starts_with('.'));
            if whole && lexed.inside_literal(environment.start()).is_none() {
                found.push(environment.range(), Origin::Environment);
            }
        }
    }
    for (literal, label, _) in credentials {
        found.push(literal.clone(), Origin::Credential(label));
    }
    for call in NETWORK_CALL.find_iter(code_text) {
        found.push(call.range(), Origin::Download);
    }
    for decoder in DECODER.find_iter(code_text) {
        found.push(decoder.range(), Origin::Decoded);
    }
    found.sort();
    found
}

/// Secrets of two or more services read into one dict or list that is then serialised,
/// printed, written or sent: a credential harvest.
fn harvest(
    lexed: &Lexed,
    assigned: &HashMap<String, Range<usize>>,
    anchor: Option<(usize, usize)>,
    base: usize,
    out: &mut Examined,
) {
    let code_text = lexed.code.as_str();
    let mut groups: HashMap<usize, Vec<String>> = HashMap::new();
    for captures in SECRET_READ.captures_iter(code_text) {
        let (Some(whole), Some(name)) = (captures.get(0), captures.get(1)) else {
            continue;
        };
        if !super::is_secret_name(name.as_str()) || lexed.inside_literal(whole.start()).is_some() {
            continue;
        }
        if let Some((bracket, offset)) = lexed.enclosing(whole.start(), 400) {
            let offset = if bracket == "[" || bracket == "{" {
                Some(offset)
            } else {
                // `os.environ["X"]` is itself inside `[`…: look past it.
                lexed
                    .enclosing(offset, 400)
                    .filter(|(outer, _)| *outer == "{" || *outer == "[")
                    .map(|(_, at)| at)
            };
            if let Some(offset) = offset {
                groups
                    .entry(offset)
                    .or_default()
                    .push(name.as_str().to_owned());
            }
        }
    }
    static USE: LazyLock<Regex> = LazyLock::new(|| {
        pattern(
            r"\b(?:dumps|dump|print|write|post|put|send|sendall|b64encode|urlencode|encode)\s*\(",
        )
    });
    for (offset, names) in groups {
        let mut vendors: Vec<&str> = names
            .iter()
            .map(|name| name.split('_').next().unwrap_or(name))
            .collect();
        vendors.sort_unstable();
        vendors.dedup();
        if vendors.len() < 2 {
            continue;
        }
        let holder = assigned
            .iter()
            .find(|(_, rhs)| rhs.start <= offset && offset < rhs.end)
            .map(|(name, _)| name.as_str());
        let used = USE.find_iter(code_text).any(|call| {
            let span = lexed.call_span(call.end() - 1);
            span.contains(&offset)
                || holder.is_some_and(|holder| super::references(lexed, span).contains(&holder))
        });
        if used {
            out.add(
                Behaviour::SecretHarvest,
                place(anchor, base + offset, 1),
                format!(
                    "gathers the secrets of several services ({}) and serialises or sends them",
                    names.join(", ")
                ),
            );
        }
    }
}
