import { describe, expect, it } from "vitest";
import type { ChatRequest, ChatResult } from "../../../src/core/model.js";
import { buildDemoData } from "../../../src/demo/data.js";
import { probeFidelity, recordedProbes } from "../../../src/demo/fidelity-probes.js";
import { demoRehearsalPrompt, FULL_PLAN, QUICK_PLAN, type DemoPlan } from "../../../src/demo/layout.js";
import { demoSftData } from "../../../src/demo/sft-stage.js";
import { planTestTimeRehearsal, testTimeRehearsal } from "../../../src/demo/testtime-rows.js";

// DemoPlan.rehearsalPrompt: the demo's rehearsal prompt in SFT, probes and test time. Recipe v17's
// plans show the related calls; `compact` is v16's prompt.
const related: DemoPlan = QUICK_PLAN;
const compact: DemoPlan = { ...QUICK_PLAN, rehearsalPrompt: "compact" };
const userOf = (messages: { role: string; content: string }[]) =>
  messages.find((m) => m.role === "user")!.content;

describe("the demo's rehearsal prompt", () => {
  it("is compact-related in both plans (recipe v17), compact where a plan names none", () => {
    expect(demoRehearsalPrompt(FULL_PLAN)).toBe("compact-related");
    expect(demoRehearsalPrompt(QUICK_PLAN)).toBe("compact-related");
    expect(demoRehearsalPrompt(compact)).toBe("compact");
    expect(demoRehearsalPrompt({})).toBe("compact");
  });

  it("is the prompt of the plan's test-time rehearsal: its parallel rows and the policy's own notes in RL", () => {
    expect(planTestTimeRehearsal(related)).toEqual(
      testTimeRehearsal("parallel", 2, {
        attemptTemperature: 0.5,
        memory: "consensus",
        promptVariant: "compact-related",
        noteUse: "decide",
      }),
    );
    expect(planTestTimeRehearsal(compact).promptVariant).toBe("compact");
    expect(planTestTimeRehearsal(FULL_PLAN)).toMatchObject({
      mode: "parallel",
      n: 4,
      memory: "consensus",
      temperature: 0.5,
      promptVariant: "compact-related",
      noteUse: "decide",
    });
  });

  it("adds the related calls to SFT's rehearsing prompts only: same examples, acting ones untouched", () => {
    const data = buildDemoData(QUICK_PLAN, 5);
    const plain = demoSftData(data, compact, 5);
    const withRelated = demoSftData(data, related, 5);
    expect(withRelated.act).toEqual(plain.act);
    expect(withRelated.rehearse).toHaveLength(plain.rehearse.length);
    let grown = 0;
    withRelated.rehearse.forEach((ex, i) => {
      const before = userOf(plain.rehearse[i]!.messages).split("\n");
      const after = userOf(ex.messages).split("\n");
      expect(ex.targets).toEqual(plain.rehearse[i]!.targets);
      // the compact prompt's lines, with any related calls inserted just before the call's line
      expect([...after.slice(0, before.length - 1), after.at(-1)]).toEqual(before);
      if (after.length > before.length) grown++;
    });
    // most writes follow a lookup of the same entity in the log
    expect(grown).toBeGreaterThan(plain.rehearse.length / 10);
  });

  it("rehearses fidelity probes with the plan's prompt", async () => {
    const tasks = buildDemoData(QUICK_PLAN, 5).eval.envless.slice(0, 6);
    const probes = recordedProbes(tasks).filter((p) => p.history.some((m) => m.role === "tool"));
    const seen: string[] = [];
    const policy = {
      name: "recorder",
      async chat(r: ChatRequest): Promise<ChatResult> {
        seen.push(userOf(r.messages));
        return { samples: [{ text: "<execution_result>\n{}\n</execution_result>", finishReason: "stop" }] };
      },
    };
    const opts = { max: 1000, concurrency: 4, variant: "compact" as const };
    await probeFidelity(policy, probes, opts);
    const compact = seen.splice(0);
    await probeFidelity(policy, probes, { ...opts, variant: "compact-related" });
    expect(seen).toHaveLength(compact.length);
    expect(seen.filter((u, i) => u !== compact[i]).length).toBeGreaterThan(0);
    for (const [i, u] of seen.entries()) expect(u.endsWith(compact[i]!.split("\n").at(-1)!)).toBe(true);
  });
});
