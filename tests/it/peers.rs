//! The peers' own tools against our files (09 §The peers' files), end to end: the vercel
//! tool (`skills` on npm) and `openskills`, installed from the npm registry into a throwaway
//! folder by each test ([`skills_tests::peers`]), run on a home and workspace where this
//! program installed skills, and this program run on what they wrote.
//!
//! The peers run inside a private network namespace with a cleared environment (see
//! [`skills_tests::peers`]): only their installation by npm reaches the npm registry, nothing
//! they do afterwards can reach any address. Our own binary talks only to the loopback
//! fixture server. When the npm registry cannot be reached (and npm's cache does not hold the
//! packages), a test prints why and returns: the one skip these tests allow.

mod agents_md;
mod lock;

use skills_tests::peers::{Peers, Unavailable};

/// The installed peers, or `None` after printing plainly why the registry could not be
/// reached; any other failure fails the test.
fn peers_or_skip(test: &str) -> Option<Peers> {
    match skills_tests::peers::install() {
        Ok(peers) => {
            println!("{test}: peers run under `{}`", peers.isolation());
            Some(peers)
        }
        Err(Unavailable::Registry(reason)) => {
            // Said on both streams: libtest shows stdout only for failures by default.
            println!("SKIPPED {test}: {reason}");
            eprintln!("SKIPPED {test}: {reason}");
            None
        }
        Err(Unavailable::Broken(reason)) => panic!("{test}: the peers cannot be run: {reason}"),
    }
}

/// A peer's output as text, for assertions and their messages.
fn shown(output: &std::process::Output) -> String {
    format!(
        "status {}\n--- stdout\n{}\n--- stderr\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}
