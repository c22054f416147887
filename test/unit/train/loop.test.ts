import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EnvaceError } from "../../../src/core/errors.js";
import type { ToolCall } from "../../../src/core/messages.js";
import type { ChatRequest } from "../../../src/core/model.js";
import { TaskZ, type Task } from "../../../src/core/task.js";
import type { Environment } from "../../../src/envs/env.js";
import { realResponder, rehearsalResponder } from "../../../src/rollout/index.js";
import { ScriptedPolicy } from "../../../src/testing/scripted-policy.js";
import { parseTrainConfig, type TrainConfig } from "../../../src/train/config.js";
import { InMemoryTrainEngine } from "../../../src/train/in-memory-engine.js";
import { runTrainLoop, type TrainLoopDeps } from "../../../src/train/loop.js";
import { rolloutSampler } from "../../../src/train/rollout-sampler.js";
import type { StepMetrics } from "../../../src/train/step-metrics.js";
import { episode, row } from "./helpers.js";

const tasks: Task[] = ["A", "B", "C"].map((id) =>
  TaskZ.parse({
    id: `find-${id}`,
    domain: "demo",
    tools: [
      {
        name: "lookup",
        description: "Look up a record",
        parameters: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
      },
    ],
    user_turns: [`Please look up record ${id}.`],
    checklists: [[[{ question: `calls lookup ${id}`, rule: { call: "lookup", args: { id } } }]]],
  }),
);

/**
 * Acts: a tool call whose id is right on every other episode (so groups have reward variance),
 * then a reply once a tool message came back. Rehearses: a valid result, or every fifth time
 * an untagged one (a parse error).
 */
function scriptedPolicy(): ScriptedPolicy {
  let actCalls = 0;
  return new ScriptedPolicy({
    repeatLast: true,
    act: [
      (req: ChatRequest) => {
        const last = req.messages[req.messages.length - 1]!;
        if (last.role !== "user") return "All done.";
        const wanted = /record (\w)/.exec(last.content)![1]!;
        const id = actCalls++ % 2 === 0 ? wanted : "Z";
        return `<tool_call>{"name": "lookup", "arguments": {"id": "${id}"}}</tool_call>`;
      },
    ],
    rehearse: [
      (_req, { index }) =>
        index % 5 === 4 ? "no tags here" : '<execution_result>\n{"found": true}\n</execution_result>',
    ],
  });
}

class CountingEnv implements Environment {
  static calls = 0;
  tools() {
    return tasks[0]!.tools;
  }
  async call(_c: ToolCall) {
    CountingEnv.calls++;
    return { ok: true as const, content: '{"found": true}' };
  }
  snapshot() {
    return {};
  }
  hash() {
    return "";
  }
}

function config(over: Record<string, unknown> = {}): TrainConfig {
  return parseTrainConfig({
    endpoint: "http://127.0.0.1:9",
    tasks: "unused.jsonl",
    group_size: 4,
    tasks_per_step: 2,
    steps: 5,
    checkpoint_every: 2,
    concurrency: 4,
    ...over,
  });
}

function deps(
  engine: InMemoryTrainEngine,
  mode: "rehearsal" | "real" = "rehearsal",
  extra: Partial<TrainLoopDeps> = {},
): TrainLoopDeps {
  const policy = scriptedPolicy();
  const c = config();
  const responder =
    mode === "rehearsal" ? rehearsalResponder(policy) : realResponder(() => new CountingEnv());
  return {
    engines: { act: engine, rehearse: engine },
    sampler: rolloutSampler({ policy, responder, config: c }),
    ...extra,
  };
}

const readMetrics = (dir: string): StepMetrics[] =>
  readFileSync(join(dir, "metrics.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as StepMetrics);

const outDir = () => mkdtempSync(join(tmpdir(), "envace-train-"));

describe("runTrainLoop (scripted policy, in-memory engine)", () => {
  it("runs rehearsal training end to end with zero environment calls", async () => {
    CountingEnv.calls = 0;
    const out = outDir();
    const engine = new InMemoryTrainEngine();
    const summary = await runTrainLoop({ config: config(), tasks, outDir: out, resume: false }, deps(engine));
    expect(CountingEnv.calls).toBe(0);
    const lines = readMetrics(out);
    expect(lines.map((m) => m.step)).toEqual([1, 2, 3, 4, 5]);
    // each step carries when it finished, in order
    const times = lines.map((m) => Date.parse(m.timestamp));
    expect(times.every((t) => Number.isFinite(t))).toBe(true);
    expect([...times].sort((x, y) => x - y)).toEqual(times);
    for (const m of lines) {
      expect(m.env_calls).toBe(0);
      expect(m.episodes).toBe(8);
      expect(m.rows.act).toBeGreaterThan(0);
      expect(m.rows.rehearse).toBeGreaterThan(0);
      expect(m.tokens.act).toBeGreaterThan(m.rows.act);
      expect(m.rehearse_parse_error_rate).toBeGreaterThan(0);
      expect(m.time).toEqual({ sample: expect.any(Number), train: expect.any(Number), judge: 0 });
      expect(m.role.act.adv_mean).toBeCloseTo(0, 9); // advantages are centred per (group, role)
      expect(m.forward_backward_calls).toBeGreaterThan(0);
    }
    // one optim_step per step, and forward_backward only saw trainable (non-zero) advantages
    expect(engine.step).toBe(5);
    expect(engine.optimCalls).toHaveLength(5);
    const targetAdv = engine.forwardBackwardCalls.flatMap((c) =>
      c.sequences.flatMap((s) => s.advantages.filter((_, i) => s.lossMask[i])),
    );
    expect(targetAdv.some((a) => a > 0) && targetAdv.some((a) => a < 0)).toBe(true);
    expect(engine.forwardBackwardCalls.every((c) => c.loss.fn === "ppo" && c.loss.clipLow === 0.2)).toBe(
      true,
    );
    // checkpoints at 2, 4 and the last step
    expect(engine.saves.map((p) => p.split("/").slice(-2).join("/"))).toEqual([
      "step-2/model",
      "step-4/model",
      "step-5/model",
    ]);
    expect(summary).toMatchObject({
      first_step: 1,
      last_step: 5,
      final_checkpoint: join(out, "checkpoints", "step-5"),
    });
  });

  it("real mode calls the environment for every validated tool call", async () => {
    CountingEnv.calls = 0;
    const out = outDir();
    const c = config({ steps: 1, roles: { act: "train", rehearse: "frozen" }, mode: "real" });
    await runTrainLoop(
      { config: c, tasks, outDir: out, resume: false },
      deps(new InMemoryTrainEngine(), "real"),
    );
    const [m] = readMetrics(out);
    expect(m!.env_calls).toBe(8); // one lookup per episode
    expect(CountingEnv.calls).toBe(8);
    expect(m!.rows.rehearse).toBe(0);
  });

  it("frozen act role: only rehearse rows reach forward_backward", async () => {
    const engine = new InMemoryTrainEngine();
    const c = config({ steps: 2, roles: { act: "frozen", rehearse: "train" } });
    const out = outDir();
    await runTrainLoop({ config: c, tasks, outDir: out, resume: false }, deps(engine));
    const act = readMetrics(out).map((m) => m.role.act.trained_rows);
    expect(act).toEqual([0, 0]);
    // rehearse rows' prompts are rehearsal prompts; act rows never appear: count sequences = trained rehearse rows
    const trained = readMetrics(out).reduce((a, m) => a + m.role.rehearse.trained_rows, 0);
    expect(engine.forwardBackwardCalls.reduce((a, c) => a + c.sequences.length, 0)).toBe(trained);
  });

  it("kill after step 3, then --resume: metrics 1..5 exactly once and the final step count is 5", async () => {
    const out = outDir();
    const first = new InMemoryTrainEngine();
    const kill = new Error("killed");
    await expect(
      runTrainLoop(
        { config: config(), tasks, outDir: out, resume: false },
        deps(first, "rehearsal", {
          afterStep: (s) => {
            if (s === 3) throw kill;
          },
        }),
      ),
    ).rejects.toBe(kill);
    expect(readMetrics(out).map((m) => m.step)).toEqual([1, 2, 3]); // step 3 logged, not checkpointed
    const second = new InMemoryTrainEngine(); // a fresh process
    const summary = await runTrainLoop({ config: config(), tasks, outDir: out, resume: true }, deps(second));
    expect(second.loads).toEqual([join(out, "checkpoints", "step-2", "model")]);
    expect(summary.first_step).toBe(3);
    expect(readMetrics(out).map((m) => m.step)).toEqual([1, 2, 3, 4, 5]);
    expect(second.step).toBe(5);
    expect(second.optimCalls).toHaveLength(3);
    expect(JSON.parse(readFileSync(join(out, "checkpoints", "step-5", "state.json"), "utf8"))).toMatchObject({
      step: 5,
      metrics_lines: 5,
    });
  });

  it("kill right after a checkpoint, then --resume: nothing repeated", async () => {
    const out = outDir();
    await expect(
      runTrainLoop(
        { config: config(), tasks, outDir: out, resume: false },
        deps(new InMemoryTrainEngine(), "rehearsal", {
          afterStep: (s) => {
            if (s === 4) throw new Error("killed");
          },
        }),
      ),
    ).rejects.toThrow("killed");
    const second = new InMemoryTrainEngine();
    await runTrainLoop({ config: config(), tasks, outDir: out, resume: true }, deps(second));
    expect(readMetrics(out).map((m) => m.step)).toEqual([1, 2, 3, 4, 5]);
    expect(second.optimCalls).toHaveLength(1);
    expect(second.step).toBe(5);
  });

  it("a worker that dies mid-step is restarted and the run resumes from the last checkpoint", async () => {
    const out = outDir();
    const engine = new InMemoryTrainEngine();
    engine.failOnForwardBackward = 4; // some time during step 3 or 4 (≥1 call per step)
    let recovered = 0;
    const d = deps(engine, "rehearsal", {
      recover: async () => {
        recovered++;
        engine.step = 0; // a restarted worker has lost its weights
      },
    });
    const summary = await runTrainLoop({ config: config(), tasks, outDir: out, resume: false }, d);
    expect(recovered).toBe(1);
    expect(summary.restarts).toBe(1);
    const lines = readMetrics(out);
    expect(lines.map((m) => m.step)).toEqual([1, 2, 3, 4, 5]);
    expect(lines.reduce((a, m) => a + m.restarts, 0)).toBe(1);
    expect(engine.step).toBe(5);
  });

  it("refuses to overwrite a run's checkpoints without --resume", async () => {
    const out = outDir();
    await runTrainLoop(
      { config: config({ steps: 2 }), tasks, outDir: out, resume: false },
      deps(new InMemoryTrainEngine()),
    );
    await expect(
      runTrainLoop(
        { config: config({ steps: 2 }), tasks, outDir: out, resume: false },
        deps(new InMemoryTrainEngine()),
      ),
    ).rejects.toBeInstanceOf(EnvaceError);
    expect(existsSync(join(out, "checkpoints", "step-2", "state.json"))).toBe(true);
  });

  it("warm-up runs once on a fresh start and is saved as step-0; resume never redoes it", async () => {
    const out = outDir();
    let warmups = 0;
    const warmup = async () => void warmups++;
    await expect(
      runTrainLoop(
        { config: config(), tasks, outDir: out, resume: false },
        deps(new InMemoryTrainEngine(), "rehearsal", {
          warmup,
          afterStep: (s) => {
            if (s === 1) throw new Error("killed");
          },
        }),
      ),
    ).rejects.toThrow("killed");
    expect(existsSync(join(out, "checkpoints", "step-0", "state.json"))).toBe(true);
    const second = new InMemoryTrainEngine();
    await runTrainLoop(
      { config: config(), tasks, outDir: out, resume: true },
      deps(second, "rehearsal", { warmup }),
    );
    expect(warmups).toBe(1);
    expect(second.loads).toEqual([join(out, "checkpoints", "step-0", "model")]);
    expect(readMetrics(out).map((m) => m.step)).toEqual([1, 2, 3, 4, 5]);
  });

  it("separate models: each role's rows go to its own engine, one optim_step each, saved apart", async () => {
    const out = outDir();
    const act = new InMemoryTrainEngine();
    const reh = new InMemoryTrainEngine();
    const d = deps(act);
    await runTrainLoop(
      {
        config: config({ steps: 2, shared_model: false, endpoint: undefined, worker: { init: {} } }),
        tasks,
        outDir: out,
        resume: false,
      },
      { ...d, engines: { act, rehearse: reh } },
    );
    const lines = readMetrics(out);
    const seqs = (e: InMemoryTrainEngine) =>
      e.forwardBackwardCalls.reduce((a, c) => a + c.sequences.length, 0);
    expect(seqs(act)).toBe(lines.reduce((a, m) => a + m.role.act.trained_rows, 0));
    expect(seqs(reh)).toBe(lines.reduce((a, m) => a + m.role.rehearse.trained_rows, 0));
    expect([act.step, reh.step]).toEqual([2, 2]);
    expect(reh.saves).toEqual([join(out, "checkpoints", "step-2", "model-rehearse")]);
    expect(act.saves).toEqual([join(out, "checkpoints", "step-2", "model-act")]);
  });

  it("masks episodes cut short by a model error and counts zero-variance groups", async () => {
    const out = outDir();
    const engine = new InMemoryTrainEngine();
    const c = config({ steps: 1, tasks_per_step: 2, group_size: 2 });
    const ep = (reward: number, endReason: "done" | "model_error") => ({
      taskId: "t",
      sample: 0,
      messages: [],
      calls: [],
      replies: [],
      endReason,
      envCalls: 0,
      reward,
      masked: false,
      turnScores: [],
      success: false,
      rows: [{ role: "act" as const, promptTokenIds: [1], tokenIds: [2, 3], logprobs: [-1, -1], turn: 0 }],
    });
    await runTrainLoop(
      { config: c, tasks, outDir: out, resume: false },
      {
        engines: { act: engine, rehearse: engine },
        sampler: {
          sampleGroups: async () => ({
            groups: [
              [ep(1, "done"), ep(0, "model_error")],
              [ep(1, "done"), ep(1, "done")],
            ],
          }),
        },
      },
    );
    const [m] = readMetrics(out);
    expect(m!.masked).toBe(1);
    expect(m!.end_reasons).toEqual({ done: 3, model_error: 1 });
    expect(m!.zero_variance_groups.act).toBe(1);
    // group 1 has one live act row (single-row: advantage = reward); group 2 is zero-variance and,
    // as in the reference, stays in the batch with advantage 0 (it counts in the loss denominator)
    expect(m!.role.act.trained_rows).toBe(3);
    const sent = engine.forwardBackwardCalls.flatMap((c) => c.sequences);
    expect(sent).toHaveLength(3);
    expect(sent.map((s) => s.advantages[1])).toEqual([1, 0, 0]);
    // seq-mean-token-mean: each of the 3 rows (2 tokens each) weighs 1/(3·2) per token
    expect(sent.map((s) => s.weight)).toEqual([1 / 6, 1 / 6, 1 / 6]);
  });

  it("passes the rollouts' temperature to the loss (the first update's ratio is then 1)", async () => {
    const engine = new InMemoryTrainEngine();
    const c = config({ steps: 1, temperature: 0.5 });
    await runTrainLoop({ config: c, tasks, outDir: outDir(), resume: false }, deps(engine, "rehearsal"));
    expect(engine.forwardBackwardCalls.length).toBeGreaterThan(0);
    for (const call of engine.forwardBackwardCalls) expect(call.loss.temperature).toBe(0.5);
    const greedy = new InMemoryTrainEngine();
    await runTrainLoop(
      { config: config({ steps: 1, temperature: 0 }), tasks, outDir: outDir(), resume: false },
      deps(greedy, "rehearsal"),
    );
    for (const call of greedy.forwardBackwardCalls) expect(call.loss.temperature).toBeUndefined();
  });

  it("loss.tis_cap reaches the engine and the step's metrics report the importance weights", async () => {
    const engine = new InMemoryTrainEngine();
    const out = outDir();
    const c = config({ steps: 1, loss: { fn: "ppo", tis_cap: 2 } });
    await runTrainLoop({ config: c, tasks, outDir: out, resume: false }, deps(engine, "rehearsal"));
    for (const call of engine.forwardBackwardCalls) expect(call.loss.tisCap).toBe(2);
    expect(readMetrics(out)[0]!.tis).toEqual({ weight_mean: 1, capped_fraction: 0 });
    const plain = new InMemoryTrainEngine();
    const out2 = outDir();
    await runTrainLoop(
      { config: config({ steps: 1 }), tasks, outDir: out2, resume: false },
      deps(plain, "rehearsal"),
    );
    expect(readMetrics(out2)[0]!.tis).toBeUndefined();
  });

  it("zero_variance_groups: drop leaves zero-variance groups out of the update", async () => {
    const out = outDir();
    const engine = new InMemoryTrainEngine();
    const c = config({ steps: 1, tasks_per_step: 2, group_size: 2, zero_variance_groups: "drop" });
    const row = { role: "act" as const, promptTokenIds: [1], tokenIds: [2, 3], logprobs: [-1, -1], turn: 0 };
    const ep = (reward: number) => ({
      taskId: "t",
      sample: 0,
      messages: [],
      calls: [],
      replies: [],
      endReason: "done" as const,
      envCalls: 0,
      reward,
      masked: false,
      turnScores: [],
      success: false,
      rows: [row],
    });
    await runTrainLoop(
      { config: c, tasks, outDir: out, resume: false },
      {
        engines: { act: engine, rehearse: engine },
        sampler: {
          sampleGroups: async () => ({
            groups: [
              [ep(1), ep(0)],
              [ep(1), ep(1)],
            ],
          }),
        },
      },
    );
    const [m] = readMetrics(out);
    expect(m!.role.act.trained_rows).toBe(2);
    expect(engine.forwardBackwardCalls.flatMap((c) => c.sequences).map((s) => s.advantages[1])).toEqual([
      0.5, -0.5,
    ]);
  });

  it("rehearse_baseline: call reaches the update: a rehearsal is compared with the same call's", async () => {
    const sent = async (rehearseBaseline: "role" | "call") => {
      const engine = new InMemoryTrainEngine();
      const c = config({ steps: 1, tasks_per_step: 1, group_size: 2, rehearse_baseline: rehearseBaseline });
      const ep = (reward: number, prompts: number[]) =>
        episode(reward, [], { rows: prompts.map((p) => ({ ...row("rehearse"), promptTokenIds: [p] })) });
      // both episodes answer call 1; only the failed one also makes call 2
      const group = [ep(1, [1]), ep(0, [1, 2])];
      await runTrainLoop(
        { config: c, tasks, outDir: outDir(), resume: false },
        {
          engines: { act: engine, rehearse: engine },
          sampler: { sampleGroups: async () => ({ groups: [group] }) },
        },
      );
      return engine.forwardBackwardCalls.flatMap((x) => x.sequences).map((x) => x.advantages[1]);
    };
    const close = (got: (number | undefined)[], want: number[]) => {
      expect(got).toHaveLength(want.length);
      want.forEach((w, i) => expect(got[i]).toBeCloseTo(w, 12));
    };
    close(await sent("role"), [2 / 3, -1 / 3, -1 / 3]);
    close(await sent("call"), [0.5, -0.5, 0]);
  });

  it("a worker restart noticed only by its restart count still rolls the step back", async () => {
    const out = outDir();
    const engine = new InMemoryTrainEngine();
    let restarts = 0;
    let recovered = 0;
    const d = deps(engine, "rehearsal", {
      restartCount: () => restarts,
      recover: async () => void recovered++,
      afterStep: (s) => {
        if (s === 3 && recovered === 0) {
          restarts++; // the worker died and came back between steps 3 and 4, weights lost
          engine.step = 0;
        }
      },
    });
    await runTrainLoop({ config: config(), tasks, outDir: out, resume: false }, d);
    expect(recovered).toBe(1);
    // step 3 was logged before the restart but never checkpointed: it is redone, once
    expect(readMetrics(out).map((m) => m.step)).toEqual([1, 2, 3, 4, 5]);
    expect(engine.step).toBe(5);
  });
});
