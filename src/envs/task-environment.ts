import { EnvaceError } from "../core/errors.js";
import type { Task } from "../core/task.js";
import type { Environment } from "./env.js";
import { openMcpTaskEnvironment } from "./mcp/task-environment.js";
import { createToolworldEnv } from "./toolworld/index.js";

/** The `env.kind`s a task file can name for real-environment episodes (eval, `real` training). */
export const TASK_ENV_KINDS = ["toolworld", "mcp"] as const;

/**
 * A fresh real environment for one episode of a task, from its `env` field: toolworld worlds are
 * rebuilt from their seed, MCP servers are started anew (stdio) or reset by `env.setup` (HTTP).
 * τ² tasks run through `envace eval --bench tau2:DOMAIN`, whose episodes need the τ² user
 * simulator and evaluator, not through this factory.
 */
export async function environmentForTask(task: Task): Promise<Environment> {
  const kind = task.env?.kind;
  if (kind === "toolworld") return createToolworldEnv(task);
  if (kind === "mcp") return openMcpTaskEnvironment(task);
  const hint =
    kind === "tau2" ? ` (τ² tasks run with envace eval --bench tau2:${task.env?.domain ?? "DOMAIN"})` : "";
  throw new EnvaceError(
    "INVALID_TASK_FILE",
    `task ${task.id}: no real environment for env.kind ${kind === undefined ? "(missing)" : JSON.stringify(kind)} (supported: ${TASK_ENV_KINDS.join(", ")})${hint}`,
  );
}
