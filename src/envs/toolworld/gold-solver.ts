import { EnvaceError } from "../../core/errors.js";
import type { Message, ToolCall } from "../../core/messages.js";
import type { Task } from "../../core/task.js";
import { createToolworldEnv, toolworldResultValue, type ToolworldEnvironment } from "./environment.js";
import { domainIntents, type Intent } from "./intents.js";
import { domainSpec } from "./registry.js";
import { compileTemplate, matchTemplate } from "./template.js";
import type { DomainSpec, SolverContext } from "./types.js";

export interface GoldCall {
  call: ToolCall;
  ok: boolean;
  /** The parsed result, or `{error}` for a failed call. */
  result: unknown;
}

export interface GoldTurn {
  user: string;
  /** This turn's messages: the user message, then assistant/tool messages, then the final reply. */
  messages: Message[];
  calls: GoldCall[];
  reply: string;
}

export interface GoldRun {
  /** The whole conversation: system (when the task has one), then every turn's messages. */
  messages: Message[];
  turns: GoldTurn[];
  /** The environment after the run (state-based evaluation compares against `hash()`). */
  env: ToolworldEnvironment;
}

interface CompiledIntent {
  intent: Intent;
  patterns: RegExp[];
}

const compiled = new Map<string, CompiledIntent[]>();

function intentsOf(d: DomainSpec): CompiledIntent[] {
  let c = compiled.get(d.name);
  if (!c) {
    c = domainIntents(d).map((intent) => ({ intent, patterns: intent.templates.map(compileTemplate) }));
    compiled.set(d.name, c);
  }
  return c;
}

/** Reads a templated user turn back into its intent and slots; exactly one template must match. */
export function parseUserTurn(
  d: DomainSpec,
  text: string,
): { intent: Intent; slots: Record<string, string> } {
  const hits: { intent: Intent; slots: Record<string, string> }[] = [];
  for (const { intent, patterns } of intentsOf(d)) {
    for (const re of patterns) {
      const slots = matchTemplate(re, text);
      if (slots) hits.push({ intent, slots });
    }
  }
  if (hits.length !== 1) {
    throw new EnvaceError(
      "INVALID_TASK_FILE",
      `${d.name}: user turn matches ${hits.length} templates: "${text}"`,
    );
  }
  return hits[0] as { intent: Intent; slots: Record<string, string> };
}

/**
 * One user turn's recorder: a solver context whose `call` runs each call in the real environment
 * and records it (the call, its parsed result, and the assistant/tool messages) in `calls` and
 * `messages`, which start with the user message. Shared by the gold solver and the past agent, so
 * both log a turn the same way.
 */
export function turnRecorder(
  env: ToolworldEnvironment,
  turn: number,
  user: string,
  known: Map<string, string>,
  lastId: string | undefined,
): { ctx: SolverContext; calls: GoldCall[]; messages: Message[] } {
  const messages: Message[] = [{ role: "user", content: user }];
  const calls: GoldCall[] = [];
  const ctx: SolverContext = {
    known,
    ...(lastId !== undefined ? { lastId } : {}),
    call(name, args) {
      const call: ToolCall = { id: `call_${turn}_${calls.length}`, name, arguments: args };
      const result = env.callSync(call);
      const value = toolworldResultValue(result);
      calls.push({ call, ok: result.ok, result: value });
      messages.push({ role: "assistant", content: "", toolCalls: [call] });
      messages.push({ role: "tool", content: JSON.stringify(value), toolCallId: call.id, name });
      return result.ok
        ? { ok: true, value: value as Record<string, unknown> }
        : { ok: false, error: result.error.message };
    },
  };
  return { ctx, calls, messages };
}

/**
 * The scripted solver: reads each user turn, calls tools one at a time in the real environment, and
 * decides from the real results what to do next and what to reply. Its run is the task's gold
 * trajectory (SFT data) and its calls are the task's `examples`.
 */
export function goldSolve(task: Task, env: ToolworldEnvironment = createToolworldEnv(task)): GoldRun {
  const d = domainSpec(env.domain);
  const messages: Message[] = task.system ? [{ role: "system", content: task.system }] : [];
  const turns: GoldTurn[] = [];
  const known = new Map<string, string>();
  let lastId: string | undefined;
  task.user_turns.forEach((user, t) => {
    const { ctx, calls, messages: turnMessages } = turnRecorder(env, t, user, known, lastId);
    const { intent, slots } = parseUserTurn(d, user);
    const reply = intent.solve(slots, ctx);
    if (slots.id !== undefined) lastId = slots.id;
    turnMessages.push({ role: "assistant", content: reply });
    messages.push(...turnMessages);
    turns.push({ user, messages: turnMessages, calls, reply });
  });
  return { messages, turns, env };
}
