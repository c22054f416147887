import type { DomainSpec, Outcome, SpecialSpec, ToolworldState } from "./types.js";

/**
 * Runs one already-validated call against the state. Mutates `state` only on success; every
 * refusal and unknown id is an `{ ok: false }` outcome with a short message.
 */
export function executeTool(
  d: DomainSpec,
  state: ToolworldState,
  name: string,
  args: Record<string, unknown>,
): Outcome {
  if (name === d.owner.findTool) {
    const key = String(args[d.owner.keyField]);
    const id = Object.keys(state.owners)
      .sort()
      .find((o) => state.owners[o]?.key === key);
    return id ? { ok: true, value: { [d.owner.idKey]: id } } : notFound(d.owner.noun, key);
  }
  if (name === d.item.listTool) {
    const id = String(args[d.owner.idKey]);
    const owner = state.owners[id];
    return owner ? { ok: true, value: { [d.item.plural]: [...owner.items] } } : notFound(d.owner.noun, id);
  }
  if (name === d.item.getTool) {
    const id = String(args[d.item.idKey]);
    const item = state.items[id];
    return item
      ? { ok: true, value: { status: item.status, [d.item.detailField]: item.detail } }
      : notFound(d.item.noun, id);
  }
  const action = d.actions.find((a) => a.tool === name);
  if (action) {
    const id = String(args[d.item.idKey]);
    const item = state.items[id];
    if (!item) return notFound(d.item.noun, id);
    if (!action.from.includes(item.status))
      return { ok: false, error: `${d.item.noun} ${id} is ${item.status}` };
    item.status = action.to;
    return { ok: true, value: { status: item.status } };
  }
  const special = d.specials.find((s) => s.tool.name === name);
  if (special) return special.execute(state, args);
  // Unreachable after validation against the domain's tools; kept as data, not a throw.
  return { ok: false, error: `unknown tool ${name}` };
}

export function notFound(noun: string, what: string): Outcome {
  return { ok: false, error: `${noun} ${what} not found` };
}

/** The field of a special's success response (a word of the tiny vocabulary, as its value is). */
export const RESULT_FIELD = "result";

/**
 * A special's success response: its result word and no value. A response that stated the new
 * day or balance had to be echoed or computed by the rehearser, which the demo's 1M-parameter
 * model got right in 1 of 23 moves and 3 of 21 transfers (thirteenth session), and a reply that
 * copied the wrong value failed in the rehearsed world only.
 */
export function confirmed(special: Pick<SpecialSpec, "result">): Outcome {
  return { ok: true, value: { [RESULT_FIELD]: special.result } };
}
