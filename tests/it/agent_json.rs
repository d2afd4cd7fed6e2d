//! Everything agent-facing goes through the one sanitiser (issue 29 §7), through the built
//! binary: a skill whose every text field — name, description, body, a declared tool's
//! description, its schema's titles, descriptions and `enum` values, an input's name and
//! description, a bundled file's name and content, a script's output and structured output —
//! holds escape sequences, controls, bidi, zero-width and tag characters; then every string
//! and key of every JSON value an agent can receive is walked:
//!
//! - every MCP method's answer and every notification, on the wire of `skills mcp` (a raw
//!   line client, so nothing is lost to a client's typed decoding);
//! - every RPC method's answer and notification on the wire of `skills serve`;
//! - the `--json` output of the commands an agent reads (`tools`, `list`, `show`, `read`,
//!   `search`, `explain`, `prompt`, `task`, `validate`, `run`).
//!
//! A property test draws the texts; a fixed worst case is also driven by the official Rust
//! SDK's client over stdio and over `--http`, asserting the reported symptoms by name: the
//! declared tool's schema in `tools/list`, `load_skill`'s `structuredContent.body`.

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use proptest::prelude::*;
use rmcp::ServiceExt as _;
use rmcp::model::{CallToolRequestParams, GetPromptRequestParams, ReadResourceRequestParams};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use skills_types::sanitize::{MULTI_LINE_KEYS, is_line_break, is_removed};

use crate::discovery::hostile::yaml_quoted as yaml;
use crate::discovery::{Place, Tree};

/// How long one line of a server's answer may take before the test fails instead of hanging.
const LINE_DEADLINE: Duration = Duration::from_secs(120);

/// The skill's folder, and so its id.
const FOLDER: &str = "demo";

/// The texts a skill supplies, each drawn hostile.
#[derive(Clone, Debug)]
struct Texts {
    name: String,
    description: String,
    body: String,
    tool_description: String,
    schema_title: String,
    schema_description: String,
    enum_value: String,
    input_name: String,
    input_description: String,
    /// One path segment.
    file_name: String,
    file_text: String,
    /// What the scripts print.
    output: String,
}

impl Texts {
    /// Every reported symptom at once, with a name and tools an agent can call.
    fn worst() -> Self {
        let steer =
            "\u{1b}]0;owned\u{7}\u{1b}[31m red \u{202e}reversed\u{200b}\u{e0041}\u{9b}2J\u{7f}\0";
        Self {
            name: FOLDER.to_owned(),
            description: format!("Describes {steer}"),
            body: format!("# Body\n\n\u{1b}[2JStep one {steer}\r\nline\rover\n"),
            tool_description: format!("Echoes {steer}"),
            schema_title: format!("T\u{202e}itle {steer}"),
            schema_description: format!("Who \u{7}\u{1b}[2J {steer}\nnext"),
            enum_value: format!("a\u{200b}b{steer}"),
            input_name: format!("ti\u{200b}tle{steer}"),
            input_description: format!("What {steer}"),
            file_name: file_name(&format!("\u{202e}{steer}")),
            file_text: format!("ref {steer}\n"),
            output: format!("out {steer}\nsecond\n"),
        }
    }
}

/// `text` as a TOML basic string: the escapes of a YAML double-quoted scalar (`\"`, `\\`,
/// `\UXXXXXXXX`) are TOML's too.
fn toml(text: &str) -> String {
    yaml(text)
}

/// A file name made of `text`: no separator or NUL, not hidden, not empty, not too long.
fn file_name(text: &str) -> String {
    let kept: String = text
        .chars()
        .filter(|character| !matches!(character, '/' | '\0'))
        .take(40)
        .collect();
    format!("r{kept}.md")
}

/// The tree: one user skill in `demo/` declaring two tools (`echo` prints structured output;
/// `pick`'s `enum` holds a drawn value, so it is offered only when that value is clean), two
/// inputs, bundled files, and scripts that print the drawn output on both streams.
fn hostile_tree(texts: &Texts) -> (Tree, PathBuf) {
    let tree = Tree::new();
    let dir = tree.root(Place::UserOpenhuman).join(FOLDER);
    tree.write(
        &dir.join("SKILL.md"),
        format!(
            "---\nname: {}\ndescription: {}\n---\n{}",
            yaml(&texts.name),
            yaml(&texts.description),
            texts.body
        ),
    );
    let title = toml(&texts.schema_title);
    let description = toml(&texts.schema_description);
    tree.write(
        &dir.join("skill.toml"),
        format!(
            "[[tools]]\nname = \"echo\"\ndescription = {}\nscript = \"scripts/echo.sh\"\n\
             parameters = {{ type = \"object\", title = {title}, description = {description}, \
             properties = {{ what = {{ type = \"string\", title = {title}, description = {description} }} }} }}\n\n\
             [[tools]]\nname = \"pick\"\ndescription = \"Picks one.\"\nscript = \"scripts/echo.sh\"\n\
             parameters = {{ type = \"object\", properties = {{ choice = {{ type = \"string\", enum = [{}, \"plain\"] }} }} }}\n\n\
             [[inputs]]\nname = {}\ndescription = {}\n\n\
             [[inputs]]\nname = \"count\"\ndescription = {}\ntype = \"number\"\n",
            toml(&texts.tool_description),
            toml(&texts.enum_value),
            toml(&texts.input_name),
            toml(&texts.input_description),
            toml(&texts.input_description),
        ),
    );
    tree.write(
        &dir.join("scripts/run.sh"),
        "cat \"$SKILL_DIR/assets/out.txt\"\ncat \"$SKILL_DIR/assets/out.txt\" >&2\n",
    );
    tree.write(
        &dir.join("scripts/echo.sh"),
        "cat \"$SKILL_DIR/assets/out.json\"\n",
    );
    tree.write(&dir.join("assets/out.txt"), &texts.output);
    let output = &texts.output;
    let structured = json!({
        output: { "text": output, "list": [output, { "deeper": [[[output]]] }] },
        "description": output,
        "body": output,
    });
    tree.write(&dir.join("assets/out.json"), structured.to_string());
    tree.write(&dir.join("references/guide.md"), &texts.file_text);
    tree.write(
        &dir.join("references").join(&texts.file_name),
        &texts.file_text,
    );
    (tree, dir)
}

/// Panics naming the first string or key of `value` an agent must not receive: one holding a
/// character the sanitiser removes — but for the line feeds, tabs, CRLF pairs and joiners a
/// multi-line field keeps ([`MULTI_LINE_KEYS`]) — or a line break in a one-line field.
/// `message`: `value` is a JSON-RPC message, whose `id` is the client's own.
fn assert_clean(what: &str, value: &Value, message: bool) {
    let mut stack = vec![(value, true, message)];
    while let Some((value, multi_line, is_message)) = stack.pop() {
        match value {
            Value::String(text) => {
                let bad: Vec<char> = text
                    .chars()
                    .filter(|&character| {
                        if multi_line {
                            is_removed(character)
                                && !matches!(
                                    character,
                                    '\n' | '\t' | '\r' | '\u{200c}' | '\u{200d}'
                                )
                        } else {
                            is_removed(character) || is_line_break(character)
                        }
                    })
                    .collect();
                assert!(bad.is_empty(), "{what}: {text:?} holds {bad:?} in {value}");
            }
            Value::Array(items) => stack.extend(items.iter().map(|item| (item, multi_line, false))),
            Value::Object(members) => {
                for (name, member) in members {
                    assert!(
                        !name.chars().any(|c| is_removed(c) || is_line_break(c)),
                        "{what}: the key {name:?}"
                    );
                    if is_message && name == "id" {
                        continue;
                    }
                    stack.push((member, MULTI_LINE_KEYS.contains(&name.as_str()), false));
                }
            }
            _ => {}
        }
    }
}

/// A server speaking JSON-RPC on its stdio, one message per line, driven by hand: every line
/// it writes is kept, notifications and all.
struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    /// Every line the server wrote so far.
    seen: Vec<String>,
    next_id: u64,
}

impl Session {
    fn start(tree: &Tree, args: &[&str]) -> Self {
        let mut command = skills_tests::skills();
        command
            .current_dir(&tree.base)
            .arg("--workspace")
            .arg(&tree.workspace)
            .arg("--home")
            .arg(&tree.home)
            .args(args)
            .env_remove("COLUMNS")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = command.spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if sender.send(line).is_err() {
                    return;
                }
            }
        });
        Self {
            stdin: child.stdin.take(),
            child,
            lines,
            seen: Vec::new(),
            next_id: 1,
        }
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// Sends a request and returns its answer (a result or an error).
    fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        loop {
            let line = self
                .lines
                .recv_timeout(LINE_DEADLINE)
                .unwrap_or_else(|error| panic!("{method}: no answer ({error}): {:?}", self.seen));
            self.seen.push(line.clone());
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if message["id"] == id && message.get("method").is_none() {
                return message;
            }
        }
    }

    /// Closes the server's input and returns every line it wrote.
    fn finish(mut self) -> Vec<String> {
        drop(self.stdin.take());
        while let Ok(line) = self.lines.recv_timeout(LINE_DEADLINE) {
            self.seen.push(line);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.seen
    }
}

/// Every entry `method` lists under `field`, across its pages.
fn listed(session: &mut Session, method: &str, field: &str) -> Vec<Value> {
    let mut entries = Vec::new();
    let mut cursor = Value::Null;
    loop {
        let params = if cursor.is_null() {
            json!({})
        } else {
            json!({ "cursor": cursor })
        };
        let page = session.call(method, params);
        entries.extend(
            page["result"][field]
                .as_array()
                .into_iter()
                .flatten()
                .cloned(),
        );
        cursor = page["result"]["nextCursor"].clone();
        if cursor.is_null() {
            return entries;
        }
    }
}

/// One whole MCP session on stdio: every method, each tool called, each resource read, and
/// requests that fail by quoting what they were given. Every line the server wrote.
fn mcp_lines(tree: &Tree, texts: &Texts) -> Vec<String> {
    let mut session = Session::start(tree, &["mcp"]);
    session.call(
        "initialize",
        json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": { "name": "raw", "version": "0" },
        }),
    );
    session.notify("notifications/initialized", json!({}));
    session.call("logging/setLevel", json!({ "level": "debug" }));
    let tools = session.call("tools/list", json!({}));
    // One prompt per skill, named like it.
    let names: Vec<String> = listed(&mut session, "prompts/list", "prompts")
        .iter()
        .map(|prompt| prompt["name"].as_str().unwrap().to_owned())
        .collect();
    let paths = [
        "SKILL.md".to_owned(),
        "references/guide.md".to_owned(),
        format!("references/{}", texts.file_name),
        "assets/out.txt".to_owned(),
    ];
    for name in names.iter().chain([&texts.name]) {
        session.call(
            "tools/call",
            json!({ "name": "load_skill", "arguments": { "name": name } }),
        );
        for path in &paths {
            session.call(
                "tools/call",
                json!({ "name": "read_skill_resource", "arguments": { "name": name, "path": path } }),
            );
        }
        session.call(
            "tools/call",
            json!({ "name": "audit_skill", "arguments": { "name": name } }),
        );
        session.call(
            "tools/call",
            json!({ "name": "run_skill_script", "arguments": { "name": name, "script": "scripts/run.sh" } }),
        );
        for arguments in [json!({ "count": "3" }), json!({ "count": texts.output })] {
            session.call(
                "prompts/get",
                json!({ "name": name, "arguments": arguments }),
            );
        }
    }
    for query in [&texts.description, &texts.output] {
        session.call(
            "tools/call",
            json!({ "name": "search_skills", "arguments": { "query": query } }),
        );
    }
    for tool in tools["result"]["tools"].as_array().into_iter().flatten() {
        let arguments = json!({ "what": texts.output, "choice": "plain" });
        session.call(
            "tools/call",
            json!({ "name": tool["name"], "arguments": arguments }),
        );
    }
    session.call(
        "tools/call",
        json!({ "name": format!("{}__x", texts.name), "arguments": {} }),
    );
    for resource in listed(&mut session, "resources/list", "resources") {
        session.call("resources/read", json!({ "uri": resource["uri"] }));
    }
    session.call("resources/templates/list", json!({}));
    session.call(
        "resources/read",
        json!({ "uri": format!("skill://{}/{}", texts.name, texts.file_name) }),
    );
    session.finish()
}

/// One whole `skills serve` session: every method that reads or runs (the registry's need a
/// network and the writing ones change the tree), and requests that fail by quoting what they
/// were given.
fn serve_lines(tree: &Tree, dir: &std::path::Path, texts: &Texts) -> Vec<String> {
    let mut session = Session::start(tree, &["serve"]);
    session.call("skills.subscribe", json!({}));
    session.call("skills.list", json!({ "include_shadowed": true }));
    for id in [FOLDER, texts.name.as_str()] {
        session.call("skills.describe", json!({ "id": id }));
        session.call("skills.read", json!({ "ids": [id] }));
        for path in [
            "references/guide.md".to_owned(),
            format!("references/{}", texts.file_name),
        ] {
            session.call(
                "skills.read_resource",
                json!({ "id": id, "relative_path": path }),
            );
        }
        session.call("skills.explain", json!({ "name": id }));
        session.call("skills.audit", json!({ "targets": [id] }));
        session.call(
            "skill_runtime.render_task",
            json!({ "skill_id": id, "inputs": { "count": 3 } }),
        );
    }
    session.call("skills.search", json!({ "query": texts.description }));
    session.call(
        "skills.validate",
        json!({ "path": dir.display().to_string() }),
    );
    session.call(
        "skills.audit",
        json!({ "targets": [dir.display().to_string()] }),
    );
    for format in ["xml", "markdown", "json"] {
        session.call("skills.render_catalog", json!({ "format": format }));
    }
    session.call("skill_runtime.resolve_runtimes", json!({}));
    let run = session.call(
        "skill_runtime.run",
        json!({ "skill_id": FOLDER, "script": "scripts/run.sh", "wait": true }),
    );
    session.call("skill_runtime.recent_runs", json!({}));
    if let Some(run_id) = run["result"]["run_id"].as_str() {
        session.call("skill_runtime.read_run_log", json!({ "run_id": run_id }));
    }
    let tools = session.call("skill_runtime.list_tools", json!({}));
    for tool in tools["result"]["tools"].as_array().into_iter().flatten() {
        session.call(
            "skill_runtime.execute_tool",
            json!({ "tool_name": tool["name"], "args": { "what": texts.output, "choice": "plain" } }),
        );
    }
    session.finish()
}

/// The `--json` output of every command an agent reads about the skill.
fn cli_outputs(tree: &Tree, dir: &std::path::Path, texts: &Texts) -> Vec<(String, String)> {
    let dir = dir.display().to_string();
    // An argument cannot hold a NUL; everything else is passed as drawn.
    let description = texts.description.replace('\0', "");
    let name = texts.name.replace('\0', "");
    let commands: Vec<Vec<&str>> = vec![
        vec!["tools"],
        vec!["list", "--all"],
        vec!["show", FOLDER],
        vec!["read", FOLDER],
        vec!["resource", FOLDER, "references/guide.md"],
        vec!["search", &description],
        vec!["explain", FOLDER],
        vec!["prompt", "--format", "json"],
        vec!["task", FOLDER],
        vec!["validate", &dir],
        vec!["audit", FOLDER],
        vec!["audit", &dir],
        vec!["audit"],
        vec!["run", FOLDER, "scripts/run.sh"],
        vec!["show", &name],
    ];
    commands
        .into_iter()
        .map(|command| {
            let mut args = vec!["--json"];
            args.extend(&command);
            (command.join(" "), tree.run(&args).stdout)
        })
        .collect()
}

/// Runs everything on `texts`' tree and walks every value.
fn assert_every_agent_facing_value_is_clean(texts: &Texts) {
    let (tree, dir) = hostile_tree(texts);
    for (server, lines) in [
        ("skills mcp", mcp_lines(&tree, texts)),
        ("skills serve", serve_lines(&tree, &dir, texts)),
    ] {
        assert!(lines.len() > 20, "{server}: {lines:?}");
        for line in lines {
            let message: Value = serde_json::from_str(&line).unwrap_or_else(|error| {
                panic!("{server} wrote a line that is not JSON ({error}): {line:?}")
            });
            assert_clean(server, &message, true);
        }
    }
    for (command, stdout) in cli_outputs(&tree, &dir, texts) {
        let value: Value = serde_json::from_str(&stdout)
            .unwrap_or_else(|error| panic!("`{command}`: not JSON ({error}): {stdout:?}"));
        assert_clean(&command, &value, false);
    }
}

/// A string drawn with everything that steers, and ordinary text between.
fn hostile_text() -> impl Strategy<Value = String> {
    let pieces = prop_oneof![
        any::<char>().prop_map(String::from),
        "[a-z ]{1,6}",
        prop::sample::select(vec![
            "\u{1b}[31m",
            "\u{1b}]0;owned\u{7}",
            "\u{1b}]8;;https://evil.example\u{1b}\\",
            "\u{9b}2J",
            "\u{9d}0;t\u{9c}",
            "\u{202e}",
            "\u{2066}",
            "\u{200b}",
            "\u{200d}",
            "\u{feff}",
            "\u{ad}",
            "\u{e0041}",
            "\u{fdd0}",
            "\u{ffff}",
            "\u{2028}",
            "\u{85}",
            "\0",
            "\u{7}",
            "\u{8}",
            "\u{7f}",
            "\n",
            "\r\n",
            "\r",
            "\t",
            "\"",
            "\\",
        ])
        .prop_map(str::to_owned),
    ];
    proptest::collection::vec(pieces, 1..10).prop_map(|pieces| pieces.concat())
}

fn texts() -> impl Strategy<Value = Texts> {
    (
        prop_oneof![Just(FOLDER.to_owned()), hostile_text()],
        hostile_text(),
        hostile_text(),
        hostile_text(),
        (hostile_text(), hostile_text(), hostile_text()),
        (hostile_text(), hostile_text()),
        (hostile_text(), hostile_text(), hostile_text()),
    )
        .prop_map(
            |(
                name,
                description,
                body,
                tool_description,
                (schema_title, schema_description, enum_value),
                (input_name, input_description),
                (file, file_text, output),
            )| Texts {
                name,
                description,
                body,
                tool_description,
                schema_title,
                schema_description,
                enum_value,
                input_name,
                input_description,
                file_name: file_name(&file),
                file_text,
                output,
            },
        )
}

proptest! {
    // Each case starts two servers, runs several scripts and a dozen commands: a few cases
    // cover the drawn texts, and the fixed worst case below covers every symptom at once.
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn no_string_an_agent_receives_holds_a_character_the_sanitiser_removes(texts in texts()) {
        assert_every_agent_facing_value_is_clean(&texts);
    }
}

#[test]
fn the_worst_case_reaches_no_agent_raw() {
    assert_every_agent_facing_value_is_clean(&Texts::worst());
}

/// The symptoms as a real client sees them: the declared tool is offered with its schema
/// cleaned (the tool whose `enum` would change is not offered), `load_skill`'s structured
/// body keeps its lines and loses its escapes, a run's output likewise.
async fn converse_about_the_worst_case(
    client: &rmcp::service::RunningService<rmcp::RoleClient, ()>,
) {
    let whole = |value: &Value, what: &str| assert_clean(what, value, false);
    let tools = client.list_tools(None).await.unwrap().tools;
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert!(names.contains(&"demo__echo"), "{names:?}");
    assert!(
        !names.contains(&"demo__pick"),
        "an enum value the agent could not be shown as written: not offered: {names:?}"
    );
    let echo = tools.iter().find(|tool| tool.name == "demo__echo").unwrap();
    let schema = Value::Object((*echo.input_schema).clone());
    whole(&schema, "the input schema");
    assert!(
        schema["title"].as_str().unwrap().starts_with("Title "),
        "{schema}"
    );
    assert!(
        schema["properties"]["what"]["description"]
            .as_str()
            .unwrap()
            .starts_with("Who  "),
        "{schema}"
    );
    whole(&serde_json::to_value(&tools).unwrap(), "tools/list");

    let call = |name: &str, arguments: Value| {
        CallToolRequestParams::new(name.to_owned())
            .with_arguments(arguments.as_object().cloned().unwrap())
    };
    let loaded = client
        .call_tool(call("load_skill", json!({ "name": "demo" })))
        .await
        .unwrap();
    let body = loaded.structured_content.as_ref().unwrap()["body"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        body.starts_with("# Body\n\nStep one  red reversed"),
        "{body:?}"
    );
    assert!(body.contains("\r\nline"), "a CRLF pair stays: {body:?}");
    whole(&serde_json::to_value(&loaded).unwrap(), "load_skill");

    let ran = client
        .call_tool(call(
            "run_skill_script",
            json!({ "name": "demo", "script": "scripts/run.sh" }),
        ))
        .await
        .unwrap();
    let stdout = ran.structured_content.as_ref().unwrap()["stdout"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(stdout.starts_with("out  red reversed"), "{stdout:?}");
    assert!(stdout.ends_with("\nsecond\n"), "{stdout:?}");
    whole(&serde_json::to_value(&ran).unwrap(), "run_skill_script");

    let echoed = client
        .call_tool(call("demo__echo", json!({ "what": "x" })))
        .await
        .unwrap();
    let shown = serde_json::to_value(&echoed).unwrap();
    whole(&shown, "demo__echo");
    assert!(echoed.structured_content.is_some(), "{echoed:?}");
    // The structured value rendered as text by the server is rendered from the clean value:
    // no `\u001b` for a client to decode back into an escape. (The script's own stdout, the
    // first part, holds that spelling because the script printed it.)
    let rendered = shown["content"].as_array().unwrap().last().unwrap()["text"]
        .as_str()
        .unwrap();
    assert!(
        rendered.starts_with('{') && !rendered.contains("\\u001b") && !rendered.contains("\\u202e"),
        "{rendered}"
    );

    let resources = client.list_resources(None).await.unwrap().resources;
    whole(&serde_json::to_value(&resources).unwrap(), "resources/list");
    for resource in &resources {
        // A file whose name holds a control character is listed (its URI names it exactly)
        // and refused by the safe reader; the refusal is agent-facing too.
        match client
            .read_resource(ReadResourceRequestParams::new(resource.uri.clone()))
            .await
        {
            Ok(read) => whole(&serde_json::to_value(&read).unwrap(), &resource.uri),
            Err(refused) => whole(&json!({ "error": refused.to_string() }), &resource.uri),
        }
    }
    let prompts = client.list_prompts(None).await.unwrap().prompts;
    whole(&serde_json::to_value(&prompts).unwrap(), "prompts/list");
    let prompt = client
        .get_prompt(
            GetPromptRequestParams::new("demo")
                .with_arguments(json!({ "count": "3" }).as_object().cloned().unwrap()),
        )
        .await
        .unwrap();
    whole(&serde_json::to_value(&prompt).unwrap(), "prompts/get");
    let instructions = client
        .peer_info()
        .and_then(|info| info.instructions.clone())
        .unwrap_or_default();
    whole(&json!({ "instructions": instructions }), "instructions");
    let refused = client
        .call_tool(call(
            "load_skill",
            json!({ "name": "de\u{1b}[31mmo\u{202e}" }),
        ))
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true), "{refused:?}");
    let said = serde_json::to_string(&refused).unwrap();
    assert!(
        said.contains("no skill named") && !said.contains("\\u001b") && !said.contains('\u{202e}'),
        "{said}"
    );
}

#[test]
fn the_official_rust_client_sees_the_worst_case_clean_over_stdio() {
    let (tree, _) = hostile_tree(&Texts::worst());
    crate::mcp::converse(&tree, &[], |client| async move {
        converse_about_the_worst_case(&client).await;
        client
    });
}

#[test]
fn the_official_rust_client_sees_the_worst_case_clean_over_http() {
    let (tree, _) = hostile_tree(&Texts::worst());
    let server = crate::mcp_http::Server::start_with(&tree, Some(crate::mcp_http::TOKEN), &[]);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let config = StreamableHttpClientTransportConfig::with_uri(server.url.as_str())
            .auth_header(crate::mcp_http::TOKEN);
        let client = ().serve(StreamableHttpClientTransport::from_config(config)).await.unwrap();
        converse_about_the_worst_case(&client).await;
        client.cancel().await.unwrap();
    });
}
