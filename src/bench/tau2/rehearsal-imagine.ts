import type { Message, ToolCall } from "../../core/messages.js";
import type { Task } from "../../core/task.js";
import { renderAssistantText } from "../../core/tool-call-text.js";
import { validateToolCall } from "../../core/validate-tool-call.js";
import { playTurn } from "../../rollout/episode.js";
import { formatToolError } from "../../rollout/execution-result.js";
import { rehearsalResponder } from "../../rollout/model-responder.js";
import type { EpisodeResponder } from "../../rollout/responder.js";
import type { ToolCallRecord } from "../../rollout/types.js";
import type { ImagineInput } from "../../testtime/imagine.js";
import { withMemory } from "../../testtime/memory-view.js";
import type { AttemptEnd, RehearsalAttempt, RehearsalTurn } from "../../testtime/types.js";
import { AGENT_STOP } from "./agent.js";
import type { Tau2Message } from "./types.js";
import { isUserStop, userView, type Tau2UserContext, type Tau2UserSimulator } from "./user-simulator.js";

/** Most user-simulator calls for one imagined reply (tool rounds and the answer) unless given. */
export const DEFAULT_USER_STEPS_PER_REPLY = 6;

/** The user an imagined τ² attempt may go on with after the agent replies. */
export interface ImaginedUser {
  /**
   * A user simulator; each attempt starts its own session, over the imagined conversation. It is
   * never the episode's real user session, and its tool calls never reach the user's toolkit.
   */
  simulator: Tau2UserSimulator;
  /** The task and the user's tool schemas, as the real user session got them. */
  ctx: Tau2UserContext;
  /** The user's tools as a task for the rehearsal prompt (its candidate tools). */
  toolTask: Task;
  /** Imagined user replies per attempt (0: the attempt ends at the agent's reply). */
  maxReplies: number;
  /** Most user-simulator calls for one reply (default 6). */
  maxStepsPerReply?: number;
  /** Told of every call to the imagined user (for the cost report). */
  onCall?: () => void;
}

export interface Tau2ImagineContext {
  /** The real τ² conversation so far (both sides' messages and tool traffic). */
  history: readonly Tau2Message[];
  user: ImaginedUser;
}

interface Part {
  end?: AttemptEnd;
  error?: string;
}

/**
 * One imagined τ² attempt: the agent acts (the policy plays the agent's tools, as
 * `imagineAttempt`); when it replies, the imagined user answers, up to `maxReplies` times, in the
 * same imagined world — its tool calls (dual control: the phone) are answered by the policy
 * playing the environment with the rehearsal prompt over the user's tool schemas, never by the
 * user's toolkit — and the agent goes on. The policy's act-call limit and token allowance hold
 * for the whole attempt. Nothing here holds the environment or the real user session.
 */
export async function imagineTau2Attempt(
  input: ImagineInput,
  index: number,
  tau: Tau2ImagineContext,
): Promise<RehearsalAttempt> {
  const o = input.options;
  const responder = rehearsalResponder(input.policy, {
    variant: o.promptVariant ?? "full",
    temperature: o.temperature ?? 1,
    maxTokens: o.maxTokensPerCall ?? 512,
  });
  const agentSide = await responder.open(input.task);
  const userSide = await responder.open(tau.user.toolTask);
  const session = tau.user.simulator.start(tau.user.ctx);
  const conversation = input.conversation.slice(); // the agent's view (system first)
  const history = tau.history.slice(); // the imagined τ² conversation, both sides
  const turns: RehearsalTurn[] = [];
  const agentCalls: ToolCallRecord[] = [];
  const note = input.note;
  let acts = 0;
  let replies = 0;
  let turn = input.turn;
  let reply: string | undefined;
  let end: AttemptEnd = "replied";
  let error: string | undefined;
  try {
    for (;;) {
      const maxActs = (o.maxStepsPerAttempt ?? 6) - acts;
      if (maxActs <= 0) {
        end = "max_assistant_turns";
        break;
      }
      const outcome = await playTurn(input.task, conversation, agentSide, turn, {
        policy: input.policy,
        responder,
        maxAssistantTurns: maxActs,
        temperature: o.temperature ?? 1,
        maxTokens: o.maxTokensPerCall ?? 512,
        ...(note ? { actorView: (messages: Message[]) => withMemory(messages, note) } : {}),
        ...(input.signal ? { signal: input.signal } : {}),
      });
      acts += outcome.rows.filter((r) => r.role === "act").length;
      agentCalls.push(...outcome.calls);
      conversation.push(...outcome.messages);
      history.push(...outcome.messages.map(asTau2));
      const text = outcome.end ? undefined : (outcome.replies[outcome.replies.length - 1] ?? "");
      turns.push({ side: "agent", calls: outcome.calls, ...(text !== undefined ? { text } : {}) });
      if (outcome.end) {
        end = outcome.end === "done" ? "replied" : outcome.end;
        error = outcome.error;
        break;
      }
      reply = text;
      if (replies >= tau.user.maxReplies || text!.includes(AGENT_STOP)) break;
      replies++;
      const part = await imagineUserReply(input, tau.user, session, userSide, history, turn, index, replies);
      turns.push(part.turn);
      if (part.end) {
        end = part.end;
        error = part.error;
        break;
      }
      if (isUserStop(part.turn.text ?? "")) {
        end = "user_stop";
        break;
      }
      conversation.push({ role: "user", content: part.turn.text ?? "" });
      history.push({ role: "user", content: part.turn.text ?? "" });
      turn++;
    }
  } finally {
    await agentSide.close();
    await userSide.close();
  }
  if (input.policy.exhausted) end = "budget";
  const attempt: RehearsalAttempt = { index, end, calls: agentCalls, turns };
  if (end === "replied" && reply !== undefined) attempt.reply = reply;
  if (error) attempt.error = error;
  return attempt;
}

/** The agent's imagined messages as τ² messages (its tool results carry the agent as requestor). */
function asTau2(m: Message): Tau2Message {
  if (m.role === "tool")
    return {
      role: "tool",
      content: m.content,
      toolCallId: m.toolCallId ?? "",
      ...(m.name ? { name: m.name } : {}),
      requestor: "assistant",
    };
  return m.toolCalls && m.toolCalls.length > 0
    ? { role: "assistant", content: m.content, toolCalls: m.toolCalls }
    : { role: "assistant", content: m.content };
}

/**
 * The imagined user's answer to the agent's reply: the user simulator speaks over the imagined
 * conversation; each of its tool calls is validated against the user's schemas and answered by
 * the rehearser, and the result goes back to the user (as the real loop does) until it answers
 * in words. `history` grows with the user's messages and tool results.
 */
async function imagineUserReply(
  input: ImagineInput,
  user: ImaginedUser,
  session: ReturnType<Tau2UserSimulator["start"]>,
  rehearser: EpisodeResponder,
  history: Tau2Message[],
  turn: number,
  attempt: number,
  reply: number,
): Promise<Part & { turn: RehearsalTurn }> {
  const calls: ToolCallRecord[] = [];
  const part = (extra: Part & { text?: string } = {}) => {
    const { text, ...rest } = extra;
    return { ...rest, turn: { side: "user" as const, calls, ...(text !== undefined ? { text } : {}) } };
  };
  for (let step = 0; step < (user.maxStepsPerReply ?? DEFAULT_USER_STEPS_PER_REPLY); step++) {
    let said;
    try {
      user.onCall?.();
      said = await session.next(history);
    } catch (e) {
      return part({ end: "model_error", error: `imagined user: ${(e as Error).message}` });
    }
    // fresh ids: a new session numbers its calls from 0 again, and the real history has those
    const toolCalls: ToolCall[] = (said.toolCalls ?? []).map((c, k) => ({
      ...c,
      id: `imagined_u${attempt}_${reply}_${step}_${k}`,
    }));
    if (toolCalls.length === 0) return part({ text: said.content });
    const before = userView(history);
    history.push({ role: "user", content: said.content, toolCalls });
    const rawActMessage = renderAssistantText(said.content, toolCalls);
    for (const call of toolCalls) {
      const invalid = validateToolCall(call, user.toolTask.tools);
      let record: ToolCallRecord;
      let verdict = false;
      if (invalid) {
        const content = formatToolError(invalid.code, invalid.message, invalid.details);
        record = { turn, call, result: content, ok: false, source: "validation" };
      } else {
        let answer;
        try {
          answer = await rehearser.answer({
            task: user.toolTask,
            history: before,
            rawActMessage,
            call,
            turn,
            ...(input.signal ? { signal: input.signal } : {}),
          });
        } catch (e) {
          if (input.signal?.aborted) throw e;
          return part({
            end: input.policy.exhausted ? "budget" : "model_error",
            error: (e as Error).message,
          });
        }
        record = { turn, call, result: answer.content, ok: answer.ok, source: "rehearsal" };
        if (answer.parseError) record.parseError = answer.parseError;
        verdict = answer.verdict !== undefined;
      }
      calls.push(record);
      history.push({
        role: "tool",
        content: record.result,
        toolCallId: call.id,
        name: call.name,
        requestor: "user",
        ...(record.ok ? {} : { error: true }),
      });
      // as on the agent's side: a call the rehearser judged invalid ends the attempt
      if (verdict) return part({ end: "rehearser_error_tool_call" });
    }
  }
  return part({ end: "max_user_steps" });
}
