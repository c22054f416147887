import { describe, expect, it } from "vitest";
import type { Task } from "../../../src/core/task.js";
import {
  registerTaskGenerator,
  taskGeneratorNames,
  unknownGeneratorMessage,
} from "../../../src/envs/task-generator-registry.js";
import { registerTaskKind } from "../../../src/envs/task-kind-registry.js";
import {
  generateTasks,
  goldSolve,
  toolworldCorpus,
  toolworldVocabulary,
} from "../../../src/envs/toolworld/index.js";
import "../../../src/envs/toolworld/register.js";
import { parseTrainConfig } from "../../../src/train/config.js";
import { goldSftExamples } from "../../../src/train/gold-sft.js";
import { loadTaskSource } from "../../../src/train/task-sources.js";
import { tinyModelCorpus, tinyModelVocabulary } from "../../../src/train/tiny-model-text.js";

/** The training library reaches task generators and gold runs only through the registries. */
const shop = (seed: number, count = 2): Task[] =>
  generateTasks({ domain: "shop", seed, count, split: "train" });
const worker = { init: {} };

describe("task generator registry", () => {
  it("`generator: toolworld` gives the toolworld generator's tasks, per domain", async () => {
    const c = parseTrainConfig({
      worker,
      tasks: { generator: "toolworld", domains: ["shop", "bank"], count: 2, seed: 3 },
    });
    const tasks = await loadTaskSource(c.tasks);
    const expected = [
      ...generateTasks({ domain: "shop", seed: 3, count: 2, split: "train" }),
      ...generateTasks({ domain: "bank", seed: 3, count: 2, split: "train" }),
    ];
    expect(tasks).toEqual(expected);
    expect(tasks.map((t) => t.domain)).toEqual(["shop", "shop", "bank", "bank"]);
  });

  it("an unknown generator is an INVALID_CONFIG error at load time naming the known ones", () => {
    expect(() => parseTrainConfig({ worker, tasks: { generator: "nope", count: 1 } })).toThrow(
      /tasks\.generator: unknown task generator "nope" \(known: .*toolworld/,
    );
    expect(unknownGeneratorMessage("toolworld")).toBeNull();
  });

  it("a generator registered by a library user is accepted and called with the source", async () => {
    const seen: unknown[] = [];
    registerTaskGenerator("echo", (spec) => {
      seen.push(spec);
      return shop(spec.seed, spec.count);
    });
    expect(taskGeneratorNames()).toEqual(expect.arrayContaining(["echo", "toolworld"]));
    const c = parseTrainConfig({
      worker,
      tasks: "t.jsonl",
      eval_tasks: { generator: "echo", count: 1, seed: 9 },
    });
    const tasks = await loadTaskSource(c.eval_tasks!);
    expect(seen).toEqual([{ generator: "echo", count: 1, seed: 9, split: "train" }]);
    expect(tasks).toEqual(shop(9, 1));
  });
});

describe("task kind registry", () => {
  it("gold SFT comes from the kind's registered gold solver; kinds without one are skipped", () => {
    const tasks = shop(5);
    const noKind: Task = { ...tasks[0]!, id: "no-env", env: undefined };
    const ex = goldSftExamples([...tasks, noKind], { roles: ["act", "rehearse"], variant: "compact" });
    expect(ex.act.map((e) => e.messages)).toEqual(tasks.map((t) => goldSolve(t).messages));
    const goldCalls = tasks.flatMap((t) => goldSolve(t).turns.flatMap((u) => u.calls));
    expect(goldCalls.length).toBeGreaterThan(0);
    expect(ex.rehearse).toHaveLength(goldCalls.length);
  });

  it("another kind's gold runs are used once it registers them", () => {
    const base = shop(6, 1)[0]!;
    const mcpTask: Task = { ...base, id: "m", env: { kind: "mcp", url: "http://127.0.0.1:1/mcp" } };
    expect(goldSftExamples([mcpTask], { roles: ["act"], variant: "compact" }).act).toEqual([]);
    const gold = goldSolve(base);
    registerTaskKind("mcp", { goldRun: () => gold });
    const act = goldSftExamples([mcpTask], { roles: ["act"], variant: "compact" }).act;
    expect(act.map((e) => e.messages)).toEqual([gold.messages]);
  });

  it("the tiny model's corpus and vocabulary are the kind's own; unknown kinds fall back to JSON", () => {
    const tasks = [...shop(7), ...generateTasks({ domain: "bank", seed: 7, count: 1, split: "train" })];
    expect(tinyModelCorpus(tasks)).toBe(toolworldCorpus(tasks));
    expect(tinyModelVocabulary(tasks)).toEqual(toolworldVocabulary(["shop", "bank"]));
    const plain: Task = { ...tasks[0]!, id: "plain", env: undefined };
    expect(tinyModelCorpus([...tasks, plain])).toBe(
      [...tasks, plain].map((t) => JSON.stringify(t)).join("\n") + "\n",
    );
    expect(tinyModelVocabulary([plain])).toEqual([]);
  });
});
