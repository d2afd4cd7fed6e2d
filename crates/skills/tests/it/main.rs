//! The facade's integration tests: one binary, compiled and run in both feature directions.

mod events;
mod live;
mod parity;
