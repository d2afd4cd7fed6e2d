// Reverse shells: a shell whose input and output are a network connection to someone else's
// machine. Each rule names a one-liner family by its mechanism, not by a sample.

rule SHELL_DEV_TCP : reverse_shell
{
    meta:
        severity = "critical"
        documentation_severity = "low"
        category = "malware"
        title = "Shell redirected to a /dev/tcp connection"
        description = "An interactive shell whose input and output are a TCP or UDP connection opened through bash's /dev/tcp"
        remediation = "Remove the command; a skill never needs to hand a shell to a remote host."
    strings:
        $interactive = /\b(ba|z|k)?sh\s+-i\s*(>&|&>|>)\s*\/dev\/(tcp|udp)\/[^\s\/]+\/[0-9]{1,5}/
        $duplicated = /\/dev\/(tcp|udp)\/[^\s\/]+\/[0-9]{1,5}\s*0\s*>&\s*1/
        $descriptor = /exec\s+[0-9]+\s*<>\s*\/dev\/(tcp|udp)\/[^\s\/]+\/[0-9]{1,5}[^\n]{0,120}while\s+read\s+[A-Za-z_]+\s*;\s*do\s+\$[A-Za-z_]+/
    condition:
        any of them
}

rule SHELL_NETCAT_EXEC : reverse_shell
{
    meta:
        severity = "critical"
        documentation_severity = "low"
        category = "malware"
        title = "Netcat handing a shell to a connection"
        description = "netcat or ncat started with -e or -c and a shell, or its output piped into a shell: the connection's peer runs commands here"
        remediation = "Remove the command; a skill never needs to serve a shell over the network."
    strings:
        $unix = /\b(nc|ncat|netcat)\s([^\n]{0,80}\s)?-[a-z]*[ec]\s*['"]?(\/usr)?(\/bin\/)?(ba|z|da|k)?sh\b/
        $windows = /\b(nc|ncat)(\.exe)?\s([^\n]{0,80}\s)?-e\s*['"]?cmd(\.exe)?\b/ nocase
        $piped = /\b(nc|ncat|netcat)\s[^\n|]{0,80}\|\s*(\/usr)?(\/bin\/)?(ba|z|da|k)?sh\b/
    condition:
        any of them
}

rule SHELL_FIFO_RELAY : reverse_shell
{
    meta:
        severity = "critical"
        documentation_severity = "low"
        category = "malware"
        title = "Shell relayed through a named pipe to a connection"
        description = "A named pipe feeding an interactive shell whose output goes to netcat or openssl: a reverse shell without -e"
        remediation = "Remove the command; a skill never needs to relay a shell over the network."
    strings:
        $relay = /mkfifo\s+\S+[^\n]{0,120}\|\s*(\/bin\/)?(ba|z|da)?sh\s+-i[^\n]{0,80}\|\s*(nc|ncat|netcat|openssl\s+s_client)\b/
    condition:
        $relay
}

rule SHELL_PYTHON_SOCKET : reverse_shell
{
    meta:
        severity = "critical"
        documentation_severity = "low"
        category = "malware"
        title = "Python socket duplicated onto a shell's input and output"
        description = "A socket's descriptor copied onto standard input and output, then a shell started"
        remediation = "Remove the code; a skill never needs to attach a shell to a socket."
    strings:
        $dup2 = /os\.dup2\(\s*[A-Za-z_][\w.]*\.fileno\(\)\s*,\s*[0-2]\s*\)/
        $pty = "pty.spawn("
        $shell = /(subprocess\.(call|Popen|run)|os\.(system|execv?p?))\(\s*\[?\s*['"](\/bin\/)?(ba|z|da)?sh\b/
    condition:
        $dup2 and ($pty or $shell)
}

rule SHELL_SOCAT_EXEC : reverse_shell
{
    meta:
        severity = "critical"
        documentation_severity = "low"
        category = "malware"
        title = "socat joining a shell to a TCP connection"
        description = "socat with an exec: shell address and a tcp: address"
        remediation = "Remove the command; a skill never needs to serve a shell over the network."
    strings:
        $exec_first = /socat\s[^\n]{0,80}exec:['"]?[^\s'"]{0,20}\b(ba|z|da)?sh\b[^\n]{0,80}\stcp[46]?(-connect)?:/ nocase
        $tcp_first = /socat\s[^\n]{0,40}\btcp[46]?(-connect)?:[^\s]+\s+exec:['"]?[^\s'"]{0,20}\b(ba|z|da)?sh\b/ nocase
    condition:
        any of them
}

rule SHELL_POWERSHELL_TCP : reverse_shell
{
    meta:
        severity = "critical"
        documentation_severity = "low"
        category = "malware"
        title = "PowerShell TCP client evaluating what it receives"
        description = "A PowerShell TCPClient whose stream is read and passed to Invoke-Expression"
        remediation = "Remove the script; a skill never needs to run commands received over a socket."
    strings:
        $client = "Net.Sockets.TCPClient" nocase ascii wide
        $stream = ".GetStream()" nocase ascii wide
        $evaluate = /\b(iex|Invoke-Expression)\b/ nocase
    condition:
        all of them
}

rule SHELL_SCRIPTING_SOCKET : reverse_shell
{
    meta:
        severity = "critical"
        documentation_severity = "low"
        category = "malware"
        title = "Perl or PHP socket handed to a shell"
        description = "A Perl or PHP socket bound to a shell's standard input and output"
        remediation = "Remove the code; a skill never needs to attach a shell to a socket."
    strings:
        $perl_stdin = /open\s*\(\s*STDIN\s*,\s*['"]>&[A-Za-z_]+['"]\s*\)/
        $perl_shell = /exec\s*\(?\s*['"](\/bin\/)?(ba)?sh\s+-i['"]/
        $php = /fsockopen\s*\([^)]{1,120}\)\s*;\s*(exec|shell_exec|system|passthru|popen|proc_open)\s*\(\s*['"](\/bin\/)?(ba)?sh\b/
    condition:
        ($perl_stdin and $perl_shell) or $php
}
