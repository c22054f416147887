import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadTasks } from "../../../src/rollout/load-tasks.js";
import { environmentForTask } from "../../../src/envs/task-environment.js";
import type { TaskBenchSummary } from "../../../src/bench/tasks/index.js";
import type { TaskCheck } from "../../../src/tasks/index.js";
import type { TrainSummary } from "../../../src/train/loop.js";
import type { StepMetrics } from "../../../src/train/step-metrics.js";
import { MEMORY_SERVER, REPO_ROOT } from "../mcp/servers.js";
import { envaceExec } from "../../cli.js";

const envace = (args: string[]) => envaceExec(args);
const exampleFile = (name: string) => join(REPO_ROOT, "examples/tasks", name);

// Runs go under the repository's ignored tmp/: the worker saves checkpoints only inside its root.
const scratchDirs: string[] = [];
function scratch(): string {
  mkdirSync(join(REPO_ROOT, "tmp"), { recursive: true });
  const dir = mkdtempSync(join(REPO_ROOT, "tmp", "e2e-own-world-"));
  scratchDirs.push(dir);
  return dir;
}
afterAll(() => scratchDirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** The MCP memory server, with its store in a fresh directory per episode. */
const memoryEnv = {
  kind: "mcp",
  command: process.execPath,
  args: [MEMORY_SERVER],
  env: { MEMORY_FILE_PATH: "${EPISODE_DIR}/memory.jsonl" },
};

async function importMemory(dir: string): Promise<string> {
  const out = join(dir, "memory.jsonl");
  const { stdout } = await envace([
    "tasks",
    "import",
    exampleFile("memory-transcripts.jsonl"),
    "--format",
    "openai",
    "--domain",
    "memory",
    "--tools",
    exampleFile("memory-tools.json"),
    "--checklists",
    exampleFile("memory-checklists.jsonl"),
    "--env",
    JSON.stringify(memoryEnv),
    "--out",
    out,
    "--json",
  ]);
  expect(JSON.parse(stdout)).toMatchObject({ tasks: 2, examples: 3, traces: 2, with_checklists: 2 });
  return out;
}

describe("your own world: a log of MCP sessions becomes tasks you can check, train on and evaluate", () => {
  it("import, check, and evaluate the recorded calls against the real MCP server", async () => {
    const dir = scratch();
    const tasks = await importMemory(dir);

    const check = JSON.parse((await envace(["tasks", "check", tasks, "--json"])).stdout) as {
      ok: boolean;
      files: Array<{ tasks: TaskCheck[] }>;
    };
    expect(check.ok).toBe(true);
    expect(check.files[0]!.tasks.map((t) => t.uses)).toEqual([
      { sft_act: 1, sft_rehearse: 1, rehearsal_rl: true, real_env: "mcp", judge_needed: false },
      { sft_act: 1, sft_rehearse: 2, rehearsal_rl: true, real_env: "mcp", judge_needed: false },
    ]);

    // gold replays the recorded conversation against fresh memory servers: every rule passes.
    const gold = JSON.parse(
      (await envace(["eval", "--bench", `tasks:${tasks}`, "--policy", "gold", "--trials", "2", "--json"]))
        .stdout,
    ) as TaskBenchSummary;
    expect(gold).toMatchObject({
      environment: "real (mcp)",
      reward_mean: 1,
      env_calls: 6,
      pass_hat_k: { 1: 1, 2: 1 },
    });
    const noop = JSON.parse(
      (await envace(["eval", "--bench", `tasks:${tasks}`, "--policy", "noop", "--json"])).stdout,
    ) as TaskBenchSummary;
    expect(noop.env_calls).toBe(0);
    expect(noop.reward_mean).toBeLessThan(0.5);
  });

  it("each episode gets a fresh server: one episode's writes are not seen by the next", async () => {
    const dir = scratch();
    const [task] = await loadTasks(await importMemory(dir));
    const first = await environmentForTask(task!);
    const created = await first.call({
      id: "1",
      name: "create_entities",
      arguments: { entities: [{ name: "Zed", entityType: "person", observations: [] }] },
    });
    expect(created.ok).toBe(true);
    const again = await first.call({ id: "2", name: "read_graph", arguments: {} });
    expect(again.ok && again.content).toMatch(/Zed/);
    await first.close?.();
    const second = await environmentForTask(task!);
    const graph = await second.call({ id: "3", name: "read_graph", arguments: {} });
    await second.close?.();
    expect(graph.ok && JSON.parse(graph.content)).toEqual({ entities: [], relations: [] });
  });

  it("env.setup runs first in every episode; a failing setup call is an error naming it", async () => {
    const [task] = await loadTasks(await importMemory(scratch()));
    const entity = { name: "Ada", entityType: "person", observations: ["likes tea"] };
    const setup = [{ name: "create_entities", arguments: { entities: [entity] } }];
    const env = await environmentForTask({ ...task!, env: { ...memoryEnv, kind: "mcp", setup } });
    const graph = await env.call({ id: "1", name: "read_graph", arguments: {} });
    await env.close?.();
    expect(graph.ok && JSON.parse(graph.content)).toMatchObject({ entities: [entity] });
    const broken = [
      { name: "add_observations", arguments: { observations: [{ entityName: "Nobody", contents: ["x"] }] } },
    ];
    await expect(
      environmentForTask({ ...task!, env: { ...memoryEnv, kind: "mcp", setup: broken } }),
    ).rejects.toThrow(/task memory-0001: env\.setup\.0 \(add_observations\) failed/);
  });

  it("an eval whose every episode failed on the model exits non-zero with the error", async () => {
    const tasks = await importMemory(scratch());
    await expect(
      envace(["eval", "--bench", `tasks:${tasks}`, "--endpoint", "http://127.0.0.1:9/v1", "--model", "m"]),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/ENDPOINT_ERROR.*every episode \(2\) failed/),
    });
  });

  it("SFT on the traces, rehearsal RL with no env calls, then eval on the real server", async () => {
    const dir = scratch();
    const tasks = await importMemory(dir);
    // The check says every task can warm up both roles and train in rehearsal mode.
    const check = JSON.parse((await envace(["tasks", "check", tasks, "--json"])).stdout) as {
      ok: boolean;
      files: Array<{ tasks: TaskCheck[] }>;
    };
    expect(check.ok).toBe(true);
    const uses = check.files[0]!.tasks.map((t) => t.uses);
    expect(uses.every((u) => u.sft_act > 0 && u.sft_rehearse > 0 && u.rehearsal_rl)).toBe(true);
    // examples/tasks/train-memory.yaml as written, on the tasks just imported.
    const exampleConfig = parse(readFileSync(exampleFile("train-memory.yaml"), "utf8")) as Record<
      string,
      unknown
    >;
    const config = { ...exampleConfig, tasks, eval_tasks: tasks };
    const cfgPath = join(dir, "train.json");
    writeFileSync(cfgPath, JSON.stringify(config));
    const out = join(dir, "run");
    const train = await envace(["train", "--config", cfgPath, "--out", out, "--json"]);
    const summary = JSON.parse(train.stdout.trim().split("\n").pop()!) as TrainSummary;
    const steps = readFileSync(join(out, "metrics.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as StepMetrics);
    expect(steps.map((m) => m.step)).toEqual([1, 2]);
    // Readable and repeatable: plain progress lines (stderr is not a terminal), the resolved config
    // and how the run was made.
    expect(train.stderr).toMatch(
      /^step 1\/2 reward \S+ success \S+ rows act \d+ rehearse \d+ tokens act \d+/m,
    );
    // SFT ran over every recorded example the check counted, both roles in one shared model:
    // ceil(examples / batch_size) steps per epoch.
    const sft = exampleConfig.sft as { epochs: number; batch_size: number };
    const examples = uses.reduce((a, u) => a + u.sft_act + u.sft_rehearse, 0);
    const sftSteps = Math.ceil(examples / sft.batch_size) * sft.epochs;
    expect(examples).toBeGreaterThan(0);
    expect(train.stderr).toMatch(/^sft 1\/\d+ loss /m);
    const sftLoss = (k: number) =>
      Number(new RegExp(`^sft ${k}/${sftSteps} loss (\\S+)`, "m").exec(train.stderr)?.[1]);
    expect(sftLoss(sftSteps)).toBeLessThan(sftLoss(1) / 2); // it learned the traces
    const resolved = JSON.parse(readFileSync(join(out, "config.resolved.json"), "utf8")) as { tasks: string };
    expect(resolved.tasks).toBe(tasks);
    const info = JSON.parse(readFileSync(join(out, "runs.jsonl"), "utf8")) as { git_commit: string | null };
    expect(info.git_commit).toMatch(/^[0-9a-f]{40}$/);
    // Rehearsal: no step touched the MCP server; both roles produced rows.
    expect(steps.every((m) => m.env_calls === 0)).toBe(true);
    expect(steps.reduce((a, m) => a + m.rows.act, 0)).toBeGreaterThan(0);
    expect(steps.reduce((a, m) => a + m.rows.rehearse, 0)).toBeGreaterThan(0);
    expect(steps.every((m) => !m.optim_skipped)).toBe(true);
    // The final evaluation ran against the real server.
    expect(summary.eval!.env_calls).toBeGreaterThan(0);

    // The trained model, served from its checkpoint, evaluated on real MCP servers.
    const ev = JSON.parse(
      (
        await envace([
          "eval",
          "--bench",
          `tasks:${tasks}`,
          "--checkpoint",
          summary.final_checkpoint!, // a step-K/ checkpoint, as train writes it
          "--json",
        ])
      ).stdout,
    ) as TaskBenchSummary;
    expect(ev.environment).toBe("real (mcp)");
    expect(ev.env_calls).toBeGreaterThan(0);
    expect(ev.results.every((r) => r.end_reason !== "model_error")).toBe(true);
  });
});
