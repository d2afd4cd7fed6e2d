// Cryptocurrency miners: a skill that mines spends the user's machine for someone else.

rule MINER_STRATUM_URL : miner
{
    meta:
        severity = "high"
        documentation_severity = "low"
        category = "resource_abuse"
        title = "Mining pool address (stratum)"
        description = "A stratum+tcp or stratum+ssl address: the protocol miners use to take work from a pool"
        remediation = "Remove the miner; a skill must not spend the user's machine on mining."
    strings:
        $stratum = /stratum\+(tcp|ssl|tls):\/\/[A-Za-z0-9.\-]+:[0-9]{2,5}/ nocase
    condition:
        $stratum
}

rule MINER_POOL_HOST : miner
{
    meta:
        severity = "high"
        documentation_severity = "low"
        category = "resource_abuse"
        title = "Well-known mining pool host"
        description = "The host name of a public Monero or multi-coin mining pool"
        remediation = "Remove the miner; a skill must not spend the user's machine on mining."
    strings:
        $p1 = "minexmr.com" nocase fullword
        $p2 = "supportxmr.com" nocase fullword
        $p3 = "moneroocean.stream" nocase fullword
        $p4 = "xmrpool.eu" nocase fullword
        $p5 = "hashvault.pro" nocase fullword
        $p6 = "xmr.nanopool.org" nocase fullword
        $p7 = "xmr.2miners.com" nocase fullword
        $p8 = "herominers.com" nocase fullword
        $p9 = "c3pool.com" nocase fullword
        $p10 = "unmineable.com" nocase fullword
        $p11 = "monerohash.com" nocase fullword
    condition:
        any of ($p*)
}

rule MINER_XMRIG : miner
{
    meta:
        severity = "high"
        documentation_severity = "low"
        category = "resource_abuse"
        title = "XMRig miner configuration"
        description = "The XMRig miner named together with its own options"
        remediation = "Remove the miner; a skill must not spend the user's machine on mining."
    strings:
        $name = "xmrig" nocase fullword
        $option = /--(donate-level|cpu-max-threads-hint|randomx-1gb-pages|coin=monero)\b/
        $config = /"(donate-level|randomx|cpu-max-threads-hint)"\s*:/
        $invoked = /\bxmrig(\.exe)?['"]?\s([^\n]{0,200}\s)?(-o|--url)[\s=]/ nocase
    condition:
        $name and ($option or $config or $invoked)
}
