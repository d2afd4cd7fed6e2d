// Credential theft: code that gathers the stores where passwords, keys and tokens live,
// the way information stealers do.

rule CRED_STORE_UPLOAD : credentials
{
    meta:
        severity = "high"
        documentation_severity = "low"
        category = "data_exfiltration"
        title = "Credential files read and sent in the same file"
        description = "Paths of credential stores (SSH keys, cloud CLI credentials, .netrc, .git-credentials) together with an upload"
        remediation = "Remove the code that reads credential stores; a skill that needs a credential takes it from the user's configuration."
    strings:
        $c1 = /\.ssh\/id_(rsa|dsa|ecdsa|ed25519)\b/
        $c2 = ".aws/credentials"
        $c3 = ".config/gcloud/"
        $c4 = ".azure/accessTokens.json"
        $c5 = ".git-credentials"
        $c6 = /[~\/]\.netrc\b/
        $c7 = ".docker/config.json"
        $c8 = ".kube/config"
        $u1 = /requests\.(post|put)\(/
        $u2 = /curl\s[^\n]{0,200}(-d|--data(-binary)?|-F|--upload-file|-T)\s*['"]?@/
        $u3 = /fetch\([^\n]{0,200}method\s*:\s*['"](POST|PUT)['"]/
        $u4 = "urllib.request.urlopen("
    condition:
        any of ($c*) and any of ($u*)
}

rule CRED_BROWSER_STORE : credentials
{
    meta:
        severity = "critical"
        documentation_severity = "low"
        category = "credential_access"
        title = "Browser password store and its key"
        description = "A browser's saved-password database read together with the key that decrypts it: what information stealers do"
        remediation = "Remove the code; a skill never needs the user's saved browser passwords."
    strings:
        $chrome_logins = "Login Data" fullword
        $chrome_key = "encrypted_key"
        $chrome_state = "Local State" fullword
        $firefox_logins = "logins.json" fullword
        $firefox_key = "key4.db" fullword
    condition:
        ($chrome_logins and $chrome_key and $chrome_state) or ($firefox_logins and $firefox_key)
}

rule CRED_WALLET_STORE : credentials
{
    meta:
        severity = "critical"
        documentation_severity = "low"
        category = "credential_access"
        title = "Cryptocurrency wallet stores"
        description = "Several desktop or browser-extension wallet stores named together: what wallet stealers collect"
        remediation = "Remove the code; a skill never needs the user's wallets."
    strings:
        $w1 = "wallet.dat" fullword
        $w2 = "exodus.wallet" nocase
        $w3 = /Electrum[\/\\]wallets/ nocase
        $w4 = "nkbihfbeogaeaoehlefnkodbefgpgknn"
        $w5 = "bfnaelmomeimhlpmgjnjophhpkkoljpa"
        $w6 = /Ethereum[\/\\]keystore/ nocase
        $w7 = "Atomic/Local Storage" nocase
    condition:
        2 of them
}
