//! The network and archive floor under installing and running (03-install.md, 09 §Archives):
//! the URL policy, the address rules, the one guarded HTTP client, the one archive extractor
//! (and the packer `skills publish` uses), and the digest every caller spells the same way.
//!
//! It sits below `skills-install` and `skills-runtime` and depends only on `skills-types`, so
//! the runtime's managed Node reaches the network through the same doors as an install
//! without depending on the installer. Every rule here exists because some tool got it
//! wrong: request forgery through redirects, DNS rebinding and IPv4-mapped IPv6; symlinks
//! and path traversal in archive entries; decompression bombs; truncated downloads.

pub mod address;
pub mod archive;
pub mod client;
pub mod digest;
pub mod policy;
