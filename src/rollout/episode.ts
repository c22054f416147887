import { EnvaceError } from "../core/errors.js";
import type { Message, ToolCall } from "../core/messages.js";
import type { ChatModel, ChatRequest, ChatResult, Sample } from "../core/model.js";
import type { Task } from "../core/task.js";
import { validateToolCall } from "../core/validate-tool-call.js";
import { episodeReward } from "../reward/aggregate.js";
import { scoreTurn } from "../reward/score.js";
import type { Judge, TurnTranscript } from "../reward/types.js";
import { readActOutput } from "./act-output.js";
import { lookupExample } from "./example-cache.js";
import { formatToolError } from "./execution-result.js";
import type { CallContext, EpisodeResponder, Responder, ResponderAnswer } from "./responder.js";
import { promptTokenCount, toRow } from "./rows.js";
import type { EndReason, EpisodeResult, Row, ToolCallRecord } from "./types.js";

export interface EpisodeOptions {
  /** The actor (and, in rehearsal mode, the rehearser behind `responder`). */
  policy: ChatModel;
  /** How tool calls are answered: `realResponder`, `simulatorResponder` or `rehearsalResponder`. */
  responder: Responder;
  /** Index of this episode in its task's group (default 0). */
  sample?: number;
  /** Most act calls (default 10), counted as `turnLimitScope` says. */
  maxAssistantTurns?: number;
  /**
   * `user_turn` (default): act calls within one user turn, checked before each; reaching the limit
   * without a reply ends the episode. `episode` (the reference): act calls over the whole episode,
   * checked after each reply (the turn is scored, then the episode ends); `maxSteps` bounds a turn
   * that never replies.
   */
  turnLimitScope?: "user_turn" | "episode";
  /** Most model calls (act and rehearse) in an episode; reaching it ends the episode (default 200, the reference's env.max_steps). */
  maxSteps?: number;
  /** Most tool calls in one act message; more ends the episode (default: no limit). */
  maxParallelCalls?: number;
  /**
   * What an invalid call does (default `retry`): `retry` answers a malformed call block or a call
   * that fails validation with an error the actor sees, and a rehearsal that fails the parser with
   * its parse error; `end` (the reference) ends the episode there, the turn unscored (0). A
   * rehearser `error_tool_call` verdict ends it either way.
   */
  invalidCall?: "end" | "retry";
  /** A policy call whose prompt exceeds this many tokens ends the episode (default 32768). */
  contextBudgetTokens?: number;
  /** Sampling temperature of act calls (default 1). */
  temperature?: number;
  /** Most new tokens per act call (default 512). */
  maxTokens?: number;
  /** Decides the standards that have no rule; required when the task has any. */
  judge?: Judge;
  /** Answer a call identical to one of the task's examples with its recorded result (not in `real` mode; default off). */
  exampleCache?: boolean;
  /**
   * The messages the actor sees at each act call, given the conversation so far (default: the
   * conversation itself). Test-time rehearsal adds its memory here; the recorded conversation and
   * the rehearsal prompt's history are not changed by it.
   */
  actorView?: (messages: Message[], at: { turn: number; step: number }) => Message[] | Promise<Message[]>;
  signal?: AbortSignal;
}

/** Mutable state of one episode while it runs. */
interface Episode {
  task: Task;
  opts: EpisodeOptions;
  responder: EpisodeResponder;
  messages: Message[];
  rows: Row[];
  calls: ToolCallRecord[];
  error?: string;
  /** Act calls made so far in the episode (for the `episode` turn-limit scope). */
  actCalls: number;
}

interface Answered {
  call: ToolCall;
  answer: ResponderAnswer;
  source: ToolCallRecord["source"];
}

/** Throws INVALID_CONFIG before any model call when a rule-less standard has no judge. */
function requireJudge(task: Task, judge: Judge | undefined): void {
  if (judge) return;
  const open = task.checklists.some((c) => c.some((turn) => turn.some((s) => !s.rule)));
  if (open)
    throw new EnvaceError(
      "INVALID_CONFIG",
      `task ${task.id} has standards without a rule but no judge was given`,
    );
}

/**
 * Runs one episode: act → parse → validate → answer each call → act … ; a reply closes the user
 * turn, which is scored at once; then the next scripted user turn, or done. Limits end the
 * episode with their EndReason. Model failures (after the endpoint's retries) end it with
 * `model_error`; a judge API failure masks it.
 */
export async function runEpisode(task: Task, opts: EpisodeOptions): Promise<EpisodeResult> {
  requireJudge(task, opts.judge);
  const responder = await opts.responder.open(task);
  const ep: Episode = { task, opts, responder, messages: [], rows: [], calls: [], actCalls: 0 };
  if (task.system) ep.messages.push({ role: "system", content: task.system });
  const replies: string[] = [];
  const turnScores: number[] = [];
  const standardsPassed: boolean[][][] = [];
  let masked = false;
  let maskReason: string | undefined;
  let allPassed = true;
  let endReason: EndReason = "done";
  try {
    for (let t = 0; t < task.user_turns.length; t++) {
      const before = ep.messages.slice();
      ep.messages.push({ role: "user", content: task.user_turns[t]! });
      const turn: TurnTranscript = { before, messages: [], calls: [], replies: [] };
      const end = await playUserTurn(ep, t, turn);
      if (end) {
        endReason = end;
        break;
      }
      turn.messages = ep.messages.slice(before.length);
      replies.push(turn.replies[turn.replies.length - 1] ?? "");
      if (masked) continue;
      try {
        const score = await scoreTurn(task, t, turn, opts.judge);
        turnScores.push(score.score);
        standardsPassed.push(score.passed);
        if (!score.passed.every((p) => p.every(Boolean))) allPassed = false;
        // reference: a required standard that failed, or a judge reply that could not be read,
        // ends the episode after this (scored) turn
        const stop = score.requiredFailed
          ? "required_standard_failed"
          : score.judgeParseErrors > 0
            ? "judge_malformed"
            : undefined;
        if (stop && t + 1 < task.user_turns.length) {
          endReason = stop;
          break;
        }
      } catch (e) {
        if (!(e instanceof EnvaceError && e.code === "JUDGE_ERROR")) throw e;
        masked = true;
        maskReason = e.message;
      }
      // reference: the assistant-turn cap is checked after each reply, over the whole episode
      if (
        (opts.turnLimitScope ?? "user_turn") === "episode" &&
        ep.actCalls >= (opts.maxAssistantTurns ?? 10) &&
        t + 1 < task.user_turns.length
      ) {
        endReason = "max_assistant_turns";
        break;
      }
    }
  } finally {
    await responder.close();
  }
  const result: EpisodeResult = {
    taskId: task.id,
    sample: opts.sample ?? 0,
    messages: ep.messages,
    rows: ep.rows,
    calls: ep.calls,
    replies,
    endReason,
    envCalls: responder.envCalls,
    masked,
    turnScores,
    standardsPassed,
    success: !masked && endReason === "done" && allPassed,
  };
  if (!masked) result.reward = episodeReward(task, turnScores);
  if (maskReason) result.maskReason = maskReason;
  if (ep.error) result.error = ep.error;
  return result;
}

export interface TurnOutcome {
  /** Why the turn ended early; undefined when the actor replied. */
  end?: EndReason;
  /** This turn's messages (after the given conversation): assistant and tool messages. */
  messages: Message[];
  rows: Row[];
  calls: ToolCallRecord[];
  /** Texts of the turn's assistant steps, the reply last. */
  replies: string[];
  /** Tool calls of the turn that passed validation. */
  answeredCalls: ToolCall[];
  /** With `model_error`: the failure's message. */
  error?: string;
}

/**
 * Plays one user turn from a given conversation (ending with the user's message) with an opened
 * responder: act → validate → answer … until the actor replies or a limit ends it. The turn-level
 * entry point for callers that drive the conversation themselves (test-time rehearsal plays
 * imagined turns with a rehearsal responder, then the committed turn with a real one).
 * `opts.responder` only names the mode here; `responder` answers the calls.
 */
export async function playTurn(
  task: Task,
  conversation: readonly Message[],
  responder: EpisodeResponder,
  turn: number,
  opts: EpisodeOptions,
): Promise<TurnOutcome> {
  const ep: Episode = {
    task,
    opts,
    responder,
    messages: conversation.slice(),
    rows: [],
    calls: [],
    actCalls: 0,
  };
  const transcript: TurnTranscript = { before: [], messages: [], calls: [], replies: [] };
  const end = await playUserTurn(ep, turn, transcript);
  const out: TurnOutcome = {
    messages: ep.messages.slice(conversation.length),
    rows: ep.rows,
    calls: ep.calls,
    replies: transcript.replies,
    answeredCalls: transcript.calls,
  };
  if (end) out.end = end;
  if (ep.error) out.error = ep.error;
  return out;
}

/** Plays user turn t until the actor replies (returns undefined) or the episode must end. */
async function playUserTurn(ep: Episode, t: number, turn: TurnTranscript): Promise<EndReason | undefined> {
  const { opts, task } = ep;
  const perTurn = (opts.turnLimitScope ?? "user_turn") === "user_turn";
  const maxActs = opts.maxAssistantTurns ?? 10;
  const endOnInvalid = (opts.invalidCall ?? "retry") === "end";
  for (let step = 0; ; step++) {
    if (perTurn && step >= maxActs) return "max_assistant_turns";
    if (ep.rows.length >= (opts.maxSteps ?? 200)) return "max_steps";
    const request: ChatRequest = {
      messages: opts.actorView
        ? await opts.actorView(ep.messages.slice(), { turn: t, step })
        : ep.messages.slice(),
      tools: task.tools,
      temperature: opts.temperature ?? 1,
      maxTokens: opts.maxTokens ?? 512,
    };
    const out = await callPolicy(ep, request);
    if (typeof out === "string") return out;
    ep.rows.push(toRow("act", t, out.result, out.sample));
    ep.actCalls++;

    const history = ep.messages.slice();
    const act = readActOutput(out.sample, `call_${t}_${step}`);
    ep.messages.push({
      role: "assistant",
      content: act.content,
      ...(act.calls.length > 0 ? { toolCalls: act.calls } : {}),
    });
    turn.replies.push(act.content);
    if (opts.maxParallelCalls !== undefined && act.calls.length + act.errors.length > opts.maxParallelCalls)
      return "max_parallel_calls";
    if (act.calls.length === 0 && act.errors.length === 0) return undefined;
    if (endOnInvalid && act.errors.length > 0) {
      // reference (tool_parser.py): one bad block invalidates the whole message and ends the episode
      recordMalformed(ep, act.errors, t, step);
      return "invalid_call";
    }

    let answered: Answered[];
    try {
      answered = await answerCalls(ep, act.calls, { task, history, rawActMessage: out.sample.text, turn: t });
    } catch (e) {
      if (opts.signal?.aborted) throw e;
      ep.error = (e as Error).message;
      return "model_error";
    }
    let end: EndReason | undefined;
    for (const { call, answer, source } of answered) {
      if (answer.policyCall) {
        if (promptTokenCount(answer.policyCall.result, []) > (opts.contextBudgetTokens ?? 32768))
          end = "context_budget";
        else
          ep.rows.push({
            ...toRow("rehearse", t, answer.policyCall.result, answer.policyCall.sample),
            callIndex: ep.calls.length, // the record pushed just below
          });
      }
      const record: ToolCallRecord = { turn: t, call, result: answer.content, ok: answer.ok, source };
      if (answer.parseError) record.parseError = answer.parseError;
      ep.calls.push(record);
      ep.messages.push({ role: "tool", content: answer.content, toolCallId: call.id, name: call.name });
      // a call that failed validation, or whose rehearsal failed, was not made: rules do not see it
      if (source !== "validation" && !answer.parseError && !answer.verdict) turn.calls.push(call);
      if (answer.verdict && !end) end = "rehearser_error_tool_call";
      else if (endOnInvalid && !end && source === "validation") end = "invalid_call";
      else if (endOnInvalid && !end && answer.parseError) end = "rehearser_parse_error";
    }
    recordMalformed(ep, act.errors, t, step);
    if (end) return end;
  }
}

/** Malformed call blocks of one act message become `error_tool_call` tool messages the actor sees. */
function recordMalformed(
  ep: Episode,
  errors: ReturnType<typeof readActOutput>["errors"],
  t: number,
  step: number,
) {
  errors.forEach((err, k) => {
    const call: ToolCall = { id: `call_${t}_${step}_malformed_${k}`, name: "error_tool_call", arguments: {} };
    const content = formatToolError(err.code, err.message, err.details);
    ep.calls.push({ turn: t, call, result: content, ok: false, source: "validation" });
    ep.messages.push({ role: "tool", content, toolCallId: call.id, name: call.name });
  });
}

/** One act call; a failed or over-budget call becomes the episode's EndReason. */
async function callPolicy(
  ep: Episode,
  request: ChatRequest,
): Promise<{ result: ChatResult; sample: Sample } | EndReason> {
  let result: ChatResult;
  try {
    result = await ep.opts.policy.chat(request, ep.opts.signal ? { signal: ep.opts.signal } : undefined);
  } catch (e) {
    if (ep.opts.signal?.aborted) throw e;
    ep.error = (e as Error).message;
    return "model_error";
  }
  const sample = result.samples[0];
  if (!sample) {
    ep.error = `${ep.opts.policy.name} returned no choices`;
    return "model_error";
  }
  // The over-budget sample is dropped: the trajectory never used it.
  if (promptTokenCount(result, request.messages) > (ep.opts.contextBudgetTokens ?? 32768))
    return "context_budget";
  return { result, sample };
}

/** Validates, then answers each call (in order for stateful environments, else concurrently). */
async function answerCalls(
  ep: Episode,
  calls: ToolCall[],
  base: Omit<CallContext, "call">,
): Promise<Answered[]> {
  const one = async (call: ToolCall): Promise<Answered> => {
    const invalid = validateToolCall(call, ep.task.tools);
    if (invalid) {
      return {
        call,
        source: "validation",
        answer: { content: formatToolError(invalid.code, invalid.message, invalid.details), ok: false },
      };
    }
    if (ep.opts.exampleCache && ep.opts.responder.mode !== "real") {
      const hit = lookupExample(ep.task, call);
      if (hit !== undefined) return { call, source: "cache", answer: { content: hit, ok: true } };
    }
    const ctx: CallContext = { ...base, call, ...(ep.opts.signal ? { signal: ep.opts.signal } : {}) };
    return { call, source: ep.opts.responder.mode, answer: await ep.responder.answer(ctx) };
  };
  if (!ep.responder.sequential) return Promise.all(calls.map(one));
  const out: Answered[] = [];
  for (const c of calls) out.push(await one(c));
  return out;
}
