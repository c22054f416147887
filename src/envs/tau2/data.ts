/**
 * Loading a τ² domain from the benchmark data folder (`<dataDir>/tau2/<domain>/`): policy, tasks,
 * splits and DB. Every problem is an EnvaceError INVALID_DATA_FILE naming the file and the field.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { EnvaceError } from "../../core/errors.js";
import {
  Tau2Env,
  type Tau2DomainName,
  type Tau2DomainSpec,
  type Tau2Environment,
  type Tau2State,
} from "./environment.js";
import { parseJsonOrdered } from "./py-json.js";
import { type PyModel, pyClone, pyValidate } from "./py-model.js";
import { type Tau2Task, Tau2TaskSchema } from "./task.js";
import { airlineDomain } from "./domains/airline.js";
import { mockDomain } from "./domains/mock.js";
import { retailDomain } from "./domains/retail.js";
import { telecomDomain } from "./domains/telecom-domain.js";
import { parseToml } from "./toml.js";

export interface Tau2Domain {
  name: Tau2DomainName;
  /** policy.md text. */
  policy: string;
  /** tasks.json, validated; defaults applied (action requestor, reward_basis). */
  tasks: Tau2Task[];
  /** split_tasks.json when present (train/test/base), else `{ base: all ids }`. */
  splits: Record<string, string[]>;
  /** Whether the user acts on a device of their own with their own tools (telecom). */
  dualControl: boolean;
  /** The split a run uses when none is named (telecom: `base`, the paper's 114 tasks). */
  defaultSplit?: string;
  /** A fresh environment; with a task, its `initial_state` applied. */
  createEnv(task?: Tau2Task): Tau2Environment;
}

const SPECS: Record<Tau2DomainName, Tau2DomainSpec> = {
  mock: mockDomain,
  retail: retailDomain,
  airline: airlineDomain,
  telecom: telecomDomain,
};

/** `ENVACE_DATA_DIR`, else `../shared/data` next to the repository root (where package.json is). */
export function defaultDataDir(): string {
  const fromEnv = process.env.ENVACE_DATA_DIR;
  if (fromEnv) return resolve(fromEnv);
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, "package.json"))) return resolve(dir, "../shared/data");
    const parent = dirname(dir);
    if (parent === dir) return resolve("../shared/data");
    dir = parent;
  }
}

const dataError = (file: string, message: string) =>
  new EnvaceError("INVALID_DATA_FILE", `${file}: ${message}`, { file });

function readText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (e) {
    throw dataError(file, `cannot read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
}

function readJson(file: string, ordered: boolean): unknown {
  const text = readText(file);
  try {
    return ordered ? parseJsonOrdered(text) : (JSON.parse(text) as unknown);
  } catch (e) {
    throw dataError(file, `invalid JSON (${(e as Error).message})`);
  }
}

const fmtLoc = (loc: (string | number)[]) =>
  loc
    .map((p) => (typeof p === "number" ? `[${p}]` : `.${p}`))
    .join("")
    .replace(/^\./, "");

function validateDb(
  raw: unknown,
  type: PyModel,
  file: string,
  locPrefix: (string | number)[] = [],
): Record<string, unknown> {
  const r = pyValidate(raw, type);
  if (!r.ok) {
    const issue = r.issues[0]!;
    const more = r.issues.length > 1 ? ` (and ${r.issues.length - 1} more)` : "";
    throw dataError(file, `field ${fmtLoc([...locPrefix, ...issue.loc]) || "(root)"}: ${issue.msg}${more}`);
  }
  return r.value as Record<string, unknown>;
}

/** The airline DB: db.json when present, else assembled from the tau-bench v1 files (data README). */
function loadAirlineDb(dir: string): Record<string, unknown> {
  const dbFile = join(dir, "db.json");
  if (existsSync(dbFile)) return validateDb(readJson(dbFile, true), SPECS.airline.dbType, dbFile);
  const v1 = join(dir, "tau-bench-v1");
  const parts: Record<string, Map<string, unknown>> = {};
  for (const key of ["flights", "users", "reservations"]) {
    const file = join(v1, `${key}.json`);
    const raw = readJson(file, true);
    if (!(raw instanceof Map)) throw dataError(file, "field (root): expected a JSON object");
    if (key === "users") {
      for (const [userId, user] of raw) if (user instanceof Map) user.set("user_id", userId);
    }
    // Validate each part against its own field so an error names the file it comes from.
    const fieldType = SPECS.airline.dbType.fields.find((f) => f.name === key)!.t;
    const r = pyValidate(raw, fieldType);
    if (!r.ok) {
      const issue = r.issues[0]!;
      throw dataError(file, `field ${fmtLoc(issue.loc)}: ${issue.msg}`);
    }
    parts[key] = r.value as Map<string, unknown>;
  }
  return { flights: parts.flights, users: parts.users, reservations: parts.reservations };
}

function readToml(file: string): unknown {
  const text = readText(file);
  try {
    return parseToml(text);
  } catch (e) {
    throw dataError(file, `invalid TOML (${(e as Error).message})`);
  }
}

/**
 * Telecom's policy as upstream's `get_environment` assembles it: the main policy and the tech
 * support manual, each in its tag.
 */
function telecomPolicy(dir: string): string {
  const main = readText(join(dir, "main_policy.md"));
  const manual = readText(join(dir, "tech_support_manual.md"));
  return `<main_policy>\n${main}\n</main_policy>\n<tech_support_policy>\n${manual}\n</tech_support_policy>`;
}

function loadTasks(file: string): Tau2Task[] {
  const raw = readJson(file, false);
  if (!Array.isArray(raw)) throw dataError(file, "field (root): expected a JSON array of tasks");
  return raw.map((item, i) => {
    const r = Tau2TaskSchema.safeParse(item);
    if (!r.success) {
      const issue = r.error.issues[0]!;
      const id = (item as { id?: unknown } | null)?.id;
      const where = fmtLoc([i, ...(issue.path as (string | number)[])]);
      throw dataError(
        file,
        `field [${i}]${where.replace(/^\[\d+\]/, "")}${typeof id === "string" ? ` (task ${id})` : ""}: ${issue.message}`,
      );
    }
    return r.data;
  });
}

function loadSplits(file: string, tasks: Tau2Task[]): Record<string, string[]> {
  if (!existsSync(file)) return { base: tasks.map((t) => t.id) };
  const raw = readJson(file, false);
  if (raw === null || typeof raw !== "object" || Array.isArray(raw))
    throw dataError(file, "field (root): expected an object of splits");
  for (const [name, ids] of Object.entries(raw)) {
    if (!Array.isArray(ids) || ids.some((x) => typeof x !== "string"))
      throw dataError(file, `field ${name}: expected a list of task ids`);
  }
  return raw as Record<string, string[]>;
}

/** Loads one τ² domain. Throws EnvaceError INVALID_DATA_FILE naming the file and field on bad data. */
export function loadTau2Domain(name: Tau2DomainName, dataDir: string = defaultDataDir()): Tau2Domain {
  const spec = SPECS[name];
  if (!spec)
    throw new EnvaceError(
      "INVALID_CONFIG",
      `unknown tau2 domain '${String(name)}' (mock, retail, airline, telecom)`,
    );
  const dir = join(dataDir, "tau2", name);
  const policy = name === "telecom" ? telecomPolicy(dir) : readText(join(dir, "policy.md"));
  const tasks = loadTasks(join(dir, "tasks.json"));
  // Telecom's `small` split names tasks kept in tasks_small.json, not in the base tasks.json.
  const smallFile = join(dir, "tasks_small.json");
  if (name === "telecom" && existsSync(smallFile)) {
    const known = new Set(tasks.map((t) => t.id));
    tasks.push(...loadTasks(smallFile).filter((t) => !known.has(t.id)));
  }
  const splits = loadSplits(join(dir, "split_tasks.json"), tasks);
  const dbFile = join(dir, name === "telecom" ? "db.toml" : "db.json");
  const db =
    name === "airline"
      ? loadAirlineDb(dir)
      : validateDb(name === "telecom" ? readToml(dbFile) : readJson(dbFile, true), spec.dbType, dbFile);
  let userDb: Record<string, unknown> | null = null;
  if (spec.userDbType) {
    const file = join(dir, name === "telecom" ? "user_db.toml" : "user_db.json");
    const raw = !existsSync(file) ? new Map() : name === "telecom" ? readToml(file) : readJson(file, true);
    userDb = validateDb(raw, spec.userDbType, file);
  }
  const pristine: Tau2State = { db, userDb };
  return {
    name,
    policy,
    tasks,
    splits,
    dualControl: name === "telecom",
    ...(name === "telecom" && splits.base ? { defaultSplit: "base" } : {}),
    createEnv(task?: Tau2Task): Tau2Environment {
      const state: Tau2State = {
        db: pyClone(pristine.db, spec.dbType),
        userDb: spec.userDbType && pristine.userDb ? pyClone(pristine.userDb, spec.userDbType) : null,
      };
      const env = new Tau2Env(spec, state);
      if (task?.initial_state) env.applyInitialState(task.initial_state);
      return env;
    },
  };
}
