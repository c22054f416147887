/**
 * One VitaBench conversation (upstream `Orchestrator.run`): the agent greets ("Hello, how can I help
 * you?"), then user, agent and environment take turns. Each step is one message passed on; the
 * episode ends when the user sends a stop token (user_stop), the agent's text contains
 * `###STOP###` (agent_stop), after `maxSteps` steps (max_steps), or when the agent produced three
 * empty replies in a row (invalid_agent_message). Upstream counts no tool errors towards
 * `max_errors`, so neither does this port.
 */
import type { VitaEnvironment } from "../../envs/vita/environment.js";
import { isAgentStop, isUserStop, type VitaAgent, type VitaUser } from "./agents.js";
import type { VitaMessage, VitaTask } from "./types.js";

export type VitaTermination = "user_stop" | "agent_stop" | "max_steps" | "invalid_agent_message";

export const GREETING = { en: "Hello, how can I help you?", zh: "你好，请问需要什么服务？" } as const;
export const DEFAULT_MAX_STEPS = 100;

export interface VitaEpisode {
  messages: VitaMessage[];
  termination: VitaTermination;
  steps: number;
  toolErrors: number;
  /** The strings returned to the agent by its tool calls, in order. */
  results: string[];
}

export async function runVitaEpisode(opts: {
  task: VitaTask;
  env: VitaEnvironment;
  agent: VitaAgent;
  user: VitaUser;
  lang: "en" | "zh";
  maxSteps?: number;
}): Promise<VitaEpisode> {
  const { task, env, lang } = opts;
  const maxSteps = opts.maxSteps ?? DEFAULT_MAX_STEPS;
  const agent = opts.agent.start(task, env.tools(), lang);
  const user = opts.user.start(task, lang);
  const messages: VitaMessage[] = [{ role: "assistant", content: GREETING[lang] }];
  const results: string[] = [];
  let toolErrors = 0;
  let steps = 0;
  let to: "user" | "agent" | "env" = "user";
  for (;;) {
    if (to === "user") {
      const text = await user.next(messages);
      messages.push({ role: "user", content: text });
      to = "agent";
      steps++;
      if (isUserStop(text)) return { messages, termination: "user_stop", steps, toolErrors, results };
    } else if (to === "agent") {
      let reply = null;
      for (let attempt = 0; attempt < 3 && reply === null; attempt++) {
        const r = await agent.next(messages);
        if ((r.content ?? "").trim() || r.toolCalls.length > 0) reply = r;
      }
      if (reply === null)
        return { messages, termination: "invalid_agent_message", steps, toolErrors, results };
      messages.push({
        role: "assistant",
        content: reply.content,
        ...(reply.toolCalls.length > 0 ? { toolCalls: reply.toolCalls } : {}),
      });
      steps++;
      if (isAgentStop(reply)) return { messages, termination: "agent_stop", steps, toolErrors, results };
      to = reply.toolCalls.length > 0 ? "env" : "user";
    } else {
      const last = messages[messages.length - 1] as VitaMessage;
      for (const call of last.toolCalls ?? []) {
        const r = env.callSync(call);
        const content = r.ok ? r.content : `Error: ${r.error.message}`;
        if (!r.ok) toolErrors++;
        results.push(content);
        messages.push({ role: "tool", content, toolCallId: call.id, error: !r.ok });
      }
      to = "agent";
      steps++;
    }
    if (steps >= maxSteps) return { messages, termination: "max_steps", steps, toolErrors, results };
  }
}
