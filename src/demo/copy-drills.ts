import type { SftExample } from "../train/sft.js";
import { renameNames } from "./tool-aliases.js";

/**
 * Copy drills (SFT recipe v11, issue 11's gate). A write call's detail argument (a day) has to be
 * copied from the user's request past a lookup whose response names another value of the same kind
 * (`{"day":"thursday"}`): the distractor is nearer, and the value the logs write most often is a
 * prior. Under v10, seeds 3 and 9 learned to copy ids (first-call copy 100%) but wrote the looked-up
 * or the most frequent day in such calls (write-call argument copy 43.4 / 57.8% against 79–89% on
 * seeds 0–2). A drill is such an acting example again with the pool's values permuted through the
 * whole example (request, calls, responses, reply): the example stays consistent with itself, and
 * the right value is one the model can only have copied, never one it learned to prefer.
 *
 * An example is drilled when one of its tool calls has an argument from `pool` that an earlier user
 * turn states while an earlier tool response states a different value of the pool. A drill whose
 * request would become a `forbidden` one (an evaluation request) is drawn again, and left out after
 * `MAX_DRAWS` draws: the evaluation stays unseen.
 */
export function copyDrills(
  act: readonly SftExample[],
  opts: {
    pool: readonly string[];
    copies: number;
    forbidden: ReadonlySet<string>;
    /**
     * Earlier calls' arguments distract as responses do (default false: responses only). For ids:
     * a transfer's target is copied from the request past the lookup call on its source account.
     */
    distractCalls?: boolean;
    /** Only calls of this tool are drilled (default: any). */
    tool?: string;
  },
  rand: () => number,
): SftExample[] {
  const { pool, copies, forbidden } = opts;
  if (copies <= 0 || pool.length < 2) return [];
  const inPool = new Set(pool);
  const drills: SftExample[] = [];
  for (const example of act) {
    const value = drilledValue(example, inPool, opts.distractCalls === true, opts.tool);
    if (value === undefined) continue;
    for (let k = 0; k < copies; k++) {
      for (let draw = 0; draw < MAX_DRAWS; draw++) {
        const drill = renameNames(example, permutationMoving(pool, value, rand));
        if (drill.messages.some((m) => m.role === "user" && forbidden.has(m.content))) continue;
        drills.push(drill);
        break;
      }
    }
  }
  return drills;
}

const MAX_DRAWS = 8;

/** The word-like tokens of a text (names, ids, values), where a copied value is looked for. */
export const words = (s: string): string[] => s.match(/[A-Za-z0-9_]+/g) ?? [];

/** The pool value a call copies from a request past a distracting response, if any. */
function drilledValue(
  example: SftExample,
  pool: ReadonlySet<string>,
  distractCalls: boolean,
  tool: string | undefined,
): string | undefined {
  const said = new Set<string>();
  const responded = new Set<string>();
  for (const m of example.messages) {
    for (const call of m.toolCalls ?? []) {
      if (tool !== undefined && call.name !== tool) continue;
      for (const v of Object.values(call.arguments)) {
        if (typeof v !== "string" || !pool.has(v) || !said.has(v)) continue;
        if ([...responded].some((r) => r !== v)) return v;
      }
    }
    const into = m.role === "user" ? said : m.role === "tool" ? responded : undefined;
    for (const w of words(m.content)) if (into && pool.has(w)) into.add(w);
    if (distractCalls)
      for (const call of m.toolCalls ?? [])
        for (const v of Object.values(call.arguments))
          if (typeof v === "string" && pool.has(v)) responded.add(v);
  }
  return undefined;
}

/** A uniformly drawn permutation of `pool` (as a rename map) that does not keep `value` in place. */
function permutationMoving(pool: readonly string[], value: string, rand: () => number): Map<string, string> {
  for (;;) {
    const shuffled = [...pool];
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
    }
    const map = new Map(pool.map((p, i) => [p, shuffled[i]!]));
    if (map.get(value) !== value) return map;
  }
}
