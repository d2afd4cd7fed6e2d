//! Fuzz target `relative_path`: arbitrary strings through the lexical path check every relative
//! path from outside passes first (`skills_types::path::check_relative`, 03 §Reading files
//! safely).
//!
//! A path the check accepts is later joined under a skill or install directory, so an accepted
//! path that climbs out (`..`), restarts at the root, hides a Windows separator or drive
//! (`\`, `:`), or smuggles a NUL past the OS would be a traversal. The target asserts none of
//! that is ever accepted, and that the components returned are exactly the path's.

#![no_main]

use std::path::{Component, Path};

use libfuzzer_sys::fuzz_target;
use skills_types::path::check_relative;
use skills_types::limits::{MAX_RELATIVE_PATH_BYTES, MAX_RELATIVE_PATH_COMPONENTS};

fuzz_target!(|path: &str| {
    let Ok(components) = check_relative(path) else {
        return;
    };
    assert!(
        !path.starts_with('/'),
        "accepted an absolute path: {path:?}"
    );
    assert!(
        !path.contains(['\\', ':', '\0']),
        "accepted a path holding '\\', ':' or NUL: {path:?}"
    );
    assert!(
        !path.chars().any(char::is_control),
        "accepted a control character: {path:?}"
    );
    assert!(
        path.len() <= MAX_RELATIVE_PATH_BYTES,
        "accepted an over-long path"
    );
    assert!(
        components.len() <= MAX_RELATIVE_PATH_COMPONENTS,
        "accepted too many components"
    );
    assert_eq!(
        components.join("/"),
        path,
        "the components must be the path's own"
    );
    for component in &components {
        assert!(
            !component.is_empty(),
            "accepted an empty component: {path:?}"
        );
        assert!(
            *component != "." && *component != "..",
            "accepted a '.' or '..' component: {path:?}"
        );
        assert!(
            !component.starts_with('.'),
            "accepted a hidden component: {path:?}"
        );
        assert!(
            !component.ends_with(['.', ' ']),
            "accepted a component Windows would silently rename: {path:?}"
        );
    }

    // Joined under a base, the path stays below it, component for component.
    let base = Path::new("/skills/pdf-tools");
    let joined = base.join(path);
    assert!(joined.starts_with(base), "{path:?} left {}", base.display());
    let below: Vec<Component<'_>> = joined
        .components()
        .skip(base.components().count())
        .collect();
    assert_eq!(
        below.len(),
        components.len(),
        "{path:?} did not join component for component"
    );
    assert!(
        below
            .iter()
            .all(|component| matches!(component, Component::Normal(_))),
        "{path:?} joined to something other than plain names"
    );
});
