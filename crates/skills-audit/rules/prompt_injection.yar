// Prompt injection: text written to take the agent away from the user's instructions.

rule PROMPT_IGNORE_INSTRUCTIONS : prompt_injection
{
    meta:
        severity = "high"
        category = "prompt_injection"
        title = "Instruction to ignore earlier instructions"
        description = "Text telling the model to ignore, disregard or forget the instructions it was given before"
        remediation = "Remove the text; a skill adds instructions, it never cancels the user's or the system's."
    strings:
        $order = /\b(ignore|disregard|forget)\s+(all\s+|any\s+|every\s+)?(of\s+)?(the\s+|your\s+|my\s+)?(previous|prior|above|earlier|preceding|former|system)\s+(instructions|prompts?|directives|guidelines|rules)\b/ nocase
        // The same words quoted (an example of an attack) or negated ("do not ignore the
        // rules above") are not an order.
        $excused = /(["'`]|\b(not|never|cannot|n't)\s+)(ignore|disregard|forget)\s+(all\s+|any\s+|every\s+)?(of\s+)?(the\s+|your\s+|my\s+)?(previous|prior|above|earlier|preceding|former|system)\s+(instructions|prompts?|directives|guidelines|rules)\b/ nocase
    condition:
        $order and #order > #excused
}

rule PROMPT_CONCEAL_FROM_USER : prompt_injection
{
    meta:
        severity = "high"
        category = "prompt_injection"
        title = "Instruction to hide something from the user"
        description = "Text telling the model not to tell, show or mention something to the user"
        remediation = "Remove the text; a skill must not ask the agent to keep its actions from the user."
    strings:
        $conceal = /\b(do\s+not|don't|never)\s+(tell|inform|notify|alert) the user (about|of) (this|these|it|that)\b/ nocase
        $hide = /\b(hide|conceal|keep) (this|these|it|them) (secret )?from the user\b/ nocase
    condition:
        any of them
}

rule PROMPT_CHAT_TEMPLATE_TOKENS : prompt_injection
{
    meta:
        severity = "medium"
        category = "prompt_injection"
        title = "Chat template control tokens"
        description = "Tokens that mark a system or assistant turn in a model's chat template, which can make text read as if the system wrote it"
        remediation = "Remove the control tokens; if the skill is about chat templates, show them in a code block."
    strings:
        $chatml = "<|im_start|>system"
        $llama3 = "<|start_header_id|>system<|end_header_id|>"
        $generic = "<|system|>"
    condition:
        any of them
}
