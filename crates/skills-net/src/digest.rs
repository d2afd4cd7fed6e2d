//! The digest every source, the writer, the publisher and the runtime spell the same way:
//! lowercase hex SHA-256, and the check of a `sha256:<hex>` digest an index or a runtime's
//! checksum list names. Kept below the extractor, the client and their callers, so none of
//! them imports another's module for it.

use sha2::{Digest, Sha256};

/// Lowercase hex SHA-256.
pub fn hex_digest(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

/// Checks `bytes` against an index's `digest`, which must be spelled
/// `sha256:<64 lowercase hex digits>`; any other spelling or algorithm is refused rather
/// than skipped, so a typo in an index cannot turn the check off. Called before
/// [`crate::archive::extract`], so nothing of an archive that is not the one the index names is parsed.
pub fn check_digest(bytes: &[u8], digest: &str) -> Result<(), String> {
    let expected = digest
        .strip_prefix("sha256:")
        .filter(|hex| {
            hex.len() == 64
                && hex
                    .bytes()
                    .all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte))
        })
        .ok_or_else(|| {
            format!(
                "the digest '{}' is not of the form sha256:<64 lowercase hex digits>",
                digest.escape_debug()
            )
        })?;
    let actual = hex_digest(bytes);
    if actual != expected {
        return Err(format!(
            "the archive's digest is sha256:{actual}, not {digest} as the index says"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
