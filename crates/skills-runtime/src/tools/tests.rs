//! Unit tests of declared tools.
