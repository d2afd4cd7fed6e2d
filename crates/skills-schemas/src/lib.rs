//! RPC controllers and their JSON Schemas (04-bus-rpc.md §RPC).
//!
//! Nothing lives here yet: the crate exists so that the facade's `skills` feature and the
//! absence check already cover it. Its behaviour arrives with the RPC stage of the plan.
