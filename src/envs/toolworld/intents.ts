import { reply } from "./replies.js";
import type { ActionSpec, DomainSpec, SolverContext } from "./types.js";

/**
 * What a user turn can ask, with its paraphrase templates and the scripted solver's policy for it.
 * The policy reads real tool results: what it does next depends on what the environment returned.
 */
export interface Intent {
  kind: string;
  templates: readonly string[];
  solve(slots: Record<string, string>, ctx: SolverContext): string;
}

export const STATUS_TEMPLATES = [
  "what is the status of {noun} {id}?",
  "can you check the status of {noun} {id}?",
  "is {noun} {id} ok? what is its status?",
];
export const ACT_TEMPLATES = [
  "please {verb} {noun} {id}.",
  "I want to {verb} {noun} {id}.",
  "can you {verb} my {noun} {id}?",
];
export const ACT_IT_TEMPLATES = ["ok, please {verb} it.", "then {verb} it, please."];
export const LIST_TEMPLATES = [
  "which {plural} does {key} have?",
  "I am {key}. what {plural} do I have?",
  "list the {plural} of {key}.",
];

function nouns(templates: readonly string[], d: DomainSpec, verb = ""): string[] {
  return templates.map((t) =>
    t.replaceAll("{noun}", d.item.noun).replaceAll("{plural}", d.item.plural).replaceAll("{verb}", verb),
  );
}

/** Reads an item's status (once per conversation) — the check before any act. */
function readStatus(d: DomainSpec, id: string, ctx: SolverContext): string | undefined {
  const known = ctx.known.get(id);
  if (known !== undefined) return known;
  const r = ctx.call(d.item.getTool, { [d.item.idKey]: id });
  if (!r.ok) return undefined;
  const status = String(r.value.status);
  ctx.known.set(id, status);
  return status;
}

export function solveAct(d: DomainSpec, a: ActionSpec, id: string, ctx: SolverContext): string {
  const status = readStatus(d, id, ctx);
  if (status === undefined) return reply.itemNotFound(d, id);
  if (!a.from.includes(status)) return reply.refused(d, a, id, status);
  const w = ctx.call(a.tool, { [d.item.idKey]: id });
  if (!w.ok) return reply.failed(d, a.verb, id, w.error);
  const now = String(w.value.status);
  ctx.known.set(id, now);
  return reply.done(d, id, now);
}

export function domainIntents(d: DomainSpec): Intent[] {
  const intents: Intent[] = [
    {
      kind: "status",
      templates: nouns(STATUS_TEMPLATES, d),
      solve: ({ id = "" }, ctx) => {
        const r = ctx.call(d.item.getTool, { [d.item.idKey]: id });
        if (!r.ok) return reply.itemNotFound(d, id);
        ctx.known.set(id, String(r.value.status));
        return reply.status(d, id, String(r.value.status));
      },
    },
    {
      kind: "detail",
      templates: d.item.detailTemplates,
      solve: ({ id = "" }, ctx) => {
        const r = ctx.call(d.item.getTool, { [d.item.idKey]: id });
        if (!r.ok) return reply.itemNotFound(d, id);
        ctx.known.set(id, String(r.value.status));
        return reply.detail(d, id, String(r.value[d.item.detailField]));
      },
    },
    {
      kind: "list",
      templates: nouns(LIST_TEMPLATES, d),
      solve: ({ key = "" }, ctx) => {
        const f = ctx.call(d.owner.findTool, { [d.owner.keyField]: key });
        if (!f.ok) return reply.ownerNotFound(key);
        const ownerId = String(f.value[d.owner.idKey]);
        const l = ctx.call(d.item.listTool, { [d.owner.idKey]: ownerId });
        if (!l.ok) return reply.ownerNotFound(key);
        return reply.list(d, key, (l.value[d.item.plural] as unknown[]).map(String));
      },
    },
  ];
  for (const a of d.actions) {
    intents.push({
      kind: `act:${a.tool}`,
      templates: nouns(ACT_TEMPLATES, d, a.verb),
      solve: ({ id = "" }, ctx) => solveAct(d, a, id, ctx),
    });
    intents.push({
      kind: `act_it:${a.tool}`,
      templates: nouns(ACT_IT_TEMPLATES, d, a.verb),
      solve: (_, ctx) => solveAct(d, a, ctx.lastId ?? "", ctx),
    });
  }
  for (const s of d.specials) {
    intents.push({
      kind: `special:${s.name}`,
      templates: s.templates,
      solve: (slots, ctx) => s.solve(slots, ctx, d),
    });
  }
  return intents;
}
