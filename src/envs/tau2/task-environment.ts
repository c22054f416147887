import { EnvaceError } from "../../core/errors.js";
import type { Task } from "../../core/task.js";
import type { Environment } from "../env.js";
import { defaultDataDir, loadTau2Domain, type Tau2Domain } from "./data.js";
import type { Tau2DomainName } from "./environment.js";

// Loading a domain parses its whole DB: once per domain and data root for the process.
const loaded = new Map<string, Tau2Domain>();

/**
 * A fresh τ² environment for a task file's `env: {kind: "tau2", domain, task_id?}`: the domain's
 * DB with that τ² task's initial state applied (none without `task_id`). Data come from
 * `ENVACE_DATA_DIR` or the default data root. Only the environment: the τ² user simulator and
 * evaluator belong to `envace eval --bench tau2:DOMAIN`.
 */
export function openTau2TaskEnvironment(task: Task, dataDir: string = defaultDataDir()): Environment {
  const spec = task.env;
  if (spec?.kind !== "tau2")
    throw new EnvaceError("INVALID_TASK_FILE", `task ${task.id}: env.kind is not "tau2"`);
  const key = `${dataDir}\u0000${spec.domain}`;
  let domain = loaded.get(key);
  if (!domain) {
    domain = loadTau2Domain(spec.domain as Tau2DomainName, dataDir);
    loaded.set(key, domain);
  }
  if (spec.task_id === undefined) return domain.createEnv();
  const t2 = domain.tasks.find((t) => t.id === spec.task_id);
  if (!t2) {
    throw new EnvaceError(
      "INVALID_TASK_FILE",
      `task ${task.id}: env.task_id "${spec.task_id}" is not a τ² ${spec.domain} task`,
    );
  }
  return domain.createEnv(t2);
}
