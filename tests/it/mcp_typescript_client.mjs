// Drives `skills mcp` with the official TypeScript SDK's stdio client
// (`@modelcontextprotocol/sdk` on npm), the client most hosts are built on.
//
// Run by `tests/it/mcp_typescript.rs` from a throwaway folder where npm installed the SDK (this
// file is copied there, so its imports resolve to that install). It spawns the server itself
// through `StdioClientTransport`, walks the conversation a host would have (catalog, tools, a
// failed tool call, a script that failed, resources of a skill named with spaces, every URI
// through WHATWG `URL`, a refused traversal, an unknown tool), and prints one JSON object of its
// findings on stdout for the Rust test to assert. Every console message the SDK writes while it
// does so (Ajv's "unknown format ... ignored" when it compiles an output schema on
// `tools/list`) is kept as a warning. Any failure throws, which exits non-zero with a stack on
// stderr.

import { openSync } from "node:fs";
import { parseArgs } from "node:util";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";

// Under the Rust test's watchdog, so a hang is reported here first, with a stack.
const DEADLINE_MS = 90_000;

const warnings = [];
for (const level of ["warn", "error", "log", "info", "debug"]) {
  const original = console[level].bind(console);
  console[level] = (...parts) => {
    warnings.push(`console.${level}: ${parts.map(String).join(" ")}`);
    original(...parts);
  };
}
process.on("warning", (warning) => warnings.push(`process: ${warning.name}: ${warning.message}`));

function assert(condition, message) {
  if (!condition) {
    throw new Error(message);
  }
}

function textOf(result) {
  return (result.content ?? [])
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("");
}

// The server's environment: ours without the skills settings a developer's shell may carry.
function serverEnvironment() {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !key.startsWith("SKILLS_") && key !== "COLUMNS",
    ),
  );
}

async function allResources(client) {
  const uris = [];
  let cursor;
  do {
    const page = await client.listResources(cursor ? { cursor } : undefined);
    uris.push(...page.resources.map((resource) => resource.uri));
    cursor = page.nextCursor;
  } while (cursor);
  return uris;
}

// Each URI that WHATWG `URL` refuses or rewrites, with what it made of it.
function notRoundTripped(uris) {
  const found = [];
  for (const uri of uris) {
    try {
      const href = new URL(uri).href;
      if (href !== uri) {
        found.push(`${uri}: read as ${href}`);
      }
    } catch (error) {
      found.push(`${uri}: refused (${error.code ?? error.message})`);
    }
  }
  return found;
}

async function converse(options) {
  const findings = {};
  const transport = new StdioClientTransport({
    command: options.binary,
    args: ["--workspace", options.workspace, "--home", options.home, "mcp"],
    env: serverEnvironment(),
    cwd: options.cwd,
    stderr: openSync(options["server-log"], "w"),
  });
  const client = new Client({ name: "skills-test", version: "0" });
  await client.connect(transport);
  try {
    findings.server = client.getServerVersion()?.name;
    const instructions = client.getInstructions() ?? "";
    assert(instructions.includes("<available_skills>"), `no catalog in: ${instructions}`);

    // `tools/list` is where the SDK compiles each output schema, and warns about what it does
    // not know.
    const tools = (await client.listTools()).tools;
    findings.tools = tools.map((tool) => tool.name);
    findings.warnings_after_tools_list = [...warnings];

    // A successful call's structured content is checked against the output schema by the SDK.
    const loaded = await client.callTool({ name: "load_skill", arguments: { name: "demo" } });
    assert(!loaded.isError, `load_skill failed: ${JSON.stringify(loaded)}`);
    findings.loaded_name = loaded.structuredContent?.name;

    const missing = await client.callTool({
      name: "load_skill",
      arguments: { name: "no-such-skill" },
    });
    findings.unknown_skill = {
      isError: missing.isError ?? false,
      structuredContent: missing.structuredContent ?? null,
      kind: missing._meta?.["skills/kind"] ?? null,
      text: textOf(missing),
    };

    const found = await client.callTool({
      name: "search_skills",
      arguments: { query: "city forecasts" },
    });
    findings.searched = found.structuredContent?.results?.map((hit) => hit.name);

    // No stdin: the script fails reading JSON. A failed run is a tool error whose structured
    // content is still the run outcome its output schema declares.
    const ran = await client.callTool({
      name: "run_skill_script",
      arguments: { name: "demo", script: "scripts/greet.py", inputs: { count: 1 } },
    });
    findings.failed_run = {
      isError: ran.isError ?? false,
      status: ran.structuredContent?.status ?? null,
    };

    const greeted = await client.callTool({ name: "demo__greet", arguments: { who: "node" } });
    findings.greet = greeted.structuredContent ?? null;

    try {
      await client.callTool({ name: "no_such_tool", arguments: {} });
      findings.unknown_tool = "answered";
    } catch (error) {
      assert(error instanceof McpError, `not a protocol error: ${error}`);
      findings.unknown_tool = { code: error.code, kind: error.data?.kind ?? null };
    }

    const uris = await allResources(client);
    findings.resources = uris;
    findings.uris_not_round_tripped = notRoundTripped(uris);
    const spaced = (await client.readResource({ uri: options["spaced-uri"] })).contents;
    assert(spaced.length === 1 && "text" in spaced[0], `read as ${JSON.stringify(spaced)}`);
    findings.spaced = { uri: spaced[0].uri, text: spaced[0].text };
    findings.templates = (await client.listResourceTemplates()).resourceTemplates.map(
      (template) => template.uriTemplate,
    );

    try {
      await client.readResource({ uri: "skill://demo/..%2F..%2Fetc%2Fpasswd" });
      findings.traversal = "served";
    } catch (error) {
      assert(error instanceof McpError, `not a protocol error: ${error}`);
      findings.traversal = { code: error.code, kind: error.data?.kind ?? null };
    }
  } finally {
    await client.close();
  }
  findings.warnings = [...warnings];
  return findings;
}

const { values } = parseArgs({
  options: {
    binary: { type: "string" },
    workspace: { type: "string" },
    home: { type: "string" },
    cwd: { type: "string" },
    "server-log": { type: "string" },
    "spaced-uri": { type: "string" },
  },
});
const deadline = setTimeout(() => {
  process.stderr.write(`the conversation took longer than ${DEADLINE_MS} ms\n`);
  process.exit(3);
}, DEADLINE_MS);
const findings = await converse(values);
clearTimeout(deadline);
process.stdout.write(`${JSON.stringify(findings)}\n`);
