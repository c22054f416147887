/** Reads a VitaBench task file (`<data>/vitabench/<domain>/tasks_en.json`, or `tasks.json` in Chinese). */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { EnvaceError } from "../../core/errors.js";
import type { VitaDomainName } from "../../envs/vita/db.js";
import { parsePy, type PyValue } from "../../envs/vita/py-value.js";
import type { VitaEvaluationCriteria, VitaTask } from "./types.js";

export const VITA_DOMAINS = ["delivery", "instore", "ota", "cross_domain"] as const;
export type VitaBenchDomain = (typeof VITA_DOMAINS)[number];
/** Domains whose tools this port runs: all four (cross-domain is the union of the other three). */
export const RUNNABLE_VITA_DOMAINS: readonly VitaDomainName[] = [
  "delivery",
  "instore",
  "ota",
  "cross_domain",
];

export function vitaTaskFile(dataRoot: string, domain: VitaBenchDomain, lang: "en" | "zh"): string {
  return join(dataRoot, "vitabench", domain, lang === "en" ? "tasks_en.json" : "tasks.json");
}

const bad = (file: string, msg: string): never => {
  throw new EnvaceError("INVALID_DATA_FILE", `${file}: ${msg}`);
};

/** Plain JavaScript value of a PyValue (maps to objects, floats to numbers), for JSON-shaped fields. */
function toJs(v: PyValue): unknown {
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [k, toJs(x)]));
  if (Array.isArray(v)) return v.map(toJs);
  if (v !== null && typeof v === "object") return v.value;
  return v;
}

export function readVitaTasks(file: string, domain: VitaDomainName): VitaTask[] {
  if (!existsSync(file))
    throw new EnvaceError(
      "INVALID_DATA_FILE",
      `${file} not found; run \`envace data fetch vitabench\` or point --data at a folder holding vitabench/`,
    );
  let raw: PyValue;
  try {
    raw = parsePy(readFileSync(file, "utf8"));
  } catch (e) {
    return bad(file, `not JSON (${(e as Error).message})`);
  }
  if (!Array.isArray(raw)) return bad(file, "must be a JSON array of tasks");
  return raw.map((t, i) => {
    if (!(t instanceof Map)) return bad(file, `task ${i} must be an object`);
    const id = t.get("id");
    if (typeof id !== "string") return bad(file, `task ${i}: id must be a string`);
    const env = t.get("environment");
    if (!(env instanceof Map)) return bad(file, `task ${id}: environment must be an object`);
    const scenario = t.get("user_scenario");
    const profile = scenario instanceof Map ? scenario.get("user_profile") : undefined;
    if (!(profile instanceof Map))
      return bad(file, `task ${id}: user_scenario.user_profile must be an object`);
    const instructions = t.get("instructions");
    if (typeof instructions !== "string") return bad(file, `task ${id}: instructions must be a string`);
    const time = env.get("time");
    const criteria = t.get("evaluation_criteria");
    return {
      id,
      domain,
      environment: env,
      environment_time: typeof time === "string" && time ? time : null,
      user_profile: profile,
      instructions,
      evaluation_criteria: criteria instanceof Map ? (toJs(criteria) as VitaEvaluationCriteria) : null,
    };
  });
}
