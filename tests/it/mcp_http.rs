//! `skills mcp --http` through the built binary: a request without the bearer token, with a
//! wrong one, with a foreign `Origin` or a foreign `Host`, or to another path is refused with
//! its status before the protocol sees it; with the token, the SDK's own streamable HTTP
//! client holds the same conversation as over stdio. A token the server made itself is the
//! one it printed. Everything stays on loopback: the server refuses any other address.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::process::{Child, ChildStderr, Stdio};

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, GetPromptRequestParams, ReadResourceRequestParams};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::json;

use crate::discovery::Tree;
use crate::mcp::tree;

/// The token the tests hand the server.
pub(crate) const TOKEN: &str = "a-test-token-of-some-length";

/// A running `skills mcp --http`, killed when dropped.
pub(crate) struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT/mcp`.
    pub(crate) url: String,
    /// The token it printed, when it made one.
    printed_token: Option<String>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    fn start(tree: &Tree, token: Option<&str>) -> Self {
        Self::start_with(tree, token, &["--no-scripts"])
    }

    /// [`Server::start`] with `extra` arguments of `skills mcp` instead of `--no-scripts`.
    pub(crate) fn start_with(tree: &Tree, token: Option<&str>, extra: &[&str]) -> Self {
        // `skills()` already leaves the caller's SKILLS_ variables out.
        let mut command = skills_tests::skills();
        command
            .current_dir(&tree.base)
            .arg("--workspace")
            .arg(&tree.workspace)
            .arg("--home")
            .arg(&tree.home)
            .arg("mcp")
            .args(extra)
            .args(["--http", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if let Some(token) = token {
            command.env("SKILLS_MCP_TOKEN", token);
        }
        let mut child = command.spawn().unwrap();
        let stderr = child.stderr.take().unwrap();
        let (url, printed_token) = announced(stderr);
        Self {
            child,
            url,
            printed_token,
        }
    }

    fn port(&self) -> u16 {
        let authority = self
            .url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp");
        authority.rsplit_once(':').unwrap().1.parse().unwrap()
    }
}

/// The URL and the printed token from the server's first two stderr lines; the rest of its
/// stderr is drained on a thread so the server never blocks writing it.
fn announced(stderr: ChildStderr) -> (String, Option<String>) {
    let mut lines = BufReader::new(stderr);
    let mut read_line = || {
        let mut line = String::new();
        lines.read_line(&mut line).unwrap();
        line.trim_end().to_owned()
    };
    let serving = read_line();
    let url = serving
        .strip_prefix("skills mcp: serving ")
        .unwrap_or_else(|| panic!("the first line names the URL: {serving:?}"))
        .to_owned();
    let token_line = read_line();
    let printed_token = token_line
        .strip_prefix("skills mcp: bearer token ")
        .filter(|rest| !rest.starts_with("from "))
        .map(str::to_owned);
    std::thread::spawn(move || {
        let mut rest = Vec::new();
        let _ = lines.read_to_end(&mut rest);
    });
    (url, printed_token)
}

/// One raw HTTP/1.1 POST of an `initialize` request with `headers`; the status and the body.
fn post(port: u16, path: &str, headers: &[(&str, String)]) -> (u16, String) {
    let body = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": { "name": "raw", "version": "0" },
        },
    })
    .to_string();
    let mut request = format!(
        "POST {path} HTTP/1.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
         Connection: close\r\n",
        body.len()
    );
    if !headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("host"))
    {
        request.push_str(&format!("Host: 127.0.0.1:{port}\r\n"));
    }
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(20)))
        .unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = Vec::new();
    // An SSE answer stays open; what has arrived by the timeout is enough.
    let _ = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|status| status.parse().ok())
        .unwrap_or_else(|| panic!("an HTTP status line: {answer:?}"));
    (status, answer)
}

fn bearer(token: &str) -> (&'static str, String) {
    ("Authorization", format!("Bearer {token}"))
}

#[test]
fn requests_without_the_token_or_from_a_foreign_origin_are_refused() {
    let tree = tree();
    let server = Server::start(&tree, Some(TOKEN));
    assert_eq!(
        server.printed_token, None,
        "the user's token is not printed"
    );
    let port = server.port();

    let (status, answer) = post(port, "/mcp", &[]);
    assert_eq!(status, 401, "{answer}");
    assert!(
        answer.contains("WWW-Authenticate: Bearer") || answer.contains("www-authenticate: Bearer"),
        "{answer}"
    );
    let (status, answer) = post(port, "/mcp", &[bearer("a-test-token-of-some-lengtH")]);
    assert_eq!(status, 401, "a wrong token: {answer}");
    let (status, answer) = post(port, "/mcp", &[("Authorization", format!("Basic {TOKEN}"))]);
    assert_eq!(status, 401, "another scheme: {answer}");

    let (status, answer) = post(
        port,
        "/mcp",
        &[bearer(TOKEN), ("Origin", "http://evil.example".to_owned())],
    );
    assert_eq!(status, 403, "a foreign origin: {answer}");
    let (status, answer) = post(
        port,
        "/mcp",
        &[bearer(TOKEN), ("Origin", "http://127.0.0.1:1".to_owned())],
    );
    assert_eq!(status, 403, "another local port's page: {answer}");
    let (status, answer) = post(
        port,
        "/mcp",
        &[bearer(TOKEN), ("Host", format!("evil.example:{port}"))],
    );
    assert_eq!(status, 403, "a rebound DNS name: {answer}");
    let (status, answer) = post(port, "/other", &[bearer(TOKEN)]);
    assert_eq!(status, 404, "{answer}");

    let (status, answer) = post(
        port,
        "/mcp",
        &[
            bearer(TOKEN),
            ("Origin", format!("http://localhost:{port}")),
        ],
    );
    assert_eq!(status, 200, "the server's own origin: {answer}");
    assert!(answer.contains("\"serverInfo\""), "{answer}");
}

#[test]
fn with_the_token_the_sdk_client_holds_the_whole_conversation() {
    let tree = tree();
    let server = Server::start(&tree, Some(TOKEN));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let refused = ().serve(StreamableHttpClientTransport::from_uri(server.url.as_str())).await;
        assert!(refused.is_err(), "no token, no session");

        let config =
            StreamableHttpClientTransportConfig::with_uri(server.url.as_str()).auth_header(TOKEN);
        let client = ().serve(StreamableHttpClientTransport::from_config(config)).await.unwrap();
        let instructions = client
            .peer_info()
            .and_then(|info| info.instructions.clone())
            .unwrap_or_default();
        assert!(
            instructions.contains("<available_skills>") && instructions.contains("demo"),
            "{instructions}"
        );
        let tools = client.list_tools(None).await.unwrap().tools;
        let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
        assert_eq!(
            names,
            [
                "load_skill",
                "read_skill_resource",
                "search_skills",
                "audit_skill"
            ]
        );
        let arguments = json!({ "name": "demo" }).as_object().cloned().unwrap();
        let loaded = client
            .call_tool(CallToolRequestParams::new("load_skill").with_arguments(arguments))
            .await
            .unwrap();
        assert_eq!(loaded.structured_content.as_ref().unwrap()["name"], "demo");
        let resources = client.list_resources(None).await.unwrap().resources;
        assert!(
            resources
                .iter()
                .any(|resource| resource.uri == "skill://demo/references/guide.md"),
            "{resources:?}"
        );
        let guide = client
            .read_resource(ReadResourceRequestParams::new(
                "skill://demo/references/guide.md",
            ))
            .await
            .unwrap();
        assert_eq!(guide.contents.len(), 1);
        let prompt = client
            .get_prompt(
                GetPromptRequestParams::new("demo")
                    .with_arguments(json!({ "count": "3" }).as_object().cloned().unwrap()),
            )
            .await
            .unwrap();
        assert!(!prompt.messages.is_empty());
        client.cancel().await.unwrap();
    });
}

#[test]
fn a_token_the_server_made_is_the_one_it_printed() {
    let tree = tree();
    let server = Server::start(&tree, None);
    let token = server
        .printed_token
        .clone()
        .expect("a made token is printed");
    assert_eq!(token.len(), 64, "{token}");
    let port = server.port();
    assert_eq!(post(port, "/mcp", &[]).0, 401);
    assert_eq!(post(port, "/mcp", &[bearer(&token)]).0, 200);
}

#[test]
fn a_non_loopback_address_or_a_short_token_is_refused_before_anything_listens() {
    let tree = tree();
    for (address, token) in [("0.0.0.0:0", None), ("127.0.0.1:0", Some("short"))] {
        let mut command = skills_tests::skills();
        command
            .arg("--workspace")
            .arg(&tree.workspace)
            .arg("--home")
            .arg(&tree.home)
            .args(["mcp", "--http", address]);
        if let Some(token) = token {
            command.env("SKILLS_MCP_TOKEN", token);
        }
        let output = command.output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{address}: {stderr}");
        assert!(
            stderr.contains("loopback") || stderr.contains("at least 16"),
            "{address}: {stderr}"
        );
    }
}
