//! End-to-end tests of the `skills` binary.

mod docs;
mod reference;
mod validate;
