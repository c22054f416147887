import { readFileSync } from "node:fs";
import { z } from "zod";
import { EnvaceError } from "../../core/errors.js";
import type { Tau2Agent, Tau2AgentReply } from "./agent.js";
import type { Tau2Action } from "./types.js";

/**
 * Oracle policies for testing harnesses; they need no model. Each emits one tool call per turn
 * (upstream agents "cannot do both"), then one closing reply.
 */
function scriptedAgent(
  name: string,
  actionsFor: (taskId: string) => readonly Tau2Action[],
  closing: (infos: string[]) => string,
): Tau2Agent {
  return {
    name,
    start(ctx) {
      const queue = actionsFor(ctx.task.id).filter((a) => (a.requestor ?? "assistant") === "assistant");
      const infos = ctx.task.evaluation_criteria?.communicate_info ?? [];
      let i = 0;
      return {
        next: async (): Promise<Tau2AgentReply> => {
          const a = queue[i];
          if (a) {
            i++;
            return {
              content: "",
              toolCalls: [{ id: `${name}_${i}`, name: a.name, arguments: structuredClone(a.arguments) }],
            };
          }
          i++;
          return {
            content: i === queue.length + 1 ? closing(infos) : "Is there anything else I can help you with?",
            toolCalls: [],
          };
        },
      };
    },
  };
}

/** Replays the task's gold actions, then states every `communicate_info` string in its reply. */
export function goldAgent(): Tau2Agent {
  return {
    name: "gold",
    start(ctx) {
      const actions = ctx.task.evaluation_criteria?.actions ?? [];
      return scriptedAgent("gold", () => actions, goldClosing).start(ctx);
    },
  };
}

function goldClosing(infos: string[]): string {
  return infos.length > 0
    ? `Done. For your information: ${infos.join("; ")}.`
    : "Done. Your request has been handled.";
}

/** Answers without ever calling a tool. */
export function noopAgent(): Tau2Agent {
  return scriptedAgent(
    "noop",
    () => [],
    () => "I'm sorry, but I can't help with that.",
  );
}

const ReplayLineZ = z.object({
  task_id: z.union([z.string(), z.number()]).transform(String),
  actions: z.array(z.object({ name: z.string(), arguments: z.record(z.string(), z.unknown()).default({}) })),
});

/** Reads a replay file: JSONL of `{task_id, actions: [{name, arguments}]}`. */
export function readReplayFile(path: string): Map<string, Tau2Action[]> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new EnvaceError("INVALID_CONFIG", `cannot read replay file ${path}: ${(e as Error).message}`);
  }
  const byTask = new Map<string, Tau2Action[]>();
  text.split("\n").forEach((line, n) => {
    if (line.trim() === "") return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw new EnvaceError("INVALID_DATA_FILE", `${path}:${n + 1}: not valid JSON`);
    }
    const parsed = ReplayLineZ.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new EnvaceError(
        "INVALID_DATA_FILE",
        `${path}:${n + 1}: field ${issue?.path.join(".") || "(root)"}: ${issue?.message}`,
      );
    }
    byTask.set(parsed.data.task_id, parsed.data.actions);
  });
  return byTask;
}

/** Replays exactly the calls a replay file lists for the task (none for a task it does not list). */
export function replayAgent(actionsByTask: Map<string, Tau2Action[]>): Tau2Agent {
  return scriptedAgent(
    "replay",
    (id) => actionsByTask.get(id) ?? [],
    () => "Done.",
  );
}
