import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  buildReportHtml,
  isTrainRunDir,
  readTrainSteps,
  trainMarkdown,
  writeReport,
} from "../../../src/report/index.js";
import { makeTrainRunDir } from "../../e2e/report/train-run-fixture.js";

describe("report of a train run", () => {
  it("is recognised by metrics.jsonl without results.json", () => {
    const { dir } = makeTrainRunDir();
    expect(isTrainRunDir(dir)).toBe(true);
    writeFileSync(join(dir, "results.json"), "{}");
    expect(isTrainRunDir(dir)).toBe(false);
  });

  it("reads each role's numbers per step; a redone step keeps its last line, a cut line is skipped", () => {
    const { dir, lines } = makeTrainRunDir(3);
    const redo = {
      ...lines[1]!,
      role: { ...lines[1]!.role, act: { ...lines[1]!.role.act, reward_mean: 0.9 } },
    };
    appendFileSync(join(dir, "metrics.jsonl"), JSON.stringify(redo) + "\n" + '{"step": 4, "rew');
    const steps = readTrainSteps(dir);
    expect(steps.map((s) => s.step)).toEqual([1, 2, 3]);
    expect(steps[1]!.role.act.reward).toBe(0.9);
    expect(steps[2]!.role.rehearse).toEqual({
      reward: expect.closeTo(0.15, 9) as number,
      adv_mean: 0,
      adv_std: 0.3,
      adv_net_share: 0.25,
      response_len: 23,
      ratio: 1.0002,
      rows: 7,
    });
    expect(steps[0]!.role.rehearse.ratio).toBeNull();
    expect(steps[2]!.timestamp).toBe("2026-11-30T12:00:03.000Z");
  });

  it("says what is wrong when metrics.jsonl is missing or has no step", () => {
    const { dir } = makeTrainRunDir();
    writeFileSync(join(dir, "metrics.jsonl"), "not json\n");
    expect(() => readTrainSteps(dir)).toThrow(/no step lines/);
    expect(() => readTrainSteps(join(dir, "nope"))).toThrow(/does not exist/);
  });

  it("writes results.md with a row per step and the run's provenance", async () => {
    const { dir } = makeTrainRunDir(4);
    const md = trainMarkdown(dir, readTrainSteps(dir));
    expect(md).toContain("envace 9.9.9, commit abc123, started 2026-11-30T12:00:00.000Z.");
    expect(md).toContain(
      "| 2 | 2026-11-30T12:00:02.000Z | 0.200 | 0.200 | 0 | 8 | 0.200 | 0.400 | 12.0 | 1.000 | 6 | 0.100 | 0.300 | 22.0 | 1.000 | – |",
    );
    expect(md).toContain(
      "| 1 | 2026-11-30T12:00:01.000Z | 0.100 | 0.100 | 0 | 7 | 0.100 | 0.400 | 11.0 | 1.000 | 5 | 0.050 | 0.300 | 21.0 | – | – |",
    );
    const path = await writeReport(dir);
    expect(readFileSync(join(dir, "results.md"), "utf8")).toBe(md);
    const html = readFileSync(path, "utf8");
    expect(html).not.toMatch(/<script/);
    expect(html).toContain("envace train report");
    for (const id of [
      "reward-per-role",
      "advantage-per-role",
      "advantage-net-share-per-role",
      "response-length-per-role",
      "ratio-per-role",
    ])
      expect(html).toContain(`id="${id}"><svg`);
  });

  it("leaves out a curve no step reported", async () => {
    const { dir, lines } = makeTrainRunDir(2);
    writeFileSync(
      join(dir, "metrics.jsonl"),
      lines.map((l) => JSON.stringify({ ...l, ratio: { act: null, rehearse: null } }) + "\n").join(""),
    );
    const html = await buildReportHtml(dir);
    expect(html).not.toContain('id="ratio-per-role"');
    // a run from before adv_net_share has no such curve
    const older = lines.map((l) => ({
      ...l,
      role: {
        act: { ...l.role.act, adv_net_share: undefined },
        rehearse: { ...l.role.rehearse, adv_net_share: undefined },
      },
    }));
    writeFileSync(join(dir, "metrics.jsonl"), older.map((l) => JSON.stringify(l) + "\n").join(""));
    expect(await buildReportHtml(dir)).not.toContain('id="advantage-net-share-per-role"');
    expect(html).toContain('id="reward-per-role"><svg');
  });
});
