#!/usr/bin/env python3
"""Re-record the reference validator's verdicts for every case in verdicts.json.

Recorded with: skills-ref 0.1.1 from PyPI (the agentskills.io reference validator),
command `agentskills validate <DIR>`, installed in a virtualenv and run as
`/tmp/srvenv/bin/agentskills validate cases/<NN-slug>/<skill-dir>` from this directory.

This script is run by hand, never by CI (CI has no Python). Usage:

    python3 tests/reference/record.py [--reference /path/to/agentskills]

Without --reference it uses $SKILLS_REF_BIN, then `agentskills` on PATH. It only needs the
standard library. For each entry it rewrites `reference`, `reference_messages` and
`reference_codes`; it never touches `expected`, `codes` or `difference`, which state what
*our* validator does and why. It then lists every entry without a `difference` where our
expectation and the reference disagree, and exits 1 if there is one, so a re-recording
that changes the reference's behaviour cannot slip by unnoticed.

How a run is recorded:

- `reference` is "valid" for exit status 0 and "invalid" for exit status 1 (any other status
  stops the script: the case itself is broken);
- `reference_messages` are the stderr lines, verbatim. One exception: when the reference
  crashes, its Python traceback names files of the local install, so only the last line (the
  exception) is kept;
- `reference_codes` are the rule kinds of the reported problems, translated to our codes by
  the table RULES below; a crash reports no rule. A problem line the table does not know
  stops the script: extend the table rather than guess.

An entry may carry `"argument"`: the reference (and the Rust test) then runs inside the
case's skill directory with that argument (such as `.`) instead of the directory's path.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
VERDICTS = HERE / "verdicts.json"
EXPECTED_VERSION = "0.1.1"

# Start of a reference problem message (a regular expression anchored at the start of the
# message) -> the code our validator uses for the same rule.
RULES = [
    (r"SKILL\.md must start with YAML frontmatter", "no-frontmatter"),
    (r"SKILL\.md frontmatter not properly closed", "unterminated-frontmatter"),
    (r"Invalid YAML in frontmatter:", "yaml-error"),
    (r"SKILL\.md frontmatter must be a YAML mapping", "yaml-error"),
    (r"Missing required file: SKILL\.md", "no-definition-file (our exit status 2, not a code)"),
    (r"Unexpected fields in frontmatter:", "unexpected-field"),
    (r"Missing required field in frontmatter: name", "name-missing"),
    (r"Missing required field in frontmatter: description", "description-missing"),
    (r"Field 'name' must be a non-empty string", "name-empty"),
    (r"Field 'description' must be a non-empty string", "description-empty"),
    (r"Field 'compatibility' must be a string", "invalid-field-type"),
    (r"Skill name '.*' exceeds \d+ character limit", "name-too-long"),
    (r"Skill name '.*' must be lowercase", "name-not-lowercase"),
    (r"Skill name cannot start or end with a hyphen", "name-leading-trailing-hyphen"),
    (r"Skill name cannot contain consecutive hyphens", "name-consecutive-hyphens"),
    (r"Skill name '.*' contains invalid characters", "name-invalid-characters"),
    (r"Directory name '.*' must match skill name", "name-directory-mismatch"),
    (r"Description exceeds \d+ character limit", "description-too-long"),
    (r"Compatibility exceeds \d+ character limit", "compatibility-too-long"),
]

PROBLEM_PREFIX = "  - "


def code_of(problem):
    for pattern, code in RULES:
        if re.match(pattern, problem, re.DOTALL):
            return code
    return None


def reference_binary(given):
    candidate = given or os.environ.get("SKILLS_REF_BIN") or shutil.which("agentskills")
    if not candidate:
        sys.exit("record.py: no reference validator; pass --reference or set SKILLS_REF_BIN")
    return candidate


def run(binary, entry):
    if "argument" in entry:
        cwd, argument = HERE / entry["path"], entry["argument"]
    else:
        cwd, argument = HERE, entry["path"]
    done = subprocess.run(
        [binary, "validate", argument],
        cwd=cwd,
        capture_output=True,
        env={**os.environ, "PYTHONIOENCODING": "utf-8", "NO_COLOR": "1"},
    )
    if done.returncode not in (0, 1):
        sys.exit(
            f"record.py: {entry['case']}: the reference exited {done.returncode}:\n"
            + done.stderr.decode("utf-8", "replace")
        )
    lines = done.stderr.decode("utf-8").splitlines()
    crashed = any(line.startswith("Traceback (most recent call last)") for line in lines)
    if crashed:
        messages, codes = lines[-1:], []
    else:
        messages = lines
        # A problem is a "  - " line plus any continuation lines (YAML errors span several).
        problems = []
        for line in lines:
            if line.startswith(PROBLEM_PREFIX):
                problems.append(line[len(PROBLEM_PREFIX):])
            elif problems:
                problems[-1] += "\n" + line
        codes = []
        for problem in problems:
            code = code_of(problem)
            if code is None:
                sys.exit(
                    f"record.py: {entry['case']}: no code for the reference message "
                    f"{problem!r}; extend RULES"
                )
            codes.append(code)
    verdict = "valid" if done.returncode == 0 else "invalid"
    return verdict, messages, sorted(codes)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reference", help="the reference validator's `agentskills` executable")
    args = parser.parse_args()
    binary = reference_binary(args.reference)

    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"reference: {binary} ({version})")
    if not version.endswith(EXPECTED_VERSION):
        print(f"warning: the committed verdicts were recorded with skills-ref {EXPECTED_VERSION}")

    entries = json.loads(VERDICTS.read_text(encoding="utf-8"))
    known = {entry["case"] for entry in entries}
    for case_dir in sorted((HERE / "cases").iterdir()):
        if case_dir.is_dir() and case_dir.name not in known:
            print(f"warning: {case_dir.name} has no entry in verdicts.json")

    recorded = []
    for entry in entries:
        verdict, messages, codes = run(binary, entry)
        updated = {}
        for key in ("case", "path", "argument"):
            if key in entry:
                updated[key] = entry[key]
        updated["reference"] = verdict
        updated["reference_messages"] = messages
        updated["reference_codes"] = codes
        for key in ("expected", "codes", "difference"):
            updated[key] = entry.get(key)
        recorded.append(updated)

    VERDICTS.write_text(
        json.dumps(recorded, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )

    disagreements = [
        entry["case"]
        for entry in recorded
        if entry["difference"] is None
        and (entry["expected"] != entry["reference"] or entry["codes"] != entry["reference_codes"])
    ]
    agreeing = sum(1 for entry in recorded if entry["difference"] is None)
    print(f"{len(recorded)} cases recorded, {agreeing} without a difference")
    if disagreements:
        print("the reference now disagrees, with no difference recorded, on:")
        for case in disagreements:
            print(f"  {case}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
