import { tokenKey } from "../core/token-key.js";
import type { PolicyRole } from "../core/messages.js";
import type { EpisodeResult } from "../rollout/types.js";
import { POLICY_ROLES, type GroupResult } from "./advantages.js";

/** Per-role numbers of one step. */
export type ByRole<T> = Record<PolicyRole, T>;

export interface RoleStats {
  /** Mean reward over this role's rows (row-weighted, as the baseline). */
  reward_mean: number | null;
  adv_mean: number | null;
  adv_std: number | null;
  adv_min: number | null;
  adv_max: number | null;
  /**
   * The share of this role's advantage mass that identical rows do not cancel: rows of one group
   * with the same prompt and response are one training example, so their advantages add up;
   * Σ over such sets of |Σ A| / Σ |A| (1: every row distinct or alike in sign; 0: no gradient
   * left, as in a group whose episodes all rehearse a call alike). Null when no advantage is non-zero.
   */
  adv_net_share: number | null;
  /** Rows that went into the update (not frozen, not masked, not in a zero-variance group). */
  trained_rows: number;
  /** Mean sampled tokens per row (response length). */
  response_len_mean: number | null;
  response_len_max: number | null;
}

/** One line of metrics.jsonl (snake_case, as written). */
export interface StepMetrics {
  step: number;
  /** When the step finished (ISO 8601, UTC). */
  timestamp: string;
  lr: number;
  episodes: number;
  /** Real environment calls during training rollouts (0 in rehearsal and simulator modes). */
  env_calls: number;
  /** Episodes excluded because the judge failed. */
  masked: number;
  /** Rows and sampled tokens produced, per role (unmasked episodes). */
  rows: ByRole<number>;
  tokens: ByRole<number>;
  /** Mean episode reward (unmasked episodes). */
  reward_mean: number | null;
  success_rate: number | null;
  role: ByRole<RoleStats>;
  /** (group, role) pairs whose rows all had the same reward: no gradient. */
  zero_variance_groups: ByRole<number>;
  /** Rehearsed tool responses that failed the `<execution_result>` parser / all rehearsed responses. */
  rehearse_parse_error_rate: number | null;
  rehearse_parse_errors: Record<string, number>;
  /** Tool calls the act role emitted that failed validation (format, unknown tool, schema). */
  act_invalid_calls: number;
  end_reasons: Record<string, number>;
  forward_backward_calls: number;
  loss: number | null;
  /**
   * PPO ratio π/π_old over the trained tokens of each role at the step's first (only) update, where
   * it must be 1 up to float rounding; null when the engine does not report it.
   */
  ratio: ByRole<{ mean: number; min: number; max: number } | null>;
  /** Trained tokens whose PPO term was clipped / all trained tokens (null when not reported). */
  clip_frac: number | null;
  /** With `loss.tis_cap`: the mean truncated importance weight and the share of tokens at the cap. */
  tis?: { weight_mean: number; capped_fraction: number };
  /** With rollouts on another engine (vLLM): which weights sampled this step and how stale they were. */
  off_policy?: OffPolicyMetrics;
  grad_norm: number | null;
  optim_skipped: boolean;
  /** Worker restarts during this step. */
  restarts: number;
  time: { sample: number; train: number; judge: number };
  eval?: EvalMetrics;
}

/** The sampler's policy version for one step, against the trainer's (`rollout-sync.jsonl` has more). */
export interface OffPolicyMetrics {
  /** The version the step's rollouts sampled from (`<run>@<step>`). */
  version: string;
  /** Optimizer steps that version lags behind the trainer (0: on-policy). */
  steps: number;
  /** Seconds spent publishing and loading the weights before this step's rollouts (0: no sync). */
  publish_s: number;
  load_s: number;
}

export interface EvalMetrics {
  success_rate: number;
  reward_mean: number | null;
  episodes: number;
  env_calls: number;
}

/** The rollout part of a step's metrics, computed from its groups and their advantages. */
export function rolloutMetrics(
  groups: readonly (readonly EpisodeResult[])[],
  advantages: readonly GroupResult[],
): Omit<
  StepMetrics,
  | "step"
  | "timestamp"
  | "lr"
  | "forward_backward_calls"
  | "loss"
  | "grad_norm"
  | "optim_skipped"
  | "restarts"
  | "time"
  | "ratio"
  | "clip_frac"
> {
  const episodes = groups.flat();
  const live = episodes.filter((e) => !e.masked && e.reward !== undefined);
  const rows = byRole(() => 0);
  const tokens = byRole(() => 0);
  const lensByRole = byRole<number[]>(() => []);
  for (const e of live) {
    for (const r of e.rows) {
      rows[r.role]++;
      tokens[r.role] += r.tokenIds.length;
      lensByRole[r.role].push(r.tokenIds.length);
    }
  }
  const scored = advantages.flatMap((g) => g.rows);
  const netShare = advantageNetShare(groups, advantages);
  const role = byRole<RoleStats>((k) => {
    const mine = scored.filter((r) => r.role === k);
    const adv = mine.map((r) => r.advantage);
    const lens = lensByRole[k];
    return {
      reward_mean: mean(mine.map((r) => r.reward)),
      adv_mean: mean(adv),
      adv_std: std(adv),
      adv_min: adv.length ? Math.min(...adv) : null,
      adv_max: adv.length ? Math.max(...adv) : null,
      adv_net_share: netShare[k],
      trained_rows: mine.filter((r) => r.trainable).length,
      response_len_mean: mean(lens),
      response_len_max: lens.length ? Math.max(...lens) : null,
    };
  });
  const zero = byRole((k) => advantages.filter((g) => g.byRole[k].zeroVariance).length);

  const rehearsed = episodes.flatMap((e) => e.calls.filter((c) => c.source === "rehearsal"));
  const parseErrors: Record<string, number> = {};
  for (const c of rehearsed)
    if (c.parseError) parseErrors[c.parseError] = (parseErrors[c.parseError] ?? 0) + 1;
  const nParseErrors = Object.values(parseErrors).reduce((a, b) => a + b, 0);
  const endReasons: Record<string, number> = {};
  for (const e of episodes) endReasons[e.endReason] = (endReasons[e.endReason] ?? 0) + 1;

  return {
    episodes: episodes.length,
    env_calls: episodes.reduce((a, e) => a + e.envCalls, 0),
    masked: episodes.length - live.length,
    rows,
    tokens,
    reward_mean: mean(live.map((e) => e.reward!)),
    success_rate: mean(live.map((e) => (e.success ? 1 : 0))),
    role,
    zero_variance_groups: zero,
    rehearse_parse_error_rate: rehearsed.length ? nParseErrors / rehearsed.length : null,
    rehearse_parse_errors: parseErrors,
    act_invalid_calls: episodes.reduce(
      (a, e) => a + e.calls.filter((c) => c.source === "validation").length,
      0,
    ),
    end_reasons: endReasons,
  };
}

/**
 * Per role, Σ |Σ A| over the sets of a group's trainable rows that have the same prompt and
 * response, over Σ |A|: how much of the advantages survives as gradient once identical rows (equal
 * weights in the loss) are added up. Why: a role whose rows are the same in a group's successful
 * and failed episodes gets advantages that look alive (std > 0) and cancel in the update (issue 11:
 * the co-trained rehearser of the demo barely moves from SFT's).
 */
export function advantageNetShare(
  groups: readonly (readonly EpisodeResult[])[],
  advantages: readonly GroupResult[],
): ByRole<number | null> {
  const net = byRole(() => 0);
  const gross = byRole(() => 0);
  advantages.forEach((g, gi) => {
    const sums = new Map<string, { role: PolicyRole; sum: number }>();
    for (const r of g.rows) {
      if (!r.trainable) continue;
      const row = groups[gi]![r.episode]!.rows[r.row]!;
      const key = `${r.role}|${tokenKey(row.promptTokenIds, row.tokenIds)}`;
      const set = sums.get(key) ?? { role: r.role, sum: 0 };
      set.sum += r.advantage;
      sums.set(key, set);
      gross[r.role] += Math.abs(r.advantage);
    }
    for (const { role, sum } of sums.values()) net[role] += Math.abs(sum);
  });
  // sums of advantages that cancel leave float dust (1e-17), not gradient
  return byRole((k) => (gross[k] > 1e-12 ? Math.min(1, net[k] / gross[k]) : null));
}

/** Per-role ratio statistics from the engines' per-sequence reports. */
export function ratioMetrics(
  seqs: ReadonlyArray<{
    role: PolicyRole;
    ratio: {
      tokens: number;
      ratioMean: number | null;
      ratioMin: number | null;
      ratioMax: number | null;
      clipped: number;
    };
  }>,
): Pick<StepMetrics, "ratio" | "clip_frac"> {
  let tokens = 0;
  let clipped = 0;
  const ratio = byRole<{ mean: number; min: number; max: number } | null>((role) => {
    const mine = seqs.filter((s) => s.role === role && s.ratio.tokens > 0 && s.ratio.ratioMean !== null);
    if (mine.length === 0) return null;
    const n = mine.reduce((a, s) => a + s.ratio.tokens, 0);
    return {
      mean: mine.reduce((a, s) => a + s.ratio.ratioMean! * s.ratio.tokens, 0) / n,
      min: Math.min(...mine.map((s) => s.ratio.ratioMin!)),
      max: Math.max(...mine.map((s) => s.ratio.ratioMax!)),
    };
  });
  for (const s of seqs) {
    tokens += s.ratio.tokens;
    clipped += s.ratio.clipped;
  }
  return { ratio, clip_frac: tokens > 0 ? clipped / tokens : null };
}

function byRole<T>(f: (r: PolicyRole) => T): ByRole<T> {
  return Object.fromEntries(POLICY_ROLES.map((r) => [r, f(r)])) as ByRole<T>;
}

export function mean(xs: readonly number[]): number | null {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
}

function std(xs: readonly number[]): number | null {
  const m = mean(xs);
  if (m === null) return null;
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / xs.length);
}
