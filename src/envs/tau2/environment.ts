/**
 * A τ² environment: one domain's DB (and user DB, for mock) plus its toolkits, behaving as
 * upstream's `Environment.get_response`: a tool's return value is serialised the way
 * `Environment.to_json_str` does (strings as they are, models via `model_dump` + `json.dumps`), and
 * any exception becomes an error whose message is `str(exception)` (shown to the agent as
 * `"Error: <message>"`). Unlike upstream in a few corner cases, a failed call of mock, retail or
 * airline never leaves a partial change behind: every tool checks everything that can fail before
 * its first change. Telecom keeps upstream's order where it matters to the state (a non-string
 * network mode or APN setting is stored, then the call fails; a failing `sync_tools` keeps the
 * tool's change), since its tasks score the final phone.
 */
import { createHash } from "node:crypto";
import { EnvaceError } from "../../core/errors.js";
import type { ToolCall } from "../../core/messages.js";
import type { ToolResult, ToolSchema } from "../../core/tools.js";
import type { Environment } from "../env.js";
import { canonicalJson, pyJsonDumps } from "./py-json.js";
import { PyError } from "./py-errors.js";
import { type PyModel, pyDump, pyDumpJson, pyValidate, toPlain } from "./py-model.js";
import { bindArgs, type Args, type Toolkit, toolSchema } from "./toolkit.js";
import type { Tau2InitialState } from "./task.js";

export type Tau2DomainName = "mock" | "retail" | "airline" | "telecom";
export type Requestor = "assistant" | "user";

/** The mutable state the tools work on. */
export interface Tau2State {
  db: Record<string, unknown>;
  userDb: Record<string, unknown> | null;
}

/** Everything that defines one domain's environment. */
export interface Tau2DomainSpec {
  name: Tau2DomainName;
  dbType: PyModel;
  userDbType?: PyModel;
  toolkit: Toolkit<Tau2State>;
  userToolkit?: Toolkit<Tau2State>;
  /**
   * Upstream `Environment.sync_tools`: brings the two sides back in line (telecom mirrors the
   * agent DB into the user's surroundings). Run after each tool response, each env function and
   * at the end of set-up, never by the gold replay (`make_tool_call`).
   */
  sync?: (state: Tau2State) => void;
}

/** How a call is made: as a conversation's tool response (synced) or as upstream's `make_tool_call`. */
export interface CallOptions {
  /** Run the domain's `sync_tools` after a successful call (default true, as `get_response`). */
  sync?: boolean;
}

/** A call of `initialization_actions` / `env_assertions` (upstream `EnvFunctionCall`). */
export interface Tau2EnvFunctionCall {
  env_type: Requestor;
  func_name: string;
  arguments: Record<string, unknown>;
}

export type Tau2FunctionResult = { ok: true; value: unknown } | { ok: false; error: EnvaceError };

export interface Tau2Environment extends Environment {
  readonly domain: Tau2DomainName;
  /** The agent's tools (upstream `get_tools()` order). */
  tools(): ToolSchema[];
  /** The user simulator's tools; empty where the domain has none. */
  userTools(): ToolSchema[];
  /** Executes an agent tool call; never throws for tool errors. */
  call(call: ToolCall): Promise<ToolResult>;
  /**
   * Synchronous form of `call`, for a given requestor: upstream `get_response` (the call, then
   * `sync_tools`), or with `{sync: false}` upstream `make_tool_call` as the gold replay uses it.
   */
  callSync(
    call: Pick<ToolCall, "name" | "arguments">,
    requestor?: Requestor,
    options?: CallOptions,
  ): ToolResult;
  /** Whether `name` is a state-changing tool of that requestor (upstream `mutates_state`). */
  isMutating(name: string, requestor?: Requestor): boolean;
  /** The DB in upstream's `model_dump` shape: every optional field present, null when unset. */
  dumpDb(): unknown;
  /** sha256 of the DB, byte-identical to upstream's `get_db_hash()`. */
  hash(): string;
  /** The user DB dump, or null where the domain has none. */
  dumpUserDb(): unknown;
  /** Upstream's `get_user_db_hash()`, or null where the domain has no user DB. */
  userHash(): string | null;
  /** Same as `dumpDb()` (the `Environment` interface's name). */
  snapshot(): unknown;
  /** Runs a toolkit function (tool or helper such as `assert_task_status`) by name. */
  runEnvFunction(call: Tau2EnvFunctionCall): Tau2FunctionResult;
  /**
   * Upstream `run_env_assertion`: the function's boolean result compared with `assert_value`.
   * Throws EnvaceError TOOL_EXECUTION_ERROR when the function raises or returns a non-boolean.
   */
  runEnvAssertion(assertion: Tau2EnvFunctionCall & { assert_value?: boolean }): boolean;
  /** Applies a task's `initial_state` (upstream `set_state` with the task's message history). */
  applyInitialState(initialState: Tau2InitialState): void;
}

/** The string upstream puts in the tool message: the content, or `"Error: <message>"`. */
export function resultToString(result: ToolResult): string {
  return result.ok ? result.content : `Error: ${result.error.message}`;
}

function sha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

function toolError(e: unknown): EnvaceError {
  if (e instanceof EnvaceError) return e;
  if (e instanceof PyError) {
    const code =
      e.pyType === "TypeError" && /argument/.test(e.message) ? "INVALID_PARAMETERS" : "TOOL_EXECUTION_ERROR";
    return new EnvaceError(code, e.message, { pyType: e.pyType });
  }
  // A JavaScript error here means arguments of a type the port does not mimic; still data.
  return new EnvaceError("TOOL_EXECUTION_ERROR", e instanceof Error ? e.message : String(e), {
    pyType: "Exception",
  });
}

/** Merge as `addict.Dict.update`: nested dicts merge, everything else is replaced. */
function mergeUpdate(base: unknown, update: unknown): unknown {
  const isMap = base instanceof Map;
  const isObj = update !== null && typeof update === "object" && !Array.isArray(update);
  if (!isMap || !isObj) return update;
  const out = new Map(base as Map<string, unknown>);
  const entries = update instanceof Map ? [...update.entries()] : Object.entries(update as object);
  for (const [k, v] of entries) out.set(k, out.has(k) ? mergeUpdate(out.get(k), v) : v);
  return out;
}

export class Tau2Env implements Tau2Environment {
  readonly domain: Tau2DomainName;
  private state: Tau2State;
  /** The types of the two DBs; they change when upstream's `set_state` aliases one to the other. */
  private dbType: PyModel;
  private userDbType: PyModel | undefined;

  constructor(
    private readonly spec: Tau2DomainSpec,
    state: Tau2State,
  ) {
    this.domain = spec.name;
    this.state = state;
    this.dbType = spec.dbType;
    this.userDbType = spec.userDbType;
    spec.sync?.(this.state);
  }

  tools(): ToolSchema[] {
    return this.spec.toolkit.tools.map(toolSchema);
  }

  userTools(): ToolSchema[] {
    return this.spec.userToolkit?.tools.map(toolSchema) ?? [];
  }

  async call(call: ToolCall): Promise<ToolResult> {
    return this.callSync(call, "assistant");
  }

  private toolkitFor(requestor: Requestor): Toolkit<Tau2State> {
    if (requestor === "assistant") return this.spec.toolkit;
    if (!this.spec.userToolkit) throw new PyError("ValueError", "User tools not available");
    return this.spec.userToolkit;
  }

  isMutating(name: string, requestor: Requestor = "assistant"): boolean {
    const kit = requestor === "assistant" ? this.spec.toolkit : this.spec.userToolkit;
    const tool = kit?.tools.find((t) => t.name === name);
    return tool ? tool.mutates : false;
  }

  callSync(
    call: Pick<ToolCall, "name" | "arguments">,
    requestor: Requestor = "assistant",
    options: CallOptions = {},
  ): ToolResult {
    let kit: Toolkit<Tau2State>;
    try {
      kit = this.toolkitFor(requestor);
    } catch (e) {
      return { ok: false, error: toolError(e) };
    }
    const tool = kit.tools.find((t) => t.name === call.name);
    if (!tool) {
      return { ok: false, error: new EnvaceError("TOOL_NOT_AVAILABLE", `Tool '${call.name}' not found.`) };
    }
    const args: Args =
      call.arguments !== null && typeof call.arguments === "object" && !Array.isArray(call.arguments)
        ? call.arguments
        : {};
    try {
      // Tools check everything before their first change (see the domain files), so a refusal
      // leaves the state as it was.
      let out = tool.run(this.state, bindArgs(kit.className, tool, args));
      if (options.sync ?? true) this.spec.sync?.(this.state);
      // A tool returning a live model hands back a thunk: upstream serialises after the sync.
      if (typeof out === "function") out = (out as () => unknown)();
      return { ok: true, content: typeof out === "string" ? out : pyJsonDumps(out) };
    } catch (e) {
      return { ok: false, error: toolError(e) };
    }
  }

  dumpDb(): unknown {
    return toPlain(pyDump(this.state.db, this.dbType));
  }

  snapshot(): unknown {
    return this.dumpDb();
  }

  hash(): string {
    return sha256(pyDumpJson(this.state.db, this.dbType, true));
  }

  dumpUserDb(): unknown {
    if (!this.userDbType || !this.state.userDb) return null;
    return toPlain(pyDump(this.state.userDb, this.userDbType));
  }

  userHash(): string | null {
    if (!this.userDbType || !this.state.userDb) return null;
    return sha256(pyDumpJson(this.state.userDb, this.userDbType, true));
  }

  runEnvFunction(call: Tau2EnvFunctionCall): Tau2FunctionResult {
    try {
      const kit = call.env_type === "user" ? this.spec.userToolkit : this.spec.toolkit;
      if (!kit)
        throw new PyError("AttributeError", "'NoneType' object has no attribute '" + call.func_name + "'");
      const fn =
        kit.functions.find((f) => f.name === call.func_name) ??
        kit.tools.find((t) => t.name === call.func_name);
      if (!fn)
        throw new PyError("AttributeError", `'${kit.className}' object has no attribute '${call.func_name}'`);
      const value = fn.run(this.state, bindArgs(kit.className, fn, call.arguments ?? {}));
      this.spec.sync?.(this.state);
      return { ok: true, value };
    } catch (e) {
      return { ok: false, error: toolError(e) };
    }
  }

  runEnvAssertion(assertion: Tau2EnvFunctionCall & { assert_value?: boolean }): boolean {
    const r = this.runEnvFunction(assertion);
    if (!r.ok)
      throw new EnvaceError(
        "TOOL_EXECUTION_ERROR",
        `env assertion ${assertion.func_name}: ${r.error.message}`,
      );
    if (typeof r.value !== "boolean") {
      throw new EnvaceError(
        "TOOL_EXECUTION_ERROR",
        `Function ${assertion.func_name} returned a non-boolean value`,
      );
    }
    return r.value === (assertion.assert_value ?? true);
  }

  applyInitialState(initialState: Tau2InitialState): void {
    const data = initialState.initialization_data;
    // Upstream quirk kept: after `update_db` on one side, `set_state` points the other toolkit at
    // the same DB object, so e.g. the mock user DB becomes the agent DB (its hash included).
    if (data?.agent_data) {
      this.state.db = this.updated(this.state.db, this.dbType, data.agent_data, "agent_data");
      if (this.state.userDb) {
        this.state.userDb = this.state.db;
        this.userDbType = this.dbType;
      }
    }
    if (data?.user_data) {
      if (!this.userDbType || !this.state.userDb) {
        throw new EnvaceError(
          "INVALID_TASK_FILE",
          `initialization_data.user_data: domain ${this.domain} has no user DB`,
        );
      }
      this.state.userDb = this.updated(this.state.userDb, this.userDbType, data.user_data, "user_data");
      this.state.db = this.state.userDb;
      this.dbType = this.userDbType;
    }
    for (const action of initialState.initialization_actions ?? []) {
      const r = this.runEnvFunction(action);
      if (!r.ok)
        throw new EnvaceError(
          "INVALID_TASK_FILE",
          `initialization_actions ${action.func_name}: ${r.error.message}`,
        );
    }
    this.replayHistory(initialState.message_history ?? []);
    this.spec.sync?.(this.state);
  }

  /** Upstream `update_db`: merge the update into the dump, then validate it again. */
  private updated(
    db: Record<string, unknown>,
    type: PyModel,
    update: unknown,
    what: string,
  ): Record<string, unknown> {
    const merged = mergeUpdate(unwrapFloats(pyDump(db, type)), update);
    const r = pyValidate(merged, type);
    if (!r.ok) {
      const issue = r.issues[0]!;
      throw new EnvaceError(
        "INVALID_TASK_FILE",
        `initialization_data.${what}.${issue.loc.join(".")}: ${issue.msg}`,
      );
    }
    return r.value as Record<string, unknown>;
  }

  /** Replays the state-changing tool calls of a message history, checking their recorded results. */
  private replayHistory(messages: readonly Record<string, unknown>[]): void {
    let i = 0;
    while (i < messages.length) {
      const msg = messages[i++]!;
      if (msg.role === "tool")
        throw new EnvaceError("INVALID_TASK_FILE", "message_history: tool message without a tool call");
      const calls = Array.isArray(msg.tool_calls) ? (msg.tool_calls as Record<string, unknown>[]) : [];
      if (msg.role !== "assistant" && msg.role !== "user") continue;
      for (const tc of calls) {
        const tm = messages[i++];
        if (!tm || tm.role !== "tool" || tm.id !== tc.id) {
          throw new EnvaceError(
            "INVALID_TASK_FILE",
            `message_history: no tool message for call ${String(tc.id)}`,
          );
        }
        const requestor: Requestor = tc.requestor === "user" ? "user" : "assistant";
        const name = String(tc.name);
        if (!this.isMutating(name, requestor)) continue;
        const got = resultToString(
          this.callSync({ name, arguments: (tc.arguments ?? {}) as Args }, requestor),
        );
        if (!sameContent(got, String(tm.content ?? ""))) {
          throw new EnvaceError(
            "INVALID_TASK_FILE",
            `message_history: replayed ${name} returned ${got}, expected ${String(tm.content)}`,
          );
        }
      }
    }
  }
}

function unwrapFloats(tree: unknown): unknown {
  if (Array.isArray(tree)) return tree.map(unwrapFloats);
  if (tree instanceof Map) return new Map([...tree.entries()].map(([k, v]) => [k, unwrapFloats(v)]));
  return toPlain(tree);
}

/** Compares as upstream: JSON-decoded when both parse, else as strings. */
function sameContent(a: string, b: string): boolean {
  const parse = (s: string): unknown => {
    try {
      return JSON.parse(s) as unknown;
    } catch {
      return s;
    }
  };
  return canonicalJson(parse(a)) === canonicalJson(parse(b));
}
