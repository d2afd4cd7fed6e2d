//! The no-op twin of the skills subsystem.
//!
//! The `skills` facade uses this crate when its `skills` feature is off. Every function here
//! has exactly the signature of its real counterpart (the facade's parity test pins both), so
//! an agent core builds slim by turning the feature off and changes no line of its own code.
//!
//! The rule: a query that can honestly answer "nothing" returns an empty result; everything
//! else (mutations, and calls whose empty answer would be a false statement, such as "this
//! skill is valid") returns [`Error::Disabled`](skills_types::Error::Disabled). No I/O, no
//! threads.
//!
//! Modules mirror the real crates (`ops` is `skills-ops`), so a real file and its twin can be
//! compared by eye.

pub mod audit;
pub mod bus;
pub mod install;
pub mod mcp;
pub mod ops;
pub mod runtime;
pub mod schemas;
