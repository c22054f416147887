import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Message, ToolCall } from "../../core/messages.js";
import type { ChatModel } from "../../core/model.js";
import type { ToolSchema } from "../../core/tools.js";
import { EnvaceError } from "../../core/errors.js";
import { parseAssistantText } from "../../core/tool-call-text.js";
import { scenarioOpening, scenarioText } from "./scenario-text.js";
import type { Tau2Message, Tau2TaskView } from "./types.js";

/** Upstream's user stop tokens (user_simulator_base.py). */
export const USER_STOP_TOKENS = ["###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###"] as const;

export function isUserStop(content: string): boolean {
  return USER_STOP_TOKENS.some((t) => content.includes(t));
}

export interface Tau2UserContext {
  task: Tau2TaskView;
  /** User-side tools of the domain (mock's inbox), when it has any. */
  tools?: ToolSchema[];
}

export interface Tau2UserReply {
  content: string;
  toolCalls?: ToolCall[];
}

export interface Tau2UserSession {
  next(history: readonly Tau2Message[]): Promise<Tau2UserReply>;
}

export interface Tau2UserSimulator {
  readonly name: string;
  start(ctx: Tau2UserContext): Tau2UserSession;
}

/**
 * The conversation from the user simulator's side (upstream `UserState.flip_roles`): its own
 * messages become `assistant`, the agent's replies become `user`, and only its own tool results
 * are kept; the agent's tool traffic is invisible to it.
 */
export function userView(history: readonly Tau2Message[]): Message[] {
  const out: Message[] = [];
  for (const m of history) {
    if (m.role === "user") {
      out.push(
        m.toolCalls && m.toolCalls.length > 0
          ? { role: "assistant", content: m.content, toolCalls: m.toolCalls }
          : { role: "assistant", content: m.content },
      );
    } else if (m.role === "assistant" && !(m.toolCalls && m.toolCalls.length > 0) && m.content.length > 0) {
      out.push({ role: "user", content: m.content });
    } else if (m.role === "tool" && m.requestor === "user") {
      out.push({ role: "tool", content: m.content, toolCallId: m.toolCallId ?? "" });
    }
  }
  return out;
}

/** Upstream's user system prompt: the global guidelines, then the task's scenario. */
export function userSystemPrompt(guidelines: string, scenario: unknown): string {
  return `${guidelines.replace("<PERSONA_GUIDELINES>", "")}\n\n<scenario>\n${scenarioText(scenario)}\n</scenario>`;
}

/** Reads `simulation_guidelines.md` (or the `_tools` variant) from τ²'s `user_simulator/` folder. */
export function readUserGuidelines(dir: string, withTools: boolean): string {
  const file = join(dir, withTools ? "simulation_guidelines_tools.md" : "simulation_guidelines.md");
  try {
    return readFileSync(file, "utf8");
  } catch (e) {
    throw new EnvaceError(
      "INVALID_DATA_FILE",
      `cannot read user simulator guidelines ${file}: ${(e as Error).message}`,
    );
  }
}

export interface LLMUserSimulatorOptions {
  /** τ²'s `user_simulator/` folder holding the guidelines. */
  guidelinesDir: string;
  temperature?: number;
}

/** The user simulator: an OpenAI-compatible model prompted with τ²'s guidelines and the scenario. */
export class LLMUserSimulator implements Tau2UserSimulator {
  readonly name: string;
  private readonly guidelines = new Map<boolean, string>();
  constructor(
    private readonly model: ChatModel,
    private readonly opts: LLMUserSimulatorOptions,
  ) {
    this.name = `llm:${model.name}`;
  }

  private guidelinesFor(withTools: boolean): string {
    let g = this.guidelines.get(withTools);
    if (g === undefined) {
      g = readUserGuidelines(this.opts.guidelinesDir, withTools);
      this.guidelines.set(withTools, g);
    }
    return g;
  }

  start(ctx: Tau2UserContext): Tau2UserSession {
    const tools = ctx.tools && ctx.tools.length > 0 ? ctx.tools : undefined;
    const system: Message = {
      role: "system",
      content: userSystemPrompt(this.guidelinesFor(tools !== undefined), ctx.task.user_scenario),
    };
    let turn = 0;
    return {
      next: async (history) => {
        const result = await this.model.chat({
          messages: [system, ...userView(history)],
          ...(tools ? { tools } : {}),
          temperature: this.opts.temperature ?? 0,
        });
        const sample = result.samples[0];
        const parsed = parseAssistantText(sample?.text ?? "", `u${turn++}_call`);
        const toolCalls =
          sample?.toolCalls && sample.toolCalls.length > 0 ? sample.toolCalls : parsed.toolCalls;
        return toolCalls.length > 0 ? { content: parsed.content, toolCalls } : { content: parsed.content };
      },
    };
  }
}

/**
 * A user for oracle runs without a user endpoint: opens with the scenario's reason for calling,
 * then stops at its next turn.
 */
export function scriptedUser(): Tau2UserSimulator {
  return {
    name: "scripted",
    start(ctx) {
      let turn = 0;
      return {
        next: async () => ({
          content: turn++ === 0 ? scenarioOpening(ctx.task.user_scenario) : "Thank you. ###STOP###",
        }),
      };
    },
  };
}
