import { EnvaceError } from "../core/errors.js";
import type { Task } from "../core/task.js";
import type { Environment } from "./env.js";
import { openMcpTaskEnvironment } from "./mcp/task-environment.js";
import { openTau2TaskEnvironment } from "./tau2/task-environment.js";
import { createToolworldEnv } from "./toolworld/index.js";

/** The `env.kind`s a task file can name for real-environment episodes (eval, `real` training). */
export const TASK_ENV_KINDS = ["toolworld", "mcp", "tau2"] as const;

/**
 * A fresh real environment for one episode of a task, from its `env` field: toolworld worlds are
 * rebuilt from their seed, MCP servers are started anew (stdio) or reset by `env.setup` (HTTP),
 * τ² domains get a fresh DB with the named τ² task's initial state.
 */
export async function environmentForTask(task: Task): Promise<Environment> {
  const kind = task.env?.kind;
  if (kind === "toolworld") return createToolworldEnv(task);
  if (kind === "mcp") return openMcpTaskEnvironment(task);
  if (kind === "tau2") return openTau2TaskEnvironment(task);
  throw new EnvaceError(
    "INVALID_TASK_FILE",
    `task ${task.id}: no real environment for env.kind ${kind === undefined ? "(missing)" : JSON.stringify(kind)} (supported: ${TASK_ENV_KINDS.join(", ")})`,
  );
}
