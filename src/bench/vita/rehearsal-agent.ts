/**
 * The VitaBench LLM agent with test-time rehearsal (src/testtime/): when the user has just spoken
 * (scope `turn`) or before every step (scope `action`) the policy privately rehearses from its own
 * view of the conversation — it acts and plays the tools itself; an attempt ends when it would
 * reply to the user — then answers with the rehearsal memory in its system message. The agent
 * session only ever sees the history (no environment, no user), so a rehearsal cannot reach a real
 * tool or the user simulator.
 */
import type { ChatModel } from "../../core/model.js";
import type { Message } from "../../core/messages.js";
import type { ToolSchema } from "../../core/tools.js";
import { parseAssistantText } from "../../core/tool-call-text.js";
import { committedActor } from "../../testtime/commit-guard.js";
import { liveTask } from "../../testtime/live-task.js";
import { withMemory } from "../../testtime/memory-view.js";
import { rehearse } from "../../testtime/rehearse.js";
import { emptyRehearsalStats, type RehearsalOptions, type RehearsalStats } from "../../testtime/types.js";
import { agentSystemPrompt, agentView, type VitaAgent, type VitaReply } from "./agents.js";
import type { VitaMessage, VitaTask } from "./types.js";

export interface VitaRehearsalSession {
  taskId: string;
  stats: RehearsalStats;
}

export class RehearsingVitaAgent implements VitaAgent {
  readonly name: string;
  readonly sessions: VitaRehearsalSession[] = [];

  constructor(
    private readonly model: ChatModel,
    private readonly rehearsal: RehearsalOptions,
    private readonly temperature = 0,
  ) {
    this.name = `llm:${model.name}+rehearsal:${rehearsal.mode}${rehearsal.mode === "none" ? "" : `:${rehearsal.n ?? 1}`}`;
  }

  start(task: VitaTask, tools: ToolSchema[], lang: "en" | "zh") {
    const system = agentSystemPrompt(task, lang);
    const live = liveTask({ tools, system, id: task.id, domain: `vita:${task.domain}` });
    const session: VitaRehearsalSession = { taskId: task.id, stats: emptyRehearsalStats(this.rehearsal) };
    this.sessions.push(session);
    const scope = this.rehearsal.scope ?? "turn";
    const commit = committedActor(this.model, this.rehearsal, session.stats);
    let userTurn = -1;
    let turn = 0;
    return {
      next: async (history: VitaMessage[]): Promise<VitaReply> => {
        const view: Message[] = [{ role: "system", content: system }, ...agentView(history)];
        const fromUser = view[view.length - 1]?.role === "user";
        if (fromUser) userTurn++;
        if (
          this.rehearsal.mode !== "none" &&
          (scope === "action" || fromUser || commit.note() === undefined)
        ) {
          const r = await rehearse({
            policy: this.model,
            task: live,
            conversation: view,
            turn: Math.max(0, userTurn),
            options: this.rehearsal,
            stats: session.stats,
          });
          commit.observe(r);
        }
        const out = await commit.actor.chat({
          messages: withMemory(view, commit.note()),
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
