//! The event bus and skill triggers (04-bus-rpc.md §The bus, §Triggers).
//!
//! Nothing lives here yet: the crate exists so that the facade's `skills` feature and the
//! absence check already cover it. Its behaviour arrives with the events stage of the plan.
