import type { Task } from "../core/task.js";
import { canonicalJson } from "../core/canonical-json.js";
import { environmentForTask } from "../envs/task-environment.js";

/**
 * Starts each distinct real environment the tasks name (once) and compares its tools with the
 * tasks' own: a task tool the environment does not have can never succeed for real (an error);
 * a different schema is a warning (the recorded one may be older). Returns problems per task id.
 */
export async function checkEnvTools(
  tasks: readonly Task[],
): Promise<Map<string, { errors: string[]; warnings: string[] }>> {
  const out = new Map<string, { errors: string[]; warnings: string[] }>();
  const envTools = new Map<string, Map<string, unknown> | string>();
  for (const task of tasks) {
    if (!task.env) continue;
    const key = canonicalJson(task.env);
    if (!envTools.has(key)) {
      try {
        const env = await environmentForTask(task);
        try {
          envTools.set(key, new Map(env.tools().map((t) => [t.name, t.parameters])));
        } finally {
          await env.close?.();
        }
      } catch (e) {
        envTools.set(key, (e as Error).message);
      }
    }
    const tools = envTools.get(key)!;
    const r = { errors: [] as string[], warnings: [] as string[] };
    if (typeof tools === "string") r.errors.push(`env: could not start it: ${tools}`);
    else {
      for (const t of task.tools) {
        const real = tools.get(t.name);
        if (real === undefined) r.errors.push(`tools: ${t.name} is not a tool of the real environment`);
        else if (canonicalJson(stripMeta(real)) !== canonicalJson(stripMeta(t.parameters))) {
          r.warnings.push(`tools: ${t.name}'s schema differs from the real environment's`);
        }
      }
    }
    out.set(task.id, r);
  }
  return out;
}

/** `$schema` says which draft a server wrote, not what the arguments are. */
function stripMeta(schema: unknown): unknown {
  if (typeof schema !== "object" || schema === null) return schema;
  const { $schema: _drop, ...rest } = schema as Record<string, unknown>;
  return rest;
}
