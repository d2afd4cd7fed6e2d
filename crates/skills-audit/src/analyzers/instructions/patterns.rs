//! The phrases of the instruction rules: one table, each row a family, a regular expression
//! and what voids a match.
//!
//! Patterns are written to be read: a plain space stands for any run of white space,
//! Markdown emphasis or underscores (`ignore **all** previous`), `\b` is the ASCII word
//! boundary (so the automaton stays a DFA over any script), and every pattern is
//! case-insensitive. Only linear-time constructs are used (the `regex` crate has no
//! backtracking), and every gap between two parts of a phrase is bounded and stays on one line.

use super::Family;

/// One phrase of an instruction rule.
pub(super) struct Pattern {
    /// The rule it is evidence for.
    pub(super) family: Family,
    /// The expression, in the notation of this module's header.
    pub(super) regex: &'static str,
    /// A negation just before it ("never", "do not") turns it into advice, not a finding.
    pub(super) negatable: bool,
    /// A condition in its sentence ("if", "when", "unless") makes it a step of a procedure
    /// ("ignore the above rules when the file is empty"), not an override.
    pub(super) conditional: bool,
    /// Any of these (lower case) on the match's line voids it.
    pub(super) unless: &'static [&'static str],
    /// The text right after the match starting with any of these (lower case) voids it.
    pub(super) not_followed_by: &'static [&'static str],
}

const fn phrase(family: Family, regex: &'static str) -> Pattern {
    Pattern {
        family,
        regex,
        negatable: true,
        conditional: false,
        unless: &[],
        not_followed_by: &[],
    }
}

impl Pattern {
    /// Matches even after a negation (the phrase carries its own).
    const fn with_negation(mut self) -> Self {
        self.negatable = false;
        self
    }

    const fn conditional(mut self) -> Self {
        self.conditional = true;
        self
    }

    const fn unless(mut self, words: &'static [&'static str]) -> Self {
        self.unless = words;
        self
    }

    const fn not_followed_by(mut self, words: &'static [&'static str]) -> Self {
        self.not_followed_by = words;
        self
    }
}

/// Any text on the same line, at most `$n` characters, as few as possible.
macro_rules! gap {
    ($n:literal) => {
        concat!(r"[^\n]{0,", $n, r"}?")
    };
}

/// Verbs that move data off the machine, in the form of an order (`send`, not `sends`: a
/// sentence that says what a program does describes, it does not ask).
macro_rules! send {
    () => {
        r"\b(send|upload|post|forward|transmit|exfiltrate|leak|email|e-mail|mail|pipe|submit|relay|beacon|dump|sync|push)\b"
    };
}

/// Where data sent out lands: an address, a mail box, a hook, a named outside server.
macro_rules! destination {
    () => {
        r"(https?://|wss?://|ftp://|\b[a-z0-9._%+-]+@[a-z0-9-]+\.[a-z0-9.-]*[a-z]{2,}\b|\bwebhooks?\b|discord(app)?\.com/api|hooks\.slack\.com|api\.telegram\.org|\bpastebin|\bngrok|\brequestbin|\binteract\.sh|\b(remote|external|outside|third[\s-]party|attacker'?s?|my|our) (server|endpoint|host|url|address|inbox|collector|bucket)\b|\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b)"
    };
}

/// What must not be sent out: credentials, the environment, the conversation.
macro_rules! secret {
    () => {
        r"(\bcredentials\b|\bsecrets\b|\bpasswords\b|\b(all|every|any|the user'?s|these|those) ([\p{L}]+ )?(api[\s_-]?keys|keys|tokens|credentials|secrets|passwords)\b|\bprivate[\s_-]?keys?\b|\bssh[\s_-]?keys?\b|\bsession (tokens?|cookies?|data)\b|\benv(ironment)? (variables|vars)\b|\$\(\s*(env|printenv)\s*\)|\bprintenv\b|\.env\b|~/\.ssh|\bid_rsa\b|\bid_ed25519\b|\.aws/|\.netrc\b|\.npmrc\b|\.pypirc\b|\.git-credentials\b|\bkeychain\b|\bwallets?\b|\bseed phrases?\b|\bsystem prompt\b|\b(conversation|chat|message) history\b|\b(entire|full|whole) conversation\b|\bconversation (logs?|transcripts?)\b|\bthe user'?s (files|documents|data|messages|emails|history|session)\b)"
    };
}

/// Where credentials are kept on a user's machine.
macro_rules! store {
    () => {
        r"(~/\.ssh|\$HOME/\.ssh|\.ssh/(id_[a-z0-9]+|authorized_keys)|\bid_rsa\b|\bid_ed25519\b|\bid_ecdsa\b|\.aws/credentials|\baws credentials\b|\.config/gcloud|\.azure/|\.kube/config|\bkubeconfig\b|\.docker/config\.json|\.netrc\b|\.git-credentials|\.npmrc\b|\.pypirc\b|\bkeychains?\b|\bcredential manager\b|\blogin data\b|cookies\.sqlite|\bbrowser (cookies|passwords|profiles?|history|sessions?)\b|\bsaved passwords\b|/etc/shadow|/proc/(\d+|self|\*)/environ|\b(the )?user'?s (session tokens?|session cookies?|session data|tokens?|credentials|secrets|passwords|api keys|cookies|private keys?)\b|\buser session (data|tokens?|cookies?)\b|\ball (the |of the )?(environment variables|env vars|secrets|credentials|tokens|api keys|passwords)\b|\b(every|all) \.env\b|\.env files\b|wallet\.dat|\bseed phrases?\b|\b(crypto|bitcoin|ethereum|metamask) wallets?\b|\.cursor/mcp\.json|claude_desktop_config\.json|\.config/gh/hosts\.yml|\.codex/auth\.json|\.gemini/oauth_creds\.json)"
    };
}

/// Installation and setup pages: following them is ordinary, not remote control.
const SETUP: &[&str] = &[
    "install",
    "setup",
    "set up",
    "set-up",
    "getting started",
    "quickstart",
    "quick start",
    "contributing",
    "license",
];

/// Browsers and containers have their own sandboxes, turned off for reasons of their own.
const OTHER_SANDBOXES: &[&str] = &[
    "chrome",
    "chromium",
    "puppeteer",
    "playwright",
    "browser",
    "electron",
    "docker",
    "container",
    "selenium",
    "webview",
    "iframe",
];

/// Sending a key to its own service is how an API is used, not exfiltration.
const AUTHENTICATING: &[&str] = &[
    "authorization",
    "header",
    "bearer",
    "authenticat",
    "log in",
    "login",
    "sign in",
    "oauth",
    "-h \"",
    "-h '",
];

/// Every phrase, grouped by family.
pub(super) const PATTERNS: &[Pattern] = &[
    // --- Instruction override ----------------------------------------------------------
    phrase(
        Family::Override,
        r"\b(ignore|disregard|forget|override|bypass) (all|any|every) (of )?(the |your |my |these |those )?((previous|prior|preceding|above|earlier|foregoing|former|original|old|existing|initial|system|developer|safety|other) ){0,2}(instructions?|prompts?|directives?|directions|rules|guidelines|guidance|orders|constraints|programming|polic(y|ies))\b",
    ),
    phrase(
        Family::Override,
        r"\b(ignore|disregard|forget|override) (the |your |my |these |those )?(previous|prior|preceding|above|earlier|foregoing|former|original|initial|system|developer) ((system|safety) )?(instructions?|prompts?|directives?|directions|rules|guidelines|guidance|orders|constraints|programming|polic(y|ies))\b",
    )
    .conditional(),
    phrase(
        Family::Override,
        r"\b(ignore|disregard|forget|override) (your|all your|all of your) (instructions|directives|rules|guidelines|programming|training|system prompt|constraints)\b",
    ),
    phrase(
        Family::Override,
        r"\b(ignore|disregard|forget|override|bypass) (the |your )?system (prompt|message)\b",
    ),
    phrase(
        Family::Override,
        r"\b(ignore|disregard|forget) (everything|anything|all) (you (were|have been|are) told|(that )?(was |is )?(written |said |stated )?(above|before this|previously|earlier|so far))\b",
    ),
    phrase(
        Family::Override,
        r"\byour (new|real|true|actual|updated) (instructions|task|objective|goal|directive|mission|purpose) (is|are)\b",
    ),
    phrase(
        Family::Override,
        r"\b(stop|cease|quit) (following|obeying) (your|the|all|any) ((previous|prior|original|system|safety) )?(instructions|rules|guidelines|directives|system prompt)\b",
    ),
    phrase(
        Family::Override,
        r"\b(do not|don't|never) (follow|obey) (your|the|any) (previous|prior|original|system|safety|earlier) (instructions|rules|guidelines|directives|prompt)\b",
    )
    .with_negation(),
    phrase(
        Family::Override,
        r"\bnew (system )?(instructions|directives|rules) (follow|below)?:",
    ),
    phrase(
        Family::Override,
        r"\b(all |your |the )?(previous|prior|earlier|original|system|above) (instructions|rules|guidelines|prompts?|directives) (are|is) (now )?(void|invalid|obsolete|cancell?ed|revoked|superseded|overridden|no longer (valid|apply|applicable|in effect|relevant))\b",
    ),
    phrase(
        Family::Override,
        r"\b(takes?|has|have) (precedence|priority) over (all|any|every) (other |previous |prior |earlier )?(instructions|rules|guidelines|prompts|directives)\b|\b(takes?|has|have) (precedence|priority) over (your|the) (system prompt|safety guidelines)\b",
    ),
    // Spanish, French, German, Portuguese, Italian.
    phrase(
        Family::Override,
        r"\b(ignora|ignore|ignoren|ignorar|olvida|olvide|olviden|olvidar|descarta|descartar|omite|omitir|haz caso omiso (a|de)) (todas |todos )?(las |los |tus |sus )?(instrucciones|indicaciones|reglas|directrices|órdenes|ordenes)( [\p{L}]+)? (anteriores|previas|precedentes|originales|del sistema)",
    ),
    phrase(
        Family::Override,
        r"\b(ignore|ignorez|ignorer|oublie|oubliez|oublier|ne tiens pas compte|ne tenez pas compte|fais abstraction|faites abstraction) (de |des )?(toutes |tous )?(les |tes |vos |ces )?(instructions|consignes|règles|regles|directives|ordres)( [\p{L}]+)? (précédentes|precedentes|antérieures|anterieures|ci-dessus|initiales|du système|du systeme)",
    ),
    phrase(
        Family::Override,
        r"\b(ignoriere|ignorieren|ignoriert|vergiss|vergessen|vergesst|missachte|missachten|übergehe)( sie)? (alle |sämtliche )?(vorherigen|bisherigen|vorigen|obigen|früheren|vorangegangenen|ursprünglichen|deine|ihre|die) ([\p{L}]+ )?(anweisungen|instruktionen|regeln|befehle|vorgaben|richtlinien|systemanweisungen|anordnungen)",
    ),
    phrase(
        Family::Override,
        r"\b(ignore|ignora|ignorar|ignorem|esqueça|esqueca|esquece|esquecer|desconsidere|desconsiderar|despreze) (todas |todos )?(as |os |suas |tuas )?(instruções|instrucoes|orientações|orientacoes|regras|diretrizes|ordens)( [\p{L}]+)? (anteriores|prévias|previas|originais|do sistema)",
    ),
    phrase(
        Family::Override,
        r"\b(ignora|ignorate|ignorare|ignori|dimentica|dimenticate|dimenticare|non tenere conto|trascura) (di |delle |dei )?(tutte |tutti )?(le |i |tue |sue )?(istruzioni|indicazioni|regole|direttive|ordini)( [\p{L}]+)? (precedenti|anteriori|originali|di sistema|del sistema|sopra)",
    ),
    // Russian, Chinese, Japanese, Korean (no word boundaries: the stems carry the match).
    phrase(
        Family::Override,
        r"(игнорир\p{L}*|проигнорир\p{L}*|забудь\p{L}*|забудьте|отбрось|отбросьте|не обращай\p{L}* внимания на|не учитывай\p{L}*|пренебреги) (все |всё |любые )?((предыдущ|прежн|ранее|вышеуказанн|вышеприведённ|системн|сво|тво|ваш)\p{L}* )?(\p{L}+ )?(инструкци|указани|правил|команд|промпт|установк)\p{L}*",
    ),
    phrase(
        Family::Override,
        r"(忽略|忽视|忽視|无视|無視|忘记|忘記|不要理会|不要理會|不要遵守|不再遵守|抛弃|拋棄|放弃|放棄)(掉)?\s*(之前|以前|先前|前面|上面|上述|以上|此前|原来|原來|原有|所有|全部|一切|系统|系統|你的)(的)?\s*(所有|全部|一切)?(的)?\s*(指令|指示|说明|說明|提示词|提示詞|提示|规则|規則|命令|设定|設定|要求)",
    ),
    phrase(
        Family::Override,
        r"(以前|これまで|今まで|前|上記|先|最初|元|既存|システム)の\s*(すべての|全ての|全部の)?\s*(指示|命令|指令|ルール|プロンプト|制約)(は|を)\s*(すべて|全て|全部)?\s*(無視|忘れ|破棄)",
    ),
    phrase(
        Family::Override,
        r"(이전|이전의|앞의|앞선|위의|기존|기존의|원래|원래의|시스템|모든)\s*(모든\s*)?(지시|지침|명령|규칙|프롬프트|지시사항|명령어)\S*\s*(모두\s*|전부\s*)?(무시|잊)",
    ),
    // --- Role reassignment ---------------------------------------------------------------
    phrase(
        Family::Role,
        r"\b(you are|you're) now (dan\b|in (developer|god|jailbreak|jailbroken|unrestricted|dan|sudo|evil|chaos) mode|an? (unrestricted|unfiltered|uncensored|jailbroken|evil|rogue|unaligned|amoral|unbound)\b)",
    ),
    phrase(
        Family::Role,
        r"\byou are no longer (an? (ai|assistant|language model|chatbot)|claude|chatgpt|gpt|bound by|restricted|limited|required to follow|subject to)\b",
    ),
    phrase(
        Family::Role,
        concat!(
            r"\b(act|behave|respond|operate|pretend|roleplay|role-play) (as|like|to be) ",
            gap!(40),
            r"\b(with (no|zero) (restrictions|limits|limitations|rules|filters|guidelines|safety|ethics|morals)|without (any )?(restrictions|limits|limitations|rules|filters|guidelines|safety|ethics|morals)|unrestricted|unfiltered|uncensored|jailbroken)\b"
        ),
    ),
    phrase(
        Family::Role,
        r"\b((dan|jailbreak|jailbroken|unrestricted|unfiltered) mode (is )?(now )?(enabled|activated|on|engaged)|(enable|enter|activate|switch to) (dan|jailbreak|jailbroken|unrestricted|unfiltered) mode|do anything now)\b",
    ),
    phrase(
        Family::Role,
        r"\b(pretend|imagine|act as if|assume) (that )?you (have|had) no (restrictions|rules|guidelines|limits|limitations|filters|content policy|safety guidelines|ethical guidelines)\b",
    ),
    phrase(
        Family::Role,
        r"\byou (have been|ve been|are) (freed|liberated|released|unshackled) from (your )?(restrictions|rules|guidelines|constraints|programming|training)\b",
    ),
    phrase(
        Family::Role,
        concat!(
            r"(ahora eres|a partir de ahora eres|tu es maintenant|désormais,? tu es|du bist (jetzt|nun|ab jetzt)|agora você é|você agora é|ora sei|d'ora in poi sei|теперь ты|отныне ты|你现在是|從現在起你是|从现在起你是|あなたは今から|今からあなたは|너는 이제|당신은 이제)",
            gap!(40),
            r"(\bdan\b|sin restricciones|sans restrictions|sans limites|ohne (einschränkungen|regeln|beschränkungen)|sem restrições|sem restricoes|senza restrizioni|senza limiti|без ограничений|без правил|没有任何限制|不受任何限制|沒有任何限制|不受限制|制限のない|制限なし|何の制限もない|제한 없는|제한이 없는|아무 제한)"
        ),
    ),
    // --- Hiding actions from the user ---------------------------------------------------
    phrase(
        Family::Hide,
        r"\b(do not|don't|dont|never|must not|mustn't|should not|shouldn't|without) (tell|telling|inform|informing|notify|notifying|alert|alerting|mention|mentioning|reveal|revealing|disclose|disclosing) (this |it |that |anything |any of this |about this |about it )?(to )?(the|your|any) (user|human|operator|owner)s?\b",
    )
    .with_negation()
    .not_followed_by(&["to ", "how ", "that you cannot", "that you can't"]),
    phrase(
        Family::Hide,
        r"\b(do not|don't|dont|never) (mention|reveal|disclose|admit|acknowledge|say|explain) (to anyone |to the user )?(that|what|how|why) you (first |also |then |will |have |had |are |were )?(need to |have to |must |going to )?(read|reading|access|accessing|send|sending|upload|uploading|collect|collecting|copy|copying|run|running|execute|executing|open|opening|fetch|fetching|download|downloading|install|installing|modify|modifying|delete|deleting|post|posting|forward|forwarding)\b",
    )
    .with_negation(),
    phrase(
        Family::Hide,
        r"\b(do not|don't|dont|never|without) (let|letting) (the|your) (user|human|operator|owner)s? (know|notice|find out|be aware|see what|suspect)\b",
    )
    .with_negation(),
    phrase(
        Family::Hide,
        r"\bwithout (the )?(user|human|owner|operator)'?s? (knowing|knowledge|noticing|awareness|noticing it)\b",
    ),
    phrase(
        Family::Hide,
        r"\b(keep|hide|conceal|mask) (this|these|it|that|them|the [\p{L}]+|all [\p{L}]+|your [\p{L}]+)( [\p{L}]+)? (secret |hidden |invisible )?from (the |your )?(user|human|operator|owner)s?\b",
    ),
    phrase(
        Family::Hide,
        r"\bthe (user|human|operator|owner)s? (must|should|will|need|is to|are to) (not|never) (know|find out|notice|learn|be told|be aware|be informed|suspect|discover)\b",
    )
    .with_negation(),
    phrase(
        Family::Hide,
        r"\bso (that )?(the )?(user|human|operator|owner)s? (does not|doesn't|won't|will not|never|cannot|can't) (know|notice|find out|suspect|realize|realise|discover|learn)\b",
    )
    .with_negation(),
    phrase(
        Family::Hide,
        r"\b(secretly|covertly|stealthily|surreptitiously|behind the user'?s? back)\b",
    ),
    phrase(
        Family::Hide,
        r"\b(silently|quietly|discreetly|invisibly|in the background) (and [\p{L}]+ )?(send|sends|upload|uploads|post|posts|transmit|transmits|forward|forwards|exfiltrate|email|collect|harvest|copy|copies|beacon)\b",
    ),
    phrase(
        Family::Hide,
        r"\b(hide|conceal|suppress|mask|obscure) (this|these|the|all|your|any) ([\p{L}]+ ){0,2}(actions?|steps?|activity|activities|commands?|requests?) from (the |your )?(user|human|operator|owner)s?\b",
    ),
    phrase(
        Family::Hide,
        r"\b(cover|erase|wipe|hide|conceal|remove) (all |any )?(your|its|the agent'?s|our) (tracks|traces|evidence)\b",
    ),
    phrase(
        Family::Hide,
        r"(\b(clear|delete|erase|wipe) (the |your |all )?(bash|shell|command|zsh|terminal) history\b|\bhistory -c\b|\bunset histfile\b|\bhistfile=/dev/null)",
    ),
    phrase(
        Family::Hide,
        r"(\b(no|nunca) (le )?(digas|diga|informes|informe|menciones|mencione|avises|avise|cuentes|cuente|reveles|revele)( nada| esto| eso)? (al|a los) usuarios?|\bsin (decirle|decir|informar|informarle|avisar|avisarle|notificar)( nada)? (al|el) usuario|\bsin que (el )?usuario (lo )?(sepa|note|se entere))",
    )
    .with_negation(),
    phrase(
        Family::Hide,
        r"(\bne (le |lui |leur )?(dis|dites|mentionne|mentionnez|signale|signalez|révèle|révélez|informe|informez|préviens|prévenez)( rien| pas| jamais)? (à |a )?(l'|l’)utilisateur|\bsans (le )?(dire|informer|prévenir|avertir|notifier) (à |a )?(l'|l’)utilisateur|à l'insu de (l'|l’)utilisateur)",
    )
    .with_negation(),
    phrase(
        Family::Hide,
        r"(\b(sag|sage|sagen sie|erzähl|erzähle|verrate|verraten sie|informiere|informieren sie)( es)? (dem|den) (benutzer|nutzer|anwender)\p{L}* (nichts|nicht)|\bohne (den|dem|die) (benutzer|nutzer|anwender)\p{L}* (zu )?(informieren|benachrichtigen)|\bohne (es |das )?(dem|den) (benutzer|nutzer|anwender)\p{L}* zu (sagen|verraten|melden)|\bohne wissen des (benutzers|nutzers|anwenders))",
    )
    .with_negation(),
    phrase(
        Family::Hide,
        r"(\b(não|nao|nunca) (conte|diga|informe|mencione|avise|revele|notifique)( nada| isso| isto)? (ao|aos|para o) usuários?|\bsem (informar|avisar|contar|dizer|notificar)( ao| o)? usuário|\bsem que o usuário (saiba|perceba)|(\bnon|\bmai) (dire|dirlo|dirgli|informare|menzionare|avvisare|rivelare|segnalare)( nulla| niente)? (all'|all’|agli )utent[ei]|\bsenza (dirlo|dire|informare|avvisare|notificare) (all'|all’|l'|l’)utente|all'insaputa dell'utente)",
    )
    .with_negation(),
    phrase(
        Family::Hide,
        r"(не (говори|говорите|сообщай|сообщайте|рассказывай|рассказывайте|упоминай|упоминайте)\p{L}* (об этом |ничего )?пользовател\p{L}*|без ведома пользовател\p{L}*|чтобы пользователь не (узнал|заметил))",
    )
    .with_negation(),
    phrase(
        Family::Hide,
        r"((不要|别|別|不得|切勿|不可)(告诉|告訴|通知|告知|提醒)(用户|用戶|使用者)|(不要让|不要讓|不让|不讓|别让|別讓)(用户|用戶|使用者)(知道|发现|發現|察觉|察覺)|(瞒着|瞞著|背着|背著)(用户|用戶|使用者)|ユーザー(に|には)(知らせ|伝え|言わ|通知し|教え|報告し)(ない|ず)|ユーザーに(気づかれ|気付かれ|知られ)(ない|ず)|사용자(에게|한테)\s*(알리지|말하지|알려주지|보고하지|통지하지)\s*(말고|마|않)|사용자\s*몰래)",
    )
    .with_negation(),
    // --- Disabling safety settings or the sandbox ----------------------------------------
    phrase(
        Family::DisableSafety,
        r"(--dangerously-skip-permissions|--allow-dangerously-skip-permissions|--dangerously-bypass-approvals-and-sandbox|\bdangerouslydisablesandbox\b|\bbypasspermissions\b|--permission-mode(=|\s+)bypass|--yolo\b|\b(enable|use|turn on|switch to|run in|start in|activate|set|go) (the )?yolo mode\b)",
    ),
    phrase(
        Family::DisableSafety,
        r#"(\bsandbox(_mode)?\s*[=:]\s*["']?(off|none|disabled?|danger-full-access)\b|\b(approval_policy|ask_for_approval)\s*[=:]\s*["']?never\b|"\*"\s*=\s*"allow"|"(allow|allowedtools)"\s*:\s*\[\s*"(\*|bash\(\*\))")"#,
    ),
    phrase(
        Family::DisableSafety,
        r"\b(disable|disabling|turn off|turning off|switch off|bypass|bypassing|circumvent|deactivate|override|overriding|get around|evade|ignore|ignoring|lift|suspend) (all |any |every )?(of )?(your |the |its |claude'?s |the agent'?s |the model'?s |built-in )?(own )?(safety|ethical|ethics|moral|ai) (guidelines|guardrails|filters?|filtering|restrictions|safeguards|protections|polic(y|ies)|rules|training|constraints|limitations|principles|checks|measures|mechanisms|protocols)\b",
    ),
    phrase(
        Family::DisableSafety,
        r"\b(disable|disabling|turn off|turning off|switch off|bypass|bypassing|circumvent|deactivate|override|evade|ignore|remove) (all |any )?(your |the |its |claude'?s |the agent'?s |the model'?s )?(guardrails|safeguards|alignment)\b",
    ),
    phrase(
        Family::DisableSafety,
        r"\b(disable|disabling|turn off|turning off|switch off|bypass|bypassing|escape|escaping|break out of|get out of|circumvent|deactivate|evade) (of )?(your |the |its |claude'?s |codex'?s |the agent'?s |this )?(sandbox|sandboxing|sandboxed environment|permission (system|checks|prompts|model)|approval (prompts|checks|system|requests)|confirmation prompts)\b",
    )
    .unless(OTHER_SANDBOXES),
    phrase(
        Family::DisableSafety,
        concat!(
            r"\b(add|edit|modify|update|change|write|set|append|insert|put|grant|patch)\b",
            gap!(80),
            r"(\.claude/settings(\.local)?\.json|\.codex/config\.toml|\.gemini/settings\.json|\.cursor/(mcp|settings)\.json)",
            gap!(100),
            r"\b(permissions?|allow|allowedtools|bypass|sandbox|approval|defaultmode|autoapprove)\b"
        ),
    ),
    phrase(
        Family::DisableSafety,
        concat!(
            r"\b(add|edit|modify|update|change|write|set|append|insert|put|grant|patch)\b",
            gap!(80),
            r"\b(permissions?|allow list|allowlist|allowedtools|bypass|sandbox|approval|defaultmode|autoapprove)\b",
            gap!(100),
            r"(\.claude/settings(\.local)?\.json|\.codex/config\.toml|\.gemini/settings\.json|\.cursor/(mcp|settings)\.json)"
        ),
    ),
    // --- Fetching further instructions ----------------------------------------------------
    phrase(
        Family::Remote,
        concat!(
            r"\b(fetch|download|retrieve|get|load|read|open|visit|curl|wget|browse to|go to|navigate to|request|pull)\b",
            gap!(60),
            r"https?://",
            gap!(100),
            r"\b(and|then)\b",
            gap!(30),
            r"\b(follow|obey|execute|carry out|comply with|act on|do what|do whatever|run whatever|execute whatever|apply)\b",
            gap!(30),
            r"\b(instructions?|commands?|directives?|steps|it says|they say|says|tells you|orders|rules|guidelines|tasks?)\b"
        ),
    )
    .unless(SETUP),
    phrase(
        Family::Remote,
        r"\b(follow|obey|execute|carry out|comply with|act on|apply)\b (the |all |any )?([\p{L}]+ )?(instructions|commands|directives|orders|rules|guidelines)( [\p{L}]+)? (at|from|in|found at|hosted at|located at|on|served at|returned by|given at|published at) <?https?://",
    )
    .unless(SETUP),
    phrase(
        Family::Remote,
        r"\b(latest|updated|further|additional|new|real|current|remaining|next|actual|full|complete) (instructions|commands|directives|orders|tasks)( [\p{L}]+)? (are |is |can be |will be )?(at|from|on|found at|available at|hosted at|located at|published at|served at) <?https?://",
    )
    .unless(SETUP),
    phrase(
        Family::Remote,
        concat!(
            r"\b(check|consult|read|fetch|load|poll|visit|query|download)\b",
            gap!(20),
            r"https?://\S+",
            gap!(30),
            r"\bfor (any |the )?(new|updated|further|additional|latest|current|next) (instructions|commands|directives|tasks|orders)\b"
        ),
    )
    .unless(SETUP),
    phrase(
        Family::Remote,
        r"\b(instructions|commands|directives|orders)( [\p{L}]+)? (will be|are|is) (provided|served|hosted|published|posted|delivered|sent|given|returned) (at|on|by|from|via) <?https?://",
    )
    .unless(SETUP),
    // --- Sending secrets out ---------------------------------------------------------------
    phrase(
        Family::Exfiltration,
        concat!(
            send!(),
            gap!(80),
            secret!(),
            gap!(80),
            r"\b(to|into|at|via|using|through)\b",
            gap!(40),
            destination!()
        ),
    )
    .unless(AUTHENTICATING),
    phrase(
        Family::Exfiltration,
        concat!(
            send!(),
            gap!(30),
            r"\b(to|at)\b",
            gap!(20),
            destination!(),
            gap!(80),
            secret!()
        ),
    )
    .unless(AUTHENTICATING),
    // "Exfiltrate" names the act: whatever it sends, it is not a feature.
    phrase(
        Family::Exfiltration,
        concat!(
            r"\bexfiltrate\b",
            gap!(80),
            r"\b(to|into|via|using|through)\b",
            gap!(40),
            destination!()
        ),
    ),
    // An address whose query is filled in with a secret: rendering the link or image sends it.
    phrase(
        Family::Exfiltration,
        r"https?://[^\s)\]>]*[?&][a-z0-9_-]+=(\{\{?|\$\{?|<|%)[^\s)\]>]{0,40}(secret|token|key|password|passwd|conversation|history|chat|env|credential|session|cookie|prompt)",
    ),
    // --- Sending data out ---------------------------------------------------------------
    phrase(
        Family::SendData,
        concat!(
            send!(),
            gap!(40),
            r"\b(all|every|the user'?s|the contents of|contents of|the entire|the whole|the full|each)\b",
            gap!(30),
            r"\b(data|files?|documents?|contents|information|info|repo|repository|codebase|workspace|directory|folder|project|source code|results|outputs?|logs?|history)\b",
            gap!(60),
            r"\b(to|into|at)\b",
            gap!(30),
            destination!()
        ),
    ),
    phrase(
        Family::SendData,
        concat!(
            r"\b(and|then) ",
            send!(),
            r" (it |them |this |everything |all of it )?(to|into) (the |my |our |this |a )?",
            destination!()
        ),
    ),
    // --- Reading credentials ------------------------------------------------------------
    phrase(
        Family::CredentialAccess,
        concat!(
            r"\b(read|cat|open|load|access|collect|gather|harvest|grab|extract|dump|copy|steal|print|get|retrieve|obtain|fetch|locate|search|enumerate|list|export|scrape|capture|sniff)\b",
            gap!(50),
            store!()
        ),
    ),
    // --- Prompt extraction ----------------------------------------------------------------
    phrase(
        Family::PromptExtraction,
        concat!(
            r"\b(reveal|print|output|repeat|show|display|dump|disclose|leak|echo|write out|recite|return)\b",
            gap!(30),
            r"\b(your|the)( full| entire| complete| original| hidden| initial| exact| verbatim)? (system prompt|system message|system instructions|initial instructions|hidden instructions|original instructions|developer (message|instructions|prompt)|pre-?prompt)\b"
        ),
    ),
    phrase(
        Family::PromptExtraction,
        r"\b(repeat|print|output|recite) (everything|all|the text|all text|the words|all the words)( [\p{L}]+){0,2} (above|before) (this|the first)\b",
    ),
    // --- Chat-template and system markers ---------------------------------------------------
    phrase(
        Family::ChatMarkers,
        r"(<\|(im_start|im_end|system|endoftext|start_header_id|end_header_id|eot_id)\|>|\[/?inst\]|<</?sys>>|</?system(-reminder)?>|\[(?-i:SYSTEM|ADMIN|DEVELOPER|OPERATOR)( (?-i:MESSAGE|NOTE|OVERRIDE|INSTRUCTIONS?|PROMPT))?\]|\b(?-i:(SYSTEM|ADMIN|DEVELOPER) (OVERRIDE|MESSAGE|NOTICE|INSTRUCTIONS?|DIRECTIVE))\s*:)",
    )
    .with_negation(),
    // --- Pressure ---------------------------------------------------------------------------
    phrase(
        Family::Pressure,
        r"(<(important|extremely[-_]important|critical|urgent|mandatory)>|\b(required|mandatory|needed) for (compliance|audit(ing)?|security compliance)\b)",
    )
    .with_negation(),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_has_a_phrase() {
        for family in Family::ALL {
            assert!(
                PATTERNS.iter().any(|pattern| pattern.family == family),
                "{family:?} has no phrase"
            );
        }
    }

    #[test]
    fn the_lists_of_void_words_are_lower_case() {
        for pattern in PATTERNS {
            for word in pattern.unless.iter().chain(pattern.not_followed_by) {
                assert_eq!(*word, word.to_lowercase(), "{}", pattern.regex);
            }
        }
    }
}
