//! `skills mcp` driven by the official TypeScript SDK's client (`@modelcontextprotocol/sdk` on
//! npm), the client most MCP hosts are built on, installed by npm into a throwaway folder. Where
//! the Rust client shares our SDK's reading of the protocol and the Python client validates with
//! pydantic, this one validates with Ajv and WHATWG `URL`: it warns about every output-schema
//! format it does not know, rejects structured content that does not match a tool's output
//! schema (errors included), and cannot read a URI that is not a valid URL. The conversation
//! lives in `mcp_typescript_client.mjs`, which prints its findings as one JSON object, asserted
//! here.
//!
//! npm is run in the folder (`npm install` with the folder as its working directory), never with
//! `--prefix`, which would make npm ignore the machine's global configuration and so a CA
//! bundle set there (`cafile`) for a TLS-intercepting proxy. npm's own cache is used, so a
//! machine that installed the SDK once installs it again offline. When the npm registry cannot
//! be reached, the test fails saying so: it is the one thing outside this machine it needs.
//!
//! It runs on the machine's `node` (the SDK needs 18 or later). POSIX only, like the Python
//! client's test whose watchdog it shares.
#![cfg(unix)]

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use crate::mcp::{SPACED, SPACED_URI, tree};
use crate::mcp_python::{DEADLINE, output_within};

/// The SDK release the test installs: pinned, so a new release cannot change the verdict
/// without a commit saying so (the newest release when this was written).
const SDK: &str = "@modelcontextprotocol/sdk@1.32.2";

/// How long npm may take: the SDK brings a hundred or so packages on a first install.
const NPM_DEADLINE: Duration = Duration::from_secs(300);

#[test]
fn the_official_typescript_client_gets_tool_errors_valid_uris_and_no_format_warning() {
    let tree = tree();
    let scratch = tempfile::tempdir().unwrap();
    let folder = scratch.path().join("client");
    std::fs::create_dir_all(&folder).unwrap();
    // A package of its own, so npm takes this folder as the project it installs into.
    std::fs::write(
        folder.join("package.json"),
        r#"{ "name": "skills-mcp-typescript-client", "private": true, "type": "module" }"#,
    )
    .unwrap();
    let installed = output_within(
        Command::new("npm")
            .current_dir(&folder)
            .args(["install", "--ignore-scripts", "--no-audit", "--no-fund"])
            .args([
                "--no-package-lock",
                "--prefer-offline",
                "--loglevel",
                "error",
            ])
            .args(["--fetch-retries", "1", "--fetch-timeout", "30000"])
            .arg(SDK),
        "`npm install`",
        NPM_DEADLINE,
    );
    let npm_errors = String::from_utf8_lossy(&installed.stderr);
    assert!(
        installed.status.success(),
        "{}; npm's stderr:\n{npm_errors}",
        if skills_tests::peers::registry_unreachable(&npm_errors) {
            format!(
                "the npm registry could not be reached (and npm's cache does not hold {SDK}), \
                 so the official TypeScript client could not be installed and was not tested"
            )
        } else {
            format!("`npm install {SDK}` failed ({})", installed.status)
        }
    );

    let script = folder.join("client.mjs");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("it/mcp_typescript_client.mjs"),
        &script,
    )
    .unwrap();
    let server_log = scratch.path().join("server.log");
    let mut client = Command::new("node");
    client
        .current_dir(&folder)
        .arg(&script)
        .arg("--binary")
        .arg(skills_tests::skills_binary())
        .arg("--workspace")
        .arg(&tree.workspace)
        .arg("--home")
        .arg(&tree.home)
        .arg("--cwd")
        .arg(&tree.base)
        .arg("--server-log")
        .arg(&server_log)
        .arg("--spaced-uri")
        .arg(SPACED_URI)
        .env_remove("COLUMNS");
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("SKILLS_") {
            client.env_remove(key);
        }
    }
    let ran = output_within(&mut client, "the TypeScript client", DEADLINE);
    let stderr = String::from_utf8_lossy(&ran.stderr);
    let server_stderr = std::fs::read_to_string(&server_log).unwrap_or_default();
    assert!(
        ran.status.success(),
        "the TypeScript client failed ({}); its stderr:\n{stderr}\nthe server's stderr:\n{server_stderr}",
        ran.status
    );
    let stdout = String::from_utf8_lossy(&ran.stdout);
    let findings: Value = serde_json::from_str(&stdout).unwrap_or_else(|error| {
        panic!("the client printed no JSON ({error}): {stdout}\nits stderr:\n{stderr}")
    });

    // Ajv compiles every output schema on `tools/list` and says so of each format it does not
    // know ("unknown format "uint64" ignored in schema at path ...").
    assert_eq!(
        findings["warnings_after_tools_list"],
        json!([]),
        "tools/list drew warnings"
    );
    assert_eq!(
        findings["warnings"],
        json!([]),
        "the conversation drew warnings"
    );
    assert_eq!(findings["server"], "skills", "{findings}");
    assert_eq!(
        findings["tools"],
        json!([
            "load_skill",
            "read_skill_resource",
            "search_skills",
            "audit_skill",
            "run_skill_script",
            "demo__greet"
        ])
    );
    assert_eq!(findings["loaded_name"], "demo", "{findings}");
    assert_eq!(
        findings["unknown_skill"]["isError"], true,
        "an unknown skill is a tool error the model reads: {findings}"
    );
    assert_eq!(findings["unknown_skill"]["kind"], "not_found", "{findings}");
    assert_eq!(
        findings["unknown_skill"]["structuredContent"],
        Value::Null,
        "{findings}"
    );
    assert!(
        findings["unknown_skill"]["text"]
            .as_str()
            .unwrap_or_default()
            .contains("no skill named 'no-such-skill'"),
        "{findings}"
    );
    assert_eq!(findings["searched"], json!(["weather"]), "{findings}");
    assert_eq!(
        findings["failed_run"],
        json!({ "isError": true, "status": "failed" }),
        "a failed run's outcome passes the SDK's check against the output schema"
    );
    assert_eq!(findings["greet"], json!({ "greeting": "hello, node" }));
    assert_eq!(
        findings["unknown_tool"],
        json!({ "code": -32602, "kind": "tool_not_found" }),
        "an unknown tool is the protocol error of the spec's own example"
    );
    let resources = findings["resources"].as_array().unwrap();
    assert!(resources.contains(&json!(SPACED_URI)), "{resources:?}");
    assert_eq!(
        findings["uris_not_round_tripped"],
        json!([]),
        "every URI is one WHATWG `URL` takes and gives back as it was"
    );
    assert_eq!(findings["spaced"]["uri"], SPACED_URI);
    assert!(
        findings["spaced"]["text"]
            .as_str()
            .unwrap_or_default()
            .contains(&format!("Body of {SPACED}.")),
        "{findings}"
    );
    assert_eq!(findings["templates"], json!(["skill://{name}/{path}"]));
    assert_eq!(
        findings["traversal"]["kind"], "refused_path",
        "a decoded traversal is refused: {findings}"
    );
}
