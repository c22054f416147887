import { describe, expect, it } from "vitest";
import { buildDemoData } from "../../../src/demo/data.js";
import { HELDOUT_DOMAIN, QUICK_PLAN, TRAIN_DOMAINS } from "../../../src/demo/layout.js";
import { demoSftExamples } from "../../../src/demo/sft-data.js";
import { aliasMap, renameNames } from "../../../src/demo/tool-aliases.js";
import { domainSpec } from "../../../src/envs/toolworld/index.js";
import { domainTools } from "../../../src/envs/toolworld/tools.js";
import { mulberry32 } from "../../../src/train/task-sampler.js";
import type { SftExample } from "../../../src/train/sft.js";
import { IMAGINED_NOTICE, MEMORY_HEADER } from "../../../src/testtime/index.js";

const heldoutTools = domainTools(domainSpec(HELDOUT_DOMAIN)).map((t) => t.name);
const mentions = (ex: SftExample, names: readonly string[]) =>
  ex.targets.some((i) => names.some((n) => JSON.stringify(ex.messages[i]).includes(n)));

describe("renamed logs (tool aliases)", () => {
  it("renames injectively, so every renamed example can be read back", () => {
    for (const domain of TRAIN_DOMAINS) {
      for (let s = 0; s < 50; s++) {
        const map = aliasMap(domain, mulberry32(s));
        const images = [...map.values()];
        expect(new Set(images).size).toBe(images.length);
        // A name renamed onto one of the domain's own names must move that name away too (a swap),
        // or two names would read the same after renaming.
        const d = domainSpec(domain);
        const own = [
          ...domainTools(d).map((t) => t.name),
          ...d.item.statuses,
          d.owner.idKey,
          d.item.idKey,
          d.item.plural,
          d.item.detailField,
        ];
        for (const to of images) if (own.includes(to)) expect(map.has(to)).toBe(true);
      }
    }
  });

  it("keeps ids' numbers and matches whole names only", () => {
    const map = new Map([
      ["u3", "m3"],
      ["account_id", "loan_id"],
      ["get_order", "get_loan"],
      ["o5", "l5"],
      ["l5", "o5"],
    ]);
    const ex: SftExample = {
      messages: [
        { role: "system", content: "x\ntools: get_order(account_id) transfer(account_id,to_account_id)" },
        { role: "user", content: "check u3 and u31 and o5 and l5" },
        {
          role: "assistant",
          content: "",
          toolCalls: [
            { id: "call_0", name: "get_order", arguments: { account_id: "u3", to_account_id: "u3" } },
          ],
        },
      ],
      targets: [2],
    };
    const out = renameNames(ex, map);
    expect(out.messages[0]!.content).toBe("x\ntools: get_loan(loan_id) transfer(loan_id,to_account_id)");
    expect(out.messages[1]!.content).toBe("check m3 and u31 and l5 and o5");
    expect(out.messages[2]!.toolCalls).toEqual([
      { id: "call_0", name: "get_loan", arguments: { loan_id: "m3", to_account_id: "m3" } },
    ]);
    expect(ex.messages[1]!.content).toBe("check u3 and u31 and o5 and l5"); // the input is not mutated
  });

  it("round-trips real SFT examples through the inverse renaming", () => {
    const data = buildDemoData(QUICK_PLAN, 2);
    const tasks = Object.values(data.train).flat();
    const plain = demoSftExamples(tasks, 2, { variant: "compact" });
    const rand = mulberry32(9);
    for (const [i, ex] of plain.act.slice(0, 60).entries()) {
      const map = aliasMap(tasks[i]!.domain, rand);
      const inverse = new Map([...map].map(([a, b]) => [b, a]));
      expect(renameNames(renameNames(ex, map), inverse)).toEqual(ex);
    }
  });

  it("makes the held-out domain's names SFT targets, never its tasks", () => {
    const data = buildDemoData(QUICK_PLAN, 4);
    const tasks = Object.values(data.train).flat();
    const plain = demoSftExamples(tasks, 4, { variant: "compact" });
    const renamed = demoSftExamples(tasks, 4, { variant: "compact", aliasShare: 0.25 });
    expect(plain.act.filter((ex) => mentions(ex, heldoutTools))).toHaveLength(0);
    const withHeldoutNames = renamed.act.filter((ex) => mentions(ex, heldoutTools)).length;
    expect(withHeldoutNames).toBeGreaterThan(0);
    expect(withHeldoutNames).toBeLessThan(renamed.act.length * 0.25);
    // Everything but the renamed acting examples is as without renaming (its own random stream).
    expect(renamed.rehearse).toEqual(plain.rehearse);
    const changed = renamed.act.filter((ex, i) => JSON.stringify(ex) !== JSON.stringify(plain.act[i])).length;
    expect(changed).toBeGreaterThan(renamed.act.length * 0.1);
    expect(changed).toBeLessThan(renamed.act.length * 0.4);
    // No held-out request reaches training: its verb "renew" is never a word of a prompt or reply.
    const text = JSON.stringify(renamed.act);
    for (const t of data.eval.heldout_domain) expect(text).not.toContain(t.user_turns[0]!);
    expect(text).not.toMatch(/\brenew\b/);
    // The note's fixed warning is scaffolding, not names: renaming leaves it whole.
    const noted = renamed.act.filter((ex) => JSON.stringify(ex).includes(MEMORY_HEADER));
    expect(noted.length).toBeGreaterThan(0);
    for (const ex of noted) expect(ex.messages[0]!.content).toContain(IMAGINED_NOTICE);
  });
});
