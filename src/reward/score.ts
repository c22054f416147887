import { EnvaceError, isEnvaceError } from "../core/errors.js";
import type { Standard, Task } from "../core/task.js";
import { episodeReward, weightedScore } from "./aggregate.js";
import { checkRule } from "./rules.js";
import { assistantSteps } from "./steps.js";
import type { EpisodeScore, Judge, TurnScore, TurnTranscript } from "./types.js";

/**
 * Scores user turn `turn` as the reference's checklist interaction does (interaction.py):
 * every standard is decided for every assistant step of the turn, on the turn so far up to that
 * step and its tool responses, and a standard passes the turn when any step passed it (OR over
 * steps). When a step's tool responses carry an `error_tool_call`, that step's tool-related
 * standards (`focus_on` `assistant.tool_calls` or `tool.content`, and `call` rules) are false
 * without asking the judge. Rule standards are decided by code (`forbid`: over the whole turn,
 * since "never did X" cannot be any one step's merit); the rest by `judge`, one request per
 * standard per step.
 *
 * Throws JUDGE_ERROR when the judge API fails (the caller masks the episode: our deliberate
 * departure, the reference ends it), INVALID_CONFIG when a rule-less standard has no judge.
 * `requiredFailed` is set when a `required_for_next_turn` standard failed; `judgeParseErrors`
 * counts judge replies that could not be read: the reference ends the episode after either.
 */
export async function scoreTurn(
  task: Task,
  turn: number,
  transcript: TurnTranscript,
  judge?: Judge,
): Promise<TurnScore> {
  const steps = assistantSteps(transcript);
  let judgeCalls = 0;
  let judgeParseErrors = 0;
  const passed = await Promise.all(
    task.checklists.map(async (checklist) => {
      const standards = checklist[turn] ?? [];
      const verdicts = standards.map(() => false);
      const open = standards.flatMap((s, k) => (s.rule ? [] : [k]));
      if (open.length > 0 && !judge) {
        throw new EnvaceError(
          "INVALID_CONFIG",
          `task ${task.id} has standards without a rule (turn ${turn}) but no judge was given`,
        );
      }
      standards.forEach((s, k) => {
        if (!s.rule) return;
        verdicts[k] =
          "forbid" in s.rule
            ? checkRule(s.rule, transcript.calls, transcript.replies)
            : steps.some((st) => !(st.toolError && toolRelated(s)) && checkRule(s.rule!, st.calls, st.texts));
      });
      for (const step of steps) {
        const ask = open.filter((k) => !verdicts[k] && !(step.toolError && toolRelated(standards[k]!)));
        if (ask.length === 0) continue;
        judgeCalls += ask.length;
        const judged = await judge!.judge({
          task,
          turn,
          standards: ask.map((k) => standards[k]!),
          transcript: { ...transcript, messages: step.messagesUpTo },
        });
        ask.forEach((k, i) => {
          const v = judged[i];
          if (!v || v.parseError) judgeParseErrors++;
          if (v?.passed === true) verdicts[k] = true;
        });
      }
      return verdicts;
    }),
  );
  const score = task.checklists.reduce(
    (s, checklist, c) => s + weightedScore(checklist[turn] ?? [], passed[c]!),
    0,
  );
  const requiredFailed = task.checklists.some((checklist, c) =>
    (checklist[turn] ?? []).some((s, k) => s.required_for_next_turn === true && !passed[c]![k]),
  );
  return { score, passed, judgeCalls, judgeParseErrors, requiredFailed };
}

/** Standards about the tool calls or their results: a step whose tool call failed cannot pass them. */
function toolRelated(s: Standard): boolean {
  if (s.focus_on === "assistant.tool_calls" || s.focus_on === "tool.content") return true;
  return s.focus_on === undefined && s.rule !== undefined && "call" in s.rule;
}

/**
 * Scores an episode from its completed turns (`turns[t]` is user turn t; turns never reached
 * score 0). A judge API failure masks the episode: `masked: true`, no reward — never a fake 0.
 * A failed required standard or an unreadable judge reply ends the episode after its turn, as in
 * the reference: later turns score 0.
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
    if ((ts.requiredFailed || ts.judgeParseErrors > 0) && t + 1 < task.user_turns.length) break;
  }
  const success = allPassed && turnScores.length >= task.user_turns.length;
  return {
    turnScores,
    reward: episodeReward(task, turnScores),
    success,
    masked: false,
    judgeCalls,
    judgeParseErrors,
  };
}
