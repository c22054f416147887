/**
 * The cross-domain union on real delivery and in-store states: pairs of ../shared/data tasks merged
 * with the synthetic OTA tables (the same recipe as fixtures/generate_cross_real_fixtures.py's
 * `merge`), replayed call by call against the results upstream's `get_cross_environment` gave
 * (the delivery and in-store sequences of generate_fixtures.py, their follow-ups, mixed OTA calls).
 */
import { readFileSync } from "node:fs";
import { describe, it } from "vitest";
import { parsePy, type PyValue } from "../../../src/envs/vita/py-value.js";
import { expectUpstreamReplay, type FixtureClock, type UpstreamRun } from "./upstream-replay.js";

const DATA = new URL("../../../../shared/data/vitabench/", import.meta.url);
const SYNTHETIC = new URL("fixtures/synthetic/vitabench/", import.meta.url);

interface Fixture {
  clock: FixtureClock;
  pairs: (UpstreamRun & { delivery: string; instore: string })[];
}

type Env = Map<string, PyValue>;
const read = (url: URL) => parsePy(readFileSync(url, "utf8")) as Env[];
const envOf = (task: Env | undefined) => task?.get("environment") as Env;
const orDict = (v: PyValue | undefined): Env => (v instanceof Map ? v : new Map());
const orList = (v: PyValue | undefined): PyValue[] => (Array.isArray(v) ? v : []);

/** `merge` of the generator: the delivery state, the in-store tables, the synthetic OTA ones. */
function merge(delivery: Env, instore: Env, ota: Env): Env {
  const env = new Map(delivery);
  for (const key of ["shops", "books", "reservations"]) env.set(key, orDict(instore.get(key)));
  env.set(
    "orders",
    new Map([
      ...orDict(delivery.get("orders")),
      ...orDict(instore.get("orders")),
      ...orDict(ota.get("orders")),
    ]),
  );
  env.set("location", [...orList(delivery.get("location")), ...orList(instore.get("location"))]);
  for (const key of ["hotels", "attractions", "flights", "trains"]) env.set(key, ota.get(key) as PyValue);
  return env;
}

describe("VitaBench cross-domain union on real delivery and in-store states matches upstream", () => {
  const fixture = JSON.parse(
    readFileSync(new URL("fixtures/cross-real.json", import.meta.url), "utf8"),
  ) as Fixture;
  const deliveries = read(new URL("delivery/tasks_en.json", DATA));
  const instores = read(new URL("instore/tasks_en.json", DATA));
  const ota = envOf(read(new URL("ota/tasks_en.json", SYNTHETIC))[0]);
  for (const pair of fixture.pairs) {
    it(`delivery ${pair.delivery} + in-store ${pair.instore} + synthetic OTA: ${pair.steps.length} calls`, () => {
      const d = envOf(deliveries.find((t) => t.get("id") === pair.delivery));
      const i = envOf(instores.find((t) => t.get("id") === pair.instore));
      expectUpstreamReplay("cross_domain", merge(d, i, ota), fixture.clock, pair);
    });
  }
});
