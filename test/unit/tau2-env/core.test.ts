import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, copyFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isEnvaceError } from "../../../src/core/errors.js";
import {
  canonicalJson,
  loadTau2Domain,
  pyJsonDumps,
  pyRound,
  resultToString,
} from "../../../src/envs/tau2/index.js";
import { parseJsonOrdered, PyFloat } from "../../../src/envs/tau2/py-json.js";
import { dataDir, domain, hasData } from "./helpers.js";

describe("pyRound matches Python's round(x, 2)", () => {
  // Values checked against CPython 3.11.
  const cases: [number, number][] = [
    [2.675, 2.67], // binary value just below the tie
    [0.125, 0.12], // exact tie -> even
    [0.375, 0.38], // exact tie -> even
    [1.005, 1.0],
    [-0.125, -0.12],
    [4128.450000000001, 4128.45],
    [1e20 + 0.5, 1e20],
    [5e-324, 0],
    [0.285, 0.28],
    [1.015, 1.01],
    [2.5, 2.5],
  ];
  for (const [x, want] of cases) it(`round(${x}, 2) = ${want}`, () => expect(pyRound(x, 2)).toBe(want));
  it("rounds to other digit counts", () => {
    expect(pyRound(2.5, 0)).toBe(2);
    expect(pyRound(3.5, 0)).toBe(4);
  });
});

describe("Python-style JSON", () => {
  it("writes floats, ints and strings as json.dumps does", () => {
    expect(
      pyJsonDumps({ a: new PyFloat(100), b: 1e16, c: new PyFloat(1.5e-7), d: 'é\u2028"', e: [1, 0.5] }),
    ).toBe('{"a": 100.0, "b": 10000000000000000, "c": 1.5e-07, "d": "\\u00e9\\u2028\\"", "e": [1, 0.5]}');
    expect(pyJsonDumps(new PyFloat(1e16))).toBe("1e+16");
    expect(pyJsonDumps(new PyFloat(0.0001))).toBe("0.0001");
    expect(pyJsonDumps(new PyFloat(0.00001))).toBe("1e-05");
  });
  it("canonical JSON ignores key order", () => {
    expect(canonicalJson({ b: 1, a: { d: 2, c: 3 } })).toBe(
      canonicalJson(
        new Map<string, unknown>([
          ["a", { c: 3, d: 2 }],
          ["b", 1],
        ]),
      ),
    );
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: 2 }));
  });
  it("keeps the file's key order for numeric-string keys", () => {
    const parsed = parseJsonOrdered('{"9": 1, "10": 2, "1008292230": 3, "a": [true, null, -1.5e2]}') as Map<
      string,
      unknown
    >;
    expect([...parsed.keys()]).toEqual(["9", "10", "1008292230", "a"]);
    expect(parsed.get("a")).toEqual([true, null, -150]);
  });
});

describe.skipIf(!hasData)("DB hash and dumps", () => {
  it("changes on any field change and returns when the change is undone", () => {
    const env = domain("mock").createEnv();
    const h0 = env.hash();
    expect(
      env.callSync({ name: "update_task_status", arguments: { task_id: "task_1", status: "completed" } }).ok,
    ).toBe(true);
    const h1 = env.hash();
    expect(h1).not.toBe(h0);
    env.callSync({ name: "update_task_status", arguments: { task_id: "task_1", status: "pending" } });
    expect(env.hash()).toBe(h0);
  });
  it("dumps every optional field as null", () => {
    const dump = domain("retail").createEnv().dumpDb() as { orders: Record<string, Record<string, unknown>> };
    const order = Object.values(dump.orders)[0]!;
    for (const key of [
      "cancel_reason",
      "exchange_items",
      "exchange_new_items",
      "exchange_payment_method_id",
      "exchange_price_difference",
      "return_items",
      "return_payment_method_id",
    ]) {
      expect(order).toHaveProperty(key);
    }
    expect(Object.values(dump.orders).some((o) => o.cancel_reason === null)).toBe(true);
  });
  it("keeps environments independent", () => {
    const a = domain("mock").createEnv();
    const b = domain("mock").createEnv();
    a.callSync({ name: "create_task", arguments: { user_id: "user_1", title: "x" } });
    expect(a.hash()).not.toBe(b.hash());
  });
});

describe.skipIf(!hasData)("mock domain", () => {
  it("create_task, refusals and user tools", () => {
    const env = domain("mock").createEnv();
    const before = env.hash();
    expect(
      resultToString(env.callSync({ name: "create_task", arguments: { user_id: "user_9", title: "x" } })),
    ).toBe("Error: User user_9 not found");
    expect(
      resultToString(env.callSync({ name: "create_task", arguments: { user_id: "user_1", title: 5 } })),
    ).toMatch(/^Error: 1 validation error for Task\ntitle\n/);
    expect(
      resultToString(
        env.callSync({ name: "update_task_status", arguments: { task_id: "task_9", status: "completed" } }),
      ),
    ).toBe("Error: Task task_9 not found");
    expect(env.hash()).toBe(before);
    expect(
      resultToString(env.callSync({ name: "create_task", arguments: { user_id: "user_1", title: "T" } })),
    ).toBe('{"task_id": "task_2", "title": "T", "description": null, "status": "pending"}');
    expect(
      resultToString(
        env.callSync({ name: "dismiss_notification", arguments: { notification_id: "notif_1" } }, "user"),
      ),
    ).toBe("Notification notif_1 dismissed");
    expect(
      resultToString(
        env.callSync({ name: "dismiss_notification", arguments: { notification_id: "nope" } }, "user"),
      ),
    ).toBe("Error: Notification nope not found");
    expect(
      env.runEnvAssertion({
        env_type: "user",
        func_name: "assert_notification_status",
        arguments: { notification_id: "notif_1", expected_status: "read" },
      }),
    ).toBe(true);
  });
  it("applies initial states (actions, data, message history)", () => {
    const d = domain("mock");
    for (const id of [
      "update_task_with_initialization_actions",
      "update_task_with_initialization_data",
      "update_task_with_message_history",
    ]) {
      const env = d.createEnv(d.tasks.find((t) => t.id === id));
      expect(
        env.runEnvAssertion({
          env_type: "assistant",
          func_name: "assert_number_of_tasks",
          arguments: { user_id: "user_1", expected_number: 2 },
        }),
      ).toBe(true);
    }
  });
});

describe.skipIf(!hasData)("data loading errors name the file and the field", () => {
  const copyDomain = (name: string) => {
    const root = mkdtempSync(join(tmpdir(), "tau2-"));
    const dir = join(root, "tau2", name);
    mkdirSync(dir, { recursive: true });
    for (const f of ["policy.md", "tasks.json", "split_tasks.json", "db.json", "user_db.json"]) {
      try {
        copyFileSync(join(dataDir, "tau2", name, f), join(dir, f));
      } catch {
        /* not every domain has every file */
      }
    }
    return { root, dir };
  };
  const expectDataError = (fn: () => unknown, ...parts: string[]) => {
    try {
      fn();
    } catch (e) {
      expect(isEnvaceError(e, "INVALID_DATA_FILE")).toBe(true);
      for (const p of parts) expect((e as Error).message).toContain(p);
      return;
    }
    throw new Error("expected INVALID_DATA_FILE");
  };

  it("a corrupt DB field", () => {
    const { root, dir } = copyDomain("mock");
    const db = JSON.parse(readFileSync(join(dir, "db.json"), "utf8"));
    db.tasks.task_1.status = "done";
    writeFileSync(join(dir, "db.json"), JSON.stringify(db));
    expectDataError(
      () => loadTau2Domain("mock", root),
      join(dir, "db.json"),
      "tasks.task_1.status",
      "'pending' or 'completed'",
    );
  });
  it("a corrupt task", () => {
    const { root, dir } = copyDomain("mock");
    const tasks = JSON.parse(readFileSync(join(dir, "tasks.json"), "utf8"));
    tasks[1].evaluation_criteria.actions[0].name = 42;
    writeFileSync(join(dir, "tasks.json"), JSON.stringify(tasks));
    expectDataError(
      () => loadTau2Domain("mock", root),
      "tasks.json",
      "[1].evaluation_criteria.actions[0].name",
    );
  });
  it("invalid JSON and a missing file", () => {
    const { root, dir } = copyDomain("mock");
    writeFileSync(join(dir, "db.json"), "{ not json");
    expectDataError(() => loadTau2Domain("mock", root), "db.json", "invalid JSON");
    expectDataError(() => loadTau2Domain("retail", root), join(root, "tau2", "retail", "policy.md"));
  });
  it("splits come from split_tasks.json", () => {
    expect(Object.keys(domain("retail").splits).sort()).toEqual(["base", "test", "train"]);
    expect(domain("mock").splits.base).toHaveLength(10);
  });
});
