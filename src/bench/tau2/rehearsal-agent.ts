import { EnvaceError } from "../../core/errors.js";
import type { ChatModel } from "../../core/model.js";
import type { Message } from "../../core/messages.js";
import type { ToolResult, ToolSchema } from "../../core/tools.js";
import { parseAssistantText } from "../../core/tool-call-text.js";
import type { Tau2Agent, Tau2AgentContext, Tau2AgentReply, Tau2AgentSession } from "./agent.js";
import { agentSystemPrompt, agentView } from "./llm-agent.js";
import type { Tau2DomainLike, Tau2EnvLike } from "./env-port.js";
import type { Tau2UserSimulator } from "./user-simulator.js";
import { imagineTau2Attempt, type ImaginedUser } from "./rehearsal-imagine.js";
import { committedActor } from "../../testtime/commit-guard.js";
import { liveTask } from "../../testtime/live-task.js";
import { withMemory } from "../../testtime/memory-view.js";
import { RehearsalPhase } from "../../testtime/phase-guard.js";
import { rehearse, type Rehearsal } from "../../testtime/rehearse.js";
import { emptyRehearsalStats, type RehearsalOptions, type RehearsalStats } from "../../testtime/types.js";

/** One τ² episode's rehearsal record: its counters and its phase (shared with the guards). */
export interface Tau2RehearsalSession {
  taskId: string;
  stats: RehearsalStats;
  phase: RehearsalPhase;
  /** Every rehearsal of the episode, in order, with its attempts and memory. */
  rehearsals: Rehearsal[];
}

export interface RehearsingTau2AgentOptions {
  rehearsal: RehearsalOptions;
  temperature?: number;
  maxTokens?: number;
  /**
   * Supplies the phase of the episode being started (see `guardTau2`); a fresh, unguarded phase
   * when absent.
   */
  phaseFor?: () => RehearsalPhase;
  /**
   * Lets an imagined attempt go on past the agent's reply (`rehearsal.userReplies` times): a fresh
   * session of `simulator` answers over the imagined conversation, and its tool calls are rehearsed
   * against the schemas `userTools` gives for the episode being started (see `guardTau2`).
   */
  imaginedUser?: {
    simulator: Tau2UserSimulator;
    userTools: () => ToolSchema[];
    maxStepsPerReply?: number;
  };
}

/**
 * The τ² LLM agent (same system prompt, view and parsing as `LLMAgent`) with test-time rehearsal:
 * when the user has just spoken (scope `turn`) or before every step (scope `action`) it rehearses
 * from its own view of the conversation — the policy acts and plays the tools; an attempt ends when
 * it would reply to the user, or, with `imaginedUser` and `rehearsal.userReplies`, goes on with an
 * imagined user whose own tool calls the policy plays too — then answers with the memory in its
 * system message. The agent session gets only the history: no environment, no real user session.
 */
export class RehearsingTau2Agent implements Tau2Agent {
  readonly name: string;
  readonly sessions: Tau2RehearsalSession[] = [];

  constructor(
    private readonly model: ChatModel,
    private readonly opts: RehearsingTau2AgentOptions,
  ) {
    const r = opts.rehearsal;
    this.name = `llm:${model.name}+rehearsal:${r.mode}${r.mode === "none" ? "" : `:${r.n ?? 1}`}`;
  }

  start(ctx: Tau2AgentContext): Tau2AgentSession {
    const system = agentSystemPrompt(ctx.policy);
    const task = liveTask({ tools: ctx.tools, system, id: ctx.task.id, domain: "tau2" });
    const session: Tau2RehearsalSession = {
      taskId: ctx.task.id,
      stats: emptyRehearsalStats(this.opts.rehearsal),
      phase: this.opts.phaseFor?.() ?? new RehearsalPhase(),
      rehearsals: [],
    };
    this.sessions.push(session);
    const scope = this.opts.rehearsal.scope ?? "turn";
    const imagined = this.imaginedUser(ctx, session);
    const commit = committedActor(this.model, this.opts.rehearsal, session.stats);
    let userTurn = -1;
    let step = 0;
    return {
      next: async (history): Promise<Tau2AgentReply> => {
        const view: Message[] = [{ role: "system", content: system }, ...agentView(history)];
        const fromUser = view[view.length - 1]?.role === "user";
        if (fromUser) userTurn++;
        if (
          this.opts.rehearsal.mode !== "none" &&
          (scope === "action" || fromUser || commit.note() === undefined)
        ) {
          const r = await session.phase.run(() =>
            rehearse({
              policy: this.model,
              task,
              conversation: view,
              turn: Math.max(0, userTurn),
              options: this.opts.rehearsal,
              stats: session.stats,
              ...(imagined
                ? {
                    imagine: (input, i) =>
                      imagineTau2Attempt(input, i, { history: history.slice(), user: imagined }),
                  }
                : {}),
            }),
          );
          session.rehearsals.push(r);
          commit.observe(r);
        }
        session.stats.realCallsDuringRehearsal = session.phase.realCalls;
        session.stats.userCallsDuringRehearsal = session.phase.userCalls;
        const result = await commit.actor.chat({
          messages: withMemory(view, commit.note()),
          tools: ctx.tools,
          temperature: this.opts.temperature ?? 0,
          ...(this.opts.maxTokens !== undefined ? { maxTokens: this.opts.maxTokens } : {}),
        });
        const sample = result.samples[0];
        const parsed = parseAssistantText(sample?.text ?? "", `t${step++}_call`);
        if (sample?.toolCalls && sample.toolCalls.length > 0)
          return { content: parsed.content, toolCalls: sample.toolCalls };
        return { content: parsed.content, toolCalls: parsed.toolCalls, formatErrors: parsed.errors };
      },
    };
  }

  /** The imagined user of this episode's attempts; undefined when attempts end at the reply. */
  private imaginedUser(ctx: Tau2AgentContext, session: Tau2RehearsalSession): ImaginedUser | undefined {
    const u = this.opts.imaginedUser;
    const maxReplies = this.opts.rehearsal.userReplies ?? 0;
    if (!u || maxReplies === 0) return undefined;
    const tools = u.userTools();
    return {
      simulator: u.simulator,
      ctx: { task: ctx.task, ...(tools.length > 0 ? { tools } : {}) },
      toolTask: liveTask({ tools, id: `${ctx.task.id}:user`, domain: "tau2-user" }),
      maxReplies,
      ...(u.maxStepsPerReply !== undefined ? { maxStepsPerReply: u.maxStepsPerReply } : {}),
      onCall: () => session.stats.imaginedUserCalls++,
    };
  }
}

/**
 * Guards a τ² domain and user simulator for rehearsing agents: every environment the domain
 * creates refuses and counts the tool calls of either side (the agent's, and the user's own on
 * their device) made while the episode's rehearsal phase is active, and every user session counts
 * the calls it gets then. The τ² loop creates the environment, then starts the agent and the
 * user synchronously, with no await in between; `phaseFor` hands the phase made for the newest
 * environment to that agent and that user, which pairs them even with concurrent episodes, and
 * `userToolsFor` that environment's user tool schemas (read once, outside any guard).
 */
export function guardTau2<D extends Tau2DomainLike>(
  domain: D,
  user: Tau2UserSimulator,
): {
  domain: D;
  user: Tau2UserSimulator;
  phaseFor: () => RehearsalPhase;
  userToolsFor: () => ToolSchema[];
} {
  let newest = new RehearsalPhase();
  let newestUserTools: ToolSchema[] = [];
  const guardedDomain = Object.create(domain) as D;
  guardedDomain.createEnv = (task) => {
    const env = domain.createEnv(task);
    const phase = (newest = new RehearsalPhase());
    newestUserTools = env.userTools?.() ?? [];
    return guardTau2Env(env, phase);
  };
  const guardedUser: Tau2UserSimulator = {
    name: user.name,
    start(ctx) {
      const phase = newest;
      const session = user.start(ctx);
      return {
        next(history) {
          if (phase.active) phase.userCalls++;
          return session.next(history);
        },
      };
    },
  };
  return {
    domain: guardedDomain,
    user: guardedUser,
    phaseFor: () => newest,
    userToolsFor: () => newestUserTools,
  };
}

const refused = (name: string): ToolResult => ({
  ok: false,
  error: new EnvaceError(
    "REAL_CALL_DURING_REHEARSAL",
    `real call to ${name} refused: a rehearsal is running`,
  ),
});

function guardTau2Env(env: Tau2EnvLike, phase: RehearsalPhase): Tau2EnvLike {
  return new Proxy(env, {
    get(target, prop, receiver) {
      if (prop === "call" || prop === "callSync") {
        const fn = Reflect.get(target, prop, receiver) as ((...a: unknown[]) => unknown) | undefined;
        if (!fn) return undefined;
        return (...args: unknown[]) => {
          const name = (args[0] as { name?: string } | undefined)?.name ?? "a tool";
          if (phase.active) {
            phase.realCalls++; // either side's: the agent's (call) or the user's own (callSync)
            return prop === "call" ? Promise.resolve(refused(name)) : refused(name);
          }
          if (prop === "call") phase.committedCalls++;
          else if (args[1] === "user") phase.committedUserCalls++;
          return fn.apply(target, args);
        };
      }
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
