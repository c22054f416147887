import { readFileSync } from "node:fs";
import { EnvaceError } from "../../core/errors.js";
import { parseJsonPy } from "../../envs/bfcl/lossless-json.js";
import { isDict, type PyValue } from "../../envs/bfcl/py-value.js";

/**
 * `--policy replay:FILE`: JSON Lines, one candidate a line — `{"id", "calls"}` with decoded AST
 * calls (`[{"func": {"arg": value}}]`, numbers read losslessly) or `{"id", "turns"}` for
 * multi-turn (`turns[turn][step]` = list of Python call strings) or `{"id", "answer"}` for the
 * memory categories (the model's final message). An id may repeat; each line is
 * scored on its own, in file order.
 */
export type ReplayLine =
  | { id: string; line: number; calls: PyValue }
  | { id: string; line: number; turns: string[][][] }
  | { id: string; line: number; answer: string };

export function readBfclReplay(path: string): ReplayLine[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new EnvaceError("INVALID_CONFIG", `cannot read replay file ${path}: ${(e as Error).message}`);
  }
  const out: ReplayLine[] = [];
  text.split("\n").forEach((raw, i) => {
    if (raw.trim() === "") return;
    const where = `${path}:${i + 1}`;
    let v: PyValue;
    try {
      v = parseJsonPy(raw.trim());
    } catch (e) {
      throw new EnvaceError("INVALID_TASK_FILE", `${where}: ${(e as Error).message}`);
    }
    if (!isDict(v) || typeof v.id !== "string")
      throw new EnvaceError("INVALID_TASK_FILE", `${where}: expected {"id": string, ...}`);
    if ("turns" in v) {
      const turns = v.turns;
      const ok =
        Array.isArray(turns) &&
        turns.every(
          (t) =>
            Array.isArray(t) && t.every((s) => Array.isArray(s) && s.every((c) => typeof c === "string")),
        );
      if (!ok)
        throw new EnvaceError(
          "INVALID_TASK_FILE",
          `${where}: "turns" must be a list (turns) of lists (steps) of call strings`,
        );
      out.push({ id: v.id, line: i + 1, turns: turns as string[][][] });
    } else if ("answer" in v) {
      if (typeof v.answer !== "string")
        throw new EnvaceError("INVALID_TASK_FILE", `${where}: "answer" must be a string`);
      out.push({ id: v.id, line: i + 1, answer: v.answer });
    } else if ("calls" in v) {
      out.push({ id: v.id, line: i + 1, calls: v.calls! });
    } else {
      throw new EnvaceError(
        "INVALID_TASK_FILE",
        `${where}: needs "calls" (single-turn), "turns" (multi-turn) or "answer" (memory)`,
      );
    }
  });
  return out;
}
