//! The behaviour of the skills subsystem that works on local files: the `SKILL.md` parser and
//! lenient loader, the validator with its profiles, and the rules they share (the name rule,
//! the lexical path check).
//!
//! Agent cores do not depend on this crate directly: they use the `skills` facade, which
//! re-exports these functions under its default `skills` feature and swaps in same-signature
//! no-ops from `skills-stub` without it.

pub mod agents;
pub mod agents_md;
pub mod catalog;
pub mod discover;
pub mod live;
pub mod load;
pub mod lock;
pub mod manage;
pub mod name;
pub mod reader;
pub mod render;
pub mod resources;
pub mod search;
pub mod state;
pub mod trust;
pub mod validate;
pub mod watch;

mod compliance;
pub mod fs;
mod package;
mod split;
#[cfg(test)]
mod testing;
mod yaml;
