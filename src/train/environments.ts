import { EnvaceError } from "../core/errors.js";
import type { Task } from "../core/task.js";
import type { Environment } from "../envs/env.js";
import { createToolworldEnv } from "../envs/toolworld/index.js";

/**
 * A fresh real environment for a task, from its `env` field. Only `toolworld` is wired here; the
 * project-wide factory (`src/envs/index.ts`, with `tau2`) replaces this once it lands.
 */
export function environmentForTask(task: Task): Environment {
  const kind = task.env?.kind;
  if (kind === "toolworld") return createToolworldEnv(task);
  throw new EnvaceError(
    "INVALID_TASK_FILE",
    `task ${task.id}: no real environment for env.kind ${kind === undefined ? "(missing)" : JSON.stringify(kind)} (supported: toolworld)`,
  );
}
