import type { ToolCallRecord } from "../rollout/types.js";
import type { RehearsalPromptVariant } from "../rollout/rehearsal-prompt.js";

/** `none`: act for real at once; `parallel`: N independent attempts; `sequential`: N attempts, each revising the last. */
export type RehearsalMode = "none" | "parallel" | "sequential";
/**
 * How the attempts become a note: the policy's own summary, a deterministic digest of every attempt
 * (small models), or the digest of the plan most attempts agree on, refused calls left out
 * (`consensusPlan`).
 */
export type RehearsalMemoryKind = "summary" | "digest" | "consensus";
/** What the note does in the committed run (`RehearsalOptions.noteUse`). */
export type NoteUse = "act" | "decide";
/** Rehearse once per user turn (before its first real action), or before every real action. */
export type RehearsalScope = "turn" | "action";

export interface RehearsalOptions {
  mode: RehearsalMode;
  /** Attempts per rehearsal (default 1). */
  n?: number;
  /** Default `digest`. */
  memory?: RehearsalMemoryKind;
  /** Default `turn`. */
  scope?: RehearsalScope;
  /** Tokens one attempt may generate (act and rehearse calls together); each call's `maxTokens` is clamped to what is left (default 2048). */
  maxTokensPerAttempt?: number;
  /** Total tokens (prompt + completion) all rehearsal may spend for one episode; once spent, later turns commit without rehearsing (default: no limit). */
  tokenBudget?: number;
  /** Act calls per attempt before it is cut off (default 6): an endless tool loop ends here. */
  maxStepsPerAttempt?: number;
  /** Sampling temperature of imagined act and rehearse calls (default 1: parallel attempts should differ). */
  temperature?: number;
  /** Most new tokens per imagined call (default 512, then clamped by `maxTokensPerAttempt`). */
  maxTokensPerCall?: number;
  /** The rehearsal prompt: `full` (as in training, default) or `compact` (tiny models). */
  promptVariant?: RehearsalPromptVariant;
  /** Most new tokens of the summary call (default 256). */
  summaryMaxTokens?: number;
  /** The memory note is cut to this many characters (default 4000). */
  maxMemoryChars?: number;
  /**
   * Benches with a user simulator (τ²): how many imagined user replies an attempt may go on
   * through after the actor's reply; the user's own tool calls are rehearsed too (default: the
   * bench's; τ² gives 2 to dual-control domains, 0 to the others).
   */
  userReplies?: number;
  /**
   * Side-effecting tools the committed run will not call with arguments the rehearsal found
   * refused in most attempts that made them (`commitGuard`): the actor is shown the refusal it
   * imagined and asked again, then given the rehearsal's reply. Default: none (no guard).
   */
  guardTools?: readonly string[];
  /**
   * What the note does in the committed run: `act` (default), the actor acts reading it; `decide`,
   * it decides what each step does but not how (`noteDecides`): each step is written again from
   * the real conversation alone, and that one is committed where it does the same (the same tools
   * in the same order, or a reply) and the guard holds none of its calls; else the noted step, but
   * where `guardTools` names the writes: a noted reply gives way to a step that only reads, and a
   * noted write no attempt made to a step without one (`plainDecides`).
   */
  noteUse?: NoteUse;
}

/** How an imagined attempt ended. */
export type AttemptEnd =
  | "replied"
  | "max_assistant_turns"
  | "max_parallel_calls"
  | "context_budget"
  | "rehearser_error_tool_call"
  | "rehearser_parse_error"
  | "invalid_call"
  | "required_standard_failed"
  | "judge_malformed"
  | "max_steps"
  | "model_error"
  | "budget"
  | "user_stop"
  | "max_user_steps";

/**
 * One side's part of an attempt that went on past the actor's reply (τ² dual control: the
 * imagined user answers, using its own tools, whose results are rehearsed as well).
 */
export interface RehearsalTurn {
  side: "agent" | "user";
  /** That side's calls, each with its rehearsed result (or validation/parse error). */
  calls: ToolCallRecord[];
  /** What the side said at the end of its part: the actor's reply, the user's answer. */
  text?: string;
}

/** One imagined attempt: what the actor did and what it imagined the tools returned. */
export interface RehearsalAttempt {
  index: number;
  end: AttemptEnd;
  /** Every call, with its rehearsed result (or validation/parse error). */
  calls: ToolCallRecord[];
  /** The final text to the user, when the attempt replied. */
  reply?: string;
  error?: string;
  /** Set when the attempt went on past the actor's reply: both sides' parts in order (`calls` keeps the actor's). */
  turns?: RehearsalTurn[];
}

/** Cost and safety counters of all rehearsal in one episode (or one `rehearseThenCommit` series). */
export interface RehearsalStats {
  mode: RehearsalMode;
  n: number;
  memory: RehearsalMemoryKind;
  scope: RehearsalScope;
  /** Rehearsals run (one per user turn, or one per real action). */
  phases: number;
  /** Rehearsals skipped because the token budget was spent. */
  skipped: number;
  attempts: number;
  /**
   * Model calls made for rehearsal, by kind: `guard` counts the committed run's asks again after a
   * held-back call (`guardTools`), which the committed run would not make without the rehearsal;
   * `rewrite` the steps written again without the note (`noteUse: "decide"`).
   */
  calls: { act: number; rehearse: number; summary: number; guard: number; rewrite: number };
  tokens: { prompt: number; completion: number; total: number };
  attemptEnds: Partial<Record<AttemptEnd, number>>;
  /** Summaries that failed or came back empty and were replaced by the digest. */
  summaryFallbacks: number;
  /** Real environment calls attempted while a rehearsal was running: must be 0 (they are refused). */
  realCallsDuringRehearsal: number;
  /** Calls to the real user session attempted while a rehearsal was running: must be 0. */
  userCallsDuringRehearsal: number;
  /** Calls to an imagined user (a separate user-simulator session over the imagined conversation). */
  imaginedUserCalls: number;
  /** Committed act outputs' calls the guard held back (`guardTools`): never made for real. */
  heldCalls: number;
  /** Times the actor insisted on a held-back call and the rehearsal's reply was committed instead. */
  guardFallbacks: number;
  /** Steps written again without the note that replaced the one written with it (`noteUse: "decide"`). */
  rewrittenSteps: number;
}

export function emptyRehearsalStats(opts: RehearsalOptions): RehearsalStats {
  return {
    mode: opts.mode,
    n: opts.mode === "none" ? 0 : (opts.n ?? 1),
    memory: opts.memory ?? "digest",
    scope: opts.scope ?? "turn",
    phases: 0,
    skipped: 0,
    attempts: 0,
    calls: { act: 0, rehearse: 0, summary: 0, guard: 0, rewrite: 0 },
    tokens: { prompt: 0, completion: 0, total: 0 },
    attemptEnds: {},
    summaryFallbacks: 0,
    realCallsDuringRehearsal: 0,
    userCallsDuringRehearsal: 0,
    imaginedUserCalls: 0,
    heldCalls: 0,
    guardFallbacks: 0,
    rewrittenSteps: 0,
  };
}

/** Adds `b`'s counters into `a` (mode/n/memory/scope stay `a`'s). */
export function addRehearsalStats(a: RehearsalStats, b: RehearsalStats): RehearsalStats {
  a.phases += b.phases;
  a.skipped += b.skipped;
  a.attempts += b.attempts;
  a.calls.act += b.calls.act;
  a.calls.rehearse += b.calls.rehearse;
  a.calls.summary += b.calls.summary;
  a.calls.guard += b.calls.guard;
  a.calls.rewrite += b.calls.rewrite;
  a.tokens.prompt += b.tokens.prompt;
  a.tokens.completion += b.tokens.completion;
  a.tokens.total += b.tokens.total;
  for (const [k, v] of Object.entries(b.attemptEnds))
    a.attemptEnds[k as AttemptEnd] = (a.attemptEnds[k as AttemptEnd] ?? 0) + v;
  a.summaryFallbacks += b.summaryFallbacks;
  a.realCallsDuringRehearsal += b.realCallsDuringRehearsal;
  a.userCallsDuringRehearsal += b.userCallsDuringRehearsal;
  a.imaginedUserCalls += b.imaginedUserCalls;
  a.heldCalls += b.heldCalls;
  a.guardFallbacks += b.guardFallbacks;
  a.rewrittenSteps += b.rewrittenSteps;
  return a;
}

/** All model calls made for rehearsal, of every kind. */
export function rehearsalCallCount(stats: RehearsalStats): number {
  const c = stats.calls;
  return c.act + c.rehearse + c.summary + c.guard + c.rewrite;
}

/** A bench summary's `rehearsal` field (snake_case, as `--json` prints it). */
export interface RehearsalReport {
  mode: RehearsalOptions["mode"];
  n: number;
  memory: string;
  scope: string;
  real_calls_during_rehearsal: number;
  user_calls_during_rehearsal: number;
  imagined_user_calls: number;
  /** Calls the commit guard held back (`guardTools`), and fallbacks to the rehearsal's reply. */
  held_calls: number;
  guard_fallbacks: number;
  /** Steps written again without the note that replaced the committed one (`noteUse: "decide"`). */
  rewritten_steps: number;
  tokens: RehearsalStats["tokens"];
  calls: RehearsalStats["calls"];
  attempts: number;
  tokens_per_task: number;
}

/** The summed stats of a run of `episodes` trials as a bench summary reports them. */
export function rehearsalReport(total: RehearsalStats, episodes: number): RehearsalReport {
  return {
    mode: total.mode,
    n: total.n,
    memory: total.memory,
    scope: total.scope,
    real_calls_during_rehearsal: total.realCallsDuringRehearsal,
    user_calls_during_rehearsal: total.userCallsDuringRehearsal,
    imagined_user_calls: total.imaginedUserCalls,
    held_calls: total.heldCalls,
    guard_fallbacks: total.guardFallbacks,
    rewritten_steps: total.rewrittenSteps,
    tokens: total.tokens,
    calls: total.calls,
    attempts: total.attempts,
    tokens_per_task: total.tokens.total / Math.max(1, episodes),
  };
}
