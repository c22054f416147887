import type { ChatModel, ChatRequest, ChatResult } from "../../core/model.js";
import type { Task } from "../../core/task.js";
import { renderAssistantText } from "../../core/tool-call-text.js";
import { goldSolve } from "../../envs/toolworld/index.js";
import { lookupExample } from "../../rollout/example-cache.js";
import { isRehearsalRequest, readRehearsalCall } from "../../rollout/rehearsal-prompt.js";

function reply(text: string): ChatResult {
  return { samples: [{ text, finishReason: "stop" }] };
}

/** How many assistant messages the conversation already has: the gold step to play next. */
const stepOf = (request: ChatRequest) => request.messages.filter((m) => m.role === "assistant").length;

/**
 * The gold solver as a policy: act calls replay the gold conversation step by step (its k-th
 * assistant message after k assistant messages); rehearse calls answer with the gold run's real
 * result for that call (the task's examples). A sanity check for the bench and for rehearsal.
 */
export function goldChatModel(task: Task): ChatModel {
  const gold = goldSolve(task);
  const steps = gold.messages.filter((m) => m.role === "assistant");
  const examples = {
    ...task,
    examples: gold.turns.flatMap((t) =>
      t.calls.map((c) => ({ name: c.call.name, arguments: c.call.arguments, result: c.result })),
    ),
  };
  return {
    name: "gold",
    async chat(request: ChatRequest): Promise<ChatResult> {
      if (isRehearsalRequest(request.messages)) {
        const call = readRehearsalCall(request.messages[1]?.content ?? "");
        const found = call ? lookupExample(examples, { id: "", ...call }) : undefined;
        return reply(`<execution_result>\n${found ?? '{"ok": true}'}\n</execution_result>`);
      }
      const m = steps[stepOf(request)];
      return reply(m ? renderAssistantText(m.content, m.toolCalls ?? []) : "");
    },
  };
}

/** Never calls a tool; always says it cannot help. */
export function noopChatModel(): ChatModel {
  return {
    name: "noop",
    async chat(request: ChatRequest): Promise<ChatResult> {
      return reply(
        isRehearsalRequest(request.messages)
          ? '<execution_result>\n{"ok": true}\n</execution_result>'
          : "Sorry, I cannot help with that.",
      );
    },
  };
}
