import { join } from "node:path";
import { EnvaceError } from "../../core/errors.js";
import { resolveDataDir } from "../data-dir.js";
import type { BenchRunner, BenchSummary, EvalOptions } from "../registry.js";
import {
  tau2JudgeFromOptions,
  tau2RunOptionsFromEval,
  tau2UserFromOptions,
  TAU2_DOMAINS,
  type Tau2DomainLoader,
} from "./bench-runner.js";
import type { Tau2DomainLike } from "./env-port.js";
import { runTau2, selectTasks, type Tau2TrialResult } from "./run-tau2.js";
import {
  checkGuardTools,
  guardsWrites,
  rehearsalFromFlags,
  type RehearsalEvalFlags,
  REHEARSAL_FLAG_KEYS,
} from "../../testtime/eval-flags.js";
import { openEvalModel } from "../../testtime/eval-model.js";
import { guardTau2, RehearsingTau2Agent } from "./rehearsal-agent.js";
import {
  addRehearsalStats,
  emptyRehearsalStats,
  rehearsalCallCount,
  rehearsalReport,
} from "../../testtime/types.js";

/**
 * Imagined user replies per attempt on dual-control domains (telecom) unless
 * `--rehearsal-user-replies` says otherwise: enough for the agent to see, privately, what its
 * instruction makes the user's phone show and what it would do next.
 */
export const DUAL_CONTROL_USER_REPLIES = 2;

/** The agent's state-changing tools of a τ² domain (upstream's WRITE tools, `mutates_state`). */
export function tau2WriteTools(domain: Tau2DomainLike): string[] {
  const env = domain.createEnv();
  return env
    .tools()
    .map((t) => t.name)
    .filter((name) => env.isMutating?.(name) === true);
}

/**
 * `tau2:<domain>` with test-time rehearsal and `--checkpoint`: without them it is the τ² runner
 * as is; with them the agent is a `RehearsingTau2Agent` over the model, the domain and the user
 * simulator are guarded, and each trial's result gains its rehearsal cost. On dual-control domains
 * an attempt goes on past the agent's reply with an imagined user (a separate session of the same
 * user simulator) whose phone-tool results the policy imagines; other domains opt in with
 * `--rehearsal-user-replies N`.
 */
export function withTau2Rehearsal(base: BenchRunner, loadDomain: Tau2DomainLoader): BenchRunner {
  return {
    describe: base.describe,
    reads: [...base.reads, "checkpoint", ...REHEARSAL_FLAG_KEYS],
    async run(opts: EvalOptions): Promise<BenchSummary> {
      const o = opts as EvalOptions & RehearsalEvalFlags;
      const rehearsal = rehearsalFromFlags(o);
      if (rehearsal.mode === "none" && o.checkpoint === undefined) return base.run(o);
      if (!(TAU2_DOMAINS as readonly string[]).includes(o.variant)) return base.run(o); // the base names the error
      if (o.policy !== undefined)
        throw new EnvaceError(
          "INVALID_CONFIG",
          "--rehearsal and --checkpoint need a model agent, not --policy",
        );
      tau2JudgeFromOptions(o); // flag errors before anything starts
      const dataRoot = resolveDataDir(o.data);
      const rawUser = tau2UserFromOptions(o, false, join(dataRoot, "tau2"));
      const loaded = await loadDomain(o.variant, dataRoot);
      const { domain, user, phaseFor, userToolsFor } = guardTau2(loaded, rawUser);
      const userReplies = rehearsal.userReplies ?? (loaded.dualControl ? DUAL_CONTROL_USER_REPLIES : 0);
      checkGuardTools(
        rehearsal,
        loaded
          .createEnv()
          .tools()
          .map((t) => t.name),
        `tau2:${o.variant}`,
      );
      const total = selectTasks(domain, o.split, o.limit).length * o.trials;
      const { model, close } = await openEvalModel(o);
      const agent = new RehearsingTau2Agent(model, {
        rehearsal: {
          ...rehearsal,
          userReplies,
          ...(guardsWrites(o) ? { guardTools: tau2WriteTools(loaded) } : {}),
        },
        phaseFor,
        imaginedUser: { simulator: rawUser, userTools: userToolsFor },
      });
      o.onStart?.(total);
      let summary;
      try {
        summary = await runTau2({ ...tau2RunOptionsFromEval(o, domain), agent, user, validateCalls: true });
      } finally {
        await close();
      }
      // Sessions start in job order; match them to results by task id and occurrence.
      const byTask = new Map<string, typeof agent.sessions>();
      for (const s of agent.sessions) byTask.set(s.taskId, [...(byTask.get(s.taskId) ?? []), s]);
      const all = emptyRehearsalStats(rehearsal);
      const results = summary.results.map((r: Tau2TrialResult) => {
        const s = byTask.get(r.task_id)?.shift();
        if (!s)
          return {
            ...r,
            real_calls: 0,
            rehearsal_tokens: 0,
            rehearsal_calls: 0,
            held_calls: 0,
            real_calls_during_rehearsal: 0,
            user_tool_calls: 0,
            imagined_user_calls: 0,
          };
        addRehearsalStats(all, s.stats);
        return {
          ...r,
          real_calls: s.phase.committedCalls,
          rehearsal_tokens: s.stats.tokens.total,
          rehearsal_calls: rehearsalCallCount(s.stats),
          held_calls: s.stats.heldCalls,
          real_calls_during_rehearsal: s.phase.realCalls,
          user_calls_during_rehearsal: s.phase.userCalls,
          user_tool_calls: s.phase.committedUserCalls,
          imagined_user_calls: s.stats.imaginedUserCalls,
        };
      });
      all.realCallsDuringRehearsal = agent.sessions.reduce((n, s) => n + s.phase.realCalls, 0);
      all.userCallsDuringRehearsal = agent.sessions.reduce((n, s) => n + s.phase.userCalls, 0);
      const n = Math.max(1, results.length);
      return {
        ...summary,
        success_rate: results.filter((r) => r.success).length / n,
        real_calls: results.reduce((k, r) => k + r.real_calls, 0),
        rehearsal: rehearsalReport(all, results.length),
        results,
      };
    },
  };
}
