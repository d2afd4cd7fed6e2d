//! The data of the skills subsystem.
//!
//! Every type that appears in a public signature of the `skills` facade lives here, so that
//! an agent core can name them whether the subsystem is compiled in (the default `skills`
//! feature) or replaced by the no-op stub. This crate performs no I/O: it holds data, the
//! constant tables the rest of the workspace refers to, and small pure helpers over them.

#![warn(missing_docs)]

pub mod agents;
pub mod audit;
pub mod catalog;
pub mod config;
pub mod diagnostic;
pub mod document;
pub mod error;
pub mod event;
pub mod files;
pub mod frontmatter;
pub mod install;
pub mod limits;
pub mod manage;
pub mod mcp;
pub mod path;
pub mod path_text;
pub mod publish;
pub mod registry;
pub mod remote;
pub mod render;
pub mod restore;
pub mod rpc;
pub mod run;
pub mod runtime;
pub mod sanitize;
pub mod scope;
pub mod search;
pub mod service;
pub mod settings;
pub mod skill;
pub mod text;
pub mod tool;
pub mod trigger;
pub mod trust;
pub mod update;
pub mod validate;
pub mod watch;

pub use catalog::Catalog;
pub use config::SkillsConfig;
pub use diagnostic::{Diagnostic, DiagnosticCode, Severity};
pub use document::SkillDocument;
pub use error::Error;
pub use event::{Activation, DomainEvent, EventSink, SkillsEvent};
pub use frontmatter::Frontmatter;
pub use scope::SkillScope;
pub use skill::{Skill, SkillSummary};
pub use text::Text;
pub use tool::{ToolContent, ToolResult};
pub use trigger::TriggerPattern;
