/**
 * Benchmark: async episode scheduler vs a step-synchronous loop (every episode advances one model
 * call together, as in the reference's rollout loop) on the same episodes, against a local mock
 * OpenAI-compatible server whose response times are heavy-tailed (bounded lognormal, a fixed
 * function of each request so both runs see the same latencies). The server runs in a child
 * process so that the scheduler's CPU time is measured alone.
 *
 *   npm run bench:rollout -- [--json] [--episodes 48] [--median-ms 40] [--sigma 1.5] [--cap-ms 2500]
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import type { ChatModel, ChatRequest, ChatResult } from "../src/core/model.js";
import type { Message } from "../src/core/messages.js";
import { TaskZ, type Task } from "../src/core/task.js";
import { OpenAIChatModel } from "../src/engines/openai-chat-model.js";
import { EndpointPool } from "../src/engines/endpoint-pool.js";
import {
  isRehearsalRequest,
  rehearsalResponder,
  runEpisode,
  runEpisodes,
  type EpisodeJob,
} from "../src/rollout/index.js";
import { startMockOpenAIServer, type MockChatBody } from "../src/testing/index.js";

const argv = process.argv.slice(2);
const flag = (name: string, dflt: number): number => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : dflt;
};
const EPISODES = flag("episodes", 48);
const MEDIAN_MS = flag("median-ms", 40);
const SIGMA = flag("sigma", 1.5);
const CAP_MS = flag("cap-ms", 2500);

// ---------- the mock server (child process) ----------

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** Bounded lognormal latency, a pure function of the request's content. */
function latencyFor(body: MockChatBody): number {
  const key = JSON.stringify(body.messages);
  const u1 = (hash(key) + 1) / 4294967297;
  const u2 = (hash(`${key}#2`) + 1) / 4294967297;
  const z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  return Math.min(CAP_MS, MEDIAN_MS * Math.exp(SIGMA * z));
}

const toolCall = (name: string, args: Record<string, unknown>) =>
  `<tool_call>${JSON.stringify({ name, arguments: args })}</tool_call>`;

/** Act: two parallel lookups after a user message, a reply after tool results. Rehearse: a result. */
function reply(body: MockChatBody): string {
  const messages = body.messages.map((m) => ({ role: m.role, content: m.content ?? "" })) as Message[];
  if (isRehearsalRequest(messages))
    return `<execution_result>\n{"status":"pending","eta_days":${hash(messages[1]!.content) % 9}}\n</execution_result>`;
  const last = messages[messages.length - 1]!;
  if (last.role === "user")
    return toolCall("get_order", { order_id: "A1" }) + toolCall("get_shipping", { order_id: "A1" });
  return "Your order A1 is pending.";
}

async function serve(): Promise<void> {
  const server = await startMockOpenAIServer({
    handler: async (body) => {
      await new Promise((r) => setTimeout(r, latencyFor(body)));
      return reply(body);
    },
  });
  process.stdout.write(`${JSON.stringify({ baseURL: server.baseURL })}\n`);
  process.stdin.resume();
  process.stdin.on("end", () => void server.close().then(() => process.exit(0)));
}

// ---------- the step-synchronous baseline ----------

/**
 * Holds every model call until all unfinished episodes are waiting on one, then sends the whole
 * step together and releases the results only when the slowest call of the step has returned.
 */
class StepBarrier {
  private active = 0;
  private readonly blocked = new Set<number>();
  private pending: Array<{
    episode: number;
    request: ChatRequest;
    resolve: (r: ChatResult) => void;
    reject: (e: unknown) => void;
  }> = [];
  private scheduled = false;
  steps = 0;

  constructor(private readonly model: ChatModel) {}

  modelFor(episode: number): ChatModel {
    return {
      name: this.model.name,
      chat: (request) =>
        new Promise<ChatResult>((resolve, reject) => {
          this.pending.push({ episode, request, resolve, reject });
          this.blocked.add(episode);
          this.schedule();
        }),
    };
  }

  async run<T>(episode: Promise<T>): Promise<T> {
    this.active++;
    try {
      return await episode;
    } finally {
      this.active--;
      this.schedule();
    }
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // after the current burst of synchronous work, so parallel calls of one step all register
    setImmediate(() => {
      this.scheduled = false;
      if (this.pending.length > 0 && this.blocked.size >= this.active) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    const step = this.pending;
    this.pending = [];
    this.steps++;
    const settled = await Promise.allSettled(step.map((p) => this.model.chat(p.request)));
    this.blocked.clear();
    settled.forEach((s, i) =>
      s.status === "fulfilled" ? step[i]!.resolve(s.value) : step[i]!.reject(s.reason),
    );
  }
}

// ---------- the benchmark ----------

function makeTasks(n: number, tag = "bench"): Task[] {
  const params = { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"] };
  return Array.from({ length: n }, (_, i) =>
    TaskZ.parse({
      id: `${tag}-${i}`,
      domain: "retail",
      system: `You are agent #${i} (${tag}).`,
      tools: [
        { name: "get_order", description: "order", parameters: params },
        { name: "get_shipping", description: "shipping", parameters: params },
      ],
      user_turns: [
        `Where is order A1? (customer ${i})`,
        `And when will it arrive? (customer ${i})`,
        `Thanks, anything else? (customer ${i})`,
      ],
      checklists: [[[{ question: "lookup", rule: { call: "get_order", args: { order_id: "A1" } } }], [], []]],
    }),
  );
}

async function main(): Promise<void> {
  const json = argv.includes("--json");
  const child = spawn(process.execPath, [...process.execArgv, process.argv[1]!, "--serve", ...argv], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`mock server exited with ${code}`)));
  });
  const { baseURL } = JSON.parse(first) as { baseURL: string };
  try {
    const endpoint = new OpenAIChatModel({ baseURL, model: "mock", maxRetries: 0, returnTokenIds: true });
    const pool = new EndpointPool([endpoint], { maxInFlight: 256 });
    // one task per episode: latencies are a function of the request's content, so identical
    // group members would share them; distinct tasks give every episode its own draws
    const episodes = makeTasks(EPISODES).map((task) => ({ task, sample: 0 }));
    const limits = { maxAssistantTurns: 6, maxParallelCalls: 4, contextBudgetTokens: 1_000_000 };

    // warm-up (JIT, connections) on other tasks, so that neither timed run pays it
    const warm = makeTasks(Math.max(1, EPISODES / 8), "warmup");
    await runEpisodes(
      warm.map((task) => ({
        task,
        options: { policy: pool, responder: rehearsalResponder(pool, { variant: "compact" }), ...limits },
      })),
      { concurrency: warm.length },
    );

    // async
    const jobs: EpisodeJob[] = episodes.map(({ task, sample }) => ({
      task,
      options: {
        policy: pool,
        responder: rehearsalResponder(pool, { variant: "compact" }),
        sample,
        ...limits,
      },
    }));
    const callsBefore = pool.stats().calls;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const asyncResults = await runEpisodes(jobs, { concurrency: episodes.length });
    const wallAsync = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const asyncCalls = pool.stats().calls - callsBefore;

    // step-synchronous, same episodes
    const barrier = new StepBarrier(pool);
    const t1 = performance.now();
    const syncResults = await Promise.all(
      episodes.map(({ task, sample }, i) => {
        const m = barrier.modelFor(i);
        return barrier.run(
          runEpisode(task, {
            policy: m,
            responder: rehearsalResponder(m, { variant: "compact" }),
            sample,
            ...limits,
          }),
        );
      }),
    );
    const wallSync = (performance.now() - t1) / 1000;

    const same = asyncResults.every(
      (r, i) => JSON.stringify(r.messages) === JSON.stringify(syncResults[i]!.messages),
    );
    const out = {
      wall_async_s: +wallAsync.toFixed(3),
      wall_sync_s: +wallSync.toFixed(3),
      speedup: +(wallSync / wallAsync).toFixed(2),
      cpu_overhead_ms_per_call: +((cpu.user + cpu.system) / 1000 / asyncCalls).toFixed(3),
      episodes: episodes.length,
      model_calls: asyncCalls,
      sync_steps: barrier.steps,
      identical_trajectories: same,
      all_done:
        asyncResults.every((r) => r.endReason === "done") && syncResults.every((r) => r.endReason === "done"),
      latency: { dist: "lognormal", median_ms: MEDIAN_MS, sigma: SIGMA, cap_ms: CAP_MS },
    };
    if (json) process.stdout.write(`${JSON.stringify(out)}\n`);
    else {
      process.stdout.write(
        `async ${out.wall_async_s}s vs step-synchronous ${out.wall_sync_s}s: ${out.speedup}x faster; ` +
          `${out.cpu_overhead_ms_per_call} ms CPU per model call (${out.model_calls} calls, ${out.episodes} episodes, identical trajectories: ${same})\n`,
      );
    }
  } finally {
    child.stdin!.end();
  }
}

if (argv.includes("--serve")) void serve();
else
  main().catch((e: unknown) => {
    process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  });
