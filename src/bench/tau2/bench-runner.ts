import { join } from "node:path";
import { EnvaceError } from "../../core/errors.js";
import { OpenAIChatModel } from "../../engines/openai-chat-model.js";
import { resolveDataDir } from "../data-dir.js";
import type { BenchRunner, BenchSummary, EvalOptions } from "../registry.js";
import type { Tau2Agent } from "./agent.js";
import type { Tau2DomainLike } from "./env-port.js";
import { LLMAgent } from "./llm-agent.js";
import { goldAgent, goldPair, noopAgent, readReplayFile, replayAgent, replayPair } from "./oracle-agents.js";
import { runTau2, selectTasks, type Tau2RunOptions, type Tau2RunSummary } from "./run-tau2.js";
import { LLMUserSimulator, scriptedUser, type Tau2UserSimulator } from "./user-simulator.js";

export const TAU2_DOMAINS = ["mock", "retail", "airline", "telecom"] as const;

/** How the bench obtains a domain; injectable so that tests and other ports can supply their own. */
export type Tau2DomainLoader = (name: string, dataRoot: string) => Tau2DomainLike | Promise<Tau2DomainLike>;

const usage = (msg: string) => new EnvaceError("INVALID_CONFIG", msg);

/**
 * Builds the agent named by `--policy`, or the LLM agent of `--endpoint/--model`. Without a user
 * endpoint, `gold` and `replay:FILE` come with their own user, which plays the actions whose
 * requestor is the user (upstream replays every gold action with its requestor's toolkit).
 */
export function tau2AgentFromOptions(o: EvalOptions): {
  agent: Tau2Agent;
  oracle: boolean;
  /** The oracle's own user side, when it has one and no LLM user was asked for. */
  user?: Tau2UserSimulator;
} {
  if (o.policy !== undefined && o.endpoint !== undefined)
    throw usage("give either --policy or --endpoint/--model, not both");
  const llmUser = o.userEndpoint !== undefined;
  if (o.policy !== undefined) {
    if (o.policy === "gold")
      return llmUser ? { agent: goldAgent(), oracle: true } : { ...goldPair(), oracle: true };
    if (o.policy === "noop") return { agent: noopAgent(), oracle: true };
    if (o.policy.startsWith("replay:") && o.policy.length > "replay:".length) {
      const actions = readReplayFile(o.policy.slice("replay:".length));
      return llmUser
        ? { agent: replayAgent(actions), oracle: true }
        : { ...replayPair(actions), oracle: true };
    }
    throw usage(`unknown --policy "${o.policy}"; use gold, noop or replay:FILE`);
  }
  if (o.endpoint === undefined || o.model === undefined) {
    throw usage("an agent is needed: --policy gold|noop|replay:FILE, or --endpoint URL --model NAME");
  }
  return { agent: new LLMAgent(model(o.endpoint, o.model, o.apiKey)), oracle: false };
}

function model(baseURL: string, name: string, apiKey?: string): OpenAIChatModel {
  return new OpenAIChatModel({ baseURL, model: name, ...(apiKey ? { apiKey } : {}) });
}

/** The user simulator: a model when `--user-endpoint` is given, else the scripted user (oracles only). */
export function tau2UserFromOptions(o: EvalOptions, oracle: boolean, tau2Dir: string): Tau2UserSimulator {
  if ((o.userEndpoint === undefined) !== (o.userModel === undefined))
    throw usage("--user-endpoint and --user-model go together");
  if (o.userEndpoint !== undefined) {
    return new LLMUserSimulator(model(o.userEndpoint, o.userModel!, o.apiKey), {
      guidelinesDir: join(tau2Dir, "user_simulator"),
    });
  }
  if (!oracle) throw usage("an LLM agent needs a user simulator: --user-endpoint URL --user-model NAME");
  return scriptedUser();
}

/** The LLM judge of `--judge-endpoint/--judge-model` (NL assertions), if given. */
export function tau2JudgeFromOptions(o: EvalOptions): OpenAIChatModel | undefined {
  if ((o.judgeEndpoint === undefined) !== (o.judgeModel === undefined))
    throw usage("--judge-endpoint and --judge-model go together");
  return o.judgeEndpoint !== undefined ? model(o.judgeEndpoint, o.judgeModel!, o.apiKey) : undefined;
}

/**
 * The part of `runTau2`'s options that comes straight from `envace eval`'s flags; every τ² runner
 * (plain, with test-time rehearsal) builds on it, so a new flag is wired once.
 */
export function tau2RunOptionsFromEval(
  o: EvalOptions,
  domain: Tau2DomainLike,
): Omit<Tau2RunOptions, "agent" | "user" | "validateCalls"> {
  const judge = tau2JudgeFromOptions(o);
  return {
    bench: `tau2:${o.variant}`,
    domain,
    ...(judge ? { judge } : {}),
    ...(o.split !== undefined ? { split: o.split } : {}),
    ...(o.limit !== undefined ? { limit: o.limit } : {}),
    trials: o.trials,
    ...(o.maxSteps !== undefined ? { maxSteps: o.maxSteps } : {}),
    ...(o.maxErrors !== undefined ? { maxErrors: o.maxErrors } : {}),
    concurrency: o.concurrency,
    ...(o.dumpDb !== undefined ? { dumpDbDir: o.dumpDb } : {}),
    onResult: (_r, done, all) => o.onProgress?.(done, all),
  };
}

/** `tau2:<domain>` for `envace eval`. */
export function tau2BenchRunner(loadDomain: Tau2DomainLoader): BenchRunner {
  return {
    describe: `τ²-bench: ${TAU2_DOMAINS.map((d) => `tau2:${d}`).join("|")}`,
    reads: ["dumpDb", "maxErrors", "userEndpoint", "userModel", "judgeEndpoint", "judgeModel"],
    async run(o: EvalOptions): Promise<BenchSummary & Tau2RunSummary> {
      if (!(TAU2_DOMAINS as readonly string[]).includes(o.variant)) {
        throw usage(
          `unknown τ² domain "${o.variant}"; use ${TAU2_DOMAINS.map((d) => `tau2:${d}`).join(", ")}`,
        );
      }
      tau2JudgeFromOptions(o); // flag errors before anything starts
      const { agent, oracle, user: oracleUser } = tau2AgentFromOptions(o);
      const dataRoot = resolveDataDir(o.data);
      const flagUser = tau2UserFromOptions(o, oracle, join(dataRoot, "tau2")); // checks the user flags
      const user = oracleUser ?? flagUser;
      const domain = await loadDomain(o.variant, dataRoot);
      // selectTasks validates the split before any episode starts
      const total = selectTasks(domain, o.split, o.limit).length * o.trials;
      o.onStart?.(total);
      const summary = await runTau2({
        ...tau2RunOptionsFromEval(o, domain),
        agent,
        user,
        // oracle calls go to the environment unfiltered, so its own upstream-style errors come back
        validateCalls: !oracle,
      });
      return { ...summary, results: summary.results };
    },
  };
}
