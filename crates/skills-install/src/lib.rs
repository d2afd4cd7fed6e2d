//! Installing skills from the network (03-install.md): sources (single files, GitHub pages,
//! packs, well-known indexes, a registry catalog), the skill finder over extracted trees and
//! the local-folder reader, atomic, never-overwriting writes, and restoring what the install
//! records list. The URL policy, the address check, the guarded HTTP client and the one
//! archive extractor are `skills-net`'s, one floor down.
//!
//! This is the most attacked surface of any skills tool. Every rule here exists because some
//! tool got it wrong: request forgery through redirects, DNS rebinding and IPv4-mapped IPv6;
//! symlinks copied into installs; path traversal in pack entries; silent overwrites;
//! half-written installs.

// Public: what the facade (`install`, `publish`, `registry`, `remote`, `restore`, `update`),
// the integration tests (`registry`) and the fuzz targets (`finder`, and the `Download` it
// yields) call. Everything else is the installer's own.
mod download;
mod fetch;
pub mod finder;
mod github;
mod install;
mod local;
mod mentions;
mod namespace;
mod plugin;
pub mod publish;
pub mod registry;
pub mod remote;
pub mod restore;
mod source;
pub mod update;
mod write;

pub use download::Download;
pub use install::install;
pub use publish::publish;
pub use restore::restore;
