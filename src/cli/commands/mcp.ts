import type { Command } from "commander";
import type { ToolSchema } from "../../core/tools.js";
import { EnvaceError } from "../../core/errors.js";
import { connectMcpHttp, connectMcpStdio, type McpEnvironment } from "../../envs/mcp/index.js";

interface ToolsOptions {
  json?: boolean;
  url?: string;
  env: string[];
  cwd?: string;
}

/** `envace mcp tools`: start an MCP server, print its tools as envace tool schemas, stop it. */
export function register(program: Command): void {
  const mcp = program.command("mcp").description("Work with MCP servers (Model Context Protocol).");
  mcp
    .command("tools")
    .description("List an MCP server's tools as envace tool schemas.")
    // usage lines go after the options, where commander prints them as written (it re-wraps a description)
    .addHelpText(
      "after",
      [
        "",
        "Forms:",
        "  envace mcp tools [--json] -- COMMAND ARGS…   (stdio: starts the server, then stops it)",
        "  envace mcp tools [--json] --url URL          (streamable HTTP)",
      ].join("\n"),
    )
    .argument("[command...]", "server command line (after --)")
    .option("--json", "print a JSON array of {name, description, parameters}")
    .option("--url <url>", "connect to a streamable HTTP server instead of starting one")
    .option("--env <KEY=VALUE>", "environment variable for the server (repeatable)", collect, [])
    .option("--cwd <dir>", "working directory for the server")
    .action(async (command: string[], opts: ToolsOptions) => {
      const env = await open(command, opts);
      try {
        const tools = env.tools();
        process.stdout.write(opts.json ? JSON.stringify(tools, null, 2) + "\n" : formatTable(tools));
      } finally {
        await env.close();
      }
    });
}

function open(command: string[], opts: ToolsOptions): Promise<McpEnvironment> {
  if (opts.url && command.length > 0) {
    throw new EnvaceError("INVALID_CONFIG", "give either --url or a server command after --, not both");
  }
  if (opts.url) return connectMcpHttp({ url: opts.url });
  const [cmd, ...args] = command;
  if (!cmd) throw new EnvaceError("INVALID_CONFIG", "no server: give --url URL or -- COMMAND ARGS…");
  return connectMcpStdio({ command: cmd, args, env: parseEnv(opts.env), cwd: opts.cwd });
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function parseEnv(pairs: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new EnvaceError("INVALID_CONFIG", `--env expects KEY=VALUE, got '${pair}'`);
    env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return env;
}

/** One line per tool: name, its arguments (required ones marked *), and the description's first line. */
export function formatTable(tools: ToolSchema[]): string {
  if (tools.length === 0) return "(no tools)\n";
  const rows = tools.map((t) => [t.name, argumentList(t), firstLine(t.description)] as const);
  const w0 = Math.max(4, ...rows.map((r) => r[0].length));
  const w1 = Math.max(9, ...rows.map((r) => r[1].length));
  const line = (a: string, b: string, c: string) => `${a.padEnd(w0)}  ${b.padEnd(w1)}  ${c}`.trimEnd() + "\n";
  return (
    line("TOOL", "ARGUMENTS", "DESCRIPTION") +
    rows.map((r) => line(...r)).join("") +
    `${tools.length} tools\n`
  );
}

function argumentList(tool: ToolSchema): string {
  const props = Object.keys((tool.parameters.properties as Record<string, unknown> | undefined) ?? {});
  const required = new Set((tool.parameters.required as string[] | undefined) ?? []);
  return props.map((p) => (required.has(p) ? `${p}*` : p)).join(", ");
}

function firstLine(text: string): string {
  const line = text.split("\n")[0]!.trim();
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}
