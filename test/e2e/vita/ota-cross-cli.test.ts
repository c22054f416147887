/**
 * `envace eval --bench vita:ota|vita:cross_domain` end to end, on the clearly synthetic task files
 * of test/unit/vita/fixtures/synthetic (upstream's format; the real OTA and cross-domain files are
 * fetched by `envace data fetch vitabench` and are not available here). The results the CLI dumps
 * are compared with those upstream's Python gave for the same calls on the same states.
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
const DATA = "test/unit/vita/fixtures/synthetic";

const envace = (...args: string[]) => envaceAsync("eval", ...args);

interface Step {
  name: string;
  arguments: Record<string, unknown>;
  result?: string;
  result_sha256?: string;
}
const fixture = (domain: string) =>
  JSON.parse(readFileSync(`test/unit/vita/fixtures/${domain}.json`, "utf8")) as {
    tasks: { task_id: string; steps: Step[] }[];
  };
const sha = (t: string) => createHash("sha256").update(t, "utf8").digest("hex");
/** The calls before the first order is created: their results do not depend on the clock. */
const steady = (steps: Step[]) =>
  steps.slice(
    0,
    steps.findIndex((s) => s.name.startsWith("create_")),
  );
const expected = (steps: Step[]) => steps.map((s) => s.result ?? s.result_sha256);
const asRecorded = (results: string[], steps: Step[]) =>
  results.map((t, i) => (steps[i]!.result !== undefined ? t : sha(t)));

interface Summary {
  bench: string;
  tasks: number;
  not_judged: number;
  results: { task_id: string; termination: string; judge_status: string; db_hash: string }[];
}

describe("envace eval --bench vita:ota|vita:cross_domain", () => {
  it("vita:ota --policy replay: upstream's results for every recorded call, a booking in the dumped DB", async () => {
    const task = fixture("ota").tasks[0]!;
    const calls = steady(task.steps);
    expect(calls.length).toBeGreaterThan(30);
    const dir = mkdtempSync(join(tmpdir(), "vita-ota-e2e-"));
    const replay = join(dir, "replay.jsonl");
    const book = {
      name: "create_hotel_order",
      arguments: { hotel_id: "H_SYN_1", room_id: "H_SYN_1_R1", user_id: "U_SYN_0001" },
    };
    writeFileSync(
      replay,
      JSON.stringify({
        task_id: task.task_id,
        actions: [...calls.map(({ name, arguments: a }) => ({ name, arguments: a })), book],
      }) + "\n",
    );
    const r = await envace(
      "--bench",
      "vita:ota",
      "--data",
      DATA,
      "--policy",
      `replay:${replay}`,
      "--dump-db",
      dir,
      "--json",
    );
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as Summary;
    expect(s).toMatchObject({ bench: "vita:ota", tasks: 2, not_judged: 2 });
    expect(s.results.map((x) => x.termination)).toEqual(["agent_stop", "agent_stop"]);
    const results = JSON.parse(readFileSync(join(dir, `${task.task_id}.results.json`), "utf8")) as string[];
    expect(asRecorded(results.slice(0, calls.length), calls)).toEqual(expected(calls));
    expect(results.at(-1)).toMatch(
      /^Order\(order_id:OO[0-9a-f]{10}, order_type:hotel, user_id:U_SYN_0001, hotel_id:H_SYN_1, total_price:320\.0, /,
    );
    const db = JSON.parse(readFileSync(join(dir, `${task.task_id}.db.json`), "utf8")) as {
      orders: Record<string, { status: string; products: { product_id: string; quantity: number }[] }>;
      hotels: Record<string, { products: { product_id: string; quantity: number }[] }>;
    };
    expect(Object.keys(db)).toEqual([
      "time",
      "user_id",
      "weather",
      "location",
      "user_historical_behaviors",
      "orders",
      "hotels",
      "attractions",
      "flights",
      "trains",
    ]);
    const booked = Object.entries(db.orders).filter(([id]) => /^OO[0-9a-f]{10}$/.test(id));
    expect(booked.map(([, o]) => [o.status, o.products])).toEqual([
      [
        "unpaid",
        [{ product_id: "H_SYN_1_R1", price: 320.0, quantity: 1, date: "2025-07-12", room_type: "Twin Room" }],
      ],
    ]);
    expect(db.hotels.H_SYN_1!.products[0]!.quantity).toBe(1); // two rooms, one booked
  }, 120_000);

  it("vita:cross_domain with an LLM agent: the union's 66 tools offered, one shared state", async () => {
    const task = fixture("cross_domain").tasks[0]!;
    const calls = steady(task.steps);
    let turn = 0;
    const agent = await startServer({
      handler: (_body: MockChatBody) => {
        const call = calls[turn++];
        return call
          ? { content: null, toolCalls: [{ name: call.name, arguments: call.arguments }] }
          : "Done. ###STOP###";
      },
    });
    const user = await startServer({ handler: () => "Please book everything for me." });
    const dir = mkdtempSync(join(tmpdir(), "vita-cross-e2e-"));
    const r = await envace(
      "--bench",
      "vita:cross_domain",
      "--data",
      DATA,
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
    expect(s.results[0]).toMatchObject({
      task_id: "syn_cross_1",
      termination: "agent_stop",
      judge_status: "not_judged",
    });
    const tools = agent.requests[0]!.body.tools as { function: { name: string } }[];
    expect(tools).toHaveLength(66);
    const names = tools.map((t) => t.function.name);
    for (const n of [
      "create_delivery_order",
      "instore_book",
      "create_hotel_order",
      "modify_flight_order",
      "get_nearby",
    ])
      expect(names).toContain(n);
    expect(agent.requests[0]!.body.messages[0]!.content).toContain(
      "- Current time: 2025-07-10 09:30:00 Thursday",
    );
    const results = JSON.parse(readFileSync(join(dir, "syn_cross_1.results.json"), "utf8")) as string[];
    expect(asRecorded(results, calls)).toEqual(expected(calls));
    const db = JSON.parse(readFileSync(join(dir, "syn_cross_1.db.json"), "utf8")) as Record<string, unknown>;
    expect(Object.keys(db)).toEqual([
      "time",
      "user_id",
      "weather",
      "location",
      "user_historical_behaviors",
      "orders",
      "stores",
      "shops",
      "books",
      "reservations",
      "hotels",
      "attractions",
      "flights",
      "trains",
    ]);
  }, 120_000);

  it("points at `envace data fetch vitabench` when the task file is missing", async () => {
    const r = await envace("--bench", "vita:ota", "--data", tmpdir(), "--policy", "noop");
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/vitabench\/ota\/tasks_en\.json not found; run `envace data fetch vitabench`/);
  }, 120_000);
});
