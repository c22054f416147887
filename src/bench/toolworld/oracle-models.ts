import type { ChatModel, ChatRequest, ChatResult } from "../../core/model.js";
import type { Task } from "../../core/task.js";
import { renderAssistantText } from "../../core/tool-call-text.js";
import { goldSolve } from "../../envs/toolworld/index.js";
import { lookupExample } from "../../rollout/example-cache.js";
import { isRehearsalRequest } from "../../rollout/rehearsal-prompt.js";

function reply(text: string): ChatResult {
  return { samples: [{ text, finishReason: "stop" }] };
}

/** The call a rehearsal prompt asks about (full or compact variant). */
export function currentCall(user: string): { name: string; arguments: Record<string, unknown> } | undefined {
  const m = fullPromptCall(user) ?? /^(\S+) (.*) ->$/.exec(user.split("\n").pop() ?? "")?.slice(1, 3);
  if (!m) return undefined;
  try {
    return { name: m[0]!, arguments: JSON.parse(m[1]!) as Record<string, unknown> };
  } catch {
    return undefined;
  }
}

/** The full (reference) prompt's current call: its name line and the JSON after the arguments label. */
function fullPromptCall(user: string): [string, string] | undefined {
  const at = user.lastIndexOf("Current tool to simulate:\n- name: ");
  if (at < 0) return undefined;
  const rest = user.slice(at + "Current tool to simulate:\n- name: ".length);
  const name = rest.slice(0, rest.indexOf("\n"));
  const label = "- arguments (JSON, parsed from caller's tool_call):\n";
  const argsAt = rest.indexOf(label);
  if (argsAt < 0) return undefined;
  let args = rest.slice(argsAt + label.length);
  if (args.endsWith("\n\n/think")) args = args.slice(0, -"\n\n/think".length);
  return [name, args];
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
        const call = currentCall(request.messages[1]?.content ?? "");
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
