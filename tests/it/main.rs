//! End-to-end tests of the `skills` binary.

#![expect(
    clippy::unwrap_used,
    reason = "test helpers fail loudly at the line that broke, like the tests themselves"
)]

mod agent_json;
mod app_dir;
mod audit;
mod audit_gates;
mod discovery;
mod docs;
mod home;
mod hosts;
mod hubs;
mod install;
mod manage;
mod marks;
mod mcp;
mod mcp_http;
mod mcp_python;
mod mcp_typescript;
mod network;
#[cfg(unix)]
mod peers;
mod policy;
mod publish;
mod reference;
mod registry;
mod registry_catalog;
mod remote;
mod runtime;
#[cfg(unix)]
mod runtime_rpc;
mod search;
mod serve;
#[cfg(unix)]
mod state;
mod triggers;
mod update;
mod validate;
mod watch;
