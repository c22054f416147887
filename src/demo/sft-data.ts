import type { Task } from "../core/task.js";
import { createToolworldEnv, goldSolve, toolworldResultValue } from "../envs/toolworld/index.js";
import { goldSftExamples } from "../train/gold-sft.js";
import { rehearsingExample, type SftExample } from "../train/sft.js";
import { renderAssistantText } from "../core/tool-call-text.js";
import { mulberry32 } from "../train/task-sampler.js";

/**
 * The SFT warm start's data (issue 5, step 2), from recorded traces only: acting turns of the gold
 * runs, and rehearsing turns whose targets are the recorded real responses, plus one probe call per
 * task on an id of the same kind that the recorded run did not touch, answered by the environment
 * that recorded the trace (mostly "not found": the honest answer for an unseen id).
 * Tools are not rendered into act prompts: a tiny model learns them from the traces, and short
 * prompts are what makes it learn at all (the probes in the issue).
 */
export function demoSftExamples(tasks: readonly Task[], seed: number): { act: SftExample[]; rehearse: SftExample[] } {
  const gold = goldSftExamples(tasks, { roles: ["act", "rehearse"], variant: "compact" });
  const act = gold.act.map((ex) => ({ messages: ex.messages, targets: ex.targets }));
  const rehearse = [...gold.rehearse];
  const rand = mulberry32(seed);
  for (const task of tasks) {
    const probe = probeCall(task, rand);
    if (!probe) continue;
    const env = createToolworldEnv(task);
    const result = toolworldResultValue(env.callSync(probe.call));
    rehearse.push(
      rehearsingExample({
        task,
        history: probe.history,
        rawActMessage: renderAssistantText("", [probe.call]),
        call: probe.call,
        result,
        variant: "compact",
      }),
    );
  }
  return { act, rehearse };
}

/** A recorded call with its id argument swapped for another id of the same prefix (e.g. o12 → o57). */
function probeCall(task: Task, rand: () => number) {
  const run = goldSolve(task);
  const first = run.turns[0]?.calls.find((c) => Object.values(c.call.arguments).some((v) => typeof v === "string" && /^[a-z]\d+$/.test(v)));
  if (!first) return undefined;
  const args = { ...first.call.arguments };
  for (const [k, v] of Object.entries(args)) {
    if (typeof v === "string" && /^[a-z]\d+$/.test(v)) {
      let other = v;
      while (other === v) other = `${v[0]}${1 + Math.floor(rand() * 40)}`;
      args[k] = other;
    }
  }
  const at = run.messages.findIndex((m) => (m.toolCalls ?? []).some((c) => c.id === first.call.id));
  return { call: { ...first.call, arguments: args }, history: run.messages.slice(0, Math.max(0, at)) };
}
