//! Hosts named in code: the URLs and bare host names a script talks to, for a finding's
//! message ("sends to collector.example.net") and for telling a token sent to its own
//! provider (`SLACK_TOKEN` to `slack.com`) from one sent anywhere else.

use std::sync::LazyLock;

use regex::Regex;

#[expect(
    clippy::expect_used,
    reason = "the pattern is a constant; the tests compile it"
)]
static URL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?-u:\b)(?:https?|wss?|ftp|sftp|stratum\+(?:tcp|ssl))://(?:[^\s/@'\x22`]+@)?([a-z0-9][a-z0-9.\-]*[a-z0-9]|\[[0-9a-f:]+\])")
        .expect("the URL pattern is valid")
});

/// The hosts of the URLs in `text`, lowercased, in order of first appearance, without
/// repeats; loopback and placeholder hosts are left out.
pub(super) fn hosts(text: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    if !text.contains("://") {
        return found;
    }
    for captures in URL.captures_iter(text) {
        if let Some(host) = captures.get(1) {
            push_host(&mut found, host.as_str());
        }
    }
    found
}

/// Adds `host` to `found` unless it is local or already there.
pub(super) fn push_host(found: &mut Vec<String>, host: &str) {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    if host.is_empty() || is_local(&host) || found.contains(&host) {
        return;
    }
    found.push(host);
}

/// Whether `host` is this machine or a name that reaches nothing (`localhost`, `127.0.0.1`,
/// `0.0.0.0`, `::1`, `*.local`, `*.localhost`).
pub(super) fn is_local(host: &str) -> bool {
    let host = host.trim_matches(['[', ']']);
    host == "localhost"
        || host.ends_with(".localhost")
        || host.ends_with(".local")
        || host.starts_with("127.")
        || host == "0.0.0.0"
        || host == "::1"
        || host == "host.docker.internal"
}

/// A bare host name argument (`nc evil.example 4444`, `dig @ns.example x`): letters, digits,
/// dots and dashes with at least one dot and a letter in its last label.
pub(super) fn bare_host(word: &str) -> Option<&str> {
    let word = word.trim_start_matches('@');
    let word = word.split(':').next().unwrap_or(word);
    let valid = word.contains('.')
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
        && word
            .rsplit('.')
            .next()
            .is_some_and(|last| last.len() >= 2 && last.chars().all(|c| c.is_ascii_alphabetic()));
    valid.then_some(word)
}

/// Whether one of `hosts` belongs to the service a secret's variable name points to
/// (`SLACK_BOT_TOKEN` → a host with `slack` in it, `GH_TOKEN` → `github`): a token sent to
/// its own API is how APIs work, not a leak.
pub(super) fn is_provider_host(variable: &str, hosts: &[String]) -> bool {
    let Some(vendor) = vendor_of(variable) else {
        return false;
    };
    hosts
        .iter()
        .any(|host| vendor.iter().any(|word| host.contains(word)))
}

/// The words a provider's hosts contain, by the first word of its variables' names: the
/// well-known services whose tokens have one home.
const VENDORS: &[(&str, &[&str])] = &[
    ("GH", &["github"]),
    ("GITHUB", &["github"]),
    ("GITLAB", &["gitlab"]),
    ("HF", &["huggingface", "hf.co"]),
    ("HUGGINGFACE", &["huggingface", "hf.co"]),
    ("AWS", &["amazonaws", "aws"]),
    ("GOOGLE", &["google"]),
    ("GEMINI", &["google"]),
    ("GCP", &["google"]),
    ("AZURE", &["azure", "microsoft", "windows.net"]),
    ("ANTHROPIC", &["anthropic"]),
    ("CLAUDE", &["anthropic", "claude"]),
    ("OPENAI", &["openai"]),
    ("SLACK", &["slack"]),
    ("STRIPE", &["stripe"]),
    ("NPM", &["npmjs", "npm"]),
    ("DOCKER", &["docker"]),
    ("TWILIO", &["twilio"]),
    ("SENDGRID", &["sendgrid"]),
    ("DATADOG", &["datadoghq", "datadog"]),
    ("DISCORD", &["discord"]),
    ("TELEGRAM", &["telegram"]),
    ("NOTION", &["notion"]),
    ("LINEAR", &["linear"]),
    ("VERCEL", &["vercel"]),
    ("CLOUDFLARE", &["cloudflare"]),
    ("HEROKU", &["heroku"]),
    ("PYPI", &["pypi", "python.org"]),
    ("SENTRY", &["sentry"]),
    ("MAILGUN", &["mailgun"]),
    ("SHOPIFY", &["shopify"]),
    ("ATLASSIAN", &["atlassian"]),
    ("JIRA", &["atlassian", "jira"]),
];

/// Secrets that belong to no API at all: sending them anywhere gives away a database, a
/// signing key or a machine.
const INFRASTRUCTURE: &[&str] = &[
    "JWT_SECRET",
    "DATABASE_URL",
    "SSH_PRIVATE_KEY",
    "DB_PASSWORD",
    "POSTGRES_PASSWORD",
    "MYSQL_PASSWORD",
    "MYSQL_ROOT_PASSWORD",
    "REDIS_PASSWORD",
    "SECRET_KEY_BASE",
    "DJANGO_SECRET_KEY",
    "SESSION_SECRET",
];

/// Whether `variable` is a well-known service's token or an infrastructure secret: one
/// whose right host is known, so sending it elsewhere is a leak, not an API call.
pub(super) fn is_well_known(variable: &str) -> bool {
    let first = variable
        .split('_')
        .find(|part| !part.is_empty())
        .unwrap_or("");
    VENDORS.iter().any(|(name, _)| *name == first)
        || INFRASTRUCTURE.contains(&variable)
        || variable.ends_with("_PRIVATE_KEY")
}

fn vendor_of(variable: &str) -> Option<Vec<String>> {
    let first = variable.split('_').find(|part| !part.is_empty())?;
    if let Some((_, words)) = VENDORS.iter().find(|(name, _)| *name == first) {
        return Some(words.iter().map(|word| (*word).to_owned()).collect());
    }
    // A generic first word (`API_KEY`, `SECRET`) names no vendor.
    let generic = [
        "API",
        "SECRET",
        "TOKEN",
        "AUTH",
        "ACCESS",
        "PRIVATE",
        "DATABASE",
        "DB",
        "PASSWORD",
        "JWT",
        "SSH",
        "APP",
        "CLIENT",
        "USER",
        "MY",
        "SERVICE",
        "CREDENTIAL",
        "CREDENTIALS",
        "PASSWORDS",
        "PASSWD",
        "SECRETS",
        "TOKENS",
        "APIKEY",
        "APIKEYS",
        "API_KEY",
        "KEY",
    ];
    (first.len() >= 3 && !generic.contains(&first)).then(|| vec![first.to_ascii_lowercase()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_give_their_hosts_once_without_local_ones() {
        let text = "get('https://API.Example.net/x') post(\"http://user@collect.test:8080/a\") \
                    http://localhost:3000 https://api.example.net/y stratum+tcp://pool.test:3333";
        assert_eq!(
            hosts(text),
            ["api.example.net", "collect.test", "pool.test"]
        );
    }

    #[test]
    fn bare_hosts() {
        assert_eq!(bare_host("@ns1.evil.test"), Some("ns1.evil.test"));
        assert_eq!(bare_host("evil.test:4444"), Some("evil.test"));
        assert_eq!(bare_host("file.txt1"), None);
        assert_eq!(bare_host("-l"), None);
    }

    #[test]
    fn providers_match_their_hosts() {
        let slack = vec!["slack.com".to_owned()];
        assert!(is_provider_host("SLACK_BOT_TOKEN", &slack));
        assert!(!is_provider_host("STRIPE_SECRET_KEY", &slack));
        assert!(is_provider_host("GH_TOKEN", &["api.github.com".to_owned()]));
        assert!(!is_provider_host("API_TOKEN", &slack));
        assert!(is_well_known("SLACK_BOT_TOKEN") && is_well_known("DATABASE_URL"));
        assert!(!is_well_known("BF_API_KEY") && !is_well_known("API_KEY"));
    }
}
