import { tokenKey } from "../core/token-key.js";
import type { PolicyRole } from "../core/messages.js";
import type { EpisodeResult } from "../rollout/types.js";

/**
 * Role-wise GRPO advantages (ARCHITECTURE.md, "Reward and advantages").
 *
 * A group is the G episodes of one task. Inside a group, every (group, role) pair is its own GRPO
 * group whose members are that role's ROWS (one row per model call), each carrying its episode's
 * reward. This is exactly the reference's `group_by_agent_id=True` grouping (`uid_role` index in
 * verl's `compute_advantage`, then `compute_grpo_outcome_advantage` extending each group with every
 * row's score): an episode with more rows of a role weighs more in that role's baseline.
 *
 * Reference quirks reproduced on purpose:
 * - the std is the unbiased one (torch.std, n − 1);
 * - a (group, role) with a single row uses baseline 0 and std 1, so its advantage is its reward;
 * - a (group, role) whose rows all have the same reward gets advantage 0 on every row and stays in
 *   the batch (its rows count in the loss denominator); `zeroVariance: "drop"` leaves them out;
 * - a row that sampled no token has no token to carry the reward (the reward manager writes it at
 *   the last response token), so it enters the baseline with reward 0 (`emptyResponseReward`).
 *
 * Not in the reference: a row that carries its own reward (`Row.reward`, set by a sampler that
 * scores rows apart from their episode) is compared only with the other such rows of its
 * (group, role), never with rows carrying the episode's reward: two kinds of reward share no
 * baseline. `byRole` describes the rows carrying the episode's reward (all rows where none has its own).
 */
export const POLICY_ROLES: readonly PolicyRole[] = ["act", "rehearse"];

export interface AdvantageOptions {
  /** Divide by (std + eps) as in the original GRPO; false is Dr.GRPO (mean-centred only). */
  normalizeStd: boolean;
  eps: number;
  /** Roles being trained. Frozen roles contribute no rows. */
  trainRoles: Record<PolicyRole, boolean>;
  /** Zero-variance (group, role) groups: `keep` their rows with advantage 0 (reference) or `drop` them. Default keep. */
  zeroVariance?: "keep" | "drop";
  /** Reward of a row with no sampled token, in its group's baseline (reference: 0). Default 0. */
  emptyResponseReward?: number;
  /**
   * The rehearse role's baseline: `role` (reference) is the mean over the (group, role)'s rows;
   * `call` is the mean over the group's rehearse rows with the same prompt (the same call after the
   * same conversation), so a rehearsal is credited only for what its answer added to the outcome of
   * that call (`callBaselineAdvantages`). Default `role`.
   */
  rehearseBaseline?: "role" | "call";
}

export interface GroupStats {
  /** Rows of this role in the group (after masking and freezing). */
  rows: number;
  baseline: number;
  std: number;
  /** All rows have the same reward (and more than one row): no gradient. */
  zeroVariance: boolean;
}

/** Advantage of one row of one (role) group: baseline, scale and per-row output. */
export function groupAdvantages(
  rewardByRow: readonly number[],
  opts: Pick<AdvantageOptions, "normalizeStd" | "eps">,
): GroupStats & { advantageByRow: number[] } {
  const n = rewardByRow.length;
  if (n === 0) return { rows: 0, baseline: 0, std: 0, zeroVariance: false, advantageByRow: [] };
  if (n === 1) {
    // Reference: a one-member group has mean 0 and std 1.
    const r = rewardByRow[0]!;
    return {
      rows: 1,
      baseline: 0,
      std: 1,
      zeroVariance: false,
      advantageByRow: [opts.normalizeStd ? r / (1 + opts.eps) : r],
    };
  }
  const first = rewardByRow[0]!;
  if (rewardByRow.every((r) => r === first)) {
    return { rows: n, baseline: first, std: 0, zeroVariance: true, advantageByRow: rewardByRow.map(() => 0) };
  }
  const baseline = rewardByRow.reduce((a, b) => a + b, 0) / n;
  const std = Math.sqrt(rewardByRow.reduce((a, r) => a + (r - baseline) ** 2, 0) / (n - 1));
  const advantageByRow = rewardByRow.map((r) =>
    opts.normalizeStd ? (r - baseline) / (std + opts.eps) : r - baseline,
  );
  return { rows: n, baseline, std, zeroVariance: false, advantageByRow };
}

/** One trainable row with its advantage, pointing back into the group's episodes. */
export interface ScoredRow {
  /** Index of the episode in the group array. */
  episode: number;
  /** Index of the row in that episode's `rows`. */
  row: number;
  role: PolicyRole;
  reward: number;
  advantage: number;
  /** False when the row is left out of the update (zero-variance group under `drop`). */
  trainable: boolean;
}

export interface GroupResult {
  rows: ScoredRow[];
  byRole: Record<PolicyRole, GroupStats>;
  /** Episodes excluded because the judge failed (reward undefined). */
  masked: number;
}

/** Role-wise advantages for one task group. Masked episodes and frozen roles contribute no rows. */
export function roleWiseAdvantages(episodes: readonly EpisodeResult[], opts: AdvantageOptions): GroupResult {
  const rows: ScoredRow[] = [];
  const byRole = {} as Record<PolicyRole, GroupStats>;
  let masked = 0;
  for (const e of episodes) if (e.masked || e.reward === undefined) masked++;

  for (const role of POLICY_ROLES) {
    if (!opts.trainRoles[role]) {
      byRole[role] = { rows: 0, baseline: 0, std: 0, zeroVariance: false };
      continue;
    }
    const members: Array<{ episode: number; row: number; reward: number }> = [];
    const scoredApart: Array<{ episode: number; row: number; reward: number }> = [];
    episodes.forEach((e, episode) => {
      if (e.masked || e.reward === undefined) return;
      e.rows.forEach((r, row) => {
        if (r.role !== role) return;
        const empty = r.tokenIds.length === 0 ? (opts.emptyResponseReward ?? 0) : undefined;
        if (r.reward !== undefined) scoredApart.push({ episode, row, reward: empty ?? r.reward });
        else members.push({ episode, row, reward: empty ?? e.reward! });
      });
    });
    const push = (ms: typeof members, advantageByRow: readonly number[], stats: GroupStats) => {
      const trainable = !(stats.zeroVariance && opts.zeroVariance === "drop");
      ms.forEach((m, i) => rows.push({ ...m, role, advantage: advantageByRow[i]!, trainable }));
    };
    const { advantageByRow: apartAdvantages, ...apartStats } = groupAdvantages(
      scoredApart.map((m) => m.reward),
      opts,
    );
    push(scoredApart, apartAdvantages, apartStats);
    const rewardByRow = members.map((m) => m.reward);
    const { advantageByRow: roleAdvantages, ...stats } = groupAdvantages(rewardByRow, opts);
    const advantageByRow =
      role === "rehearse" && opts.rehearseBaseline === "call"
        ? callBaselineAdvantages(
            members.map((m) => episodes[m.episode]!.rows[m.row]!.promptTokenIds),
            rewardByRow,
            opts,
          )
        : roleAdvantages;
    push(members, advantageByRow, stats);
    byRole[role] = members.length === 0 && scoredApart.length > 0 ? apartStats : stats;
  }
  return { rows, byRole, masked };
}

/**
 * Advantages against the mean reward of the rows with the same prompt (`rehearseBaseline: call`);
 * a prompt seen once, or only with one reward, gives 0. Why: under the role's baseline a rehearse row
 * is credited with everything its episode did, including the call it answers. A call that by itself
 * fails the task (a write the task's policy forbids) is answered only in failed episodes, so its
 * rehearsal is pushed down whatever it says. Against the same call's other rehearsals, only the
 * answer's own effect counts. Measured on the demo (issue 11, RESULTS.md): the rehearse role keeps
 * almost no net gradient (its rehearsals of one prompt are mostly one answer), success is unchanged,
 * and the co-trained rehearser's lower refusal recall is not brought back.
 */
export function callBaselineAdvantages(
  prompts: readonly (readonly number[])[],
  rewardByRow: readonly number[],
  opts: Pick<AdvantageOptions, "normalizeStd" | "eps">,
): number[] {
  const byPrompt = new Map<string, number[]>();
  prompts.forEach((p, i) => {
    const key = tokenKey(p);
    const rows = byPrompt.get(key);
    if (rows) rows.push(i);
    else byPrompt.set(key, [i]);
  });
  const out = rewardByRow.map(() => 0);
  for (const rows of byPrompt.values()) {
    if (rows.length < 2) continue;
    const { advantageByRow } = groupAdvantages(
      rows.map((i) => rewardByRow[i]!),
      opts,
    );
    rows.forEach((i, k) => (out[i] = advantageByRow[k]!));
  }
  return out;
}
