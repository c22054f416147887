import { describe, expect, it } from "vitest";
import {
  callBaselineAdvantages,
  groupAdvantages,
  roleWiseAdvantages,
  type AdvantageOptions,
} from "../../../src/train/advantages.js";
import type { EpisodeResult } from "../../../src/rollout/types.js";
import { episode, row } from "./helpers.js";

const both = { act: true, rehearse: true };
const raw: AdvantageOptions = { normalizeStd: false, eps: 1e-6, trainRoles: both };
const norm: AdvantageOptions = { normalizeStd: true, eps: 1e-6, trainRoles: both };

// Uneven rows per episode: E0 has 2 act + 1 rehearse rows, E1 1 act, E2 3 act + 2 rehearse.
const uneven = (): EpisodeResult[] => [
  episode(1, ["act", "rehearse", "act"]),
  episode(0, ["act"]),
  episode(0.5, ["act", "rehearse", "act", "rehearse", "act"]),
];

const advOf = (g: ReturnType<typeof roleWiseAdvantages>, role: string) =>
  g.rows.filter((r) => r.role === role).map((r) => [r.episode, r.row, r.advantage] as const);

describe("roleWiseAdvantages", () => {
  it("uses a row-weighted baseline per role (uneven rows per episode), hand-computed", () => {
    const g = roleWiseAdvantages(uneven(), raw);
    // act rows' rewards [1,1,0,.5,.5,.5] → baseline 3.5/6 (not the episode mean 0.5)
    expect(g.byRole.act.rows).toBe(6);
    expect(g.byRole.act.baseline).toBeCloseTo(3.5 / 6, 12);
    expect(g.byRole.act.std).toBeCloseTo(Math.sqrt(0.708333333333 / 5), 9);
    const act = advOf(g, "act");
    expect(act.map(([e, r]) => [e, r])).toEqual([
      [0, 0],
      [0, 2],
      [1, 0],
      [2, 0],
      [2, 2],
      [2, 4],
    ]);
    const expected = [5 / 12, 5 / 12, -7 / 12, -1 / 12, -1 / 12, -1 / 12];
    act.forEach(([, , a], i) => expect(a).toBeCloseTo(expected[i]!, 12));
    // rehearse rows' rewards [1,.5,.5] → baseline 2/3
    const reh = advOf(g, "rehearse");
    expect(reh.map(([e, r]) => [e, r])).toEqual([
      [0, 1],
      [2, 1],
      [2, 3],
    ]);
    [1 / 3, -1 / 6, -1 / 6].forEach((x, i) => expect(reh[i]![2]).toBeCloseTo(x, 12));
    expect(g.rows.every((r) => r.trainable)).toBe(true);
  });

  it("normalises by the unbiased std plus eps", () => {
    const g = roleWiseAdvantages(uneven(), norm);
    const std = Math.sqrt((1 / 9 + 2 / 36) / 2); // rehearse rows, n − 1 = 2
    expect(g.byRole.rehearse.std).toBeCloseTo(std, 12);
    const reh = advOf(g, "rehearse").map(([, , a]) => a);
    expect(reh[0]).toBeCloseTo(1 / 3 / (std + 1e-6), 9);
    expect(reh[1]).toBeCloseTo(-1 / 6 / (std + 1e-6), 9);
  });

  it("zero-variance groups get advantage 0 and are counted; kept (reference) or dropped", () => {
    const g = roleWiseAdvantages([episode(1, ["act", "rehearse"]), episode(1, ["act"])], raw);
    expect(g.byRole.act).toMatchObject({ rows: 2, zeroVariance: true });
    expect(g.rows.filter((r) => r.role === "act").every((r) => r.advantage === 0 && r.trainable)).toBe(true);
    const dropped = roleWiseAdvantages([episode(1, ["act", "rehearse"]), episode(1, ["act"])], {
      ...raw,
      zeroVariance: "drop",
    });
    expect(dropped.rows.filter((r) => r.role === "act").every((r) => !r.trainable)).toBe(true);
    // the single rehearse row is a one-member group: the reference gives it baseline 0
    expect(g.byRole.rehearse).toMatchObject({ rows: 1, baseline: 0, std: 1, zeroVariance: false });
    expect(g.rows.find((r) => r.role === "rehearse")).toMatchObject({ advantage: 1, trainable: true });
  });

  it("a single-episode group: its rows share one reward, so each role with >1 row is zero-variance", () => {
    const g = roleWiseAdvantages([episode(0.7, ["act", "rehearse", "act"])], raw);
    expect(g.byRole.act).toMatchObject({ rows: 2, zeroVariance: true, baseline: 0.7 });
    expect(g.byRole.rehearse).toMatchObject({ rows: 1, zeroVariance: false });
    expect(g.rows.find((r) => r.role === "rehearse")!.advantage).toBeCloseTo(0.7, 12);
    const gn = roleWiseAdvantages([episode(0.7, ["act"])], norm);
    expect(gn.rows[0]!.advantage).toBeCloseTo(0.7 / (1 + 1e-6), 12);
  });

  it("frozen roles contribute no rows and do not change the other role's baseline", () => {
    const g = roleWiseAdvantages(uneven(), { ...raw, trainRoles: { act: true, rehearse: false } });
    expect(g.rows.some((r) => r.role === "rehearse")).toBe(false);
    expect(g.byRole.rehearse.rows).toBe(0);
    expect(g.byRole.act.baseline).toBeCloseTo(3.5 / 6, 12);
    const onlyReh = roleWiseAdvantages(uneven(), { ...raw, trainRoles: { act: false, rehearse: true } });
    expect(onlyReh.rows.map((r) => r.role)).toEqual(["rehearse", "rehearse", "rehearse"]);
  });

  it("masked episodes are excluded and counted", () => {
    const eps = uneven();
    eps[1] = episode(undefined, ["act", "act", "act"]);
    const g = roleWiseAdvantages(eps, raw);
    expect(g.masked).toBe(1);
    expect(g.rows.some((r) => r.episode === 1)).toBe(false);
    // act rows now [1,1,.5,.5,.5] → baseline 3.5/5
    expect(g.byRole.act.baseline).toBeCloseTo(0.7, 12);
  });
});

describe("rehearseBaseline: call", () => {
  // A rehearse row answering the call whose prompt is `p` (the same prompt: the same call after the
  // same conversation).
  const reh = (p: number) => ({ ...row("rehearse"), promptTokenIds: [7, p] });
  const ep = (reward: number, prompts: number[]) => ({
    ...episode(reward, []),
    rows: [row("act"), ...prompts.map(reh)],
  });
  // Four episodes of one task: all answer the lookup (prompt 1); the two that then make the forbidden
  // write (prompt 2) fail, whatever its rehearsal says; one of the others fails for another reason.
  const group = () => [ep(1, [1]), ep(0, [1]), ep(0, [1, 2]), ep(0, [1, 2])];

  it("credits a rehearsal only against the same call's other rehearsals", () => {
    const role = roleWiseAdvantages(group(), raw);
    const call = roleWiseAdvantages(group(), { ...raw, rehearseBaseline: "call" });
    // Under the role's baseline (1/6 over six rows) the forbidden write's answers are pushed down …
    expect(
      advOf(role, "rehearse")
        .filter(([e, r]) => e >= 2 && r === 2)
        .map(([, , a]) => a),
    ).toEqual([-1 / 6, -1 / 6]);
    // … against their own call's baseline they get 0: both failed, its answer changed nothing.
    const byRow = advOf(call, "rehearse");
    expect(byRow.filter(([e, r]) => e >= 2 && r === 2).map(([, , a]) => a)).toEqual([0, 0]);
    // The lookup's answers are compared among the four lookups (baseline 1/4).
    expect(byRow.filter(([, r]) => r === 1).map(([, , a]) => a)).toEqual([0.75, -0.25, -0.25, -0.25]);
    // The act role and the reported stats are the reference's either way.
    expect(advOf(call, "act")).toEqual(advOf(role, "act"));
    expect(call.byRole).toEqual(role.byRole);
  });

  it("gives 0 to a prompt seen once, and normalises within a prompt's rows", () => {
    expect(callBaselineAdvantages([[1], [2], [2]], [1, 1, 0], raw)).toEqual([0, 0.5, -0.5]);
    const [a, b] = callBaselineAdvantages([[3], [3]], [1, 0], norm);
    expect(a).toBeCloseTo(0.5 / (Math.SQRT1_2 + 1e-6), 9);
    expect(b).toBeCloseTo(-a!, 12);
  });
});

describe("rows with their own reward (Row.reward)", () => {
  const near = (xs: number[]) => xs.map((x) => expect.closeTo(x, 12));
  // Episode rewards 1, 0, 0; rehearsals scored apart: right (1) in E0 and E1, wrong (0) in E2.
  const scoredReh = (reward: number) => ({ ...row("rehearse"), reward });
  const group = (): EpisodeResult[] => [
    { ...episode(1, []), rows: [row("act"), scoredReh(1), row("rehearse")] },
    { ...episode(0, []), rows: [row("act"), scoredReh(1), row("rehearse")] },
    { ...episode(0, []), rows: [row("act"), scoredReh(0)] },
  ];

  it("are compared only with each other; the others keep the episode's reward and baseline", () => {
    const g = roleWiseAdvantages(group(), raw);
    const byRow = advOf(g, "rehearse");
    // own rewards [1, 1, 0]: baseline 2/3, whatever their episodes' rewards
    expect(byRow.filter(([, r]) => r === 1).map(([, , a]) => a)).toEqual(near([1 / 3, 1 / 3, -2 / 3]));
    // the unscored rehearsals: episode rewards [1, 0], baseline 1/2, as the reference
    expect(byRow.filter(([, r]) => r === 2).map(([, , a]) => a)).toEqual([0.5, -0.5]);
    expect(g.byRole.rehearse).toMatchObject({ rows: 2, baseline: 0.5 });
    // the act role never sees the rows' own rewards
    expect(advOf(g, "act").map(([, , a]) => a)).toEqual(near([2 / 3, -1 / 3, -1 / 3]));
  });

  it("describe the role when every row of it carries its own reward, and an empty row scores as empty", () => {
    const eps = group().map((e) => ({
      ...e,
      rows: e.rows.filter((r) => r.role === "act" || r.reward !== undefined),
    }));
    eps[0]!.rows[1] = { ...eps[0]!.rows[1]!, tokenIds: [] };
    const g = roleWiseAdvantages(eps, raw);
    expect(g.byRole.rehearse).toMatchObject({ rows: 3, baseline: 1 / 3 });
    expect(advOf(g, "rehearse").map(([, , a]) => a)).toEqual(near([-1 / 3, 2 / 3, -1 / 3]));
  });
});

describe("groupAdvantages", () => {
  it("handles the empty group", () => {
    expect(groupAdvantages([], norm)).toMatchObject({ rows: 0, advantageByRow: [] });
  });
});

/**
 * A line-by-line transcription of the reference (verl `compute_advantage` with
 * group_by_agent_id=True: index = `${uid}_${agent_id}`, then `compute_grpo_outcome_advantage`,
 * whose traj_accumulator extends each index's score list with every row's score), used as an oracle.
 */
function referenceGrpo(
  uid: string[],
  agentId: string[],
  trajUid: string[],
  scores: number[],
  normByStd: boolean,
  eps = 1e-6,
): number[] {
  const index = uid.map((u, i) => `${u}_${agentId[i]}`);
  const trajAcc = new Map<string, number[]>();
  scores.forEach((s, i) => {
    const k = `${index[i]}|${trajUid[i]}`;
    trajAcc.set(k, [...(trajAcc.get(k) ?? []), s]);
  });
  const id2score = new Map<string, number[]>();
  for (const [k, list] of trajAcc) {
    const idx = k.split("|")[0]!;
    id2score.set(idx, [...(id2score.get(idx) ?? []), ...list]);
  }
  const id2mean = new Map<string, number>();
  const id2std = new Map<string, number>();
  for (const [idx, list] of id2score) {
    if (list.length === 1) {
      id2mean.set(idx, 0);
      id2std.set(idx, 1);
    } else {
      const m = list.reduce((a, b) => a + b, 0) / list.length;
      id2mean.set(idx, m);
      id2std.set(idx, Math.sqrt(list.reduce((a, x) => a + (x - m) ** 2, 0) / (list.length - 1)));
    }
  }
  return scores.map((s, i) =>
    normByStd ? (s - id2mean.get(index[i]!)!) / (id2std.get(index[i]!)! + eps) : s - id2mean.get(index[i]!)!,
  );
}

describe("reference uid_role grouping", () => {
  it("reproduces verl's group_by_agent_id advantages row for row", () => {
    // two task groups (uid a, b); rows flattened as the reference's batch
    const groups = {
      a: uneven(),
      b: [
        episode(0.25, ["rehearse", "act"]),
        episode(0.75, ["act", "act", "rehearse"]),
        episode(0.25, ["act"]),
      ],
    };
    for (const normalizeStd of [false, true]) {
      const uid: string[] = [],
        agent: string[] = [],
        traj: string[] = [],
        score: number[] = [],
        ours: number[] = [];
      for (const [u, eps] of Object.entries(groups)) {
        const g = roleWiseAdvantages(eps, { ...raw, normalizeStd });
        eps.forEach((e, ei) =>
          e.rows.forEach((r, ri) => {
            uid.push(u);
            agent.push(r.role);
            traj.push(`${u}-${ei}`);
            score.push(e.reward!);
            ours.push(g.rows.find((s) => s.episode === ei && s.row === ri)!.advantage);
          }),
        );
      }
      const ref = referenceGrpo(uid, agent, traj, score, normalizeStd);
      ref.forEach((x, i) => expect(ours[i]).toBeCloseTo(x, 9));
    }
  });
});
