import { describe, expect, it } from "vitest";
import type { PolicyRole } from "../../../src/core/messages.js";
import type { EpisodeResult, Row } from "../../../src/rollout/types.js";
import type { GroupResult, ScoredRow } from "../../../src/train/advantages.js";
import { advantageNetShare } from "../../../src/train/step-metrics.js";

const row = (role: PolicyRole, prompt: number[], response: number[]): Row => ({
  role,
  promptTokenIds: prompt,
  tokenIds: response,
  logprobs: response.map(() => -0.1),
  turn: 0,
});
const episode = (rows: Row[]) => ({ rows }) as unknown as EpisodeResult;

/** A group of episodes, each with its rows, and every row's advantage (its episode's). */
function group(episodes: Row[][], advantage: number[]): { groups: EpisodeResult[][]; adv: GroupResult[] } {
  const rows: ScoredRow[] = episodes.flatMap((rs, e) =>
    rs.map((r, i) => ({
      episode: e,
      row: i,
      role: r.role,
      reward: 0,
      advantage: advantage[e]!,
      trainable: true,
    })),
  );
  return { groups: [episodes.map(episode)], adv: [{ rows, byRole: {} as GroupResult["byRole"], masked: 0 }] };
}

describe("advantageNetShare", () => {
  const adv = [0.5, -0.5, 0.5, -0.5]; // two successes, two failures

  it("is 0 for a role whose rows are alike in every episode, 1 where they all differ", () => {
    // each episode acts differently, and rehearses the same call alike
    const { groups, adv: a } = group(
      [0, 1, 2, 3].map((e) => [row("act", [1, 2], [10 + e]), row("rehearse", [3, 4], [7, 7])]),
      adv,
    );
    expect(advantageNetShare(groups, a)).toEqual({ act: 1, rehearse: 0 });
  });

  it("adds up only rows with the same prompt and the same response", () => {
    const { groups, adv: a } = group(
      [
        [row("rehearse", [3, 4], [7, 7])], // +0.5  } same: cancel
        [row("rehearse", [3, 4], [7, 7])], // −0.5  }
        [row("rehearse", [3, 4], [7, 8])], // +0.5, another response
        [row("rehearse", [3, 5], [7, 7])], // −0.5, another prompt
      ],
      adv,
    );
    expect(advantageNetShare(groups, a).rehearse).toBeCloseTo(0.5, 12);
    // rows alike in sign do not cancel: episodes 0 and 2 both +0.5
    const same = group(
      [0, 1, 2, 3].map((e) => [row("act", [1], e % 2 === 0 ? [5] : [6])]),
      adv,
    );
    expect(advantageNetShare(same.groups, same.adv).act).toBeCloseTo(1, 12);
  });

  it("leaves out untrainable rows and is null where no advantage is non-zero", () => {
    const { groups, adv: a } = group(
      [0, 1].map(() => [row("act", [1], [5])]),
      [0, 0],
    );
    expect(advantageNetShare(groups, a)).toEqual({ act: null, rehearse: null });
    const dropped = group([[row("act", [1], [5])], [row("act", [1], [6])]], [0.5, -0.5]);
    dropped.adv[0]!.rows[1]!.trainable = false;
    expect(advantageNetShare(dropped.groups, dropped.adv).act).toBe(1);
  });
});
