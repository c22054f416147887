import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { EnvaceError } from "../../core/errors.js";
import { stripMcpPrefix } from "./error-mapping.js";

/** One live MCP session: an initialized client and a way to end it. */
export interface McpConnection {
  client: Client;
  /** The server's process id (stdio), or null (HTTP, in-memory). */
  pid: number | null;
  /** The last few KB of the server's stderr (stdio), for error messages. */
  stderrTail(): string;
  close(): Promise<void>;
}

/** Opens a fresh session each time: the environment calls it again to restart a dead server. */
export interface McpConnector {
  /** For error messages: the command line or URL. */
  describe: string;
  connect(): Promise<McpConnection>;
}

export interface StdioServerOptions {
  command: string;
  args?: string[];
  /** Added to the SDK's safe default environment (PATH, HOME, …), not a replacement for it. */
  env?: Record<string, string>;
  cwd?: string;
}

export interface HttpServerOptions {
  url: string;
  headers?: Record<string, string>;
}

const CLIENT_INFO = { name: "envace", version: "0.1.0" };
const STDERR_TAIL_CHARS = 4000;

/** Spawns the server as a child process speaking MCP over stdin/stdout. */
export function stdioConnector(opts: StdioServerOptions): McpConnector {
  const describe = [opts.command, ...(opts.args ?? [])].join(" ");
  return {
    describe,
    async connect() {
      // stderr is piped (not inherited) so servers' banners stay out of our output, and kept
      // so that "the server exited" can say why.
      const transport = new StdioClientTransport({
        command: opts.command,
        args: opts.args ?? [],
        env: { ...getDefaultEnvironment(), ...(opts.env ?? {}) },
        cwd: opts.cwd,
        stderr: "pipe",
      });
      let tail = "";
      transport.stderr?.on("data", (chunk: Buffer) => {
        tail = (tail + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS);
      });
      const client = await initialize(transport, describe, () => tail);
      return { client, pid: transport.pid, stderrTail: () => tail, close: () => client.close() };
    },
  };
}

/** Connects to a running server over the streamable HTTP transport. */
export function httpConnector(opts: HttpServerOptions): McpConnector {
  return {
    describe: opts.url,
    async connect() {
      const transport = new StreamableHTTPClientTransport(new URL(opts.url), {
        requestInit: opts.headers ? { headers: opts.headers } : undefined,
      });
      const client = await initialize(transport, opts.url, () => "");
      return {
        client,
        pid: null,
        stderrTail: () => "",
        async close() {
          // Ask the server to drop the session; a server without sessions answers 405, which is fine.
          await transport.terminateSession().catch(() => undefined);
          await client.close();
        },
      };
    },
  };
}

/** Wraps any transport (e.g. the SDK's InMemoryTransport in tests) as a connector. */
export function transportConnector(
  describe: string,
  makeTransport: () => Transport | Promise<Transport>,
): McpConnector {
  return {
    describe,
    async connect() {
      const client = await initialize(await makeTransport(), describe, () => "");
      return { client, pid: null, stderrTail: () => "", close: () => client.close() };
    },
  };
}

async function initialize(transport: Transport, describe: string, stderrTail: () => string): Promise<Client> {
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  try {
    await client.connect(transport);
  } catch (e) {
    await client.close().catch(() => undefined);
    const why = stripMcpPrefix(e instanceof Error ? e.message : String(e));
    const tail = stderrTail().trim();
    throw new EnvaceError(
      "MCP_ERROR",
      `could not start MCP session with ${describe}: ${why}${tail ? `\nserver stderr:\n${tail}` : ""}`,
    );
  }
  return client;
}
