import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import type { Message, PolicyRole } from "../../../src/core/messages.js";
import { TaskZ, type Task } from "../../../src/core/task.js";
import type { Judge } from "../../../src/reward/types.js";
import { scoreEpisode } from "../../../src/reward/score.js";
import type { EpisodeResult } from "../../../src/rollout/types.js";
import { roleWiseAdvantages } from "../../../src/train/advantages.js";
import { weightByAggregation, type LossAggMode } from "../../../src/train/batching.js";
import { mulberry32 } from "../../../src/train/task-sampler.js";

/**
 * Our advantages, loss aggregation and episode reward against a Python port of the reference's
 * functions (test/parity/reference_port.py) on the same seeded synthetic batches: equal within 1e-6.
 * docs/reference-parity.md points here.
 */
const root = resolve(import.meta.dirname, "../../..");
const python = join(root, ".venv", "bin", "python");

function reference(request: unknown): Record<string, unknown[]> {
  if (!existsSync(python)) throw new Error(`no worker venv at ${python}: run npm run setup:worker first`);
  const out = execFileSync(python, [join(root, "test", "parity", "reference_port.py")], {
    input: JSON.stringify(request),
    encoding: "utf8",
  });
  return JSON.parse(out) as Record<string, unknown[]>;
}

/** Seeded, so every run draws the same batches. */
const rng = mulberry32;
const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

function episode(r: () => number, sample: number): EpisodeResult {
  const roles: PolicyRole[] = Array.from({ length: 1 + Math.floor(r() * 5) }, () =>
    pick(r, ["act", "rehearse"] as const),
  );
  return {
    taskId: "t",
    sample,
    messages: [],
    calls: [],
    replies: [],
    endReason: "done",
    envCalls: 0,
    masked: false,
    turnScores: [],
    success: false,
    reward: pick(r, [0, 0.25, 0.5, 0.75, 1]),
    rows: roles.map((role) => ({
      role,
      promptTokenIds: [1],
      // some rows sampled nothing: no token carries their reward, so they score 0 in the baseline
      tokenIds: r() < 0.1 ? [] : [2, 3],
      logprobs: [],
      turn: 0,
    })),
  };
}

describe("parity with the reference's functions (Python port, same synthetic batches)", () => {
  it("role-wise GRPO advantages (group_by_agent_id), mean-only and std-normalised", () => {
    const r = rng(7);
    const batches = Array.from({ length: 12 }, (_, b) => {
      const tasks = Array.from({ length: 1 + (b % 3) }, () =>
        Array.from({ length: 1 + Math.floor(r() * 4) }, (_, s) => episode(r, s)),
      );
      // one group where every row has the same reward (zero variance), one with a single row
      if (b === 0) tasks[0] = [0, 1].map((s) => ({ ...episode(r, s), reward: 0.5 }));
      if (b === 1) tasks[0] = [{ ...episode(r, 0), rows: [episode(r, 0).rows[0]!] }];
      return tasks;
    });
    for (const normalizeStd of [false, true]) {
      const req = {
        advantages: batches.map((tasks) => {
          const rows = tasks.flatMap((g, t) =>
            g.flatMap((e, s) =>
              e.rows.map((row) => ({
                score: row.tokenIds.length === 0 ? 0 : e.reward!,
                index: `${t}_${row.role}`,
                traj: `${t}_${s}`,
              })),
            ),
          );
          return {
            scores: rows.map((x) => x.score),
            index: rows.map((x) => x.index),
            traj_index: rows.map((x) => x.traj),
            norm_by_std: normalizeStd,
          };
        }),
      };
      const want = reference(req).advantages as number[][];
      batches.forEach((tasks, b) => {
        const ours: number[] = [];
        for (const g of tasks) {
          const res = roleWiseAdvantages(g, {
            normalizeStd,
            eps: 1e-6,
            trainRoles: { act: true, rehearse: true },
          });
          // back in the port's order: episode by episode, row by row
          const byRow = new Map(res.rows.map((x) => [`${x.episode}/${x.row}`, x.advantage]));
          g.forEach((e, s) => e.rows.forEach((_, k) => ours.push(byRow.get(`${s}/${k}`)!)));
        }
        expect(ours).toHaveLength(want[b]!.length);
        ours.forEach((a, i) => expect(Math.abs(a - want[b]![i]!)).toBeLessThan(1e-6));
      });
    }
  });

  it("loss aggregation: each loss_agg_mode, and seq-mean-token-mean = the reference's micro-batch-1 token-mean", () => {
    const r = rng(11);
    const batches = Array.from({ length: 10 }, () => {
      const rows = 1 + Math.floor(r() * 6);
      const len = 2 + Math.floor(r() * 8);
      const loss = Array.from({ length: rows }, () => Array.from({ length: len }, () => r() * 4 - 2));
      const mask = Array.from({ length: rows }, () => {
        const n = 1 + Math.floor(r() * len); // every row has at least one response token
        return Array.from({ length: len }, (_, i) => (i < n ? 1 : 0));
      });
      return { loss, mask };
    });
    const want = reference({ agg_loss: batches }).agg_loss as Array<Record<string, number>>;
    const modes: LossAggMode[] = ["token-mean", "seq-mean-token-mean", "seq-mean-token-sum"];
    batches.forEach((b, i) => {
      const seqs = b.mask.map((m) => ({ tokenIds: m.map(() => 0), lossMask: m, advantages: m.map(() => 0) }));
      for (const mode of modes) {
        const w = weightByAggregation(seqs, mode);
        const ours = w.reduce(
          (acc, s, k) => acc + s.weight! * s.lossMask.reduce((x, m, t) => x + m * b.loss[k]![t]!, 0),
          0,
        );
        expect(Math.abs(ours - want[i]![mode]!)).toBeLessThan(1e-6);
      }
      expect(Math.abs(want[i]!["seq-mean-token-mean"]! - want[i]!.micro_batch_one_token_mean!)).toBeLessThan(
        1e-9,
      );
    });
  });

  it("checklist episode reward: per-step verdicts OR-ed over steps, Σ turns / (checklists × turns)", async () => {
    const r = rng(5);
    const cases = Array.from({ length: 15 }, (_, n) => {
      const turns = 1 + Math.floor(r() * 3);
      const checklists = Array.from({ length: 1 + Math.floor(r() * 2) }, (_, c) =>
        Array.from({ length: turns }, (_, t) => {
          const k = 1 + Math.floor(r() * 3);
          // weights summing to 1 per turn: the reference's raw sum equals our normalised score
          return Array.from({ length: k }, (_, s) => ({ question: `c${c}t${t}s${s}`, weight: 1 / k }));
        }),
      );
      const steps = Array.from({ length: turns }, () => 1 + Math.floor(r() * 3));
      // verdict[c][t][step][s]
      const verdict = checklists.map((cl) =>
        cl.map((st, t) => Array.from({ length: steps[t]! }, () => st.map(() => r() < 0.4))),
      );
      const scored = n % 4 === 3 ? Math.max(1, turns - 1) : turns; // some episodes ended early
      return { turns, checklists, steps, verdict, scored };
    });
    const want = reference({
      episode_reward: cases.map((x) => ({
        checklists: x.checklists,
        turns: Array.from({ length: x.scored }, (_, t) => x.verdict.map((v) => v[t])),
      })),
    }).episode_reward as number[];

    for (const [i, x] of cases.entries()) {
      const task: Task = TaskZ.parse({
        id: `p${i}`,
        domain: "d",
        tools: [],
        user_turns: Array.from({ length: x.turns }, (_, t) => `u${t}`),
        checklists: x.checklists,
      });
      const judge: Judge = {
        judge: async (input) => {
          const step = input.transcript.messages.filter((m) => m.role === "assistant").length - 1;
          return input.standards.map((s) => {
            const [, c, t, k] = /^c(\d+)t(\d+)s(\d+)$/.exec(s.question)!.map(Number);
            return { passed: x.verdict[c!]![t!]![step]![k!]! };
          });
        },
      };
      const transcripts = Array.from({ length: x.scored }, (_, t) => {
        const messages: Message[] = [{ role: "user", content: `u${t}` }];
        for (let s = 0; s < x.steps[t]!; s++) messages.push({ role: "assistant", content: `step ${s}` });
        return { before: [], messages, calls: [], replies: messages.slice(1).map((m) => m.content) };
      });
      const ours = await scoreEpisode(task, transcripts, judge);
      expect(Math.abs(ours.reward! - want[i]!)).toBeLessThan(1e-6);
    }
  });
});
