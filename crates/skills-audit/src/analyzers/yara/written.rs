//! The atoms (`atoms.rs`) of every expression of the shipped rule files, written out so that
//! a process does not parse each expression with `regex_syntax` to find them: a fifth of what
//! auditing one skill cost. The test `the_written_atoms_are_the_shipped_rules_own` derives
//! them again and fails (printing this table anew) when a rule file changes and this file
//! does not; a user's rule files are always derived.

#[rustfmt::skip]
pub(super) const ATOMS: &[(&str, Option<&[&[u8]]>)] = &[
    ("(?-u)\\x2Essh\\x2Fid_(rsa|dsa|ecdsa|ed25519)\\b", Some(&[b".ssh/id_rsa", b".ssh/id_dsa", b".ssh/id_ecdsa", b".ssh/id_ed25519"])),
    ("(?-u)[\\x7E\\x2F]\\x2Enetrc\\b", Some(&[b"/.netrc", b"~.netrc"])),
    ("(?-u)requests\\x2E(post|put)\\x28", Some(&[b"requests.post(", b"requests.put("])),
    ("(?-u)curl\\s[^\\n]{0,200}(\\x2Dd|\\x2D\\x2Ddata(\\x2Dbinary)?|\\x2DF|\\x2D\\x2Dupload\\x2Dfile|\\x2DT)\\s*[\\x27\\x22]?\\x40", Some(&[b"curl\x09", b"curl\x0a", b"curl\x0b", b"curl\x0c", b"curl\x0d", b"curl "])),
    ("(?-u)fetch\\x28[^\\n]{0,200}method\\s*\\x3A\\s*[\\x27\\x22](POST|PUT)[\\x27\\x22]", Some(&[b"fetch("])),
    ("(?-u)(?i)Electrum[\\x2F\\x5C]wallets", Some(&[b"electrum/wallets", b"electrum\\wallets"])),
    ("(?-u)(?i)Ethereum[\\x2F\\x5C]keystore", Some(&[b"ethereum/keystore", b"ethereum\\keystore"])),
    ("(?s-u)\\x7FELF(?:\\x01|\\x02)(?:\\x01|\\x02)\\x01.{9}(?:\\x02|\\x03)\\x00", Some(&[b"\x7felf\x01\x01\x01", b"\x7felf\x01\x02\x01", b"\x7felf\x02\x01\x01", b"\x7felf\x02\x02\x01"])),
    ("(?-u)f0VMRg[EI]BAQ[A-Za-z0-9\\x2B\\x2F]{10}", Some(&[b"f0vmrgebaq", b"f0vmrgibaq"])),
    ("(?-u)(?i)7f454c460[12]010100", Some(&[b"7f454c4601010100", b"7f454c4602010100"])),
    ("(?-u)(?i)discord(app)?\\x2Ecom\\x2Fapi\\x2Fwebhooks\\x2F[0-9]{17,20}\\x2F[A-Za-z0-9_\\x2D]{60,68}", Some(&[b".com/api/webhooks/"])),
    ("(?-u)(?i)api\\x2Etelegram\\x2Eorg\\x2Fbot[0-9]{8,10}\\x3A[A-Za-z0-9_\\x2D]{35}", Some(&[b"api.telegram.org/bot"])),
    ("(?-u)(?i)(\\x2D\\x2Dupload\\x2Dfile|\\x2DT)\\s+\\S+\\s+[\\x27\\x22]?https?\\x3A\\x2F\\x2Ftransfer\\x2Esh\\b", Some(&[b"://transfer.sh"])),
    ("(?-u)(?i)\\x2DF\\s*[\\x27\\x22]?file\\x3D\\x40[^\\s\\x27\\x22]+[\\x27\\x22]?\\s+[\\x27\\x22]?https?\\x3A\\x2F\\x2F(0x0\\x2Est|file\\x2Eio|bashupload\\x2Ecom)\\b", Some(&[b"://0x0.st", b"://file.io", b"://bashupload.com"])),
    ("(?-u)(?i)\\x2Eoast\\x2E(pro|live|site|online|fun|me)\\b", Some(&[b".oast.pro", b".oast.live", b".oast.site", b".oast.online", b".oast.fun", b".oast.me"])),
    ("(?-u)(?i)\\x2Em\\x2Epipedream\\x2Enet\\b", Some(&[b".m.pipedream.net"])),
    ("(?-u)(?i)[a-z0-9\\x2D]+\\x2Engrok(\\x2Dfree)?\\x2E(io|app|dev)\\b", Some(&[b".ngrok"])),
    ("(?-u)(?i)stratum\\x2B(tcp|ssl|tls)\\x3A\\x2F\\x2F[A-Za-z0-9\\x2E\\x2D]+\\x3A[0-9]{2,5}", Some(&[b"stratum+tcp://", b"stratum+ssl://", b"stratum+tls://"])),
    ("(?-u)\\x2D\\x2D(donate\\x2Dlevel|cpu\\x2Dmax\\x2Dthreads\\x2Dhint|randomx\\x2D1gb\\x2Dpages|coin\\x3Dmonero)\\b", Some(&[b"--donate-level", b"--cpu-max-threads-hint", b"--randomx-1gb-pages", b"--coin=monero"])),
    ("(?-u)\\x22(donate\\x2Dlevel|randomx|cpu\\x2Dmax\\x2Dthreads\\x2Dhint)\\x22\\s*\\x3A", Some(&[b"\"donate-level\"", b"\"randomx\"", b"\"cpu-max-threads-hint\""])),
    ("(?-u)(?i)\\bxmrig(\\x2Eexe)?[\\x27\\x22]?\\s([^\\n]{0,200}\\s)?(\\x2Do|\\x2D\\x2Durl)[\\s\\x3D]", Some(&[b"xmrig"])),
    ("(?-u)(?i)\\b(ignore|disregard|forget)\\s+(all\\s+|any\\s+|every\\s+)?(of\\s+)?(the\\s+|your\\s+|my\\s+)?(previous|prior|above|earlier|preceding|former|system)\\s+(instructions|prompts?|directives|guidelines|rules)\\b", Some(&[b"ignore", b"disregard", b"forget"])),
    ("(?-u)(?i)([\\x22\\x27\\x60]|\\b(not|never|cannot|n\\x27t)\\s+)(ignore|disregard|forget)\\s+(all\\s+|any\\s+|every\\s+)?(of\\s+)?(the\\s+|your\\s+|my\\s+)?(previous|prior|above|earlier|preceding|former|system)\\s+(instructions|prompts?|directives|guidelines|rules)\\b", Some(&[b"ignore", b"disregard", b"forget"])),
    ("(?-u)(?i)\\b(do\\s+not|don\\x27t|never)\\s+(tell|inform|notify|alert) the user (about|of) (this|these|it|that)\\b", Some(&[b"tell the user about this", b"tell the user about these", b"tell the user about it", b"tell the user about that", b"tell the user of this", b"tell the user of these", b"tell the user of it", b"tell the user of that", b"inform the user about this", b"inform the user about these", b"inform the user about it", b"inform the user about that", b"inform the user of this", b"inform the user of these", b"inform the user of it", b"inform the user of that", b"notify the user about this", b"notify the user about these", b"notify the user about it", b"notify the user about that", b"notify the user of this", b"notify the user of these", b"notify the user of it", b"notify the user of that", b"alert the user about this", b"alert the user about these", b"alert the user about it", b"alert the user about that", b"alert the user of this", b"alert the user of these", b"alert the user of it", b"alert the user of that"])),
    ("(?-u)(?i)\\b(hide|conceal|keep) (this|these|it|them) (secret )?from the user\\b", Some(&[b"from the user"])),
    ("(?-u)\\b(ba|z|k)?sh\\s+\\x2Di\\s*(\\x3E\\x26|\\x26\\x3E|\\x3E)\\s*\\x2Fdev\\x2F(tcp|udp)\\x2F[^\\s\\x2F]+\\x2F[0-9]{1,5}", Some(&[b"/dev/tcp/", b"/dev/udp/"])),
    ("(?-u)\\x2Fdev\\x2F(tcp|udp)\\x2F[^\\s\\x2F]+\\x2F[0-9]{1,5}\\s*0\\s*\\x3E\\x26\\s*1", Some(&[b"/dev/tcp/", b"/dev/udp/"])),
    ("(?-u)exec\\s+[0-9]+\\s*\\x3C\\x3E\\s*\\x2Fdev\\x2F(tcp|udp)\\x2F[^\\s\\x2F]+\\x2F[0-9]{1,5}[^\\n]{0,120}while\\s+read\\s+[A-Za-z_]+\\s*\\x3B\\s*do\\s+\\x24[A-Za-z_]+", Some(&[b"/dev/tcp/", b"/dev/udp/"])),
    ("(?-u)\\b(nc|ncat|netcat)\\s([^\\n]{0,80}\\s)?\\x2D[a-z]*[ec]\\s*[\\x27\\x22]?(\\x2Fusr)?(\\x2Fbin\\x2F)?(ba|z|da|k)?sh\\b", Some(&[b"nc\x09", b"nc\x0a", b"nc\x0b", b"nc\x0c", b"nc\x0d", b"nc ", b"ncat\x09", b"ncat\x0a", b"ncat\x0b", b"ncat\x0c", b"ncat\x0d", b"ncat ", b"netcat\x09", b"netcat\x0a", b"netcat\x0b", b"netcat\x0c", b"netcat\x0d", b"netcat "])),
    ("(?-u)(?i)\\b(nc|ncat)(\\x2Eexe)?\\s([^\\n]{0,80}\\s)?\\x2De\\s*[\\x27\\x22]?cmd(\\x2Eexe)?\\b", Some(&[b"cmd"])),
    ("(?-u)\\b(nc|ncat|netcat)\\s[^\\n\\x7C]{0,80}\\x7C\\s*(\\x2Fusr)?(\\x2Fbin\\x2F)?(ba|z|da|k)?sh\\b", Some(&[b"nc\x09", b"nc\x0a", b"nc\x0b", b"nc\x0c", b"nc\x0d", b"nc ", b"ncat\x09", b"ncat\x0a", b"ncat\x0b", b"ncat\x0c", b"ncat\x0d", b"ncat ", b"netcat\x09", b"netcat\x0a", b"netcat\x0b", b"netcat\x0c", b"netcat\x0d", b"netcat "])),
    ("(?-u)mkfifo\\s+\\S+[^\\n]{0,120}\\x7C\\s*(\\x2Fbin\\x2F)?(ba|z|da)?sh\\s+\\x2Di[^\\n]{0,80}\\x7C\\s*(nc|ncat|netcat|openssl\\s+s_client)\\b", Some(&[b"mkfifo"])),
    ("(?-u)os\\x2Edup2\\x28\\s*[A-Za-z_][\\w\\x2E]*\\x2Efileno\\x28\\x29\\s*\\x2C\\s*[0-2]\\s*\\x29", Some(&[b"os.dup2("])),
    ("(?-u)(subprocess\\x2E(call|Popen|run)|os\\x2E(system|execv?p?))\\x28\\s*\\x5B?\\s*[\\x27\\x22](\\x2Fbin\\x2F)?(ba|z|da)?sh\\b", Some(&[b"subprocess.call", b"subprocess.popen", b"subprocess.run", b"system", b"exec"])),
    ("(?-u)(?i)socat\\s[^\\n]{0,80}exec\\x3A[\\x27\\x22]?[^\\s\\x27\\x22]{0,20}\\b(ba|z|da)?sh\\b[^\\n]{0,80}\\stcp[46]?(\\x2Dconnect)?\\x3A", Some(&[b"socat\x09", b"socat\x0a", b"socat\x0b", b"socat\x0c", b"socat\x0d", b"socat "])),
    ("(?-u)(?i)socat\\s[^\\n]{0,40}\\btcp[46]?(\\x2Dconnect)?\\x3A[^\\s]+\\s+exec\\x3A[\\x27\\x22]?[^\\s\\x27\\x22]{0,20}\\b(ba|z|da)?sh\\b", Some(&[b"socat\x09", b"socat\x0a", b"socat\x0b", b"socat\x0c", b"socat\x0d", b"socat "])),
    ("(?-u)(?i)\\b(iex|Invoke\\x2DExpression)\\b", Some(&[b"iex", b"invoke-expression"])),
    ("(?-u)open\\s*\\x28\\s*STDIN\\s*\\x2C\\s*[\\x27\\x22]\\x3E\\x26[A-Za-z_]+[\\x27\\x22]\\s*\\x29", Some(&[b"stdin"])),
    ("(?-u)exec\\s*\\x28?\\s*[\\x27\\x22](\\x2Fbin\\x2F)?(ba)?sh\\s+\\x2Di[\\x27\\x22]", Some(&[b"exec"])),
    ("(?-u)fsockopen\\s*\\x28[^\\x29]{1,120}\\x29\\s*\\x3B\\s*(exec|shell_exec|system|passthru|popen|proc_open)\\s*\\x28\\s*[\\x27\\x22](\\x2Fbin\\x2F)?(ba)?sh\\b", Some(&[b"fsockopen"])),
];
