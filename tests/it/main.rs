//! End-to-end tests of the `skills` binary.

mod docs;
mod validate;
