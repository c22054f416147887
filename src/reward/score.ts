import { EnvaceError, isEnvaceError } from "../core/errors.js";
import type { Task } from "../core/task.js";
import { episodeReward, weightedScore } from "./aggregate.js";
import { checkRule } from "./rules.js";
import type { EpisodeScore, Judge, TurnScore, TurnTranscript } from "./types.js";

/**
 * Scores user turn `turn`: rule standards by code, the others by `judge` (one judge request per
 * checklist, for that checklist's rule-less standards). Throws JUDGE_ERROR when the judge API fails,
 * and INVALID_CONFIG when a rule-less standard has no judge to decide it.
 */
export async function scoreTurn(
  task: Task,
  turn: number,
  transcript: TurnTranscript,
  judge?: Judge,
): Promise<TurnScore> {
  let judgeCalls = 0;
  let judgeParseErrors = 0;
  const passed = await Promise.all(
    task.checklists.map(async (checklist) => {
      const standards = checklist[turn] ?? [];
      const verdicts: boolean[] = standards.map((s) =>
        s.rule ? checkRule(s.rule, transcript.calls, transcript.replies) : false,
      );
      const open = standards.flatMap((s, k) => (s.rule ? [] : [k]));
      if (open.length === 0) return verdicts;
      if (!judge) {
        throw new EnvaceError(
          "INVALID_CONFIG",
          `task ${task.id} has standards without a rule (turn ${turn}) but no judge was given`,
        );
      }
      judgeCalls++;
      const judged = await judge.judge({ task, turn, standards: open.map((k) => standards[k]!), transcript });
      open.forEach((k, i) => {
        const v = judged[i];
        if (!v || v.parseError) judgeParseErrors++;
        verdicts[k] = v?.passed === true;
      });
      return verdicts;
    }),
  );
  const score = task.checklists.reduce(
    (s, checklist, c) => s + weightedScore(checklist[turn] ?? [], passed[c]!),
    0,
  );
  return { score, passed, judgeCalls, judgeParseErrors };
}

/**
 * Scores an episode from its completed turns (`turns[t]` is user turn t; turns never reached
 * score 0). A judge API failure masks the episode: `masked: true`, no reward — never a fake 0.
 */
export async function scoreEpisode(
  task: Task,
  turns: readonly TurnTranscript[],
  judge?: Judge,
): Promise<EpisodeScore> {
  const turnScores: number[] = [];
  let judgeCalls = 0;
  let judgeParseErrors = 0;
  let allPassed = true;
  for (let t = 0; t < turns.length; t++) {
    let ts: TurnScore;
    try {
      ts = await scoreTurn(task, t, turns[t]!, judge);
    } catch (e) {
      if (!isEnvaceError(e, "JUDGE_ERROR")) throw e;
      return {
        turnScores,
        success: false,
        masked: true,
        judgeCalls,
        judgeParseErrors,
        maskReason: e.message,
      };
    }
    turnScores.push(ts.score);
    judgeCalls += ts.judgeCalls;
    judgeParseErrors += ts.judgeParseErrors;
    if (!ts.passed.every((p) => p.every(Boolean))) allPassed = false;
  }
  const success = allPassed && turns.length >= task.user_turns.length;
  return {
    turnScores,
    reward: episodeReward(task, turnScores),
    success,
    masked: false,
    judgeCalls,
    judgeParseErrors,
  };
}
