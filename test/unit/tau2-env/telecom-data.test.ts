import { mkdtempSync, cpSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadTau2Domain, resultToString } from "../../../src/envs/tau2/index.js";
import { parseToml } from "../../../src/envs/tau2/toml.js";
import { dataDir, domain, hasData } from "./helpers.js";

describe("the TOML subset telecom's DB files use", () => {
  it("reads tables, arrays of tables (nested ones attach to the last element) and inline arrays", () => {
    const t = parseToml(
      [
        "# comment",
        "[[plans]]",
        'plan_id = "P1"',
        "price = 40.0",
        "",
        "[[customers]]",
        'line_ids = ["L1", "L2"]',
        "[customers.address]",
        'city = "Anytown" # trailing comment',
        "[[customers.payment_methods]]",
        "last_4 = 1235",
        "[[customers]]",
        "active = false",
        "[device.app_statuses.messaging.permissions]",
        "sms = true",
      ].join("\n"),
    );
    const customers = t.get("customers") as Map<string, unknown>[];
    expect(customers).toHaveLength(2);
    expect(customers[0]!.get("line_ids")).toEqual(["L1", "L2"]);
    expect((customers[0]!.get("address") as Map<string, unknown>).get("city")).toBe("Anytown");
    expect((customers[0]!.get("payment_methods") as Map<string, unknown>[])[0]!.get("last_4")).toBe(1235);
    expect(customers[1]!.get("active")).toBe(false);
    const device = t.get("device") as Map<string, Map<string, Map<string, Map<string, unknown>>>>;
    expect(device.get("app_statuses")!.get("messaging")!.get("permissions")!.get("sms")).toBe(true);
    expect((t.get("plans") as Map<string, unknown>[])[0]!.get("price")).toBe(40);
  });

  it("refuses what it does not know, naming the line", () => {
    expect(() => parseToml('a = "x"\nb = 1979-05-27T07:32:00Z')).toThrow(/line 2: unexpected '-05-27/);
    expect(() => parseToml("a = 'literal'")).toThrow(/line 1: unsupported value/);
    expect(() => parseToml("a = 1\na = 2")).toThrow(/line 2: duplicate key 'a'/);
    expect(() => parseToml("[x]\njust words")).toThrow(/line 2: expected 'key = value'/);
  });
});

describe.skipIf(!hasData)("telecom data and per-environment state", () => {
  it("dumps dates in JSON mode for --dump-db and as Python's str() in tool results and hashes", () => {
    const env = domain("telecom").createEnv();
    const db = env.dumpDb() as { devices: { device_id: string; activation_date: string | null }[] };
    expect(db.devices.find((d) => d.device_id === "D1001")!.activation_date).toBe("2025-01-20T14:30:00");
    const shown = resultToString(env.callSync({ name: "get_details_by_id", arguments: { id: "D1001" } }));
    expect(shown).toContain('"activation_date": "2025-01-20 14:30:00"');
  });

  it("a broken DB file is an INVALID_DATA_FILE error naming the file and the field", () => {
    const root = mkdtempSync(join(tmpdir(), "tau2-telecom-bad-"));
    const dir = join(root, "tau2", "telecom");
    cpSync(join(dataDir, "tau2", "telecom"), dir, { recursive: true });
    const text = readFileSync(join(dir, "db.toml"), "utf8").replace(
      'device_type = "phone"',
      'device_type = "toaster"',
    );
    writeFileSync(join(dir, "db.toml"), text);
    expect(() => loadTau2Domain("telecom", root)).toThrow(
      /db\.toml: field devices\[0\]\.device_type: Input should be/,
    );
  });

  it("numbers new draft bills per environment and keeps the broken VPN inside its environment", () => {
    const d = domain("telecom");
    const refuelNewBill = () => {
      const env = d.createEnv();
      const db = env.dumpDb() as {
        customers: { customer_id: string; line_ids: string[]; bill_ids: string[] }[];
        bills: { bill_id: string; status: string }[];
      };
      const drafts = new Set(db.bills.filter((b) => b.status === "Draft").map((b) => b.bill_id));
      const c = db.customers.find((x) => x.line_ids.length > 0 && !x.bill_ids.some((b) => drafts.has(b)))!;
      const call = { customer_id: c.customer_id, line_id: c.line_ids[0], gb_amount: 1.0 };
      resultToString(env.callSync({ name: "refuel_data", arguments: call }));
      resultToString(env.callSync({ name: "refuel_data", arguments: call }));
      const after = env.dumpDb() as { customers: { customer_id: string; bill_ids: string[] }[] };
      return after.customers.find((x) => x.customer_id === c.customer_id)!.bill_ids.at(-1);
    };
    expect(refuelNewBill()).toBe("B00000001");
    expect(refuelNewBill()).toBe("B00000001");

    const broken = d.createEnv();
    expect(broken.runEnvFunction({ env_type: "user", func_name: "break_vpn", arguments: {} }).ok).toBe(true);
    const healthy = d.createEnv();
    resultToString(healthy.callSync({ name: "connect_vpn", arguments: {} }, "user"));
    expect(resultToString(healthy.callSync({ name: "check_vpn_status", arguments: {} }, "user"))).toContain(
      "<PerformanceLevel.EXCELLENT: 'excellent'>",
    );
    expect(resultToString(broken.callSync({ name: "check_vpn_status", arguments: {} }, "user"))).toContain(
      "<PerformanceLevel.POOR: 'poor'>",
    );
  });
});
