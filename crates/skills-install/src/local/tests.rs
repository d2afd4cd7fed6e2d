//! Local folders read under the extraction rules.
use super::*;
