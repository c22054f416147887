import type { ToolCall } from "../core/messages.js";
import type { ChatModel, ChatRequest, ChatResult } from "../core/model.js";
import { readActOutput } from "../rollout/act-output.js";
import { hasMemory, withoutMemory } from "./memory-view.js";
import { countRehearsalCall } from "./metered-model.js";
import type { RehearsalStats } from "./types.js";

/** What a step does: the tools it calls, in order, or `reply`; with its calls. */
function decisionOf(result: ChatResult): { decision: string; calls: ToolCall[] } | undefined {
  const sample = result.samples[0];
  if (!sample) return undefined;
  const { calls } = readActOutput(sample, "decision");
  return { decision: calls.length === 0 ? "reply" : calls.map((c) => c.name).join(","), calls };
}

type Decided = NonNullable<ReturnType<typeof decisionOf>>;

export interface NoteDecidesInput {
  /** The note of the latest rehearsal (the one in the actor's system message). */
  note: () => string | undefined;
  /** Whether the commit guard holds this call back (a rewritten step never brings one in). */
  held: (call: ToolCall) => boolean;
  /**
   * What the run knows of its tools' effects, when it names the side-effecting ones (the guarded
   * tools): whether a call only reads, and whether some attempt of the rehearsal called its tool.
   * Absent: the step written with the note stands wherever the two decide otherwise.
   */
  effects?: {
    reads: (call: ToolCall) => boolean;
    tried: (call: ToolCall) => boolean;
  };
}

/**
 * Where the two steps decide otherwise, whether the one written without the note is committed:
 * where the noted step would reply and it only reads (the note may keep a write out of the turn,
 * not a lookup: a read changes nothing, and its real answer is better evidence than an attempt's
 * imagined one), or where the noted step makes a write no attempt of the rehearsal made and it
 * makes none (the rehearsal never tried that write: it is the actor's copy, not the note's
 * decision).
 */
function plainDecides(noted: Decided, plain: Decided, input: NoteDecidesInput): boolean {
  const effects = input.effects;
  if (!effects) return false;
  const untriedWrite = (d: Decided) => d.calls.some((c) => !effects.reads(c) && !effects.tried(c));
  const lookup = plain.calls.length > 0 && plain.calls.every(effects.reads);
  return (noted.decision === "reply" && lookup) || (untriedWrite(noted) && !untriedWrite(plain));
}

/**
 * The committed actor under `noteUse: "decide"`: the note decides what each step does, the real
 * conversation how. `actor` acts with the note in its system message; `policy` writes the step
 * again with the note left out, and where it decides the same (the same tools in the same order,
 * or a reply) that step is committed: its arguments and words rest on the real results alone. Where
 * it decides otherwise (another tool, a call instead of a reply) the step written with the note
 * stands, but for the two cases of `plainDecides` (a run that names its side-effecting tools), and so
 * does one whose rewrite makes a call the guard holds back. Those two cases are where issue 11's
 * rehearsal lost tasks the run without it won: on seed 3, 11 of 13 replied after `find_customer` /
 * `find_person` where that run went on to the required `list_*` (attempts whose imagined lookup
 * came back unusable stop early, and their note ends the turn there); on seed 0, 5 of 5 wrote to
 * an event or account the attempts had looked up and (in 4 of them, every attempt) left alone.
 * Why the rewrite at all: reading the note, a tiny actor copies values that neither the note nor
 * the real results hold (issue 11: seed 0 "moved to thursday" in both, "friday" in the reply;
 * seed 1 `list_accounts` on the email it had just looked up, not the id the lookup returned),
 * though the note's decisions help (fewer forbidden writes, fewer early stops). The extra call per
 * step is rehearsal's cost (`stats.calls.rewrite`); `stats.rewrittenSteps` counts the steps it
 * changed.
 */
export function noteDecides(
  actor: ChatModel,
  policy: ChatModel,
  input: NoteDecidesInput,
  stats: RehearsalStats,
): ChatModel {
  return {
    name: actor.name,
    async chat(request: ChatRequest, options?: { signal?: AbortSignal }): Promise<ChatResult> {
      const result = await actor.chat(request, options);
      const note = input.note();
      const decided = decisionOf(result);
      if (!hasMemory(request.messages, note) || !decided) return result;
      const again = { ...request, messages: withoutMemory(request.messages, note) };
      const rewritten = await policy.chat(again, options);
      countRehearsalCall(stats, again, rewritten, "rewrite");
      const redecided = decisionOf(rewritten);
      if (!redecided) return result;
      if (redecided.decision !== decided.decision && !plainDecides(decided, redecided, input)) return result;
      if (redecided.calls.some(input.held)) return result;
      if (rewritten.samples[0]!.text === result.samples[0]!.text) return result;
      stats.rewrittenSteps++;
      return rewritten;
    },
  };
}
