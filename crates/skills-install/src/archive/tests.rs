//! Hostile and happy archives for the extractor.
use super::*;
