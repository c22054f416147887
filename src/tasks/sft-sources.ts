import type { Message, ToolCall } from "../core/messages.js";
import type { Task } from "../core/task.js";
import { renderAssistantText } from "../core/tool-call-text.js";
import { deepEqual } from "../reward/deep-equal.js";
import { traceSteps } from "./trace-steps.js";

/** One recorded call with its real result and the context it was made in: a rehearse-role target. */
export interface RecordedCall {
  /** The conversation before the act message that made the call (system first, as in rollouts). */
  history: Message[];
  /** The act message as the policy would have written it. */
  rawActMessage: string;
  call: ToolCall;
  result: unknown;
}

/** What a task's recordings teach: whole conversations (act) and answered calls (rehearse). */
export interface TaskRecordings {
  /** Conversations whose assistant messages are act targets (system first). */
  conversations: Message[][];
  calls: RecordedCall[];
}

/**
 * A task's SFT material from its recordings. Traces give both roles, each call in the context it
 * was made in; `examples` that no trace already covers (an MCP recording has no conversation) are
 * rehearse targets with the first user turn as their context.
 */
export function taskRecordings(task: Task): TaskRecordings {
  const head: Message[] = task.system ? [{ role: "system", content: task.system }] : [];
  const conversations: Message[][] = [];
  const calls: RecordedCall[] = [];
  for (const trace of task.traces) {
    const { messages, calls: traced } = traceSteps(trace);
    const conversation = [...head, ...messages];
    if (messages.some((m) => m.role === "assistant")) conversations.push(conversation);
    for (const c of traced) {
      if (c.result === undefined) continue;
      const act = messages[c.at]!;
      calls.push({
        history: conversation.slice(0, head.length + c.at),
        rawActMessage: renderAssistantText(act.content, act.toolCalls ?? []),
        call: c.call,
        result: c.result,
      });
    }
  }
  const opening: Message[] = [...head, { role: "user", content: task.user_turns[0]! }];
  task.examples.forEach((ex, i) => {
    const covered = calls.some((c) => c.call.name === ex.name && deepEqual(c.call.arguments, ex.arguments));
    if (covered) return;
    const call = { id: `ex${i}`, name: ex.name, arguments: ex.arguments };
    calls.push({ history: opening, rawActMessage: renderAssistantText("", [call]), call, result: ex.result });
  });
  return { conversations, calls };
}
