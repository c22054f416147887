import { describe, expect, it } from "vitest";
import { armResult, pooled } from "../../../src/demo/aggregate.js";
import { armSpecs } from "../../../src/demo/arms.js";
import {
  armData,
  borrowWithinDomains,
  buildDemoData,
  pyJson,
  worldDriftNote,
} from "../../../src/demo/data.js";
import {
  ENV_DOMAIN,
  ENVLESS_DOMAINS,
  FULL_PLAN,
  HELDOUT_DOMAIN,
  QUICK_PLAN,
} from "../../../src/demo/layout.js";
import { canonicalJson } from "../../../src/core/canonical-json.js";
import { createToolworldEnv, goldSolve, toolworldResultValue } from "../../../src/envs/toolworld/index.js";
import { MEMORY_HEADER } from "../../../src/testtime/memory-view.js";
import { toolIndex, withCompactTools } from "../../../src/demo/policy-view.js";
import { demoSftExamples } from "../../../src/demo/sft-data.js";
import { sftCacheKey } from "../../../src/demo/sft-stage.js";
import { buildRehearsalPrompt } from "../../../src/rollout/rehearsal-prompt.js";
import { ScriptedPolicy } from "../../../src/testing/index.js";
import { firstCallTransfer, writeCallCopy } from "../../../src/demo/evaluate.js";
import type { EpisodeResult } from "../../../src/rollout/types.js";
import { countFailures } from "../../../src/bench/failure-kinds.js";

const noFailures = countFailures([], []);

describe("demo data", () => {
  const data = buildDemoData(QUICK_PLAN, 3);

  it("is deterministic per seed and differs across seeds", () => {
    expect(JSON.stringify(buildDemoData(QUICK_PLAN, 3))).toBe(JSON.stringify(data));
    expect(JSON.stringify(buildDemoData(QUICK_PLAN, 4).train)).not.toBe(JSON.stringify(data.train));
  });

  it("keeps the scenario's domains apart and evaluation disjoint from training", () => {
    expect(Object.keys(data.train).sort()).toEqual([ENV_DOMAIN, ...ENVLESS_DOMAINS].sort());
    expect(new Set(data.eval.env_domain.map((t) => t.domain))).toEqual(new Set([ENV_DOMAIN]));
    expect(new Set(data.eval.envless.map((t) => t.domain))).toEqual(new Set(ENVLESS_DOMAINS));
    expect(new Set(data.eval.heldout_domain.map((t) => t.domain))).toEqual(new Set([HELDOUT_DOMAIN]));
    const key = (t: { domain: string; user_turns: string[] }) => `${t.domain}|${t.user_turns.join("|")}`;
    const trained = new Set(Object.values(data.train).flat().map(key));
    for (const t of Object.values(data.eval).flat()) expect(trained.has(key(t))).toBe(false);
  });

  it("trains the tokenizer on no held-out task text", () => {
    for (const t of data.eval.heldout_domain) expect(data.corpus).not.toContain(t.user_turns[0]!);
  });

  it("gives entities whole tokens by default, and leaves them to the tokenizer with entityTokens: pieces", () => {
    expect(data.vocabulary).toContain("o17");
    expect(data.vocabulary).toContain("kim@mail");
    const pieces = buildDemoData({ ...QUICK_PLAN, entityTokens: "pieces" }, 3);
    expect(pieces.vocabulary).not.toContain("o17");
    expect(pieces.vocabulary).not.toContain("kim@mail");
    expect(pieces.vocabulary).toContain("get_order");
    expect(pieces.train).toEqual(data.train);
    const examples = { act: [], rehearse: [] };
    expect(sftCacheKey(QUICK_PLAN, 3, pieces, examples)).not.toBe(sftCacheKey(QUICK_PLAN, 3, data, examples));
  });

  it("writes JSON with Python's separators", () => {
    expect(pyJson({ name: "f", arguments: { a: [1, "x"], b: {} } })).toBe(
      '{"name": "f", "arguments": {"a": [1, "x"], "b": {}}}',
    );
  });
});

describe("demo SFT examples", () => {
  const data = buildDemoData(QUICK_PLAN, 5);
  const tasks = Object.values(data.train).flat();
  const sft = demoSftExamples(tasks, 5, { variant: "compact" });

  it("has one acting example per task, without tool schemas, targets on every assistant message", () => {
    expect(sft.act).toHaveLength(tasks.length);
    for (const ex of sft.act) {
      expect(ex.tools).toBeUndefined();
      expect(ex.targets.every((i) => ex.messages[i]!.role === "assistant")).toBe(true);
    }
  });

  it("trains on the past agent's logs as they are: 30-55% of traces hold a mistake", () => {
    const share = sft.flawedTraces / tasks.length;
    expect(share).toBeGreaterThan(0.3);
    expect(share).toBeLessThan(0.55);
  });

  it("puts a rehearsal note, as test-time rehearsal writes it, in a share of single-turn acting examples", () => {
    const noted = sft.act.filter((ex) => ex.messages[0]!.content.includes(MEMORY_HEADER));
    const single = tasks.filter((t) => t.user_turns.length === 1).length;
    expect(noted.length).toBeGreaterThan(single * 0.1);
    expect(noted.length).toBeLessThan(single * 0.45);
    for (const ex of noted) {
      // system, note (digest of logged attempts), then the tool index last, as the policy sees it
      expect(ex.messages[0]!.content).toMatch(
        /\n\n# Private rehearsal notes\n[\s\S]*Attempt 1 \(replied[\s\S]*\ntools: /,
      );
    }
  });

  it("notes look like test-time ones: 1 to 4 attempts, some without the logged run, some with other tasks' ids", () => {
    const noted = sft.act.filter((ex) => ex.messages[0]!.content.includes(MEMORY_HEADER));
    const counts = noted.map((ex) => (ex.messages[0]!.content.match(/^Attempt \d+ \(/gm) ?? []).length);
    expect(new Set(counts)).toEqual(new Set([1, 2, 3, 4]));
    let withoutTarget = 0;
    let foreignIds = 0;
    for (const ex of noted) {
      const system = ex.messages[0]!.content;
      const note = system.slice(system.indexOf(MEMORY_HEADER), system.lastIndexOf("\ntools: "));
      const user = ex.messages.find((m) => m.role === "user")!.content;
      // the logged run's first call (the target), as the digest writes it
      const first = ex.messages.find((m) => m.role === "assistant" && (m.toolCalls?.length ?? 0) > 0);
      const call = first?.toolCalls?.[0];
      if (call && !note.includes(`- ${call.name} ${JSON.stringify(call.arguments)} ->`)) withoutTarget++;
      const ids = note.match(/"[a-z]\d+"|"[a-z]+@mail"/g) ?? [];
      if (ids.some((id) => !user.includes(id.slice(1, -1)))) foreignIds++;
    }
    expect(withoutTarget).toBeGreaterThan(noted.length * 0.05);
    expect(foreignIds).toBeGreaterThan(noted.length * 0.2);
  });

  it("answers every rehearsing prompt with an <execution_result> block, including probes of unseen ids", () => {
    // Two rehearsals per task: one with its own recorded calls as evidence (DEMO_REHEARSE_PER_TASK),
    // one with other tasks' logs of its world (DEMO_LENT_REHEARSE_PER_TASK).
    expect(sft.rehearse.length).toBeLessThanOrEqual(tasks.length * 2);
    expect(sft.rehearse.length).toBeGreaterThan(tasks.length * 1.8);
    for (const ex of sft.rehearse) {
      expect(ex.messages[ex.targets[0]!]!.content).toMatch(
        /^<execution_result>\n[[{].*[\]}]\n<\/execution_result>$/s,
      );
    }
    expect(sft.rehearse.some((ex) => ex.messages.at(-1)!.content.includes("not found"))).toBe(true);
  });
});

describe("demo rehearsals name the world", () => {
  const data = buildDemoData(QUICK_PLAN, 5);
  const tasks = Object.values(data.train).flat();
  const sft = demoSftExamples(tasks, 5, { variant: "compact" });
  const tenantOf = (system: string) => /\ntenant: (w\d+)$/.exec(system)?.[1];

  it("every rehearsal prompt starts with its task's tenant line, in SFT and in evaluation", () => {
    for (const ex of sft.rehearse) expect(ex.messages[1]!.content).toMatch(/^tenant: w[12]\n/);
    for (const task of [...data.eval.envless, ...data.eval.env_domain]) {
      const call = goldSolve(task).turns[0]!.calls[0]!.call;
      const [, user] = buildRehearsalPrompt({
        task,
        history: [],
        rawActMessage: "",
        call,
        variant: "compact",
      });
      expect(user!.content.split("\n")[0]).toBe(`tenant: ${tenantOf(task.system)}`);
    }
  });

  it("half the SFT rehearsals answer a call whose result no line of the prompt shows (learned from other tasks' logs)", () => {
    const shown = (ex: (typeof sft.rehearse)[number]) => {
      const lines = ex.messages[1]!.content.split("\n");
      const call = lines.at(-1)!.replace(/ ->$/, " -> ");
      return lines.slice(0, -1).some((l) => l.startsWith(call));
    };
    const unseen = sft.rehearse.filter((ex) => !shown(ex));
    expect(unseen.length).toBeGreaterThan(sft.rehearse.length * 0.4);
    // and the other tasks' logs are of the same world: same tenant, real answers of that world
    const byTenant = new Map<string, Set<number>>();
    for (const t of tasks) {
      const key = `${t.domain}:${tenantOf(t.system)}`;
      byTenant.set(key, (byTenant.get(key) ?? new Set()).add((t.env as { seed: number }).seed));
    }
    for (const seeds of byTenant.values()) expect(seeds.size).toBe(1);
  });

  it("takes the past agent's habits from the plan when given (none: no flawed trace; every key at 1: most flawed)", () => {
    const none = { forbidden_write: 0, stop_early: 0, skip_lookup: 0, wrong_fact: 0, similar_id: 0 };
    expect(demoSftExamples(tasks, 5, { variant: "compact", habits: none }).flawedTraces).toBe(0);
    const all = { forbidden_write: 1, stop_early: 1, skip_lookup: 1, wrong_fact: 1, similar_id: 1 };
    expect(demoSftExamples(tasks, 5, { variant: "compact", habits: all }).flawedTraces).toBeGreaterThan(
      tasks.length * 0.8,
    );
  });

  it("the SFT cache key changes with the data recipe, and only with it", () => {
    const key = sftCacheKey(QUICK_PLAN, 5, data, sft);
    expect(sftCacheKey(QUICK_PLAN, 5, data, demoSftExamples(tasks, 5, { variant: "compact" }))).toBe(key);
    expect(
      sftCacheKey(QUICK_PLAN, 5, data, demoSftExamples(tasks, 5, { variant: "compact", lentPerTask: 0 })),
    ).not.toBe(key);
    expect(sftCacheKey(QUICK_PLAN, 5, data, { act: sft.act.slice(1), rehearse: sft.rehearse })).not.toBe(key);
    expect(sftCacheKey(QUICK_PLAN, 5, { ...data, corpus: data.corpus + "x" }, sft)).not.toBe(key);
    expect(sftCacheKey(QUICK_PLAN, 6, data, sft)).not.toBe(key);
  });
});

describe("evaluation hygiene", () => {
  const data = buildDemoData(QUICK_PLAN, 7);
  const callKey = (e: { name: string; arguments: unknown }) => `${e.name} ${canonicalJson(e.arguments)}`;

  it("no evaluation task carries its own recorded calls; its evidence is other tasks' logs of its world", () => {
    const keyed = new Map(data.envlessWithAnswers.map((t) => [t.id, t]));
    let lent = 0;
    for (const task of Object.values(data.eval).flat()) {
      const own = new Set(goldSolve(task).turns.flatMap((t) => t.calls.map((c) => callKey(c.call))));
      for (const e of task.examples) expect(own.has(callKey(e)), task.id).toBe(false);
      if (task.examples.length > 0) lent++;
      if (keyed.has(task.id)) expect(keyed.get(task.id)!.examples.length).toBeGreaterThan(0);
    }
    expect(lent).toBeGreaterThan(Object.values(data.eval).flat().length * 0.8);
    // The lent evidence is about the same world: its results are the world's real answers.
    for (const task of data.eval.envless) {
      const env = createToolworldEnv(task);
      for (const e of task.examples.filter((x) => x.name.startsWith("get_"))) {
        expect(toolworldResultValue(env.callSync({ id: "p", name: e.name, arguments: e.arguments }))).toEqual(
          e.result,
        );
      }
    }
  });

  it("borrowWithinDomains (RL's rlExamples: borrowed) drops each training task's own calls for its domain's logs of its world", () => {
    const tasks = Object.values(data.train).flat();
    const borrowed = borrowWithinDomains(tasks);
    expect(borrowed.map((t) => t.id)).toEqual(tasks.map((t) => t.id));
    const byId = new Map(tasks.map((t) => [t.id, t]));
    let lent = 0;
    for (const task of borrowed) {
      const before = byId.get(task.id)!;
      expect({ ...task, examples: [] }).toEqual({ ...before, examples: [] });
      const own = new Set(before.examples.map(callKey));
      for (const e of task.examples) expect(own.has(callKey(e)), task.id).toBe(false);
      if (task.examples.length > 0) lent++;
      const env = createToolworldEnv(task);
      for (const e of task.examples.filter((x) => x.name.startsWith("get_"))) {
        expect(toolworldResultValue(env.callSync({ id: "p", name: e.name, arguments: e.arguments }))).toEqual(
          e.result,
        );
      }
    }
    expect(lent).toBeGreaterThan(tasks.length * 0.8);
    // Lenders are of the task's own domain: no other domain's tool appears in a task's evidence.
    for (const task of borrowed) {
      const names = new Set(task.tools.map((t) => t.name));
      for (const e of task.examples) expect(names.has(e.name), `${task.id} ${e.name}`).toBe(true);
    }
  });

  it("worldDrift: the arms' tasks and evaluation on a newer snapshot, with evidence of that snapshot; SFT's data unchanged", () => {
    expect(armData(QUICK_PLAN, 7, data)).toBe(data);
    const plan = { ...QUICK_PLAN, experiments: { worldDrift: 0.5 } };
    expect(buildDemoData(plan, 7)).toEqual(data); // what SFT trains on does not see the knob
    const drifted = armData(plan, 7, data);
    // the tokenizer stays the one the SFT checkpoint was built from
    expect([drifted.corpus, drifted.vocabulary]).toEqual([data.corpus, data.vocabulary]);
    // the results say the gate was measured on the new snapshot; without the knob, nothing
    expect(worldDriftNote(plan)).toContain("SFT gate's figures included, ran on a newer snapshot");
    expect(worldDriftNote(QUICK_PLAN)).toBeUndefined();
    const all = [...Object.values(drifted.train), ...Object.values(drifted.eval)].flat();
    for (const t of all) expect(t.env).toMatchObject({ drift: { seed: 7, share: 0.5 } });
    for (const [split, tasks] of Object.entries(drifted.eval)) {
      expect(tasks.length, split).toBe(data.eval[split as keyof typeof data.eval].length);
    }
    // evidence and recorded results are the new snapshot's, and the snapshot differs from the logs'
    let changed = 0;
    for (const task of [...drifted.eval.envless, ...drifted.train[ENVLESS_DOMAINS[0]]!]) {
      const env = createToolworldEnv(task);
      const old = createToolworldEnv({
        ...task,
        env: { kind: "toolworld", seed: (task.env as { seed: number }).seed },
      });
      for (const e of task.examples.filter((x) => x.name.startsWith("get_"))) {
        const call = { id: "p", name: e.name, arguments: e.arguments };
        expect(toolworldResultValue(env.callSync(call))).toEqual(e.result);
        if (canonicalJson(toolworldResultValue(old.callSync(call))) !== canonicalJson(e.result)) changed++;
      }
    }
    expect(changed).toBeGreaterThan(0);
    // no evaluation task carries its own recorded calls under drift either
    for (const task of Object.values(drifted.eval).flat()) {
      const own = new Set(goldSolve(task).turns.flatMap((t) => t.calls.map((c) => callKey(c.call))));
      for (const e of task.examples) expect(own.has(callKey(e)), task.id).toBe(false);
    }
  });

  it("the full plan evaluates at least 150 tasks per set (95% CI half-width ≤ 8 points)", () => {
    expect(FULL_PLAN.evalTasks).toBeGreaterThanOrEqual(150);
    expect(
      Math.ceil(FULL_PLAN.evalTasks / ENVLESS_DOMAINS.length) * ENVLESS_DOMAINS.length,
    ).toBeGreaterThanOrEqual(150);
    expect(1.96 * Math.sqrt(0.25 / FULL_PLAN.evalTasks)).toBeLessThanOrEqual(0.08);
  });
});

describe("demo arms and aggregation", () => {
  it("defines the six arms of the issue with their modes", () => {
    const specs = armSpecs(0.1);
    expect(specs.map((a) => [a.name, a.mode])).toEqual([
      ["sft", null],
      ["real", "real"],
      ["simulator", "simulator"],
      ["envace", "rehearsal"],
      ["envace_anchored", "rehearsal"],
      ["real_all", "real"],
    ]);
    expect(specs.find((a) => a.name === "real")!.domains).toEqual([ENV_DOMAIN]);
    expect(specs.find((a) => a.name === "envace_anchored")!.klCoef).toBe(0.1);
    expect(specs.find((a) => a.name === "envace")!.roles).toEqual({ act: "train", rehearse: "train" });
  });

  it("pools one seed over tasks and several seeds over seeds' means", () => {
    const one = pooled([[1, 0, 1, 1]]);
    expect(one.mean).toBeCloseTo(0.75);
    expect(one.n).toBe(4);
    const two = pooled([
      [1, 1],
      [0, 1],
    ]); // seed means 1 and 0.5
    expect(two.mean).toBeCloseTo(0.75);
    expect(two.n).toBe(2);
    expect(two.ci95).toBeCloseTo(12.706 * 0.25, 3);
  });

  it("sums training env calls over seeds", () => {
    const spec = armSpecs(0)[1]!;
    const evaluation = {
      success: { env_domain: [1], envless: [0], heldout_domain: [1] },
      reward: [1, 0, 1],
      fidelity: { recorded: { exact: 1, f1: 1, n: 2 }, own_calls: { exact: 0.5, f1: 0.5, n: 2 } },
      rehearsedWorldSuccess: null,
      fidelityUnseen: { exact: 0.25, f1: 0.5, n: 4 },
      fidelityUnseenByTool: { get_event: { hits: 1, n: 3 }, move_event: { hits: 0, n: 1 } },
      firstCallCopy: 1,
      writeCallCopy: 1,
      heldoutFirstCall: { domain_tool: 0.5, right_tool: 0.25, exact: 0 },
      evalEnvCalls: 3,
      envlessFailures: { ...noFailures, episodes: 1, missing_call: 1 },
    };
    const r = armResult([
      { spec, training: { envCalls: 10, steps: 2, metrics: [] }, evaluation, minutes: 1 },
      {
        spec,
        training: { envCalls: 5, steps: 2, metrics: [] },
        evaluation: {
          ...evaluation,
          success: { env_domain: [0, 1], envless: [1, 1, 0, 1], heldout_domain: [] },
          heldoutFirstCall: { domain_tool: 1, right_tool: 0.75, exact: 0.5 },
          fidelityUnseenByTool: { get_account: { hits: 2, n: 2 }, get_event: { hits: 0, n: 1 } },
        },
        minutes: 1,
      },
    ]);
    // each seed's own mean, in seed order (the pooled figure is their mean); no task: null, not 0
    expect(r.success_per_seed).toEqual({
      env_domain: [1, 0.5],
      envless: [0, 0.75],
      heldout_domain: [1, null],
    });
    expect(r.heldout_first_call).toEqual({ domain_tool: 0.75, right_tool: 0.5, exact: 0.25 });
    expect(r.train_env_calls).toBe(15);
    expect(r.rehearsed_world_success).toBeNull();
    expect(r.fidelity!.own_calls.n).toBe(4);
    expect(r.fidelity_unseen).toEqual({ exact: 0.25, f1: 0.5, n: 8 });
    // per tool, counts pooled over seeds (not the mean of the seeds' shares)
    expect(r.fidelity_unseen_by_tool).toEqual({
      get_account: { exact: 1, n: 2 },
      get_event: { exact: 0.25, n: 4 },
      move_event: { exact: 0, n: 1 },
    });
    expect(r.envless_failures).toEqual({ ...noFailures, episodes: 2, missing_call: 2 });
  });

  it("reports each set's success interval: [mean − ci95, mean + ci95] clipped to [0, 1]", () => {
    const spec = armSpecs(0)[0]!;
    const evaluation = {
      success: { env_domain: [1, 1, 1, 1, 1, 1, 1, 0], envless: [1, 1, 1, 1], heldout_domain: [0] },
      reward: [],
      fidelity: { recorded: { exact: 1, f1: 1, n: 1 }, own_calls: { exact: 1, f1: 1, n: 1 } },
      fidelityUnseen: { exact: 1, f1: 1, n: 1 },
      fidelityUnseenByTool: {},
      rehearsedWorldSuccess: null,
      firstCallCopy: 1,
      writeCallCopy: 1,
      heldoutFirstCall: { domain_tool: 0, right_tool: 0, exact: 0 },
      evalEnvCalls: 0,
      envlessFailures: { ...noFailures, episodes: 4 },
    };
    const r = armResult([{ spec, training: { envCalls: 0, steps: 0, metrics: [] }, evaluation, minutes: 0 }]);
    const half = 2.365 * Math.sqrt(0.125 / 8); // t(7) · s/√n with s² = 0.125
    expect(r.success_ci!.env_domain![0]).toBeCloseTo(0.875 - half, 3);
    expect(r.success_ci!.env_domain![1]).toBe(1);
    expect(r.success_ci!.envless).toEqual([1, 1]);
    expect(r.success_ci!.heldout_domain).toBeNull();
  });
});

describe("withCompactTools", () => {
  const tools = [
    {
      name: "find_user",
      description: "look up",
      parameters: { type: "object", properties: { email: { type: "string" } } },
    },
    { name: "ping", description: "", parameters: {} },
  ];

  it("turns tool schemas into a one-line index in the system message and keeps the rest", async () => {
    const policy = new ScriptedPolicy({ act: ["hi", "hi"] });
    const view = withCompactTools(policy);
    await view.chat({
      messages: [
        { role: "system", content: "shop agent." },
        { role: "user", content: "x" },
      ],
      tools,
      temperature: 0,
    });
    const req = policy.calls[0]!.request;
    expect(req.tools).toBeUndefined();
    expect(req.temperature).toBe(0);
    expect(req.messages[0]).toEqual({
      role: "system",
      content: "shop agent.\ntools: find_user(email) ping()",
    });
    await view.chat({ messages: [{ role: "user", content: "x" }], tools });
    expect(policy.calls[1]!.request.messages.map((m) => m.role)).toEqual(["system", "user"]);
  });

  it("gives SFT acting examples the same index the policy sees", () => {
    const data = buildDemoData(QUICK_PLAN, 1);
    const task = data.train.shop![0]!;
    const ex = demoSftExamples([task], 1, { variant: "compact", noteShare: 0 }).act[0]!;
    expect(ex.messages[0]!.content).toBe(`${task.system}\n${toolIndex(task.tools)}`);
    expect(data.corpus).toContain(toolIndex(task.tools));
  });
});

describe("firstCallTransfer", () => {
  it("splits the held-out domain's first calls into its tools, the right tool, and exact", () => {
    const tasks = buildDemoData(QUICK_PLAN, 6).eval.heldout_domain.slice(0, 4);
    const gold = tasks.map((t) => goldSolve(t).turns[0]!.calls[0]!.call);
    const episode = (call?: { name: string; arguments: Record<string, unknown> }) =>
      ({ calls: call ? [{ call: { id: "c", ...call } }] : [] }) as unknown as EpisodeResult;
    const wrongArgs = Object.fromEntries(Object.keys(gold[2]!.arguments).map((k) => [k, "zz"]));
    const episodes = [
      episode(gold[0]),
      episode({ name: "find_user", arguments: { email: "ana@mail" } }), // a training domain's tool
      episode({ name: gold[2]!.name, arguments: wrongArgs }),
      episode(),
    ];
    expect(firstCallTransfer(episodes, tasks)).toEqual({ domain_tool: 0.5, right_tool: 0.5, exact: 0.25 });
  });
});

describe("writeCallCopy", () => {
  it("scores the gold write calls the policy made, by their exact arguments (the day or amount copied)", () => {
    const { train } = buildDemoData(QUICK_PLAN, 3);
    const tasks = [...train.bank!, ...train.calendar!]
      .filter((t) =>
        goldSolve(t).turns.some((turn) =>
          turn.calls.some((c) => ["transfer", "move_event"].includes(c.call.name)),
        ),
      )
      .slice(0, 3);
    expect(tasks).toHaveLength(3);
    const goldCalls = (t: (typeof tasks)[number]) =>
      goldSolve(t).turns.flatMap((turn) => turn.calls.map((c) => c.call));
    const episode = (calls: { name: string; arguments: Record<string, unknown> }[]) =>
      ({ calls: calls.map((call) => ({ call: { id: "c", ...call } })) }) as unknown as EpisodeResult;
    const misCopied = (t: (typeof tasks)[number]) =>
      goldCalls(t).map((c) =>
        c.name === "transfer" || c.name === "move_event"
          ? { ...c, arguments: { ...c.arguments, ...("day" in c.arguments ? { day: "zz" } : { amount: 1 }) } }
          : c,
      );
    const right = episode(goldCalls(tasks[0]!));
    const wrong = episode(misCopied(tasks[1]!));
    const lookupOnly = episode(goldCalls(tasks[2]!).slice(0, 1)); // made no write: not counted
    expect(writeCallCopy([right, wrong, lookupOnly], tasks)).toBe(0.5);
    expect(writeCallCopy([right], tasks.slice(0, 1))).toBe(1);
    // a policy that never writes has not shown it can copy a write's arguments
    expect(writeCallCopy([lookupOnly], tasks.slice(2))).toBe(0);
  });
});
