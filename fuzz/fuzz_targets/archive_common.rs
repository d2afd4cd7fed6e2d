//! What both archive targets assert about one extraction (included by `#[path]`, not a
//! target of its own).

use skills_install::finder;
use skills_net::archive::{self, Format, Limits};

/// Small limits, so that the fuzzer reaches every one of them with small inputs.
fn limits() -> Limits {
    Limits {
        entries: 64,
        file: 64 * 1024,
        total: 256 * 1024,
        ratio: archive::MAX_RATIO,
    }
}

pub fn check(bytes: &[u8], format: Format) {
    let limits = limits();
    let Ok(files) = archive::extract(bytes, format, &limits) else {
        return;
    };
    assert!(files.len() <= limits.entries, "more files than entries allowed");
    let mut total = 0u64;
    let mut folded = std::collections::HashSet::new();
    for pair in files.windows(2) {
        assert!(pair[0].0 < pair[1].0, "not sorted or duplicated: {:?}", pair[1].0);
    }
    for (path, data) in &files {
        let components = skills_types::path::check_relative(path)
            .unwrap_or_else(|refusal| panic!("extracted {path:?}, which the path check refuses: {refusal}"));
        assert_eq!(components.join("/"), *path);
        assert!(folded.insert(path.to_lowercase()), "two names equal but for case: {path:?}");
        assert!(data.len() as u64 <= limits.file, "{path:?} is over the file limit");
        total += data.len() as u64;
    }
    assert!(total <= limits.total, "the files are over the total limit");
    let url = url::Url::parse("https://example.com/archive").expect("a valid URL");
    if let Ok(downloads) = finder::skills(files, None, &url) {
        for download in downloads {
            for (path, _) in &download.files {
                assert!(skills_types::path::check_relative(path).is_ok(), "a skill file {path:?}");
            }
        }
    }
}
