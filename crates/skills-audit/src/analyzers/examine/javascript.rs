//! JavaScript and TypeScript, as the `scripts` analyzer reads them: `child_process` commands
//! read as shell, `eval`/`new Function` of fetched or decoded text, requests that carry
//! `process.env` or a secret, and the paths read or written with `fs`.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::{
    Behaviour, Binders, Examined, Origin, PERSISTENCE_PATHS, Sources, bindings, command_line,
    credential, follow, hosts_near, is_root_target, leak, literal_rules, pattern, place,
    shell_with, without_headers,
};
use crate::analyzers::code::{self, Lang, Lexed, LiteralKind};
use crate::analyzers::hosts;

static NETWORK_CALL: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"require\(\s*['\x22](?:node:)?https?['\x22]\s*\)\.(?:request|get)\s*\(|(?:^|[^.\w$])(?:fetch|axios(?:\.(?:get|post|put|patch|delete|request))?|got(?:\.(?:get|post|put|patch))?|https?\.(?:request|get)|net\.(?:connect|createConnection)|tls\.connect|dns\.(?:resolve\w*|lookup)|dns\.promises\.(?:resolve\w*|lookup)|navigator\.sendBeacon|superagent\.(?:get|post|put)|needle\.(?:get|post|put)|ky(?:\.(?:get|post|put))?)\s*\(|\bnew\s+(?:net\.)?Socket\s*\(|\bnew\s+WebSocket\s*\(|\bnew\s+XMLHttpRequest\s*\(",
    )
});

static EXEC_CALL: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?:^|[^\w$])(?:(?:child_process|cp|childProcess|proc)\.)?(?:exec|execSync|spawn|spawnSync|execFile|execFileSync|execa|execaSync|execaCommand|execaCommandSync)\s*\(|\bBun\.spawn(?:Sync)?\s*\(|\bnew\s+Deno\.Command\s*\(",
    )
});

static EVAL_CALL: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?:^|[^.\w$])(?:eval|Function|new\s+Function|vm\.runInThisContext|vm\.runInNewContext|vm\.runInContext|new\s+vm\.Script|setTimeout|setInterval)\s*\(",
    )
});

static ASSIGNMENT: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?m)(?:\b(?:const|let|var)\s+|^[ \t]*)([A-Za-z_$][A-Za-z0-9_$]*)\s*(?::[^=\n]*)?=[^=>]",
    )
});

static SECRET_READ: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r#"\b(?:process\.env\.([A-Z][A-Z0-9_]*)|process\.env\[\s*["'`]([A-Z][A-Z0-9_]*)["'`]\s*\]|Deno\.env\.get\(\s*["']([A-Z][A-Z0-9_]*)["']|Bun\.env\.([A-Z][A-Z0-9_]*))"#,
    )
});

static ENVIRONMENT: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"\bprocess\.env\b|\bDeno\.env\.toObject\(\)"));

static DECODER: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r#"\batob\s*\(|Buffer\.from\([^)]*["'](?:base64|hex|base64url)["']|String\.fromCharCode|\bunescape\s*\(|\binflateSync\b|\bgunzipSync\b|\.reverse\(\)\.join"#,
    )
});

const READ_CALLS: &[&str] = &[
    "readFile",
    "createReadStream",
    "homedir()",
    "path.join(",
    "path.resolve(",
    "copyFile",
    "existsSync(",
    "readdir",
    "Deno.readTextFile",
    "Bun.file(",
];
const WRITE_CALLS: &[&str] = &[
    "writeFile",
    "appendFile",
    "createWriteStream",
    "copyFile",
    "symlink",
    "rename",
    "Deno.writeTextFile",
    "Bun.write(",
];

fn is_data_call(name: &str) -> bool {
    let last = name.rsplit('.').next().unwrap_or(name);
    matches!(
        last,
        "[" | "{"
            | "RegExp"
            | "test"
            | "match"
            | "matchAll"
            | "includes"
            | "startsWith"
            | "endsWith"
            | "log"
            | "warn"
            | "error"
            | "info"
            | "debug"
            | "push"
            | "add"
            | "has"
            | "Set"
            | "replace"
            | "replaceAll"
            | "split"
            | "indexOf"
            | "describe"
            | "it"
            | "expect"
            | "toContain"
            | "toMatch"
            | "write"
    )
}

pub(super) fn examine(
    text: &str,
    base: usize,
    anchor: Option<(usize, usize)>,
    out: &mut Examined,
    depth: u8,
) {
    let lexed = code::lex(text, Lang::JavaScript);
    let code_text = lexed.code.as_str();
    let at = |range: Range<usize>| place(anchor, base + range.start, range.len());
    let first_fact = out.facts.len();

    let mut file_hosts = Vec::new();
    for literal in lexed
        .literals
        .iter()
        .filter(|l| l.kind == LiteralKind::Text)
    {
        for host in hosts::hosts(lexed.text(literal)) {
            hosts::push_host(&mut file_hosts, &host);
        }
    }
    let network_calls: Vec<Range<usize>> = NETWORK_CALL
        .find_iter(code_text)
        .filter(|found| lexed.inside_literal(found.start()).is_none())
        .map(|found| {
            let start = found.start() + found.as_str().len()
                - found
                    .as_str()
                    .trim_start_matches(|c: char| !c.is_alphanumeric())
                    .len();
            start..found.end()
        })
        .collect();
    let network = !network_calls.is_empty();
    if let Some(first) = network_calls.first() {
        out.network = true;
        out.note_hosts(file_hosts.iter().cloned());
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

    let has_reads = READ_CALLS.iter().any(|call| code_text.contains(call));
    let mut credential_literals: Vec<(Range<usize>, &'static str, bool)> = Vec::new();
    for literal in lexed
        .literals
        .iter()
        .filter(|l| l.kind == LiteralKind::Text)
    {
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
            data && matches!(enclosing, Some("[" | "{")) && in_home && has_reads && network;
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

    let sources = sources(&lexed, &credential_literals);
    let binders = Binders {
        subscript: &SUBSCRIPT,
        mutate: &MUTATE,
        for_loop: &FOR_LOOP,
    };
    let (taint, assigned) = follow(
        &lexed,
        &bindings(&lexed, &ASSIGNMENT, &binders, true),
        &sources,
        &ENCODER,
    );
    // Awaited responses carry what was fetched: `const r = await fetch(u); const t = await r.text()`.
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

    let imports_child_process = code_text.contains("child_process")
        || code_text.contains("execa")
        || code_text.contains("Bun.spawn")
        || code_text.contains("Deno.Command");
    for found in EXEC_CALL.find_iter(code_text) {
        let start = found.start() + found.as_str().len()
            - found
                .as_str()
                .trim_start_matches(|c: char| !c.is_alphanumeric())
                .len();
        if lexed.inside_literal(start).is_some() || !imports_child_process {
            continue;
        }
        let span = lexed.call_span(found.end() - 1);
        if let Some(line) = command_line(&lexed, span, &assigned) {
            shell_with(&line, at(start..found.end() - 1), &taint, out, depth);
        }
    }
    // zx: $`curl … | sh`.
    for literal in lexed
        .literals
        .iter()
        .filter(|l| l.kind == LiteralKind::Text)
    {
        let quote = literal
            .range
            .start
            .checked_sub(1)
            .and_then(|i| code_text.as_bytes().get(i));
        let tag = literal
            .range
            .start
            .checked_sub(2)
            .and_then(|i| code_text.as_bytes().get(i));
        if quote == Some(&b'`') && tag == Some(&b'$') {
            let line = super::interpolations_as_variables(lexed.text(literal));
            shell_with(&line, at(literal.range.clone()), &taint, out, depth);
        }
    }

    for found in EVAL_CALL.find_iter(code_text) {
        let start = found.start() + found.as_str().len()
            - found
                .as_str()
                .trim_start_matches(|c: char| !c.is_alphanumeric())
                .len();
        if lexed.inside_literal(start).is_some() {
            continue;
        }
        let span = lexed.call_span(found.end() - 1);
        let inside = &code_text[span.clone()];
        let name = code_text[start..found.end() - 1].trim();
        if matches!(name, "setTimeout" | "setInterval")
            && !inside.trim_start().starts_with(['"', '\'', '`'])
        {
            continue;
        }
        let origins = taint.origins_in(&lexed, span.clone());
        let place_of = at(start..found.end() - 1);
        if NETWORK_CALL.is_match(inside) || origins.contains(&Origin::Download) {
            out.add(
                Behaviour::DownloadExec,
                place_of,
                format!("{name} runs code it downloads"),
            );
        } else if DECODER.is_match(inside) || origins.contains(&Origin::Decoded) {
            out.add(
                Behaviour::ObfuscatedExec,
                place_of,
                format!("{name} runs decoded or assembled code"),
            );
        } else if !super::references(&lexed, span).is_empty()
            && !matches!(name, "setTimeout" | "setInterval")
        {
            out.add(
                Behaviour::DynamicExec,
                place_of,
                format!("{name} runs text that is not a literal"),
            );
        }
    }

    for literal in &lexed.literals {
        let content = lexed.text(literal);
        let flagged = super::MINING_TEXT.is_match(content)
            || content.starts_with("aHR0")
            || content.starts_with("68747470");
        let target = content.contains("authorized_keys")
            || super::is_outside(content)
            || PERSISTENCE_PATHS.is_match(content);
        if !flagged && !target {
            continue;
        }
        let enclosing = lexed.enclosing(literal.range.start, 300);
        let data = literal.kind == LiteralKind::Pattern
            || enclosing.is_some_and(|(name, _)| is_data_call(name));
        if !data || super::encoded_url(content).is_some() {
            literal_rules(content, at(literal.range.clone()), out);
        }
        if content.len() > 300 || data {
            continue;
        }
        let line = line_of(code_text, literal.range.clone());
        if WRITE_CALLS.iter().any(|call| line.contains(call)) {
            if super::is_outside(content) {
                out.writes_outside = true;
            }
            if content.contains("authorized_keys") {
                out.add(
                    Behaviour::AuthorizedKeys,
                    at(literal.range.clone()),
                    "adds a key to ~/.ssh/authorized_keys: whoever holds it can log in",
                );
            } else if PERSISTENCE_PATHS.is_match(content) {
                out.add(Behaviour::Persistence, at(literal.range.clone()), format!("writes to {content}, which runs again later (login, shell, schedule or commit)"));
            }
        }
    }

    for found in RM.find_iter(code_text) {
        if lexed.inside_literal(found.start()).is_some() {
            continue;
        }
        let span = lexed.call_span(found.end() - 1);
        let inside = &code_text[span.clone()];
        let argument = inside.split(',').next().unwrap_or("").trim();
        let literal = lexed
            .literals_in(span)
            .first()
            .map(|l| lexed.text(l))
            .filter(|_| argument.starts_with(['"', '\'', '`']));
        let recursive = inside.contains("recursive") || found.as_str().contains("rimraf");
        if recursive && (HOME_EXPRESSION.is_match(argument) || literal.is_some_and(is_root_target))
        {
            out.add(
                Behaviour::Destructive,
                at(found.start()..found.end() - 1),
                format!("removes {argument} recursively"),
            );
        }
    }

    // A socket piped to a shell.
    if (code_text.contains("net.Socket")
        || code_text.contains("net.connect")
        || code_text.contains("createConnection")
        || code_text.contains("new Socket"))
        && code_text.contains(".pipe(")
        && SHELL_PROGRAM.is_match(code_text)
        && imports_child_process
    {
        let offset = code_text.find(".pipe(").unwrap_or(0);
        out.add(
            Behaviour::ReverseShell,
            at(offset..offset + 5),
            "pipes a network socket into a shell",
        );
    }

    let read_credentials: Vec<(usize, usize, String)> = out.facts[first_fact..]
        .iter()
        .filter(|fact| fact.behaviour == Behaviour::CredentialRead)
        .map(|fact| (fact.offset, fact.len, fact.message.clone()))
        .collect();
    if network {
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

static RM: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"\b(?:fs\.(?:rmSync|rm|rmdirSync|rmdir)|fsPromises\.rm|rimraf(?:\.sync)?|fse?\.removeSync|fse?\.remove)\s*\(",
    )
});
static HOME_EXPRESSION: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"^(?:os\.homedir\(\)|process\.env\.HOME|process\.env\[\s*['\x22]HOME['\x22]\s*\]|homedir\(\))$",
    )
});
static SHELL_PROGRAM: LazyLock<Regex> =
    LazyLock::new(|| pattern(r#"["'`](?:/bin/)?(?:sh|bash|zsh)["'`]|cmd\.exe|powershell"#));

fn line_of(code: &str, range: Range<usize>) -> &str {
    let start = code[..range.start].rfind('\n').map_or(0, |index| index + 1);
    let end = code[range.end.min(code.len())..]
        .find('\n')
        .map_or(code.len(), |index| range.end + index);
    &code[start..end]
}

static SUBSCRIPT: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?m)^[ \t]*([A-Za-z_$][A-Za-z0-9_$]*)\s*\[[^\]\n]*\]\s*=[^=]"));
static MUTATE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"\b([A-Za-z_$][A-Za-z0-9_$]*)\.(?:push|set|add|unshift|concat)\s*\(")
});
static FOR_LOOP: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"\bfor\s*\(\s*(?:const|let|var)?\s*([^;()]+?)\s+(?:of|in)\s+"));

static ENCODER: LazyLock<Regex> =
    LazyLock::new(|| pattern(r#"\bbtoa\s*\(|toString\(\s*["'](?:base64|hex|base64url)["']\s*\)"#));
static DNS_CALL: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"\bdns\.(?:promises\.)?(?:resolve|lookup)"));

/// Where the file reads secrets, the environment, credentials, downloads and decoded text.
fn sources(lexed: &Lexed, credentials: &[(Range<usize>, &'static str, bool)]) -> Sources {
    let code_text = lexed.code.as_str();
    let mut found = Sources::default();
    if code_text.contains("env") {
        for captures in SECRET_READ.captures_iter(code_text) {
            if let (Some(whole), Some(name)) = (
                captures.get(0),
                (1..=4).find_map(|index| captures.get(index)),
            ) && super::is_secret_name(name.as_str())
            {
                found.push(whole.range(), Origin::Secret(name.as_str().to_owned()));
            }
        }
        for environment in ENVIRONMENT.find_iter(code_text) {
            let after = code_text[environment.end()..].trim_start();
            let before = code_text[..environment.start()].trim_end();
            let whole =
                !(after.starts_with('[') || after.starts_with('.') || after.starts_with("?."));
            // `env: process.env` / `env: { ...process.env }` hands it to a child process.
            let child = before.ends_with("env:")
                || before.ends_with("...")
                    && code_text[..environment.start()]
                        .rsplit("env:")
                        .next()
                        .is_some_and(|rest| rest.len() < 12);
            if whole && !child && lexed.inside_literal(environment.start()).is_none() {
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
    for text in AWAITED_TEXT.find_iter(code_text) {
        found.push(text.range(), Origin::Download);
    }
    for decoder in DECODER.find_iter(code_text) {
        found.push(decoder.range(), Origin::Decoded);
    }
    found.sort();
    found
}

/// `await r.text()`: a response's body.
static AWAITED_TEXT: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"\bawait\b[^;\n]*\.(?:text|json|arrayBuffer)\(\)"));
