import { describe, expect, it } from "vitest";
import { TaskZ, type Task } from "../../../src/core/task.js";
import { preflightTrain, stepWarnings } from "../../../src/train/preflight.js";

const ruled = [[[{ question: "q", rule: { reply_contains: ["ok"] } }]]];
const task = (id: string, over: Record<string, unknown> = {}): Task =>
  TaskZ.parse({ id, domain: "d", tools: [], user_turns: ["hi"], checklists: ruled, ...over });
const base = {
  mode: "rehearsal" as const,
  rehearsal_prompt: "full" as const,
  roles: { act: "train" as const, rehearse: "train" as const },
};
const traced = {
  traces: [
    {
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: "ok" },
      ],
    },
  ],
};

describe("preflightTrain", () => {
  it("refuses tasks without any checklist (every reward 0)", () => {
    expect(() => preflightTrain(base, [task("a", { checklists: [] })], [])).toThrow(
      /no task has a checklist, so every episode's reward is 0/,
    );
    const partly = preflightTrain(base, [task("a", { checklists: [] }), task("b")], []);
    expect(partly.warnings).toEqual(["1 of 2 tasks have no checklist (reward always 0): a"]);
  });

  it("refuses standards without a rule when there is no judge", () => {
    const judged = task("j", { checklists: [[[{ question: "polite?" }]]] });
    expect(() => preflightTrain(base, [judged], [])).toThrow(/need a judge .* j/);
    const judge = { base_url: "http://127.0.0.1:1/v1", model: "m" };
    expect(preflightTrain({ ...base, judge }, [judged], []).warnings).toEqual([]);
  });

  it("refuses real mode and eval tasks without a real environment", () => {
    expect(() => preflightTrain({ ...base, mode: "real" }, [task("a")], [])).toThrow(
      /mode real needs a real env/,
    );
    expect(() => preflightTrain(base, [task("a")], [task("e")])).toThrow(/eval_tasks .* no real env in e/);
    const mcp = task("m", { env: { kind: "mcp", command: "node" } });
    expect(preflightTrain({ ...base, mode: "real" }, [mcp], [mcp]).warnings).toEqual([]);
  });

  it("refuses an SFT warm-up with no examples, warns for one empty role", () => {
    const sft = { epochs: 1, lr: 1e-4, batch_size: 1, roles: ["act", "rehearse"] as ("act" | "rehearse")[] };
    expect(() => preflightTrain({ ...base, sft }, [task("a")], [])).toThrow(/sft: 0 examples/);
    expect(preflightTrain({ ...base, sft }, [task("a", traced)], []).warnings).toEqual([
      "sft: 0 examples for the rehearse role",
    ]);
  });

  it("warns that a KL term after an in-run SFT warm-up anchors to the pre-SFT model", () => {
    const sft = { epochs: 1, lr: 1e-4, batch_size: 1, roles: ["act"] as ("act" | "rehearse")[] };
    const kl = (kl_coef: number) =>
      preflightTrain({ ...base, sft, loss: { kl_coef } }, [task("a", traced)], []);
    expect(kl(0.1).warnings).toEqual([
      expect.stringMatching(/kl_coef > 0 with an sft warm-up: .*model before SFT/),
    ]);
    expect(kl(0).warnings).toEqual([]);
    expect(preflightTrain({ ...base, loss: { kl_coef: 0.1 } }, [task("a", traced)], []).warnings).toEqual([]);
  });
});

describe("stepWarnings", () => {
  const both = { act: true, rehearse: true };
  it("a step with rows for both roles that stepped trained", () => {
    expect(stepWarnings({ step: 1, rows: { act: 2, rehearse: 1 }, optim_skipped: false }, both)).toEqual({
      trained: true,
      warnings: [],
    });
  });
  it("no rows, no rehearse rows, a skipped optimizer step", () => {
    expect(stepWarnings({ step: 3, rows: { act: 0, rehearse: 0 }, optim_skipped: true }, both)).toEqual({
      trained: false,
      warnings: [
        expect.stringMatching(/step 3: no trainable rows/),
        expect.stringMatching(/step 3: optimizer step skipped/),
      ],
    });
    const r = stepWarnings({ step: 2, rows: { act: 4, rehearse: 0 }, optim_skipped: false }, both);
    expect(r).toEqual({ trained: true, warnings: [expect.stringMatching(/no rehearse rows/)] });
    // A frozen rehearse role is expected to have none.
    expect(
      stepWarnings(
        { step: 2, rows: { act: 4, rehearse: 0 }, optim_skipped: false },
        { act: true, rehearse: false },
      ).warnings,
    ).toEqual([]);
  });
});
