//! `skills audit` (issue 31): what a skill would make an agent do, found before it is
//! installed or run — offline, deterministic, with no model, no network and nothing executed.
//!
//! A scan reads a skill's files once (`files.rs`: never through a link, never more than the
//! caps, every cut reported), then hands the same in-memory [`Skill`] to each analyzer:
//!
//! - `analyzers/instructions.rs`: the text the agent reads (`SKILL.md`, references):
//!   instruction override, role reassignment, hiding actions, disabling safety, fetching
//!   further instructions, sending data out, a description that does not match the body;
//! - `analyzers/hidden.rs`: what a reader does not see: zero-width, bidi and tag characters,
//!   HTML comments, invisible Markdown, names imitating another installed skill, encoded
//!   blobs (decoded and scanned again);
//! - `analyzers/scripts.rs`: bundled code, in the language the runtime would run it as:
//!   credential stores, egress, download-and-execute, reverse shells, persistence,
//!   destruction, obfuscation, packages installed at run time;
//! - `analyzers/manifest.rs`: what the frontmatter claims against what the files do:
//!   `allowed-tools`, declared tools, undeclared network use, shipped executables, committed
//!   secrets;
//! - `analyzers/rules.rs`: rule files in the format security teams already write (the ones
//!   shipped with the project, and the user's own folders).
//!
//! Each analyzer is a module with its own rules table; [`all_rules`] lists every rule, and
//! `docs/audit.md` says why each exists and when it is a false positive. Installing,
//! discovery, the runtime and the MCP server call [`scan_dir`] or [`scan_files`]; [`audit`]
//! scans what a request names (folders, catalog names, or the whole catalog) as
//! `skills audit` does. The crate itself writes nothing but acceptances ([`accept`]) and the
//! verdicts `list`, `show` and the MCP catalog mark flagged skills by (`verdicts.rs`:
//! [`mark`], [`record`]; `recheck.rs`: [`recheck`] for `skills check`, [`rescan`] for
//! `skills watch`).
//!
//! A gate (install, update, run) decides in three steps: scan ([`scan_files`] for staged
//! files, [`scan_dir`] for a folder), mark what the user accepted
//! ([`Acceptances::read`] once, then [`Acceptances::apply`] with the folder's [`key_of`]),
//! and ask the configuration ([`skills_types::audit::AuditConfig::gate`]: refuse, ask or
//! pass, with the findings that decided).

mod accept;
mod analyzers;
mod catalog;
mod files;
mod findings;
mod gate;
mod home_file;
mod recheck;
mod report;
mod stamp;
mod targets;
#[cfg(test)]
mod testing;
mod verdicts;

pub use accept::{Acceptances, accept, key_of};
pub use analyzers::all_rules;
pub use catalog::{audit, audit_each};
pub use files::{Caps, FileKind, Neighbours, ScannedFile, Skill};
pub use findings::Rule;
pub use gate::{Reviewer, lines};
pub use recheck::{recheck, rescan};
pub use report::{Options, RULES_VERSION, scan_dir, scan_files};
pub use stamp::stamp;
pub use verdicts::{mark, record};
