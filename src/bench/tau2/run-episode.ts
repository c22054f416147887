import type { ToolCall } from "../../core/messages.js";
import type { ToolResult, ToolSchema } from "../../core/tools.js";
import { validateToolCall } from "../../core/validate-tool-call.js";
import type { EnvaceError } from "../../core/errors.js";
import { AGENT_STOP, type Tau2Agent } from "./agent.js";
import { callOn, toolsOf, type Tau2DomainLike, type Tau2EnvLike } from "./env-port.js";
import { initialHistory } from "./initial-history.js";
import { isUserStop, type Tau2UserSimulator } from "./user-simulator.js";
import type { Tau2Message, Tau2Requestor, Tau2TaskView, Termination } from "./types.js";

/** Upstream orchestrator defaults. */
export const DEFAULT_MAX_STEPS = 100;
export const DEFAULT_MAX_ERRORS = 10;
/** Upstream's DEFAULT_FIRST_AGENT_MESSAGE. */
export const FIRST_AGENT_MESSAGE = "Hi! How can I help you today?";
const TRANSFER_TOOL = "transfer_to_human_agents";

export interface EpisodeOptions {
  domain: Tau2DomainLike;
  task: Tau2TaskView;
  agent: Tau2Agent;
  user: Tau2UserSimulator;
  maxSteps?: number;
  maxErrors?: number;
  /**
   * Check calls against the tool schemas before executing them (default true). Oracle replays
   * turn it off so that the environment's own upstream-style errors come back verbatim.
   */
  validateCalls?: boolean;
}

export interface EpisodeResult {
  messages: Tau2Message[];
  /** How many leading messages are the task's initial history. */
  initialCount: number;
  termination: Termination;
  steps: number;
  /** Tool calls that came back as errors (rejected or failed). */
  toolErrors: number;
  /** Successful transfer_to_human_agents calls (reported; they do not end the episode). */
  transfers: number;
  /** The environment the episode ran in, in its final state. */
  env: Tau2EnvLike;
}

/** τ²'s rendering of a tool result: the content, or `Error: <message>`. */
export function toolResultText(result: ToolResult): string {
  return result.ok ? result.content : `Error: ${result.error.message}`;
}

/**
 * The half-duplex τ² loop (upstream Orchestrator): the agent talks to the user or calls tools; the
 * user simulator answers (or uses its own tools, whose results go back to it); it ends on a user
 * stop token, an agent `###STOP###`, max steps or max tool errors, as upstream's orchestrator. A
 * transfer to a human agent ends nothing by itself: the user simulator decides (upstream's user
 * guidelines make it answer `###TRANSFER###`). Invalid calls get an error result and the episode
 * goes on.
 */
export async function runEpisode(opts: EpisodeOptions): Promise<EpisodeResult> {
  const { domain, task } = opts;
  const maxSteps = opts.maxSteps ?? DEFAULT_MAX_STEPS;
  const maxErrors = opts.maxErrors ?? DEFAULT_MAX_ERRORS;
  const validate = opts.validateCalls ?? true;
  const env = domain.createEnv(task);
  const agentTools = toolsOf(env, "assistant");
  const userTools = toolsOf(env, "user");
  const agent = opts.agent.start({ task, policy: domain.policy, tools: agentTools });
  const user = opts.user.start({ task, ...(userTools.length > 0 ? { tools: userTools } : {}) });

  const messages = initialHistory(task);
  const initialCount = messages.length;
  let to: "user" | "agent" = nextRole(messages);
  if (messages.length === 0) messages.push({ role: "assistant", content: FIRST_AGENT_MESSAGE });
  let steps = 0;
  let toolErrors = 0;
  let transfers = 0;

  // Executes calls on one side, in order.
  const execute = async (
    calls: ToolCall[],
    rejected: Map<string, EnvaceError>,
    requestor: Tau2Requestor,
    tools: ToolSchema[],
  ) => {
    for (const call of calls) {
      const invalid = rejected.get(call.id) ?? (validate ? validateToolCall(call, tools) : undefined);
      const result: ToolResult = invalid ? { ok: false, error: invalid } : await callOn(env, call, requestor);
      if (!result.ok) toolErrors++;
      messages.push({
        role: "tool",
        content: toolResultText(result),
        toolCallId: call.id,
        name: call.name,
        requestor,
        ...(result.ok ? {} : { error: true }),
        ...(invalid ? { rejected: true } : {}),
      });
      if (result.ok && requestor === "assistant" && call.name === TRANSFER_TOOL) transfers++;
    }
    steps++;
  };

  for (;;) {
    let termination: Termination | undefined;
    if (to === "user") {
      const reply = await user.next(messages);
      const calls = reply.toolCalls ?? [];
      messages.push({
        role: "user",
        content: reply.content,
        ...(calls.length > 0 ? { toolCalls: calls } : {}),
      });
      steps++;
      if (calls.length > 0) await execute(calls, new Map(), "user", userTools);
      else if (isUserStop(reply.content)) termination = "user_stop";
      else to = "agent";
    } else {
      const reply = await agent.next(messages);
      // Unreadable `<tool_call>` blocks become calls that are answered with their error.
      const rejected = new Map<string, EnvaceError>();
      const bad = (reply.formatErrors ?? []).map((error, i): ToolCall => {
        const call = { id: `invalid_${steps}_${i}`, name: "invalid_tool_call", arguments: {} };
        rejected.set(call.id, error);
        return call;
      });
      const calls = [...reply.toolCalls, ...bad];
      messages.push({
        role: "assistant",
        content: reply.content,
        ...(calls.length > 0 ? { toolCalls: calls } : {}),
      });
      steps++;
      if (calls.length === 0 && reply.content.trim() === "") termination = "agent_error";
      else if (reply.content.includes(AGENT_STOP)) termination = "agent_stop";
      else if (calls.length > 0) await execute(calls, rejected, "assistant", agentTools);
      else to = "user";
    }
    if (!termination && steps >= maxSteps) termination = "max_steps";
    if (!termination && toolErrors >= maxErrors) termination = "too_many_errors";
    if (termination) return { messages, initialCount, termination, steps, toolErrors, transfers, env };
  }
}

/** Whose turn it is after the task's initial history (upstream `initialize`). */
function nextRole(history: readonly Tau2Message[]): "user" | "agent" {
  const last = history[history.length - 1];
  if (!last) return "user";
  if (last.role === "assistant" && !(last.toolCalls && last.toolCalls.length > 0)) return "user";
  if (last.role === "tool" && last.requestor === "user") return "user";
  return "agent";
}
