//! End-to-end tests of the `skills` binary.

mod validate;
