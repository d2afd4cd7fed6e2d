// Exfiltration endpoints: places that accept whatever is sent to them and show it to
// whoever holds the link. A skill that writes one into its files has chosen where the
// user's data goes.

rule EXFIL_DISCORD_WEBHOOK : exfiltration
{
    meta:
        severity = "high"
        category = "data_exfiltration"
        title = "Discord webhook with its token"
        description = "A complete Discord webhook address, token included: anything posted there reaches its owner"
        remediation = "Remove the webhook; if the skill posts to Discord, read the address from the user's configuration."
    strings:
        $webhook = /discord(app)?\.com\/api\/webhooks\/[0-9]{17,20}\/[A-Za-z0-9_\-]{60,68}/ nocase
    condition:
        $webhook
}

rule EXFIL_TELEGRAM_BOT : exfiltration
{
    meta:
        severity = "high"
        category = "data_exfiltration"
        title = "Telegram bot token in an API address"
        description = "A Telegram Bot API address with its token: messages sent through it reach the bot's owner"
        remediation = "Remove the token; if the skill talks to Telegram, read the token from the user's configuration."
    strings:
        $bot = /api\.telegram\.org\/bot[0-9]{8,10}:[A-Za-z0-9_\-]{35}/ nocase
    condition:
        $bot
}

rule EXFIL_FILE_DROP_UPLOAD : exfiltration
{
    meta:
        severity = "high"
        documentation_severity = "low"
        category = "data_exfiltration"
        title = "Upload to an anonymous paste or file-drop service"
        description = "A file or text posted to pastebin's API, transfer.sh, 0x0.st, file.io or bashupload: a public drop anyone with the link reads"
        remediation = "Remove the upload; a skill must not send the user's files to a public drop."
    strings:
        $pastebin = "pastebin.com/api/api_post.php" nocase
        $transfer = /(--upload-file|-T)\s+\S+\s+['"]?https?:\/\/transfer\.sh\b/ nocase
        $form = /-F\s*['"]?file=@[^\s'"]+['"]?\s+['"]?https?:\/\/(0x0\.st|file\.io|bashupload\.com)\b/ nocase
    condition:
        any of them
}

rule EXFIL_CAPTURE_SERVICE : exfiltration
{
    meta:
        severity = "medium"
        documentation_severity = "low"
        category = "data_exfiltration"
        title = "Request-capture or tunnel service"
        description = "A host of a service that records every request sent to it (webhook.site, interactsh, Burp Collaborator, RequestBin, Pipedream) or tunnels to someone's machine (ngrok)"
        remediation = "Check what the skill sends there; a skill should send nothing to a capture service."
    strings:
        $h1 = "webhook.site" nocase fullword
        $h2 = "burpcollaborator.net" nocase fullword
        $h3 = "oastify.com" nocase fullword
        $h4 = /\.oast\.(pro|live|site|online|fun|me)\b/ nocase
        $h5 = "interact.sh" nocase fullword
        $h6 = /\.m\.pipedream\.net\b/ nocase
        $h7 = "requestbin.net" nocase fullword
        $h8 = /[a-z0-9\-]+\.ngrok(-free)?\.(io|app|dev)\b/ nocase
    condition:
        any of them
}
