import type { PolicyRole } from "../../../src/core/messages.js";
import type { EpisodeResult, Row } from "../../../src/rollout/types.js";

/** A row of `n` sampled tokens after a prompt of `p` tokens. */
export function row(role: PolicyRole, n = 2, p = 3, turn = 0): Row {
  return {
    role,
    promptTokenIds: Array.from({ length: p }, (_, i) => 100 + i),
    tokenIds: Array.from({ length: n }, (_, i) => 200 + i),
    logprobs: Array.from({ length: n }, (_, i) => -0.1 * (i + 1)),
    turn,
  };
}

export function episode(
  reward: number | undefined,
  roles: PolicyRole[],
  extra: Partial<EpisodeResult> = {},
): EpisodeResult {
  return {
    taskId: "t",
    sample: 0,
    messages: [],
    rows: roles.map((r) => row(r)),
    calls: [],
    replies: [],
    endReason: "done",
    envCalls: 0,
    ...(reward !== undefined ? { reward } : {}),
    masked: reward === undefined,
    turnScores: [],
    success: reward === 1,
    ...extra,
  };
}
