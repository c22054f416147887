import { EnvaceError } from "../core/errors.js";
import type { Example, Task, TraceMessage } from "../core/task.js";
import { TaskZ } from "../core/task.js";
import type { ToolSchema } from "../core/tools.js";
import { inferTools } from "./infer-tools.js";

/** Where imported tasks' parts came from, so the command can say what the user still has to add. */
export interface ImportResult {
  tasks: Task[];
  /** Tasks whose tools were inferred from the recorded calls (no schema in the log or --tools). */
  inferredTools: string[];
  /** Tasks with a placeholder user turn (the log had none). */
  placeholderTurns: string[];
}

export interface ImportOptions {
  domain: string;
  /** Task ids are `<idPrefix>-<n>`. */
  idPrefix: string;
  /** Tool schemas to use instead of the log's (e.g. `envace mcp tools --json`). */
  tools?: ToolSchema[];
  /** The real environment to attach to every task (e.g. the MCP server the log was recorded on). */
  env?: Task["env"];
}

export const PLACEHOLDER_TURN = "TODO: what the user asked for in this session";

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** A recorded text result: JSON objects and arrays are kept as values, anything else as text. */
function resultValue(text: string): unknown {
  const t = text.trim();
  if (t.startsWith("{") || t.startsWith("[")) {
    try {
      return JSON.parse(t) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

/** OpenAI content: a string, null, or an array of parts whose text parts are joined. */
function contentText(c: unknown): string {
  if (typeof c === "string") return c;
  if (Array.isArray(c)) {
    return c.map((p) => (isObj(p) && typeof p.text === "string" ? p.text : "")).join("");
  }
  return "";
}

function bad(where: string, msg: string): never {
  throw new EnvaceError("INVALID_TASK_FILE", `${where}: ${msg}`);
}

/** OpenAI tool definitions (`{type: "function", function: {...}}`) or envace's flat shape. */
function toolsOf(raw: unknown, where: string): ToolSchema[] | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) bad(where, "tools must be an array");
  return raw.map((t, i) => {
    const f = isObj(t) && isObj(t.function) ? t.function : t;
    if (!isObj(f) || typeof f.name !== "string") bad(where, `tools.${i} has no name`);
    return {
      name: f.name,
      description: typeof f.description === "string" ? f.description : "",
      parameters: isObj(f.parameters) ? f.parameters : { type: "object", properties: {} },
    };
  });
}

/** One OpenAI assistant `tool_calls` entry as a trace call (arguments parsed from their JSON text). */
function traceCall(c: unknown, where: string) {
  const f = isObj(c) && isObj(c.function) ? c.function : undefined;
  if (!f || typeof f.name !== "string") bad(where, "a tool call has no function.name");
  let args: unknown = f.arguments;
  if (typeof args === "string") {
    try {
      args = args.trim() === "" ? {} : JSON.parse(args);
    } catch {
      bad(where, `tool call ${f.name}: arguments are not JSON`);
    }
  }
  if (!isObj(args)) bad(where, `tool call ${f.name}: arguments are not a JSON object`);
  return {
    ...(typeof (c as Json).id === "string" ? { id: (c as Json).id as string } : {}),
    name: f.name,
    arguments: args,
  };
}

/**
 * OpenAI chat-completion transcripts (JSONL, one session a line: `{messages, tools?}`) as tasks:
 * the system message becomes `system`, user messages the scripted `user_turns`, every call paired
 * with its tool result an `example`, and the conversation itself a `trace` (SFT for both roles).
 */
export function importOpenAITranscripts(text: string, source: string, opts: ImportOptions): ImportResult {
  const out: ImportResult = { tasks: [], inferredTools: [], placeholderTurns: [] };
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === "") return;
    const where = `${source}:${i + 1}`;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (e) {
      bad(where, `not valid JSON: ${(e as Error).message}`);
    }
    row = asSession(row);
    if (!isObj(row) || !Array.isArray(row.messages)) {
      bad(
        where,
        "expected {messages, tools?} or a logged {request: {messages, tools?}, response: {choices}}",
      );
    }
    const id = `${opts.idPrefix}-${String(out.tasks.length + 1).padStart(4, "0")}`;
    const system: string[] = [];
    const trace: TraceMessage[] = [];
    for (const [k, m] of row.messages.entries()) {
      if (!isObj(m) || typeof m.role !== "string") bad(where, `messages.${k} has no role`);
      const content = contentText(m.content);
      if (m.role === "system" || m.role === "developer") system.push(content);
      else if (m.role === "user") trace.push({ role: "user", content });
      else if (m.role === "assistant") {
        const calls = Array.isArray(m.tool_calls)
          ? m.tool_calls.map((c) => traceCall(c, `${where} messages.${k}`))
          : [];
        trace.push({ role: "assistant", content, ...(calls.length ? { tool_calls: calls } : {}) });
      } else if (m.role === "tool") {
        trace.push({
          role: "tool",
          content,
          ...(typeof m.tool_call_id === "string" ? { tool_call_id: m.tool_call_id } : {}),
        });
      } else bad(where, `messages.${k}: unknown role "${m.role}"`);
    }
    const examples = pairExamples(trace);
    const userTurns = trace.filter((m) => m.role === "user").map((m) => m.content);
    if (userTurns.length === 0) out.placeholderTurns.push(id);
    let tools = opts.tools ?? toolsOf(row.tools, where);
    if (!tools) {
      tools = inferTools(trace.flatMap((m) => m.tool_calls ?? []));
      out.inferredTools.push(id);
    }
    out.tasks.push(
      TaskZ.parse({
        id,
        domain: opts.domain,
        system: system.join("\n\n"),
        tools,
        user_turns: userTurns.length > 0 ? userTurns : [PLACEHOLDER_TURN],
        examples,
        traces: trace.length > 0 ? [{ messages: trace }] : [],
        ...(opts.env ? { env: opts.env } : {}),
      }),
    );
  });
  return out;
}

/**
 * A logged request/response pair (`{request: {messages, tools}, response: {choices: [{message}]}}`,
 * as proxies and batch outputs write them) as one session: the request's messages followed by the
 * response's first choice. Anything else is returned as it is.
 */
function asSession(row: unknown): unknown {
  if (!isObj(row) || Array.isArray(row.messages) || !isObj(row.request)) return row;
  const req = row.request;
  if (!Array.isArray(req.messages)) return row;
  const body = isObj(row.response) && isObj(row.response.body) ? row.response.body : row.response;
  const choice = isObj(body) && Array.isArray(body.choices) ? (body.choices[0] as unknown) : undefined;
  const message = isObj(choice) && isObj(choice.message) ? [choice.message] : [];
  return {
    messages: [...(req.messages as unknown[]), ...message],
    ...(req.tools ? { tools: req.tools } : {}),
  };
}

/** Calls paired with their tool messages (by id, else in order), as examples. */
function pairExamples(trace: TraceMessage[]): Example[] {
  const pending: Array<{ id?: string; name: string; arguments: Record<string, unknown> }> = [];
  const examples: Example[] = [];
  for (const m of trace) {
    if (m.role === "assistant") pending.push(...(m.tool_calls ?? []));
    if (m.role !== "tool") continue;
    const k = m.tool_call_id !== undefined ? pending.findIndex((c) => c.id === m.tool_call_id) : 0;
    const call = k >= 0 ? pending.splice(k, 1)[0] : undefined;
    if (call) examples.push({ name: call.name, arguments: call.arguments, result: resultValue(m.content) });
  }
  return examples;
}

/**
 * An MCP recording (`recordingEnvironment`'s JSONL of `{name, arguments, result}`) as one task
 * whose examples are the recorded calls. A recording has no conversation, so the task gets the
 * given user turns or a placeholder, and no trace.
 */
export function importMcpRecording(
  text: string,
  source: string,
  opts: ImportOptions & { userTurns?: string[] },
): ImportResult {
  const examples: Example[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === "") return;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (e) {
      bad(`${source}:${i + 1}`, `not valid JSON: ${(e as Error).message}`);
    }
    if (!isObj(row) || typeof row.name !== "string" || !isObj(row.arguments) || !("result" in row)) {
      bad(`${source}:${i + 1}`, "expected a recorded call {name, arguments, result}");
    }
    examples.push({ name: row.name, arguments: row.arguments, result: row.result });
  });
  const id = `${opts.idPrefix}-0001`;
  const turns = opts.userTurns?.length ? opts.userTurns : undefined;
  const tools = opts.tools ?? inferTools(examples);
  const task = TaskZ.parse({
    id,
    domain: opts.domain,
    tools,
    user_turns: turns ?? [PLACEHOLDER_TURN],
    examples,
    ...(opts.env ? { env: opts.env } : {}),
  });
  return { tasks: [task], inferredTools: opts.tools ? [] : [id], placeholderTurns: turns ? [] : [id] };
}
