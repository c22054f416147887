import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolworldEvalTasks, type ToolworldSummary } from "../../../src/bench/toolworld/index.js";
import { OpenAIChatModel, startWorker, type WorkerProcess } from "../../../src/engines/index.js";
import { createToolworldEnv, generateTasks, toolworldCorpus } from "../../../src/envs/toolworld/index.js";
import { CountingEnvironment } from "../../../src/testing/index.js";
import { runEpisodeWithRehearsal } from "../../../src/testtime/index.js";

const run = promisify(execFile);
const root = resolve(import.meta.dirname, "../../..");
const DOMAIN = "library";

// One real worker with the tiny model (untrained: it writes near-garbage, which is the point —
// rehearsal must stay within its limits and the committed run must still proceed).
let worker: WorkerProcess;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "envace-testtime-"));
  const corpus = join(dir, "corpus.txt");
  writeFileSync(
    corpus,
    toolworldCorpus(generateTasks({ domain: DOMAIN, seed: 1, count: 8, split: "train" })),
  );
  worker = await startWorker({ init: { corpus, size: "xs", seed: 1 }, port: 0, checkpointRoot: dir });
}, 300_000);

afterAll(async () => {
  await worker?.stop();
});

describe("test-time rehearsal with the worker's tiny model (official openai client path)", () => {
  it.each(["parallel:2", "sequential:2"])(
    "%s on toolworld tasks: bounded, zero real calls while rehearsing",
    async (spec) => {
      const [mode, n] = spec.split(":") as ["parallel" | "sequential", string];
      const policy = new OpenAIChatModel({
        baseURL: `${worker.url}/v1`,
        apiKey: worker.apiKey,
        model: "tiny",
        returnTokenIds: true,
        maxRetries: 0,
      });
      for (const task of toolworldEvalTasks(DOMAIN, "heldout", 2)) {
        const envs: CountingEnvironment[] = [];
        const ep = await runEpisodeWithRehearsal(task, {
          policy,
          envFactory: (t) => {
            const env = new CountingEnvironment(createToolworldEnv(t));
            envs.push(env);
            return env;
          },
          rehearsal: {
            mode,
            n: Number(n),
            memory: "digest",
            promptVariant: "compact",
            maxTokensPerCall: 24,
            maxTokensPerAttempt: 64,
            maxStepsPerAttempt: 2,
          },
          maxAssistantTurns: 2,
          maxTokens: 24,
          temperature: 0,
        });
        expect(ep.rehearsal.phases).toBeGreaterThanOrEqual(1);
        expect(ep.rehearsal.attempts).toBe(ep.rehearsal.phases * Number(n));
        expect(ep.rehearsal.calls.act).toBeGreaterThanOrEqual(ep.rehearsal.attempts);
        expect(ep.rehearsal.tokens.completion).toBeLessThanOrEqual(ep.rehearsal.attempts * 64);
        expect(ep.rehearsal.tokens.total).toBeGreaterThan(0);
        expect(ep.rehearsal.realCallsDuringRehearsal).toBe(0);
        // the committed run's real calls are exactly the environment's calls
        expect(envs).toHaveLength(1);
        expect(ep.envCalls).toBe(envs[0]!.calls);
        expect(ep.calls.filter((c) => c.source === "real")).toHaveLength(envs[0]!.calls);
        // rows carry the worker's token ids (the committed act calls)
        expect(ep.rows.every((r) => r.role === "act" && r.tokenIds.length > 0)).toBe(true);
      }
    },
    300_000,
  );

  it("envace eval --checkpoint DIR runs a saved model through a worker, with rehearsal", async () => {
    const ckpt = join(dir, "ckpt");
    await worker.client.save(ckpt);
    const { stdout } = await run(
      "npx",
      [
        "tsx",
        "src/cli/main.ts",
        "eval",
        "--bench",
        `toolworld:${DOMAIN}`,
        "--checkpoint",
        ckpt,
        "--limit",
        "1",
        "--max-steps",
        "2",
        "--rehearsal",
        "parallel:2",
        "--rehearsal-prompt",
        "compact",
        "--rehearsal-max-tokens",
        "48",
        "--json",
      ],
      { cwd: root, maxBuffer: 16 << 20 },
    );
    const s = JSON.parse(stdout.trim().split("\n").pop()!) as ToolworldSummary;
    expect(s).toMatchObject({ bench: `toolworld:${DOMAIN}`, tasks: 1, trials: 1 });
    expect(s.rehearsal).toMatchObject({
      mode: "parallel",
      n: 2,
      memory: "digest",
      real_calls_during_rehearsal: 0,
    });
    expect(s.rehearsal.tokens.total).toBeGreaterThan(0);
    expect(s.results[0]!.rehearsal_tokens).toBe(s.rehearsal.tokens.total);
    expect(typeof s.results[0]!.success).toBe("boolean");
  }, 300_000);
});
