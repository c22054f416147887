/** `envace eval --bench vita:<domain>`: VitaBench with an LLM or oracle agent. */
import { EnvaceError } from "../../core/errors.js";
import { OpenAIChatModel } from "../../engines/openai-chat-model.js";
import { resolveDataDir } from "../data-dir.js";
import type { BenchRunner, BenchSummary, EvalOptions } from "../registry.js";
import type { VitaClock } from "../../envs/vita/tool-context.js";
import { DOMAIN_TOOLS, vitaWriteTools } from "../../envs/vita/environment.js";
import { LLMVitaAgent, LLMVitaUser, noopAgent, readReplayFile, replayAgent, scriptedUser } from "./agents.js";
import type { VitaAgent, VitaUser } from "./agents.js";
import { runVita, type VitaRunSummary } from "./run-vita.js";
import { RehearsingVitaAgent } from "./rehearsal-agent.js";
import {
  checkGuardTools,
  guardsWrites,
  rehearsalFromFlags,
  type RehearsalEvalFlags,
  REHEARSAL_FLAG_KEYS,
} from "../../testtime/eval-flags.js";
import { openEvalModel } from "../../testtime/eval-model.js";
import { addRehearsalStats, emptyRehearsalStats, rehearsalReport } from "../../testtime/types.js";
import {
  readVitaTasks,
  RUNNABLE_VITA_DOMAINS,
  VITA_DOMAINS,
  vitaTaskFile,
  type VitaBenchDomain,
} from "./tasks.js";

const usage = (msg: string) => new EnvaceError("INVALID_CONFIG", msg);

const model = (baseURL: string, name: string, apiKey?: string) =>
  new OpenAIChatModel({ baseURL, model: name, ...(apiKey ? { apiKey } : {}) });

function pair(a: string | undefined, b: string | undefined, flags: string) {
  if ((a === undefined) !== (b === undefined)) throw usage(`${flags} go together`);
}

/** The user simulator of `--user-endpoint/--user-model` (required for a model agent). */
function vitaUserFromOptions(o: EvalOptions): VitaUser {
  pair(o.userEndpoint, o.userModel, "--user-endpoint and --user-model");
  if (o.userEndpoint === undefined)
    throw usage("an LLM agent needs a user simulator: --user-endpoint URL --user-model NAME");
  return new LLMVitaUser(model(o.userEndpoint, o.userModel!, o.apiKey));
}

/** Agent and user from the flags: an oracle policy runs with the scripted user unless one is given. */
export function vitaRolesFromOptions(o: EvalOptions): { agent: VitaAgent; user: VitaUser } {
  if (o.policy !== undefined && o.endpoint !== undefined)
    throw usage("give either --policy or --endpoint/--model, not both");
  pair(o.userEndpoint, o.userModel, "--user-endpoint and --user-model");
  const llmUser =
    o.userEndpoint !== undefined ? new LLMVitaUser(model(o.userEndpoint, o.userModel!, o.apiKey)) : undefined;
  if (o.policy !== undefined) {
    let agent: VitaAgent;
    if (o.policy === "noop") agent = noopAgent();
    else if (o.policy.startsWith("replay:") && o.policy.length > "replay:".length)
      agent = replayAgent(readReplayFile(o.policy.slice("replay:".length)));
    else throw usage(`unknown --policy "${o.policy}" for VitaBench; use noop or replay:FILE`);
    return { agent, user: llmUser ?? scriptedUser() };
  }
  if (o.endpoint === undefined || o.model === undefined)
    throw usage("an agent is needed: --policy noop|replay:FILE, or --endpoint URL --model NAME");
  if (!llmUser) throw usage("an LLM agent needs a user simulator: --user-endpoint URL --user-model NAME");
  return { agent: new LLMVitaAgent(model(o.endpoint, o.model, o.apiKey)), user: llmUser };
}

export function vitaBenchRunner(opts: { clock?: VitaClock } = {}): BenchRunner {
  return {
    describe: `VitaBench: ${RUNNABLE_VITA_DOMAINS.map((d) => `vita:${d}`).join("|")} (--lang en|zh)`,
    reads: [
      "lang",
      "dumpDb",
      "userEndpoint",
      "userModel",
      "judgeEndpoint",
      "judgeModel",
      "checkpoint",
      ...REHEARSAL_FLAG_KEYS,
    ],
    async run(o: EvalOptions): Promise<BenchSummary & VitaRunSummary> {
      const domain = o.variant as VitaBenchDomain;
      if (!(VITA_DOMAINS as readonly string[]).includes(domain))
        throw usage(
          `unknown VitaBench domain "${o.variant}"; use ${VITA_DOMAINS.map((d) => `vita:${d}`).join(", ")}`,
        );
      const lang = o.lang ?? "en";
      if (lang !== "en" && lang !== "zh") throw usage(`--lang must be en or zh, not "${lang}"`);
      if (o.split !== undefined) throw usage("VitaBench has no official splits; use --limit");
      pair(o.judgeEndpoint, o.judgeModel, "--judge-endpoint and --judge-model");
      const flags = o as EvalOptions & RehearsalEvalFlags;
      const rehearsal = rehearsalFromFlags(flags);
      checkGuardTools(
        rehearsal,
        DOMAIN_TOOLS[domain].map((t) => t.name),
        `vita:${domain}`,
      );
      const rehearsing = rehearsal.mode !== "none" || flags.checkpoint !== undefined;
      if (rehearsing && o.policy !== undefined)
        throw usage("--rehearsal and --checkpoint need a model agent, not --policy");
      // With rehearsal (or a checkpoint) the agent's model comes from openEvalModel below.
      const roles = rehearsing ? { agent: undefined, user: vitaUserFromOptions(o) } : vitaRolesFromOptions(o);
      const file = vitaTaskFile(resolveDataDir(o.data), domain, lang);
      let tasks = readVitaTasks(file, domain);
      if (o.limit !== undefined) tasks = tasks.slice(0, o.limit);
      o.onStart?.(tasks.length * o.trials);
      const judge =
        o.judgeEndpoint !== undefined ? model(o.judgeEndpoint, o.judgeModel!, o.apiKey) : undefined;
      const opened = rehearsing ? await openEvalModel(flags) : undefined;
      const guarded = guardsWrites(flags) ? { ...rehearsal, guardTools: vitaWriteTools(domain) } : rehearsal;
      const rehearsingAgent = opened ? new RehearsingVitaAgent(opened.model, guarded) : undefined;
      const agent = rehearsingAgent ?? roles.agent;
      if (!agent) throw usage("an agent is needed");
      const summary = await runVita({
        bench: `vita:${domain}`,
        tasks,
        lang,
        agent,
        user: roles.user,
        ...(judge ? { judge } : {}),
        trials: o.trials,
        ...(o.maxSteps !== undefined ? { maxSteps: o.maxSteps } : {}),
        concurrency: o.concurrency,
        ...(o.dumpDb !== undefined ? { dumpDbDir: o.dumpDb } : {}),
        ...(opts.clock ? { clock: opts.clock } : {}),
        onResult: (_r, done, all) => o.onProgress?.(done, all),
      }).finally(() => opened?.close());
      if (!rehearsingAgent) return { ...summary, results: summary.results };
      const total = emptyRehearsalStats(rehearsal);
      for (const s of rehearsingAgent.sessions) addRehearsalStats(total, s.stats);
      return {
        ...summary,
        rehearsal: rehearsalReport(total, summary.results.length),
        results: summary.results,
      };
    },
  };
}
