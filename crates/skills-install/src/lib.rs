//! Installing skills from the network (03-install.md): the URL policy, the guarded HTTP
//! client, packs, the registry catalog and atomic writes.
//!
//! Nothing lives here yet: the crate exists so that the facade's `skills` feature and the
//! absence check already cover it. Its behaviour arrives with the install stage of the plan.
