import { readFile } from "node:fs/promises";
import { EnvaceError } from "../core/errors.js";
import { TaskZ, type Task } from "../core/task.js";

/**
 * Parses JSONL task text (one task a line; blank lines and `//` comment lines skipped). Errors name
 * the source, the 1-based line number and the offending field path.
 */
export function parseTasks(text: string, source = "<tasks>"): Task[] {
  const tasks: Task[] = [];
  const seen = new Set<string>();
  text.split(/\r?\n/).forEach((line, i) => {
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("//")) return;
    const where = `${source}:${i + 1}`;
    let raw: unknown;
    try {
      raw = JSON.parse(trimmed);
    } catch (e) {
      throw new EnvaceError("INVALID_TASK_FILE", `${where}: not valid JSON: ${(e as Error).message}`, {
        line: i + 1,
      });
    }
    const parsed = TaskZ.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      // An unknown key is reported on its parent object: name the key itself.
      const path =
        issue.code === "unrecognized_keys" ? [...issue.path, issue.keys[0] ?? ""] : [...issue.path];
      const field = path.length > 0 ? path.join(".") : "(task)";
      const message = issue.code === "unrecognized_keys" ? "unknown field" : issue.message;
      throw new EnvaceError("INVALID_TASK_FILE", `${where}: field ${field}: ${message}`, {
        line: i + 1,
        field,
        issues: parsed.error.issues,
      });
    }
    if (seen.has(parsed.data.id)) {
      throw new EnvaceError(
        "INVALID_TASK_FILE",
        `${where}: field id: duplicate task id "${parsed.data.id}"`,
        { line: i + 1, field: "id" },
      );
    }
    seen.add(parsed.data.id);
    tasks.push(parsed.data);
  });
  return tasks;
}

/** Reads and validates a JSONL task file. */
export async function loadTasks(path: string): Promise<Task[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    throw new EnvaceError("INVALID_TASK_FILE", `cannot read task file ${path}: ${(e as Error).message}`);
  }
  return parseTasks(text, path);
}
