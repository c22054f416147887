import { EnvaceError } from "../core/errors.js";
import { StandardZ, type Task } from "../core/task.js";
import { z } from "zod";

const RowZ = z
  .object({ id: z.string().optional(), checklists: z.array(z.array(z.array(StandardZ))) })
  .strict();

/**
 * Attaches checklists from a JSONL file (`{"id": …, "checklists": …}` per line; a line without
 * `id` applies to every task that has no line of its own). Returns the ids that got none.
 */
export function attachChecklists(tasks: Task[], text: string, source: string): { missing: string[] } {
  const byId = new Map<string, Task["checklists"]>();
  let fallback: Task["checklists"] | undefined;
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === "") return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (e) {
      throw new EnvaceError(
        "INVALID_TASK_FILE",
        `${source}:${i + 1}: not valid JSON: ${(e as Error).message}`,
      );
    }
    const row = RowZ.safeParse(raw);
    if (!row.success) {
      const issue = row.error.issues[0]!;
      const path = issue.code === "unrecognized_keys" ? [...issue.path, issue.keys[0]] : issue.path;
      throw new EnvaceError(
        "INVALID_TASK_FILE",
        `${source}:${i + 1}: field ${path.join(".")}: ${issue.message}`,
      );
    }
    if (row.data.id === undefined) fallback = row.data.checklists;
    else byId.set(row.data.id, row.data.checklists);
  });
  const known = new Set(tasks.map((t) => t.id));
  const unknown = [...byId.keys()].filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw new EnvaceError(
      "INVALID_TASK_FILE",
      `${source}: checklists for unknown task ids: ${unknown.join(", ")}`,
    );
  }
  const missing: string[] = [];
  for (const t of tasks) {
    const c = byId.get(t.id) ?? fallback;
    if (c) t.checklists = structuredClone(c);
    else missing.push(t.id);
  }
  return { missing };
}
