/**
 * VitaBench's two conversation roles over any ChatModel, with upstream's prompts, plus the oracle
 * policies (`noop`, `replay:FILE`) and the scripted user they run with.
 *
 * As upstream: the agent's system prompt is `agent_system_prompt` with the task's frozen time and
 * weekday, and the agent does not see the opening greeting; the user simulator's system prompt is
 * `user_system_prompt` with `str(user_profile)` as persona and the task's instructions, and it sees
 * the conversation with roles flipped (the agent's text as "user", its own lines as "assistant").
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { EnvaceError } from "../../core/errors.js";
import type { Message } from "../../core/messages.js";
import type { ChatModel } from "../../core/model.js";
import type { ToolSchema } from "../../core/tools.js";
import { parseAssistantText } from "../../core/tool-call-text.js";
import { weekday } from "../../envs/vita/py-time.js";
import { pyStr } from "../../envs/vita/py-value.js";
import { VITA_PROMPTS } from "./prompts.js";
import { pyFormat } from "./rubric-judge.js";
import type { VitaMessage, VitaTask, VitaToolCall } from "./types.js";

export const STOP = "###STOP###";
const USER_STOPS = [STOP, "###TRANSFER###", "###OUT-OF-SCOPE###"];

export interface VitaReply {
  content: string | null;
  toolCalls: VitaToolCall[];
}

export interface VitaAgent {
  readonly name: string;
  start(
    task: VitaTask,
    tools: ToolSchema[],
    lang: "en" | "zh",
  ): { next(history: VitaMessage[]): Promise<VitaReply> };
}

export interface VitaUser {
  readonly name: string;
  start(task: VitaTask, lang: "en" | "zh"): { next(history: VitaMessage[]): Promise<string> };
}

export const isAgentStop = (m: VitaReply) => (m.content ?? "").includes(STOP);
export const isUserStop = (text: string) => USER_STOPS.some((s) => text.includes(s));

export function agentSystemPrompt(task: VitaTask, lang: "en" | "zh"): string {
  const time = task.environment_time ?? "";
  return pyFormat(VITA_PROMPTS.agentSystemPrompt[lang], {
    time: time ? `${time} ${weekday(time, lang)}` : "",
  });
}

export function userSystemPrompt(task: VitaTask, lang: "en" | "zh"): string {
  return pyFormat(VITA_PROMPTS.userSystemPrompt[lang], {
    persona: pyStr(task.user_profile),
    instructions: task.instructions,
  });
}

/** The agent's view: everything after the greeting (index 0), tool results as tool messages. */
export function agentView(history: VitaMessage[]): Message[] {
  return history.slice(1).map((m): Message => {
    if (m.role === "tool") return { role: "tool", content: m.content ?? "", toolCallId: m.toolCallId ?? "" };
    if (m.role === "assistant" && m.toolCalls && m.toolCalls.length > 0)
      return { role: "assistant", content: m.content ?? "", toolCalls: m.toolCalls };
    return { role: m.role, content: m.content ?? "" };
  });
}

/** The user's view: agent text as "user", own lines as "assistant"; tool traffic left out. */
export function userView(history: VitaMessage[]): Message[] {
  const out: Message[] = [];
  for (const m of history) {
    if (m.role === "user") out.push({ role: "assistant", content: m.content ?? "" });
    else if (m.role === "assistant" && !(m.toolCalls && m.toolCalls.length > 0))
      out.push({ role: "user", content: m.content ?? "" });
  }
  return out;
}

export class LLMVitaAgent implements VitaAgent {
  readonly name: string;
  constructor(
    private readonly model: ChatModel,
    private readonly temperature = 0,
  ) {
    this.name = `llm:${model.name}`;
  }
  start(task: VitaTask, tools: ToolSchema[], lang: "en" | "zh") {
    const system: Message = { role: "system", content: agentSystemPrompt(task, lang) };
    let turn = 0;
    return {
      next: async (history: VitaMessage[]): Promise<VitaReply> => {
        const out = await this.model.chat({
          messages: [system, ...agentView(history)],
          tools,
          temperature: this.temperature,
        });
        const sample = out.samples[0];
        const parsed = parseAssistantText(sample?.text ?? "", `t${turn++}_call`);
        const calls = sample?.toolCalls && sample.toolCalls.length > 0 ? sample.toolCalls : parsed.toolCalls;
        return { content: parsed.content || null, toolCalls: calls };
      },
    };
  }
}

export class LLMVitaUser implements VitaUser {
  readonly name: string;
  constructor(
    private readonly model: ChatModel,
    private readonly temperature = 0,
  ) {
    this.name = `llm:${model.name}`;
  }
  start(task: VitaTask, lang: "en" | "zh") {
    const system: Message = { role: "system", content: userSystemPrompt(task, lang) };
    return {
      next: async (history: VitaMessage[]): Promise<string> => {
        const out = await this.model.chat({
          messages: [system, ...userView(history)],
          temperature: this.temperature,
        });
        return out.samples[0]?.text ?? "";
      },
    };
  }
}

/** The user of oracle runs: states the instructions once, then ends the conversation. */
export function scriptedUser(): VitaUser {
  return {
    name: "scripted",
    start: (task) => {
      let said = false;
      return {
        next: async () => {
          if (said) return STOP;
          said = true;
          return task.instructions;
        },
      };
    },
  };
}

/** Ends every conversation at once (a floor: every rubric should end unmet). */
export function noopAgent(): VitaAgent {
  return { name: "noop", start: () => ({ next: async () => ({ content: STOP, toolCalls: [] }) }) };
}

const ReplayRowSchema = z.object({
  task_id: z.string(),
  actions: z.array(z.object({ name: z.string(), arguments: z.record(z.string(), z.unknown()).default({}) })),
});
export type VitaReplayRow = z.infer<typeof ReplayRowSchema>;

/** Reads a replay file: JSON Lines (or a JSON array) of `{task_id, actions: [{name, arguments}]}`. */
export function readReplayFile(path: string): Map<string, VitaReplayRow["actions"]> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new EnvaceError("INVALID_CONFIG", `cannot read replay file ${path}: ${(e as Error).message}`);
  }
  const trimmed = text.trim();
  const rows: unknown[] = trimmed.startsWith("[")
    ? (JSON.parse(trimmed) as unknown[])
    : trimmed
        .split("\n")
        .filter((l) => l.trim())
        .map((l, i) => {
          try {
            return JSON.parse(l) as unknown;
          } catch {
            throw new EnvaceError("INVALID_TASK_FILE", `${path}:${i + 1}: not JSON`);
          }
        });
  const out = new Map<string, VitaReplayRow["actions"]>();
  rows.forEach((row, i) => {
    const parsed = ReplayRowSchema.safeParse(row);
    if (!parsed.success)
      throw new EnvaceError(
        "INVALID_TASK_FILE",
        `${path}: row ${i + 1}: ${parsed.error.issues[0]?.path.join(".")} ${parsed.error.issues[0]?.message}`,
      );
    out.set(parsed.data.task_id, parsed.data.actions);
  });
  return out;
}

/** Replays each task's recorded calls, one per turn, then stops. Tasks without a row stop at once. */
export function replayAgent(rows: Map<string, VitaReplayRow["actions"]>): VitaAgent {
  return {
    name: "replay",
    start: (task) => {
      const actions = rows.get(task.id) ?? [];
      let i = 0;
      return {
        next: async () => {
          const a = actions[i];
          if (!a) return { content: STOP, toolCalls: [] };
          const id = `replay_${i++}`;
          return { content: null, toolCalls: [{ id, name: a.name, arguments: a.arguments }] };
        },
      };
    },
  };
}
