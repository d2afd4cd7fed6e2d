"""Drives `skills mcp` with the official Python SDK's stdio client (the `mcp` package).

Run by `tests/it/mcp_python.rs` with a throwaway virtual environment's interpreter. It spawns
the server itself through `stdio_client`, walks the conversation a host would have (catalog,
tools, a failed tool call, resources of a skill named with spaces, every URI through pydantic's
`AnyUrl`, a refused traversal, a typed prompt), asserts what it can, and prints one
JSON object of its findings on stdout so the Rust test can assert them too. Any failure
raises, which exits non-zero with a traceback on stderr.
"""

import argparse
import base64
import json
import logging
import os
import sys
import warnings

import anyio
from mcp import ClientSession, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_types import PaginatedRequestParams
from pydantic import AnyUrl, TypeAdapter

# Under the Rust test's 120 s watchdog, so a hang is reported here first, with a traceback.
DEADLINE_SECONDS = 90

BUILT_IN_TOOLS = [
    "load_skill",
    "read_skill_resource",
    "search_skills",
    "audit_skill",
    "run_skill_script",
]


class Collect(logging.Handler):
    """Keeps every warning the SDK logs: each is a place where it found us odd."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(f"{record.name}: {record.getMessage()}")


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--binary", required=True, help="the built `skills` binary")
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--home", required=True)
    parser.add_argument("--cwd", required=True, help="where the server runs")
    parser.add_argument("--logo-hex", required=True, help="the bytes of assets/logo.png")
    parser.add_argument("--server-log", required=True, help="where the server's stderr goes")
    parser.add_argument("--spaced-uri", required=True, help="the URI of the skill named with spaces")
    return parser.parse_args()


def server_environment() -> dict[str, str]:
    """Our environment without the skills settings a developer's shell may carry."""
    return {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("SKILLS_") and key != "COLUMNS"
    }


def text_blocks(blocks) -> str:
    return "".join(block.text for block in blocks if getattr(block, "type", None) == "text")


def not_round_tripped(uris: list[str]) -> list[str]:
    """Each URI that pydantic's `AnyUrl` refuses or rewrites, with what it made of it."""
    url = TypeAdapter(AnyUrl)
    found = []
    for uri in uris:
        try:
            parsed = str(url.validate_python(uri))
        except ValueError as refused:
            found.append(f"{uri}: refused ({refused})")
            continue
        if parsed != uri:
            found.append(f"{uri}: read as {parsed}")
    return found


async def all_resources(session: ClientSession) -> list[str]:
    uris: list[str] = []
    cursor = None
    while True:
        params = PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_resources(params=params)
        uris.extend(resource.uri for resource in page.resources)
        cursor = page.next_cursor
        if not cursor:
            return uris


async def converse(arguments: argparse.Namespace, server_log) -> dict:
    findings: dict = {}
    parameters = StdioServerParameters(
        command=arguments.binary,
        args=["--workspace", arguments.workspace, "--home", arguments.home, "mcp"],
        env=server_environment(),
        cwd=arguments.cwd,
    )
    async with stdio_client(parameters, errlog=server_log) as (read, write):
        async with ClientSession(read, write) as session:
            initialized = await session.initialize()
            findings["protocol_version"] = initialized.protocol_version
            findings["server"] = {
                "name": initialized.server_info.name,
                "version": initialized.server_info.version,
            }
            instructions = initialized.instructions or ""
            assert "<available_skills>" in instructions, f"no catalog in: {instructions!r}"
            assert "demo" in instructions, f"no demo in: {instructions!r}"
            findings["instructions"] = instructions

            tools = (await session.list_tools()).tools
            names = [tool.name for tool in tools]
            for expected in [*BUILT_IN_TOOLS, "demo__greet"]:
                assert expected in names, f"{expected} is not among the tools {names}"
            findings["tools"] = names

            loaded = await session.call_tool("load_skill", {"name": "demo"})
            assert not loaded.is_error, f"load_skill failed: {loaded}"
            loaded_text = text_blocks(loaded.content)
            assert "Body of demo." in loaded_text, f"load_skill returned: {loaded_text!r}"
            findings["load_skill_text"] = loaded_text

            # A tool that fails is a result the model reads, not an exception.
            missing = await session.call_tool("load_skill", {"name": "no-such-skill"})
            assert missing.is_error, f"an unknown skill is a tool error: {missing}"
            findings["unknown_skill"] = {
                "is_error": missing.is_error,
                "structured_content": missing.structured_content,
                "kind": (missing.meta or {}).get("skills/kind"),
                "text": text_blocks(missing.content),
            }

            greeted = await session.call_tool("demo__greet", {"who": "python"})
            assert not greeted.is_error, f"demo__greet failed: {greeted}"
            assert greeted.structured_content == {"greeting": "hello, python"}, (
                f"demo__greet returned: {greeted}"
            )
            findings["greet"] = {
                "is_error": greeted.is_error,
                "structured_content": greeted.structured_content,
            }

            uris = await all_resources(session)
            for expected in ["skill://demo/SKILL.md", "skill://demo/assets/logo.png"]:
                assert expected in uris, f"{expected} is not among the resources {uris}"
            findings["resources"] = uris
            # pydantic's `AnyUrl` (the WHATWG URL rules, as the Rust `url` crate) takes every
            # URI and gives it back unchanged.
            findings["uris_not_round_tripped"] = not_round_tripped(uris)
            spaced = (await session.read_resource(arguments.spaced_uri)).contents
            assert len(spaced) == 1 and hasattr(spaced[0], "text"), f"read as: {spaced}"
            findings["spaced"] = {"uri": spaced[0].uri, "text": spaced[0].text}

            guide = (await session.read_resource("skill://demo/references/guide.md")).contents
            assert len(guide) == 1 and hasattr(guide[0], "text"), f"guide.md read as: {guide}"
            findings["guide"] = {"mime_type": guide[0].mime_type, "text": guide[0].text}

            logo = (await session.read_resource("skill://demo/assets/logo.png")).contents
            assert len(logo) == 1 and hasattr(logo[0], "blob"), f"logo.png read as: {logo}"
            decoded = base64.b64decode(logo[0].blob, validate=True)
            assert decoded == bytes.fromhex(arguments.logo_hex), (
                f"logo.png came back as {decoded.hex()}, not {arguments.logo_hex}"
            )
            findings["logo"] = {"mime_type": logo[0].mime_type, "hex": decoded.hex()}

            try:
                escaped = await session.read_resource("skill://demo/../../etc/passwd")
            except MCPError as refused:
                data = refused.error.data
                assert isinstance(data, dict) and data.get("kind") == "refused_path", (
                    f"the traversal was refused without kind refused_path: {refused.error}"
                )
                findings["traversal"] = {
                    "code": refused.error.code,
                    "message": refused.error.message,
                    "data": data,
                }
            else:
                raise AssertionError(f"the traversal was served: {escaped}")

            prompts = (await session.list_prompts()).prompts
            demo = next((prompt for prompt in prompts if prompt.name == "demo"), None)
            assert demo is not None, f"no demo prompt among {[p.name for p in prompts]}"
            findings["prompts"] = [
                {
                    "name": prompt.name,
                    "arguments": [
                        [argument.name, argument.required] for argument in prompt.arguments or []
                    ],
                }
                for prompt in prompts
            ]
            prompt = await session.get_prompt("demo", {"count": "2", "title": "Report"})
            prompt_text = "".join(
                message.content.text
                for message in prompt.messages
                if getattr(message.content, "type", None) == "text"
            )
            assert "Report" in prompt_text, f"the prompt reads: {prompt_text!r}"
            findings["prompt_text"] = prompt_text
    return findings


async def main() -> None:
    arguments = parse_arguments()
    collected = Collect()
    logging.getLogger().addHandler(collected)
    with (
        warnings.catch_warnings(record=True) as python_warnings,
        open(arguments.server_log, "w", encoding="utf-8") as server_log,
    ):
        warnings.simplefilter("always")
        with anyio.fail_after(DEADLINE_SECONDS):
            findings = await converse(arguments, server_log)
    findings["warnings"] = collected.messages + [str(warning.message) for warning in python_warnings]
    json.dump(findings, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    anyio.run(main)
