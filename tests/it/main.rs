//! End-to-end tests of the `skills` binary.

#![expect(
    clippy::unwrap_used,
    reason = "test helpers fail loudly at the line that broke, like the tests themselves"
)]

mod app_dir;
mod discovery;
mod docs;
mod hubs;
mod install;
mod manage;
mod network;
mod reference;
mod registry;
mod registry_catalog;
mod serve;
mod triggers;
mod validate;
