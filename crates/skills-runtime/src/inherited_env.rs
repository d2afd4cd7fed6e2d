//! The part of the parent's environment a script inherits: a short allowlist, then what the
//! home configuration names in `pass_env`. Below both the interpreter probes (`runtimes`) and
//! run preparation (`prepare`), which each hand it to a child.

use skills_types::runtime::RuntimeConfig;

/// The variables of the parent's environment a script may see; anything else reaches it only
/// when the home configuration names it in `pass_env`. Tokens and keys live in environments,
/// and a script the user never read must not inherit them.
const ALLOWED_ENV: [&str; 11] = [
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LC_ALL", "LC_CTYPE", "TZ",
    "TMPDIR",
];

/// The allowlisted variables of the inherited environment, then the `pass_env` ones.
pub(crate) fn allowlisted_env(settings: &RuntimeConfig) -> Vec<(String, String)> {
    ALLOWED_ENV
        .iter()
        .copied()
        .chain(
            settings
                .pass_env
                .iter()
                .map(String::as_str)
                .filter(|name| !ALLOWED_ENV.contains(name)),
        )
        .filter_map(|name| {
            settings
                .inherited(name)
                .map(|value| (name.to_owned(), value.to_owned()))
        })
        .collect()
}
