//! The digest check: one spelling accepted, every other refused.

use super::*;

fn assert_refused<T: std::fmt::Debug>(result: Result<T, String>, needles: &[&str]) {
    let error = result.expect_err("the digest must be refused");
    for needle in needles {
        assert!(
            error.contains(needle),
            "the message {error:?} does not mention {needle:?}"
        );
    }
}

#[test]
fn digests_are_checked_and_only_one_spelling_is_accepted() {
    let bytes = b"archive bytes";
    let right = format!("sha256:{}", hex_digest(bytes));
    assert_eq!(check_digest(bytes, &right), Ok(()));
    assert_refused(
        check_digest(b"other bytes", &right),
        &["not sha256:", "as the index says"],
    );
    for wrong in [
        right.to_uppercase(),
        right.replace("sha256:", "sha512:"),
        right.replace("sha256:", ""),
        format!("{right}0"),
        "sha256:".to_owned(),
        format!("sha256:{}", "g".repeat(64)),
    ] {
        assert_refused(check_digest(bytes, &wrong), &["is not of the form"]);
    }
}
