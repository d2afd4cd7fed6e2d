//! The skills subsystem as a Model Context Protocol server (08 §`skills mcp`).
//!
//! [`serve_stdio`] serves any [`SkillsService`] — the facade's `Skills` handle, so the same
//! configuration, trust, permissions and safe reader as the CLI and `skills serve` — over
//! stdin and stdout with the official Rust SDK (`rmcp`); the protocol, its revisions and their
//! negotiation are the SDK's, never ours. What the server offers lives in [`SkillsServer`]
//! (`server.rs`): the catalog as instructions (`instructions.rs`), the tools (`tools.rs`),
//! one resource per skill (`resources.rs`) and one prompt per skill (`prompts.rs`). Stdout is the protocol: nothing
//! here prints. [`serve_http`] (`http.rs`) serves the same over streamable HTTP, behind a
//! bearer token. Whichever transport, every message leaves through `outbound.rs`, which puts
//! it whole through the one sanitiser: no handler has to remember a field.

use std::sync::Arc;

use rmcp::ServiceExt;
use skills_types::Error;
use skills_types::service::SkillsService;

pub use skills_types::mcp::Options;

mod changes;
mod errors;
mod http;
mod instructions;
mod outbound;
mod prompts;
mod resources;
mod schema;
mod server;
mod tools;

pub use http::{PATH as HTTP_PATH, serve_http};
pub use server::SkillsServer;

/// Serves `service` over stdin and stdout until the client closes stdin. Blocks: it runs its
/// own async runtime, so a `main` calls it as it is.
pub fn serve_stdio(service: Arc<dyn SkillsService>, options: &Options) -> Result<(), Error> {
    let runtime = runtime()?;
    let server = SkillsServer::new(service, options.clone());
    let served = runtime.block_on(async move {
        let running = server
            .serve((
                tokio::io::stdin(),
                outbound::Lines::new(tokio::io::stdout()),
            ))
            .await
            .map_err(|error| {
                io_error(
                    "start the MCP session on",
                    STDIO,
                    std::io::Error::other(error.to_string()),
                )
            })?;
        running.waiting().await.map_err(|error| {
            io_error(
                "serve the MCP session on",
                STDIO,
                std::io::Error::other(error.to_string()),
            )
        })?;
        Ok(())
    });
    // The session is over: the task following the catalog has ended with the server (or ends
    // with the runtime's tasks, dropping the watch), and a look at the catalog still running
    // on a blocking thread has no one to tell, so the process does not wait for it.
    runtime.shutdown_background();
    served
}

/// The async runtime a server runs on.
fn runtime() -> Result<tokio::runtime::Runtime, Error> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|source| io_error("start the async runtime of", "the MCP server", source))
}

/// An operating-system failure of the server itself, on its standard streams or socket.
fn io_error(action: &'static str, place: &str, source: std::io::Error) -> Error {
    Error::Io {
        action,
        path: place.into(),
        source,
    }
}

/// Where the stdio server talks.
const STDIO: &str = "standard input and output";
