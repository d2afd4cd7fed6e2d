//! `skills mcp --http`: the same server over the streamable HTTP transport, for hosts that
//! connect to a URL rather than start a process.
//!
//! The SDK's [`StreamableHttpService`] speaks the protocol (sessions, SSE streams, the 2026
//! stateless requests) and checks `Host` against loopback names (DNS rebinding) and `Origin`
//! against the loopback origins of the bound port (a web page the user visits cannot drive
//! the server). In front of it, every request must carry `Authorization: Bearer TOKEN`, where
//! the token comes from the user (`SKILLS_MCP_TOKEN`) or is made fresh at start; the server
//! answers `/mcp` only. Binding to loopback is the command line's rule (it refuses any other
//! address); this module binds whatever address it is given.

use std::convert::Infallible;
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt as _, Full};
use hyper::body::Incoming;
use hyper::header::{AUTHORIZATION, CONTENT_TYPE, HeaderValue, WWW_AUTHENTICATE};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use skills_types::Error;
use skills_types::mcp::Options;
use skills_types::service::SkillsService;

use crate::server::SkillsServer;

/// The one path the server answers.
pub const PATH: &str = "/mcp";

/// How long a failed `accept` (out of file descriptors, say) waits before the next.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// What a failure of the socket names.
const LISTENER: &str = "the MCP server's HTTP socket";

type Body = BoxBody<Bytes, Infallible>;

/// Serves `service` over streamable HTTP at `address` until the process ends; every request
/// must carry `token` as a bearer token. `listening` is told the bound address (port `0`
/// picks one) before the first request is taken. Blocks: it runs its own async runtime.
pub fn serve_http(
    service: Arc<dyn SkillsService>,
    options: &Options,
    address: SocketAddr,
    token: &str,
    listening: impl FnOnce(SocketAddr),
) -> Result<(), Error> {
    if token.trim().is_empty() {
        return Err(Error::InvalidInput(
            "the MCP server's bearer token is empty".to_owned(),
        ));
    }
    let listener = TcpListener::bind(address).map_err(|source| Error::Io {
        action: "listen on",
        path: address.to_string().into(),
        source,
    })?;
    let address = listener
        .local_addr()
        .map_err(|source| crate::io_error("read the address of", LISTENER, source))?;
    listener
        .set_nonblocking(true)
        .map_err(|source| crate::io_error("configure", LISTENER, source))?;
    let runtime = crate::runtime()?;
    let server = SkillsServer::new(service, options.clone());
    let port = address.port();
    let config = StreamableHttpServerConfig::default()
        .with_allowed_origins([
            format!("http://127.0.0.1:{port}"),
            format!("http://localhost:{port}"),
            format!("http://[::1]:{port}"),
        ])
        .enforce_origin_validation();
    let token: Arc<str> = token.into();
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener)
            .map_err(|source| crate::io_error("listen on", LISTENER, source))?;
        listening(address);
        let http = Arc::new(StreamableHttpService::new(
            move || Ok(server.for_new_session()),
            Arc::new(LocalSessionManager::default()),
            config,
        ));
        loop {
            let stream = match listener.accept().await {
                Ok((stream, _)) => stream,
                Err(_) => {
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                    continue;
                }
            };
            let http = Arc::clone(&http);
            let token = Arc::clone(&token);
            tokio::spawn(async move {
                let answer = hyper::service::service_fn(move |request: Request<Incoming>| {
                    let http = Arc::clone(&http);
                    let token = Arc::clone(&token);
                    async move { Ok::<_, Infallible>(answer(&http, &token, request).await) }
                });
                // A connection that breaks is the client's business; the server goes on.
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), answer)
                    .await;
            });
        }
    })
}

/// One request: the path and the token are checked here, the rest by the SDK; its answer
/// leaves through the sanitiser (`outbound.rs`).
async fn answer(
    http: &StreamableHttpService<SkillsServer, LocalSessionManager>,
    token: &str,
    request: Request<Incoming>,
) -> Response<Body> {
    if request.uri().path() != PATH {
        return refusal(
            StatusCode::NOT_FOUND,
            &format!("this server answers {PATH} only"),
        );
    }
    let presented = request
        .headers()
        .get(AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(bearer);
    if !presented.is_some_and(|presented| same(presented.as_bytes(), token.as_bytes())) {
        let mut response = refusal(
            StatusCode::UNAUTHORIZED,
            "a bearer token is required: send `Authorization: Bearer TOKEN` with the token \
             `skills mcp --http` printed at start (or the one in SKILLS_MCP_TOKEN)",
        );
        response.headers_mut().insert(
            WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer realm=\"skills\""),
        );
        return response;
    }
    crate::outbound::response(http.handle(request).await)
}

/// The token of an `Authorization: Bearer TOKEN` value (the scheme in any case).
fn bearer(value: &str) -> Option<&str> {
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|token| !token.is_empty())
}

/// Whether two tokens are equal, in a time that depends on their lengths only.
fn same(presented: &[u8], expected: &[u8]) -> bool {
    presented.len() == expected.len()
        && presented
            .iter()
            .zip(expected)
            .fold(0_u8, |difference, (a, b)| difference | (a ^ b))
            == 0
}

fn refusal(status: StatusCode, message: &str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(format!("{message}\n"))).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_well_formed_bearer_header_yields_a_token() {
        assert_eq!(bearer("Bearer abc"), Some("abc"));
        assert_eq!(bearer("bearer  abc "), Some("abc"));
        assert_eq!(bearer("Basic abc"), None);
        assert_eq!(bearer("Bearer "), None);
        assert_eq!(bearer("Bearerabc"), None);
    }

    #[test]
    fn tokens_compare_exactly() {
        assert!(same(b"secret-token", b"secret-token"));
        assert!(!same(b"secret-tokem", b"secret-token"));
        assert!(!same(b"secret", b"secret-token"));
        assert!(!same(b"", b"secret-token"));
    }
}
