import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { VitaEnvironment } from "../../../src/envs/vita/environment.js";
import { parsePy, type PyValue } from "../../../src/envs/vita/py-value.js";
import { isEnvaceError } from "../../../src/core/errors.js";

const DATA = new URL("../../../../shared/data/vitabench/", import.meta.url);
const envCache = new Map<string, PyValue>();
/** The first task's `environment` (task files are parsed once: they are megabytes). */
function firstEnv(domain: string): PyValue {
  if (!envCache.has(domain)) {
    const tasks = parsePy(readFileSync(new URL(`${domain}/tasks_en.json`, DATA), "utf8")) as Map<
      string,
      PyValue
    >[];
    envCache.set(domain, tasks[0]!.get("environment") as PyValue);
  }
  return envCache.get(domain)!;
}

describe("VitaEnvironment", () => {
  it("offers upstream's 20 delivery and 24 in-store tools, in English and Chinese", () => {
    const d = new VitaEnvironment("delivery", firstEnv("delivery"));
    const i = new VitaEnvironment("instore", firstEnv("instore"), { lang: "zh" });
    expect(d.tools()).toHaveLength(20);
    expect(i.tools()).toHaveLength(24);
    expect(i.tools()[0]?.description).toMatch(/[\u4e00-\u9fff]/);
    expect(d.isWriteTool("create_delivery_order")).toBe(true);
    expect(d.isWriteTool("get_delivery_store_info")).toBe(false);
  });
  it("a wrongly typed argument is a tool error as data, its value shown as Python's str() shows it", () => {
    const env = new VitaEnvironment("delivery", firstEnv("delivery"));
    const cases: Array<[unknown, string]> = [
      [42, "42"],
      [["a"], "['a']"],
      [{ x: 1 }, "{'x': 1}"],
      [null, "None"],
      [true, "True"],
    ];
    for (const [bad, shown] of cases) {
      const r = env.callSync({ id: "t", name: "get_delivery_store_info", arguments: { store_id: bad } });
      expect(!r.ok && r.error.message).toBe(`Store ${shown} not found`);
    }
  });
  it("returns tool errors as data with upstream's texts", () => {
    const env = new VitaEnvironment("delivery", firstEnv("delivery"));
    const unknown = env.callSync({ id: "1", name: "nope", arguments: {} });
    expect(!unknown.ok && unknown.error.code).toBe("TOOL_NOT_AVAILABLE");
    const missing = env.callSync({ id: "2", name: "get_delivery_store_info", arguments: {} });
    expect(!missing.ok && isEnvaceError(missing.error, "INVALID_PARAMETERS")).toBe(true);
    expect(!missing.ok && missing.error.message).toBe(
      "DeliveryTools.get_delivery_store_info() missing 1 required positional argument: 'store_id'",
    );
  });
  it("derives order ids from the injected clock, so a replay is reproducible", () => {
    const run = (t0: number) => {
      const env = new VitaEnvironment("instore", firstEnv("instore"), { clock: () => t0 });
      const shop = [...env.db.shops.values()][0]!;
      const r = env.callSync({
        id: "1",
        name: "instore_reservation",
        arguments: { user_id: env.db.user_id, shop_id: shop.shop_id, time: "2030-01-01 12:00:00" },
      });
      return { text: r.ok ? r.content : "", hash: env.hash() };
    };
    expect(run(1000.5)).toEqual(run(1000.5));
    expect(run(1000.5).text).not.toBe(run(1001.5).text);
    expect(run(1000.5).text).toMatch(/^ReservationInfo\(reservation_id=OI[0-9a-f]{10},/);
  });
  it("refuses a malformed environment with a typed error naming the field", () => {
    expect(() => new VitaEnvironment("delivery", { stores: { s: { name: 3 } } })).toThrow(
      /stores\.s\.name must be a string/,
    );
  });
});
