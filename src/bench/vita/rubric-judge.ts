/**
 * VitaBench's evaluator (upstream `TrajectoryEvaluator.calculate_reward`, the default
 * "trajectory" evaluation): the task's rubrics (each expected state's `state_rubrics`, then
 * `overall_rubrics`, duplicates dropped) start unmet; the trajectory is cut into sliding windows
 * of 10 messages overlapping by 2; one judge call per window, in order, sees the window and the
 * current rubric states and returns updated states; the task scores 1 when every rubric ends met.
 *
 * Upstream's evaluator does not compare `required_orders`/`optional_orders` with the final DB: the
 * orders only reach the score through the rubrics' wording. Without a judge every rubric is
 * reported `not_judged` and the reward is null (never a failure); a judge call that fails at the
 * API level makes the task `judge_error` with a null reward, never a fake 0.
 */
import type { ChatModel } from "../../core/model.js";
import { fromJs, pyRepr } from "../../envs/vita/py-value.js";
import { weekday } from "../../envs/vita/py-time.js";
import { VITA_PROMPTS } from "./prompts.js";
import type { VitaMessage, VitaTask } from "./types.js";

export const WINDOW_SIZE = 10;
export const WINDOW_OVERLAP = 2;

export interface RubricState {
  rubric_idx: string;
  rubric: string;
  justification: string;
  meetExpectation: boolean;
}

export type RubricVerdict = "met" | "unmet" | "not_judged";

export interface RubricEvaluation {
  /** 1 or 0 as upstream; null when not judged (no judge, or the judge failed). */
  reward: number | null;
  /** Fraction of rubrics met (upstream's NL_ASSERTION breakdown); null when not judged. */
  rubric_score: number | null;
  status: "judged" | "not_judged" | "judge_error" | "no_rubrics";
  rubrics: (RubricState & { verdict: RubricVerdict })[];
  windows: number;
  /** Windows whose judge reply could not be parsed (states kept, as upstream). */
  unparsed_windows: number;
  error?: string;
}

/** Upstream's `_initialize_rubric_states`. */
export function initialRubricStates(task: Pick<VitaTask, "evaluation_criteria">): RubricState[] {
  const seen = new Set<string>();
  const states: RubricState[] = [];
  const add = (rubric: string) => {
    if (seen.has(rubric)) return;
    seen.add(rubric);
    states.push({
      rubric_idx: `rubric_${states.length}`,
      rubric,
      justification: "Not evaluated yet",
      meetExpectation: false,
    });
  };
  const criteria = task.evaluation_criteria;
  for (const state of criteria?.expected_states ?? []) for (const r of state.state_rubrics ?? []) add(r);
  for (const r of criteria?.overall_rubrics ?? []) add(r);
  return states;
}

/** Upstream's `_create_sliding_windows`. */
export function slidingWindows<T>(messages: T[], size = WINDOW_SIZE, overlap = WINDOW_OVERLAP): T[][] {
  if (messages.length <= size) return [messages];
  const windows: T[][] = [];
  const step = size - overlap;
  for (let i = 0; i < messages.length; i += step) {
    const w = messages.slice(i, i + size);
    if (w.length > 0) windows.push(w);
    if (i + size >= messages.length) break;
  }
  return windows;
}

/** Upstream's `_format_window_content`: `[global index] role: content tool(args)…`. */
export function formatWindow(window: VitaMessage[], startIdx: number): string {
  const lines: string[] = [];
  window.forEach((m, i) => {
    let full = m.content ?? "";
    if (m.role === "assistant" && m.toolCalls && m.toolCalls.length > 0) {
      const calls = m.toolCalls.map(
        (c) =>
          `${c.name}(${Object.entries(c.arguments)
            .map(([k, v]) => `${k}=${pyRepr(fromJs(v))}`)
            .join(", ")})`,
      );
      full = full ? `${full} ${calls.join(".")}` : calls.join(".");
    }
    if (full) lines.push(`[${startIdx + i + 1}] ${m.role}: ${full}`);
  });
  return lines.join("\n");
}

/** Python's `str.format` with keyword arguments (`{{`/`}}` are literal braces). */
export function pyFormat(template: string, vars: Record<string, string | number>): string {
  return template.replace(/\{\{|\}\}|\{(\w+)\}/g, (m, name: string | undefined) => {
    if (m === "{{") return "{";
    if (m === "}}") return "}";
    if (name !== undefined && name in vars) return String(vars[name]);
    throw new Error(`KeyError: '${name}'`);
  });
}

/** The two messages of one window's judge call, exactly as upstream writes them. */
export function windowPrompt(
  task: Pick<VitaTask, "instructions" | "environment_time">,
  lang: "en" | "zh",
  window: VitaMessage[],
  states: RubricState[],
  windowIdx: number,
  totalWindows: number,
  startIdx: number,
): { system: string; user: string } {
  const time = task.environment_time;
  const envInfo = new Map<string, unknown>([
    ["system_time", time ? `${time} ${weekday(time, lang)}` : ""],
    ["database", []],
  ]);
  const system = pyFormat(VITA_PROMPTS.slidingWindowEvalTemplate[lang], {
    env_info: pyRepr(envInfo),
    user_instruction: task.instructions,
    window_idx: windowIdx,
    total_windows: totalWindows,
  });
  const rubrics = JSON.stringify(states, null, 2);
  const user =
    `\n# Input\n<window_content>\n${formatWindow(window, startIdx)}\n</window_content>\n\n` +
    `<current_rubrics>\n${rubrics}\n</current_rubrics>\n`;
  return { system, user };
}

/**
 * The judge's reply as a list of rubric updates. Upstream runs `json_repair` on the whole reply;
 * this takes the first JSON array (or object) in it, fenced or not, and returns null when none
 * parses.
 */
export function parseJudgeReply(text: string): Record<string, unknown>[] | null {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  const body = fenced ? (fenced[1] as string) : text;
  for (const [open, close] of [
    ["[", "]"],
    ["{", "}"],
  ] as const) {
    const start = body.indexOf(open);
    const end = body.lastIndexOf(close);
    if (start < 0 || end <= start) continue;
    try {
      const value: unknown = JSON.parse(body.slice(start, end + 1));
      const items = Array.isArray(value) ? value : [value];
      return items.filter((x): x is Record<string, unknown> => typeof x === "object" && x !== null);
    } catch {
      /* try the other bracket kind */
    }
  }
  return null;
}

const asBool = (v: unknown, prev: boolean): boolean =>
  typeof v === "boolean"
    ? v
    : v === "true" || v === "True"
      ? true
      : v === "false" || v === "False"
        ? false
        : prev;

/** Applies one window's updates as upstream does: only known `rubric_idx`, missing fields kept. */
export function applyUpdates(states: RubricState[], updates: Record<string, unknown>[]): RubricState[] {
  const next = states.map((s) => ({ ...s }));
  for (const u of updates) {
    const target = next.find((s) => s.rubric_idx === u.rubric_idx);
    if (!target) continue;
    target.justification =
      typeof u.justification === "string" ? u.justification : "No justification provided";
    target.meetExpectation = asBool(u.meetExpectation, target.meetExpectation);
  }
  return next;
}

/** Scores one finished trajectory. */
export async function evaluateRubrics(
  task: Pick<VitaTask, "instructions" | "environment_time" | "evaluation_criteria">,
  trajectory: VitaMessage[],
  options: { judge?: ChatModel; lang: "en" | "zh" },
): Promise<RubricEvaluation> {
  let states = initialRubricStates(task);
  const windows = slidingWindows(trajectory);
  const report = (
    status: RubricEvaluation["status"],
    verdictOf: (s: RubricState) => RubricVerdict,
    extra = {},
  ) => {
    const rubrics = states.map((s) => ({ ...s, verdict: verdictOf(s) }));
    const judged = status === "judged";
    const met = rubrics.filter((r) => r.verdict === "met").length;
    return {
      reward:
        status === "no_rubrics" ? 1 : judged ? (met === rubrics.length && rubrics.length > 0 ? 1 : 0) : null,
      rubric_score: status === "no_rubrics" ? 1 : judged ? met / rubrics.length : null,
      status,
      rubrics,
      windows: windows.length,
      unparsed_windows: 0,
      ...extra,
    };
  };
  if (states.length === 0) return report("no_rubrics", () => "met");
  if (!options.judge) return report("not_judged", () => "not_judged");
  const step = WINDOW_SIZE - WINDOW_OVERLAP;
  let unparsed = 0;
  for (const [i, window] of windows.entries()) {
    const prompt = windowPrompt(task, options.lang, window, states, i + 1, windows.length, i * step);
    let text: string;
    try {
      const out = await options.judge.chat({
        messages: [
          { role: "system", content: prompt.system },
          { role: "user", content: prompt.user },
        ],
      });
      text = out.samples[0]?.text ?? "";
    } catch (e) {
      return report("judge_error", () => "not_judged", {
        error: e instanceof Error ? e.message : String(e),
        unparsed_windows: unparsed,
      });
    }
    const updates = parseJudgeReply(text);
    if (updates === null) unparsed++;
    else states = applyUpdates(states, updates);
  }
  return { ...report("judged", (s) => (s.meetExpectation ? "met" : "unmet")), unparsed_windows: unparsed };
}
