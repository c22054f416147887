import { readFileSync } from "node:fs";
import { z } from "zod";
import { EnvaceError } from "../../core/errors.js";
import type { Tau2Agent, Tau2AgentReply } from "./agent.js";
import { initialHistory } from "./initial-history.js";
import { scenarioOpening } from "./scenario-text.js";
import type { Tau2UserSimulator } from "./user-simulator.js";
import type { Tau2Action, Tau2Message, Tau2TaskView } from "./types.js";

/**
 * Oracle policies for testing harnesses; they need no model. Each side emits one tool call per
 * turn (upstream agents "cannot do both"). An oracle *pair* plays a task's action list in order
 * with each action's requestor: the agent makes the assistant's calls, the oracle user the user's
 * (upstream replays gold actions with the requestor's toolkit, so gold is only reachable when the
 * user side acts too, as in telecom's dual control). Both find their place in the list by counting
 * the calls already in the conversation, so concurrent trials of one task never share state.
 */

const requestorOf = (a: Tau2Action) => a.requestor ?? "assistant";

/** Tool calls the conversation made after the task's initial history (by both sides, or one). */
function callsSince(history: readonly Tau2Message[], start: number, role?: "assistant" | "user"): number {
  let n = 0;
  for (const m of history.slice(start)) {
    if ((m.role === "assistant" || m.role === "user") && (!role || m.role === role))
      n += m.toolCalls?.length ?? 0;
  }
  return n;
}

const callOf = (name: string, i: number, a: Tau2Action) => ({
  id: `${name}_${i}`,
  name: a.name,
  arguments: structuredClone(a.arguments),
});

interface Script {
  name: string;
  actionsFor: (task: Tau2TaskView) => readonly Tau2Action[];
  closing: (infos: string[]) => string;
}

/**
 * The agent side. With `paired`, the action list is shared with an oracle user and the agent hands
 * the turn over when the next action is the user's; alone, it plays only the assistant's actions.
 */
function scriptedAgent(script: Script, paired: boolean): Tau2Agent {
  return {
    name: script.name,
    start(ctx) {
      const all = script.actionsFor(ctx.task);
      const actions = paired ? all : all.filter((a) => requestorOf(a) === "assistant");
      const start = initialHistory(ctx.task).length;
      const infos = ctx.task.evaluation_criteria?.communicate_info ?? [];
      let closed = false;
      return {
        next: async (history): Promise<Tau2AgentReply> => {
          const i = callsSince(history, start, paired ? undefined : "assistant");
          const a = actions[i];
          if (a && requestorOf(a) === "assistant")
            return { content: "", toolCalls: [callOf(script.name, i + 1, a)] };
          if (a) return { content: `Please do this on your side: ${a.name}.`, toolCalls: [] };
          if (closed) return { content: "Is there anything else I can help you with?", toolCalls: [] };
          closed = true;
          return { content: script.closing(infos), toolCalls: [] };
        },
      };
    },
  };
}

/**
 * The user side of an oracle pair: opens with the scenario's reason for calling, makes the user's
 * actions when they come up, says "Done." to hand the turn back, and stops once the list is played
 * and the agent has replied.
 */
function scriptedPairUser(script: Script): Tau2UserSimulator {
  return {
    name: `${script.name}-user`,
    start(ctx) {
      const actions = script.actionsFor(ctx.task);
      const start = initialHistory(ctx.task).length;
      let spoke = false;
      return {
        next: async (history) => {
          const i = callsSince(history, start);
          const a = actions[i];
          if (a && requestorOf(a) === "user")
            return { content: "", toolCalls: [callOf(`${script.name}_user`, i + 1, a)] };
          if (!spoke) {
            spoke = true;
            return { content: scenarioOpening(ctx.task.user_scenario) };
          }
          if (a) return { content: "Done. Please go ahead." };
          return { content: "Thank you. ###STOP###" };
        },
      };
    },
  };
}

const GOLD: Script = {
  name: "gold",
  actionsFor: (task) => task.evaluation_criteria?.actions ?? [],
  closing: (infos) =>
    infos.length > 0
      ? `Done. For your information: ${infos.join("; ")}.`
      : "Done. Your request has been handled.",
};

/**
 * Replays the task's gold actions (the assistant's only), then states every `communicate_info`
 * string. With a scripted or LLM user; use `goldPair` to play the user's actions too.
 */
export function goldAgent(): Tau2Agent {
  return scriptedAgent(GOLD, false);
}

/** Gold agent and gold user: every gold action is played, in order, by its requestor. */
export function goldPair(): { agent: Tau2Agent; user: Tau2UserSimulator } {
  return { agent: scriptedAgent(GOLD, true), user: scriptedPairUser(GOLD) };
}

/** Answers without ever calling a tool. */
export function noopAgent(): Tau2Agent {
  return scriptedAgent(
    { name: "noop", actionsFor: () => [], closing: () => "I'm sorry, but I can't help with that." },
    false,
  );
}

const ReplayLineZ = z.object({
  task_id: z.union([z.string(), z.number()]).transform(String),
  actions: z.array(
    z.object({
      name: z.string(),
      arguments: z.record(z.string(), z.unknown()).default({}),
      requestor: z.enum(["assistant", "user"]).default("assistant"),
    }),
  ),
});

/** Reads a replay file: JSONL of `{task_id, actions: [{name, arguments, requestor?}]}`. */
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

const replayScript = (actionsByTask: Map<string, Tau2Action[]>): Script => ({
  name: "replay",
  actionsFor: (task) => actionsByTask.get(task.id) ?? [],
  closing: () => "Done.",
});

/** Replays the assistant calls a replay file lists for the task (none for a task it does not list). */
export function replayAgent(actionsByTask: Map<string, Tau2Action[]>): Tau2Agent {
  return scriptedAgent(replayScript(actionsByTask), false);
}

/** Replays every call of a replay file, in order, each with its requestor's toolkit. */
export function replayPair(actionsByTask: Map<string, Tau2Action[]>): {
  agent: Tau2Agent;
  user: Tau2UserSimulator;
} {
  const script = replayScript(actionsByTask);
  return { agent: scriptedAgent(script, true), user: scriptedPairUser(script) };
}
