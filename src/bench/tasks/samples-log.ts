import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Task } from "../../core/task.js";
import type { EpisodeResult } from "../../rollout/types.js";

/** One episode as `--log-samples` writes it: the transcript and every standard's verdict. */
export interface SampleLine {
  task_id: string;
  trial: number;
  reward: number | null;
  success: boolean;
  end_reason: string;
  error?: string;
  messages: EpisodeResult["messages"];
  /** Each tool call and the answer the agent saw, with who answered it (real env or rehearsal). */
  calls: Array<{
    turn: number;
    name: string;
    arguments: Record<string, unknown>;
    result: string;
    source: string;
  }>;
  verdicts: Array<{ turn: number; checklist: number; question: string; rule: boolean; passed: boolean }>;
}

export function sampleLine(task: Task, ep: EpisodeResult): SampleLine {
  const verdicts: SampleLine["verdicts"] = [];
  (ep.standardsPassed ?? []).forEach((byChecklist, turn) =>
    byChecklist.forEach((passed, c) =>
      passed.forEach((p, k) => {
        const s = task.checklists[c]?.[turn]?.[k];
        verdicts.push({
          turn,
          checklist: c,
          question: s?.question ?? "",
          rule: s?.rule !== undefined,
          passed: p,
        });
      }),
    ),
  );
  return {
    task_id: ep.taskId,
    trial: ep.sample,
    reward: ep.reward ?? null,
    success: ep.success,
    end_reason: ep.endReason,
    ...(ep.error ? { error: ep.error } : {}),
    messages: ep.messages,
    calls: ep.calls.map((c) => ({
      turn: c.turn,
      name: c.call.name,
      arguments: c.call.arguments,
      result: c.result,
      source: c.source,
    })),
    verdicts,
  };
}

/** Writes one JSON line per episode (replacing the file). */
export function writeSamples(path: string, lines: readonly SampleLine[]): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, lines.map((l) => JSON.stringify(l) + "\n").join(""));
}
