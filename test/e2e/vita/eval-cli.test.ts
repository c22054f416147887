/**
 * `envace eval --bench vita:*` end to end: the CLI, the task files in ../shared/data, the ported
 * tools, the rubric judge and the LLM roles against mock OpenAI-compatible servers.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { envaceAsync } from "../../cli.js";
import { mockServersClosedAfterEach } from "../../mock-servers.js";
import type { MockChatBody } from "../../../src/testing/index.js";

const startServer = mockServersClosedAfterEach();

const envace = (...args: string[]) => envaceAsync("eval", ...args);

interface Summary {
  bench: string;
  tasks: number;
  pass_hat_k: Record<string, number>;
  reward_mean: number;
  not_judged: number;
  results: {
    task_id: string;
    reward: number | null;
    judge_status: string;
    termination: string;
    rubrics: { verdict: string }[];
  }[];
}

const fixture = JSON.parse(readFileSync("test/unit/vita/fixtures/delivery.json", "utf8")) as {
  tasks: {
    task_id: string;
    steps: { name: string; arguments: Record<string, unknown>; result?: string; result_sha256?: string }[];
  }[];
};
const first = fixture.tasks[0]!;
// Calls whose results do not depend on the clock (no order ids in them).
const steady = first.steps.slice(0, 25);

describe("envace eval --bench vita:*", () => {
  it("replays recorded calls, dumps results and DB, and reports rubrics as not judged without a judge", async () => {
    const dir = mkdtempSync(join(tmpdir(), "vita-e2e-"));
    const replay = join(dir, "replay.jsonl");
    writeFileSync(
      replay,
      JSON.stringify({
        task_id: first.task_id,
        actions: steady.map(({ name, arguments: a }) => ({ name, arguments: a })),
      }) + "\n",
    );
    const r = await envace(
      "--bench",
      "vita:delivery",
      "--policy",
      `replay:${replay}`,
      "--limit",
      "2",
      "--dump-db",
      dir,
      "--json",
    );
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as Summary;
    expect(s).toMatchObject({ bench: "vita:delivery", tasks: 2, not_judged: 2, pass_hat_k: {} });
    expect(s.results.every((x) => x.reward === null && x.judge_status === "not_judged")).toBe(true);
    expect(s.results[0]!.rubrics.length).toBeGreaterThan(0);
    const results = JSON.parse(readFileSync(join(dir, `${first.task_id}.results.json`), "utf8")) as string[];
    const sha = (t: string) => createHash("sha256").update(t, "utf8").digest("hex");
    expect(results.map((t, i) => (steady[i]!.result !== undefined ? t : sha(t)))).toEqual(
      steady.map((x) => x.result ?? x.result_sha256),
    );
    const db = JSON.parse(readFileSync(join(dir, `${first.task_id}.db.json`), "utf8")) as Record<
      string,
      unknown
    >;
    expect(Object.keys(db)).toEqual([
      "time",
      "user_id",
      "weather",
      "location",
      "user_historical_behaviors",
      "orders",
      "stores",
    ]);
  }, 120_000);

  it("scores with a judge endpoint: all rubrics met gives 1, any unmet gives 0", async () => {
    let verdict = true;
    const judge = await startServer({
      handler: (body: MockChatBody) => {
        const rubrics = JSON.parse(
          /<current_rubrics>\n([\s\S]*)\n<\/current_rubrics>/.exec(body.messages[1]!.content!)![1]!,
        ) as {
          rubric_idx: string;
        }[];
        return JSON.stringify(
          rubrics.map((x) => ({
            rubric_idx: x.rubric_idx,
            justification: "checked",
            meetExpectation: verdict,
          })),
        );
      },
    });
    const run = () =>
      envace(
        "--bench",
        "vita:instore",
        "--policy",
        "noop",
        "--limit",
        "1",
        "--judge-endpoint",
        judge.url,
        "--judge-model",
        "j",
        "--json",
      );
    const yes = JSON.parse((await run()).stdout) as Summary;
    expect(yes).toMatchObject({ reward_mean: 1, not_judged: 0, pass_hat_k: { 1: 1 } });
    expect(judge.requests.length).toBe(1); // a 3-message conversation fits one window
    expect(judge.requests[0]!.body.messages[0]!.content).toContain("# User Complete Instruction");
    verdict = false;
    const no = JSON.parse((await run()).stdout) as Summary;
    expect(no).toMatchObject({ reward_mean: 0, pass_hat_k: { 1: 0 } });
    expect(no.results[0]!.rubrics.every((x) => x.verdict === "unmet")).toBe(true);
  }, 120_000);

  it("runs an LLM agent and user simulator with upstream's prompts and tools", async () => {
    const agent = await startServer({
      handler: (body: MockChatBody) =>
        body.messages.some((m) => m.role === "tool")
          ? "Your orders are listed. ###STOP###"
          : { content: null, toolCalls: [{ name: "get_user_all_orders", arguments: {} }] },
    });
    const user = await startServer({ handler: () => "I would like some mild rice noodles." });
    const dir = mkdtempSync(join(tmpdir(), "vita-llm-"));
    const r = await envace(
      "--bench",
      "vita:delivery",
      "--limit",
      "1",
      "--endpoint",
      agent.url,
      "--model",
      "a",
      "--user-endpoint",
      user.url,
      "--user-model",
      "u",
      "--dump-db",
      dir,
      "--json",
    );
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as Summary;
    expect(s.results[0]).toMatchObject({ termination: "agent_stop", judge_status: "not_judged" });
    const agentReq = agent.requests[0]!.body;
    expect(agentReq.messages[0]!.content).toContain("- Current time: 2025-06-21 11:20:00 Saturday");
    expect(agentReq.messages.map((m) => m.role)).toEqual(["system", "user"]); // no greeting for the agent
    expect(agentReq.tools).toHaveLength(20);
    const userReq = user.requests[0]!.body;
    expect(userReq.messages[0]!.content).toContain(
      "<persona>\n{'user id': 'U000001', 'occupation': 'Doctor'",
    );
    expect(userReq.messages.slice(1)).toEqual([{ role: "user", content: "Hello, how can I help you?" }]);
    expect(JSON.parse(readFileSync(join(dir, `${s.results[0]!.task_id}.results.json`), "utf8"))).toEqual([
      "",
    ]);
  }, 120_000);

  it("--rehearsal parallel:2: the agent rehearses privately before answering and reports the cost", async () => {
    const agent = await startServer({ handler: () => "Let me check. ###STOP###" });
    const user = await startServer({ handler: () => "I need a gym near home." });
    const r = await envace(
      "--bench",
      "vita:instore",
      "--limit",
      "1",
      "--endpoint",
      agent.url,
      "--model",
      "a",
      "--user-endpoint",
      user.url,
      "--user-model",
      "u",
      "--rehearsal",
      "parallel:2",
      "--json",
    );
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as Summary & {
      rehearsal: { mode: string; n: number; real_calls_during_rehearsal: number };
    };
    expect(s.rehearsal).toMatchObject({ mode: "parallel", n: 2, real_calls_during_rehearsal: 0 });
    expect(agent.requests.length).toBeGreaterThanOrEqual(3); // two rehearsal attempts, then the answer
    expect(agent.requests.at(-1)!.body.messages[0]!.content).toContain("# Private rehearsal notes");
    expect(s.results[0]).toMatchObject({ termination: "agent_stop" });
  }, 120_000);

  it("refuses unknown domains and bad flags with usage errors", async () => {
    const travel = await envace("--bench", "vita:travel", "--policy", "noop");
    expect(travel.code).toBe(2);
    expect(travel.stderr).toMatch(
      /unknown VitaBench domain "travel"; use vita:delivery, vita:instore, vita:ota/,
    );
    const lang = await envace("--bench", "vita:delivery", "--policy", "noop", "--lang", "fr");
    expect(lang.code).toBe(2);
    expect(lang.stderr).toMatch(/--lang must be en or zh/);
  }, 120_000);
});
