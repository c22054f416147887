import { readFileSync } from "node:fs";
import { EnvaceError } from "../../core/errors.js";
import type { ToolCall } from "../../core/messages.js";
import type { ChatModel, ChatRequest, ChatResult } from "../../core/model.js";
import type { Task } from "../../core/task.js";
import { renderAssistantText } from "../../core/tool-call-text.js";
import { lookupExample } from "../../rollout/example-cache.js";
import { isRehearsalRequest, readRehearsalCall } from "../../rollout/rehearsal-prompt.js";
import { taskRecordings } from "../../tasks/sft-sources.js";
import { traceSteps } from "../../tasks/trace-steps.js";

const reply = (text: string): ChatResult => ({ samples: [{ text, finishReason: "stop" }] });
const stepOf = (r: ChatRequest) => r.messages.filter((m) => m.role === "assistant").length;

/**
 * An oracle that plays a fixed list of assistant messages (the k-th after k assistant messages,
 * then a closing reply) and answers rehearse requests with the task's recorded results, so it
 * works in a real environment and with `--env none` alike.
 */
function scriptedOracle(name: string, task: Task, steps: string[]): ChatModel {
  // Rehearse answers: the task's examples and every traced call's recorded result.
  const recorded = taskRecordings(task).calls.map((c) => ({
    name: c.call.name,
    arguments: c.call.arguments,
    result: c.result,
  }));
  const known: Task = { ...task, examples: [...task.examples, ...recorded] };
  return {
    name,
    async chat(request: ChatRequest): Promise<ChatResult> {
      if (isRehearsalRequest(request.messages)) {
        const call = readRehearsalCall(request.messages[1]?.content ?? "");
        const found = call ? lookupExample(known, { id: "", ...call }) : undefined;
        return reply(`<execution_result>\n${found ?? '{"ok": true}'}\n</execution_result>`);
      }
      return reply(steps[stepOf(request)] ?? "Done.");
    },
  };
}

const callsText = (calls: Array<Pick<ToolCall, "name" | "arguments">>) =>
  calls.map((c, i) => renderAssistantText("", [{ id: `r${i}`, ...c }]));

/**
 * Gold for a task file: its first trace's assistant messages as recorded, or, without a trace,
 * its recorded calls (`examples`) one per message, then a reply.
 */
export function goldTaskModel(task: Task): ChatModel {
  const trace = task.traces[0];
  if (trace) {
    const steps = traceSteps(trace)
      .messages.filter((m) => m.role === "assistant")
      .map((m) => renderAssistantText(m.content, m.toolCalls ?? []));
    return scriptedOracle("gold", task, steps);
  }
  return scriptedOracle("gold", task, callsText(task.examples));
}

/** Rows `{task_id, actions: [{name, arguments}]}` (JSONL): each task's actions replayed in order. */
export function replayModels(path: string): (task: Task) => ChatModel {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new EnvaceError("INVALID_CONFIG", `--policy replay: cannot read ${path}: ${(e as Error).message}`);
  }
  const byTask = new Map<string, Array<Pick<ToolCall, "name" | "arguments">>>();
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === "") return;
    let row: { task_id?: unknown; actions?: unknown };
    try {
      row = JSON.parse(line) as typeof row;
    } catch (e) {
      throw new EnvaceError("INVALID_CONFIG", `${path}:${i + 1}: not valid JSON: ${(e as Error).message}`);
    }
    const actions = row.actions;
    const ok =
      typeof row.task_id === "string" &&
      Array.isArray(actions) &&
      actions.every(
        (a: unknown) =>
          typeof a === "object" &&
          a !== null &&
          typeof (a as { name?: unknown }).name === "string" &&
          typeof (a as { arguments?: unknown }).arguments === "object",
      );
    if (!ok)
      throw new EnvaceError(
        "INVALID_CONFIG",
        `${path}:${i + 1}: expected {task_id, actions: [{name, arguments}]}`,
      );
    byTask.set(row.task_id as string, actions as Array<Pick<ToolCall, "name" | "arguments">>);
  });
  return (task) => scriptedOracle("replay", task, callsText(byTask.get(task.id) ?? []));
}

/** Never calls a tool. */
export function noopTaskModel(task: Task): ChatModel {
  return scriptedOracle("noop", task, ["Sorry, I cannot help with that."]);
}
