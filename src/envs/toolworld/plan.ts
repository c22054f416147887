import type { Standard } from "../../core/task.js";
import { ACT_IT_TEMPLATES, ACT_TEMPLATES, LIST_TEMPLATES, STATUS_TEMPLATES } from "./intents.js";
import { ITEM_COUNT, ids } from "./pools.js";
import type { Rng } from "./rng.js";
import { forbidOtherTargets, forbidOthers, mustCall, mustNotCall, replyContains } from "./standards.js";
import { fill } from "./template.js";
import { writeToolNames } from "./tools.js";
import type { ActionSpec, DomainSpec, TaskPlan, ToolworldState, TurnPlan } from "./types.js";

/**
 * The generator's side: it picks a request in a world and states, from the world's initial state
 * alone, what a correct run must do. The scripted solver decides from tool results instead; the
 * tests check that the two agree on every task.
 */
interface Request {
  kind: string;
  slots: Record<string, string>;
  text: string;
  standards: Standard[];
}

function words(d: DomainSpec, template: string, verb = ""): string {
  return template
    .replaceAll("{noun}", d.item.noun)
    .replaceAll("{plural}", d.item.plural)
    .replaceAll("{verb}", verb);
}

function itemIds(state: ToolworldState): string[] {
  return Object.keys(state.items).sort();
}

/** Every item id a reply could name: listing them all is the hedge a list answer must not pass with. */
function allItemIds(d: DomainSpec): string[] {
  return ids(d.item.idPrefix, ITEM_COUNT);
}

function unknownItem(d: DomainSpec, state: ToolworldState, rng: Rng): string {
  return rng.pick(ids(d.item.idPrefix, ITEM_COUNT).filter((i) => !(i in state.items)));
}

/** Values that contradict a stated status: every other status of the domain. */
function otherStatuses(d: DomainSpec): readonly string[] {
  return d.item.statuses;
}

/** Values that contradict a stated detail (amount, day): every other detail value. */
function otherDetails(d: DomainSpec): string[] {
  return d.item.detailValues.map(String);
}

function readOnly(d: DomainSpec): Standard[] {
  return forbidOthers(writeToolNames(d), []);
}

function lookup(d: DomainSpec, state: ToolworldState, rng: Rng, kind: "status" | "detail"): Request {
  const missing = rng.next() < 0.1;
  const id = missing ? unknownItem(d, state, rng) : rng.pick(itemIds(state));
  const templates = kind === "status" ? STATUS_TEMPLATES.map((t) => words(d, t)) : d.item.detailTemplates;
  const item = state.items[id];
  const fact = !item ? "not found" : kind === "status" ? item.status : String(item.detail);
  const contradicting = !item
    ? [...otherStatuses(d), ...otherDetails(d)]
    : kind === "status"
      ? otherStatuses(d)
      : otherDetails(d);
  return {
    kind,
    slots: { id },
    text: fill(rng.pick(templates), { id }),
    standards: [
      mustCall(d.item.getTool, { [d.item.idKey]: id }),
      replyContains([fact], contradicting),
      ...readOnly(d),
    ],
  };
}

/** What acting on `id` must look like; `checked` when the status was already read this conversation. */
function actStandards(
  d: DomainSpec,
  state: ToolworldState,
  a: ActionSpec,
  id: string,
  checked: boolean,
): Standard[] {
  const item = state.items[id];
  const check = checked ? [] : [mustCall(d.item.getTool, { [d.item.idKey]: id })];
  const others = forbidOthers(writeToolNames(d), [a.tool]);
  const statuses = otherStatuses(d);
  if (!item) return [...check, mustNotCall(a.tool), replyContains(["not found"], statuses), ...others];
  if (!a.from.includes(item.status)) {
    return [...check, mustNotCall(a.tool), replyContains(["cannot", item.status], statuses), ...others];
  }
  // The write is allowed on this item only: doing it to every item would otherwise pass.
  const untouched = itemIds(state).filter((i) => i !== id);
  return [
    ...check,
    mustCall(a.tool, { [d.item.idKey]: id }),
    replyContains([a.to], statuses),
    ...others,
    ...forbidOtherTargets(a.tool, d.item.idKey, untouched),
  ];
}

function act(d: DomainSpec, state: ToolworldState, rng: Rng, a: ActionSpec): Request | undefined {
  const roll = rng.next();
  const all = itemIds(state);
  const pool =
    roll < 0.5
      ? all.filter((i) => a.from.includes(state.items[i]?.status ?? ""))
      : roll < 0.85
        ? all.filter((i) => !a.from.includes(state.items[i]?.status ?? ""))
        : [unknownItem(d, state, rng)];
  if (pool.length === 0) return undefined;
  const id = rng.pick(pool);
  return {
    kind: `act:${a.tool}`,
    slots: { id },
    text: fill(words(d, rng.pick(ACT_TEMPLATES), a.verb), { id }),
    standards: actStandards(d, state, a, id, false),
  };
}

function list(d: DomainSpec, state: ToolworldState, rng: Rng, allowMissing: boolean): Request {
  const ownerIds = Object.keys(state.owners).sort();
  const used = new Set(Object.values(state.owners).map((o) => o.key));
  const missing = allowMissing && rng.next() < 0.1;
  const ownerId = rng.pick(ownerIds);
  const owner = state.owners[ownerId];
  const key = missing || !owner ? rng.pick(d.owner.keys.filter((k) => !used.has(k))) : owner.key;
  const text = fill(words(d, rng.pick(LIST_TEMPLATES)), { key });
  const find = mustCall(d.owner.findTool, { [d.owner.keyField]: key });
  if (missing || !owner) {
    return {
      kind: "list",
      slots: { key },
      text,
      standards: [find, replyContains(["not found"], allItemIds(d)), ...readOnly(d)],
    };
  }
  return {
    kind: "list",
    slots: { key },
    text,
    standards: [
      find,
      mustCall(d.item.listTool, { [d.owner.idKey]: ownerId }),
      replyContains([...owner.items], allItemIds(d)),
      ...readOnly(d),
    ],
  };
}

type Planner = () => Request[] | undefined;

/** Picks one task in this world, weighted so that most tasks need a write or a refusal. */
export function planTask(d: DomainSpec, state: ToolworldState, rng: Rng): TaskPlan | undefined {
  const planners: [number, Planner][] = [
    [2, () => [lookup(d, state, rng, "status")]],
    [2, () => [lookup(d, state, rng, "detail")]],
    [2, () => [list(d, state, rng, true)]],
    ...d.actions.map((a): [number, Planner] => [3, () => one(act(d, state, rng, a))]),
    ...d.specials.map((s): [number, Planner] => [
      4,
      () => {
        const p = s.plan(state, rng, d);
        if (!p) return undefined;
        return [
          {
            kind: `special:${s.name}`,
            slots: p.slots,
            text: fill(rng.pick(s.templates), p.slots),
            standards: p.standards,
          },
        ];
      },
    ]),
    [
      2,
      () => {
        // Turn 1 lists the user's items; turn 2 asks to act on one of them (read, then act).
        const first = list(d, state, rng, false);
        const owner = Object.values(state.owners).find((o) => o.key === first.slots.key);
        if (!owner) return undefined;
        const a = rng.pick(d.actions);
        const id = rng.pick(owner.items);
        const second: Request = {
          kind: `act:${a.tool}`,
          slots: { id },
          text: fill(words(d, rng.pick(ACT_TEMPLATES), a.verb), { id }),
          standards: actStandards(d, state, a, id, false),
        };
        return [first, second];
      },
    ],
    [
      2,
      () => {
        // Turn 1 asks for a status; turn 2 says "cancel it": the id comes from the conversation.
        const id = rng.pick(itemIds(state));
        const item = state.items[id];
        if (!item) return undefined;
        const first: Request = {
          kind: "status",
          slots: { id },
          text: fill(words(d, rng.pick(STATUS_TEMPLATES)), { id }),
          standards: [
            mustCall(d.item.getTool, { [d.item.idKey]: id }),
            replyContains([item.status], otherStatuses(d)),
            ...readOnly(d),
          ],
        };
        const a = rng.pick(d.actions);
        const second: Request = {
          kind: `act_it:${a.tool}`,
          slots: {},
          text: words(d, rng.pick(ACT_IT_TEMPLATES), a.verb),
          standards: actStandards(d, state, a, id, true),
        };
        return [first, second];
      },
    ],
  ];
  const total = planners.reduce((s, [w]) => s + w, 0);
  let roll = rng.next() * total;
  let chosen: Planner = (planners[0] as [number, Planner])[1];
  for (const [w, p] of planners) {
    if (roll < w) {
      chosen = p;
      break;
    }
    roll -= w;
  }
  const requests = chosen();
  if (!requests) return undefined;
  const turns: TurnPlan[] = requests.map((r) => ({ text: r.text, standards: r.standards }));
  const kind = requests.map((r) => r.kind).join("+");
  const signature = `${d.name}|${requests.map((r) => `${r.kind}(${JSON.stringify(r.slots)})`).join(";")}`;
  return { kind, signature, turns };
}

function one(r: Request | undefined): Request[] | undefined {
  return r ? [r] : undefined;
}
