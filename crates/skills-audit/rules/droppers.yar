// Droppers: an executable carried inside another file, to be written out and run.

rule DROPPER_EMBEDDED_EXECUTABLE : dropper
{
    meta:
        severity = "high"
        category = "malware"
        title = "Executable hidden inside another file"
        description = "The header of a Windows (PE) or Linux (ELF) executable found inside a file rather than at its start"
        remediation = "Remove the embedded executable; ship a program as its own reviewed file or not at all."
    strings:
        $pe = { 4D 5A 90 00 03 00 00 00 04 00 00 00 FF FF 00 00 }
        $elf = { 7F 45 4C 46 (01|02) (01|02) 01 [9] (02|03) 00 }
    condition:
        ($pe and not $pe at 0) or ($elf and not $elf at 0)
}

rule DROPPER_ENCODED_EXECUTABLE : dropper
{
    meta:
        severity = "high"
        category = "malware"
        title = "Executable encoded as text"
        description = "The start of a Windows (PE) or Linux (ELF) executable written as base64, hex or escaped bytes inside a file"
        remediation = "Remove the encoded executable; a skill that decodes a program and runs it cannot be reviewed."
    strings:
        $pe_base64 = "TVqQAAMAAAAEAAAA"
        $pe_hex = "4d5a90000300000004000000" nocase
        $pe_escaped = "\\x4d\\x5a\\x90\\x00\\x03\\x00\\x00\\x00" nocase
        $elf_base64 = /f0VMRg[EI]BAQ[A-Za-z0-9+\/]{10}/
        $elf_hex = /7f454c460[12]010100/ nocase
        $elf_escaped = "\\x7fELF\\x02\\x01\\x01" nocase
    condition:
        any of them
}
