import { describe, expect, it } from "vitest";
import { toolworldBenchRunner, toolworldEvalTasks } from "../../../src/bench/toolworld/index.js";
import type { EvalOptions } from "../../../src/bench/registry.js";
import {
  domainSpec,
  TOOLWORLD_HELDOUT_DOMAINS,
  TOOLWORLD_TRAIN_DOMAINS,
  writeToolNames,
} from "../../../src/envs/toolworld/index.js";

const base = (extra: Record<string, unknown>): EvalOptions =>
  ({ variant: TOOLWORLD_TRAIN_DOMAINS[0]!, trials: 1, concurrency: 2, limit: 4, ...extra }) as EvalOptions;

describe("toolworld bench", () => {
  it("held-out tasks come without their gold examples", () => {
    const tasks = toolworldEvalTasks(TOOLWORLD_HELDOUT_DOMAINS[0]!, undefined, 3);
    expect(tasks).toHaveLength(3);
    expect(tasks.every((t) => t.examples.length === 0 && t.id.includes("heldout"))).toBe(true);
  });

  it("the gold policy solves every task, with and without rehearsal, and rehearsal calls nothing real", async () => {
    const runner = toolworldBenchRunner();
    const plain = await runner.run(base({ policy: "gold" }));
    expect(plain.success_rate).toBe(1);
    expect(plain.rehearsal).toMatchObject({ mode: "none", n: 0, tokens: { total: 0 } });
    const rehearsed = await runner.run(base({ policy: "gold", rehearsal: "parallel:2", memory: "digest" }));
    expect(rehearsed.success_rate).toBe(1);
    expect(rehearsed.real_calls).toBe(plain.real_calls);
    expect(rehearsed.rehearsal).toMatchObject({
      mode: "parallel",
      n: 2,
      memory: "digest",
      real_calls_during_rehearsal: 0,
    });
    expect(rehearsed.rehearsal.calls.rehearse).toBeGreaterThan(0);
    expect(rehearsed.rehearsal.tokens.total).toBeGreaterThan(0);
    const results = rehearsed.results as Array<{
      rehearsal_tokens: number;
      rehearsal_calls: number;
      held_calls: number;
      real_calls_during_rehearsal: number;
    }>;
    expect(results.every((r) => r.rehearsal_tokens > 0 && r.real_calls_during_rehearsal === 0)).toBe(true);
    // the trials' figures add up to the summary's
    const sum = (f: (r: (typeof results)[number]) => number) => results.reduce((n, r) => n + f(r), 0);
    expect(sum((r) => r.rehearsal_tokens)).toBe(rehearsed.rehearsal.tokens.total);
    const c = rehearsed.rehearsal.calls;
    expect(sum((r) => r.rehearsal_calls)).toBe(c.act + c.rehearse + c.summary + c.guard);
    expect(sum((r) => r.held_calls)).toBe(rehearsed.rehearsal.held_calls);
  });

  it("--guard-tools: names the domain has are taken, writes too; an unknown name is refused", async () => {
    const runner = toolworldBenchRunner();
    const write = writeToolNames(domainSpec(TOOLWORLD_TRAIN_DOMAINS[0]!))[0]!;
    for (const guardTools of [write, "writes"]) {
      const s = await runner.run(base({ policy: "gold", rehearsal: "parallel:2", guardTools }));
      expect(s.success_rate).toBe(1); // the gold policy makes no write its rehearsal refuses
    }
    await expect(
      runner.run(base({ policy: "gold", rehearsal: "parallel:2", guardTools: "rm_rf" })),
    ).rejects.toThrow(
      new RegExp(
        `--guard-tools: toolworld:${TOOLWORLD_TRAIN_DOMAINS[0]!} has no tool "rm_rf" \\(its tools: `,
      ),
    );
  });

  it("the noop policy fails and makes no real calls", async () => {
    const s = await toolworldBenchRunner().run(base({ policy: "noop", rehearsal: "sequential:2" }));
    expect(s.success_rate).toBe(0);
    expect(s.real_calls).toBe(0);
    // every user turn of every task is rehearsed twice (the noop replies, so each turn completes)
    const turns = toolworldEvalTasks(TOOLWORLD_TRAIN_DOMAINS[0]!, undefined, 4).reduce(
      (n, t) => n + t.user_turns.length,
      0,
    );
    expect(s.rehearsal.attempts).toBe(2 * turns);
  });

  it.each([
    [{ variant: "nope", policy: "gold" }, /unknown toolworld domain/],
    [{ policy: "gold", rehearsal: "parallel:0" }, /--rehearsal must be/],
    [{ policy: "gold", memory: "digest" }, /need --rehearsal/],
    [{ policy: "gold", endpoint: "http://x" }, /exactly one agent/],
    [{ policy: "oracle" }, /unknown --policy/],
  ])("rejects %j", async (extra, msg) => {
    await expect(toolworldBenchRunner().run(base(extra))).rejects.toMatchObject({
      code: "INVALID_CONFIG",
      message: expect.stringMatching(msg),
    });
  });
});
