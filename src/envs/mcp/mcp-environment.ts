import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { EnvaceError } from "../../core/errors.js";
import type { ToolCall } from "../../core/messages.js";
import type { ToolResult, ToolSchema } from "../../core/tools.js";
import type { Environment } from "../env.js";
import { canonicalHash } from "../../core/canonical-json.js";
import type { McpConnection, McpConnector } from "./connectors.js";
import { contentToText } from "./content-to-text.js";
import { mapCallError, mapErrorResult } from "./error-mapping.js";
import { toToolSchema } from "./tool-schema.js";

export interface McpEnvironmentOptions {
  /** How many times a dead server is restarted over the environment's life (default 3). */
  maxRestarts?: number;
  /** Per-call timeout in milliseconds (default 60 000, the SDK's default). */
  callTimeoutMs?: number;
}

/** One call that reached the server, as kept in the call log. */
export interface McpCallLogEntry {
  name: string;
  arguments: Record<string, unknown>;
  ok: boolean;
  /** The result string (ok) or the error message (not ok). */
  content: string;
  errorCode?: string;
}

/**
 * An MCP server as an envace `Environment`.
 *
 * State: an MCP server's state cannot be inspected through the protocol, so `snapshot()` is the
 * log of calls that reached the server (with their results) and `hash()` is the canonical hash of
 * that log. Two runs hash equal when they sent the same calls and got the same answers.
 *
 * Server death: when the server exits (or the link breaks), the one call that observes it (the
 * call in flight, or else the next call, which is then not sent) returns `MCP_ERROR`, so the agent
 * learns that server-side state may be gone. The call after that restarts the server through the
 * connector and proceeds, at most `maxRestarts` times; beyond that every call returns `MCP_ERROR`.
 */
export class McpEnvironment implements Environment {
  private conn: McpConnection | null;
  private toolList: ToolSchema[];
  private readonly log: McpCallLogEntry[] = [];
  private deathUnreported = false;
  private lastStderr = "";
  private restartCount = 0;
  private reconnecting: Promise<void> | null = null;
  private closed = false;
  private readonly maxRestarts: number;
  private readonly callTimeoutMs: number;

  private constructor(
    private readonly connector: McpConnector,
    conn: McpConnection,
    tools: ToolSchema[],
    opts: McpEnvironmentOptions,
  ) {
    this.conn = conn;
    this.toolList = tools;
    this.maxRestarts = opts.maxRestarts ?? 3;
    this.callTimeoutMs = opts.callTimeoutMs ?? 60_000;
    this.watch(conn);
  }

  /** Starts a session and lists the server's tools. Throws EnvaceError(MCP_ERROR) when it cannot. */
  static async open(connector: McpConnector, opts: McpEnvironmentOptions = {}): Promise<McpEnvironment> {
    const conn = await connector.connect();
    try {
      const tools = await listAllTools(conn);
      return new McpEnvironment(connector, conn, tools, opts);
    } catch (e) {
      await conn.close().catch(() => undefined);
      throw e instanceof EnvaceError
        ? e
        : new EnvaceError("MCP_ERROR", `tools/list failed on ${connector.describe}: ${String(e)}`);
    }
  }

  tools(): ToolSchema[] {
    return this.toolList.map((t) => ({ ...t }));
  }

  /** Restarts so far. */
  get restarts(): number {
    return this.restartCount;
  }

  /** The running server's process id (stdio), or null when none runs or it is not a process. */
  get pid(): number | null {
    return this.conn?.pid ?? null;
  }

  async call(call: ToolCall): Promise<ToolResult> {
    if (this.closed) return mcpError(`MCP environment for ${this.connector.describe} is closed`);
    if (this.conn === null) {
      if (this.deathUnreported) {
        this.deathUnreported = false;
        return mcpError(this.deathMessage(`stopped; '${call.name}' was not executed`));
      }
      const failure = await this.restart();
      if (failure) return { ok: false, error: failure };
    }
    const conn = this.conn;
    if (conn === null) return mcpError(`MCP server ${this.connector.describe} is not running`);
    if (!this.toolList.some((t) => t.name === call.name)) {
      return { ok: false, error: new EnvaceError("TOOL_NOT_AVAILABLE", `Tool '${call.name}' not found`) };
    }

    let result: ToolResult;
    try {
      const res = await conn.client.callTool({ name: call.name, arguments: call.arguments }, undefined, {
        timeout: this.callTimeoutMs,
      });
      const text = contentToText(res as Parameters<typeof contentToText>[0]);
      result = res.isError ? { ok: false, error: mapErrorResult(text) } : { ok: true, content: text };
    } catch (e) {
      const mapped = mapCallError(e, call.name);
      if (mapped.connectionLost) {
        // This call is the one that tells the agent; the next call restarts.
        this.markDead(conn);
        this.deathUnreported = false;
        result = mcpError(this.deathMessage(mapped.error.message));
      } else {
        result = { ok: false, error: mapped.error };
      }
    }
    this.log.push(
      result.ok
        ? { name: call.name, arguments: structuredClone(call.arguments), ok: true, content: result.content }
        : {
            name: call.name,
            arguments: structuredClone(call.arguments),
            ok: false,
            content: result.error.message,
            errorCode: result.error.code,
          },
    );
    return result;
  }

  /** The log of calls that reached the server (see the class comment). */
  snapshot(): { calls: McpCallLogEntry[] } {
    return { calls: this.log.map((e) => ({ ...e })) };
  }

  hash(): string {
    return canonicalHash(this.snapshot());
  }

  /** Ends the session and stops the server process (stdin closed, then SIGTERM, then SIGKILL). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.reconnecting?.catch(() => undefined);
    const conn = this.conn;
    this.conn = null;
    if (conn) await conn.close().catch(() => undefined);
  }

  private watch(conn: McpConnection): void {
    conn.client.onclose = () => {
      if (this.conn === conn && !this.closed) {
        this.markDead(conn);
        this.deathUnreported = true;
      }
    };
  }

  private markDead(conn: McpConnection): void {
    if (this.conn !== conn) return;
    this.lastStderr = conn.stderrTail().trim();
    this.conn = null;
    // Make sure a half-dead process does not linger.
    void conn.close().catch(() => undefined);
  }

  private deathMessage(what: string): string {
    const next =
      this.restartCount < this.maxRestarts
        ? "It will be restarted on the next call."
        : "No restarts are left.";
    const tail = this.lastStderr ? `\nserver stderr (tail):\n${this.lastStderr.slice(-1000)}` : "";
    return `MCP server ${this.connector.describe} ${what}. ${next}${tail}`;
  }

  /** Starts a new session; concurrent callers share one attempt. Returns the failure, if any. */
  private async restart(): Promise<EnvaceError | null> {
    if (!this.reconnecting) {
      if (this.restartCount >= this.maxRestarts) {
        return new EnvaceError(
          "MCP_ERROR",
          `MCP server ${this.connector.describe} stopped and was already restarted ${this.maxRestarts} times; giving up`,
        );
      }
      this.restartCount += 1;
      this.reconnecting = (async () => {
        const conn = await this.connector.connect();
        try {
          this.toolList = await listAllTools(conn);
        } catch (e) {
          await conn.close().catch(() => undefined);
          throw e;
        }
        if (this.closed) {
          await conn.close().catch(() => undefined);
          return;
        }
        this.conn = conn;
        this.watch(conn);
      })().finally(() => {
        this.reconnecting = null;
      });
    }
    try {
      await this.reconnecting;
      return null;
    } catch (e) {
      return e instanceof EnvaceError
        ? e
        : new EnvaceError("MCP_ERROR", `restarting ${this.connector.describe} failed: ${String(e)}`);
    }
  }
}

function mcpError(message: string): ToolResult {
  return { ok: false, error: new EnvaceError("MCP_ERROR", message) };
}

/** `tools/list` follows pagination cursors until the server has listed everything. */
async function listAllTools(conn: McpConnection): Promise<ToolSchema[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await conn.client.listTools(cursor ? { cursor } : undefined);
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools.map(toToolSchema);
}
