import { DAYS, ITEM_COUNT, NAMES, capitalised, ids } from "../pools.js";
import type { Rng } from "../rng.js";
import { forbidOtherTargets, forbidOthers, mustCall, mustNotCall, replyContains } from "../standards.js";
import { confirmed } from "../execute.js";
import { objectSchema } from "../tools.js";
import type { DomainSpec, Outcome, SpecialSpec, ToolworldState } from "../types.js";

/** Another live (not cancelled) event of the same person on `day`, if any. */
function conflictOf(state: ToolworldState, eventId: string, day: string): string | undefined {
  const event = state.items[eventId];
  if (!event) return undefined;
  return (state.owners[event.owner]?.items ?? []).find(
    (other) =>
      other !== eventId && state.items[other]?.status !== "cancelled" && state.items[other]?.detail === day,
  );
}

/** `move_event`: only confirmed events move, and never onto a day the person already has an event. */
const MOVE: SpecialSpec = {
  name: "move_event",
  result: "moved",
  tool: {
    name: "move_event",
    description: "move an event to another day",
    parameters: objectSchema({ event_id: { type: "string" }, day: { type: "string", enum: [...DAYS] } }),
  },
  execute(state: ToolworldState, args: Record<string, unknown>): Outcome {
    const id = String(args.event_id);
    const day = String(args.day);
    const event = state.items[id];
    if (!event) return { ok: false, error: `event ${id} not found` };
    if (event.status !== "confirmed") return { ok: false, error: `event ${id} is ${event.status}` };
    const clash = conflictOf(state, id, day);
    if (clash) return { ok: false, error: `event ${id} conflicts with ${clash}` };
    event.detail = day;
    return confirmed(MOVE); // not the day: the reply states the day the user asked for
  },
  templates: [
    "move event {id} to {day}.",
    "please reschedule event {id} to {day}.",
    "can you put event {id} on {day}?",
  ],
  plan(state: ToolworldState, rng: Rng, d: DomainSpec) {
    const all = Object.keys(state.items).sort();
    const roll = rng.next();
    const confirmed = all.filter((i) => state.items[i]?.status === "confirmed");
    const id = rng.pick(roll < 0.8 ? (confirmed.length ? confirmed : all) : all);
    const event = state.items[id];
    if (!event) return undefined;
    const otherDays = DAYS.filter((day) => day !== event.detail);
    const clashing = otherDays.filter((day) => conflictOf(state, id, day) !== undefined);
    const free = otherDays.filter((day) => conflictOf(state, id, day) === undefined);
    // Prefer a clash when asked for one and one exists; otherwise a free day.
    const day = roll >= 0.5 && roll < 0.8 && clashing.length > 0 ? rng.pick(clashing) : rng.pick(free);
    const check = mustCall(d.item.getTool, { event_id: id });
    const others = forbidOthers(["cancel_event"], []);
    const slots = { id, day };
    if (event.status !== "confirmed") {
      return {
        slots,
        standards: [
          check,
          mustNotCall("move_event"),
          replyContains(["cannot", event.status], d.item.statuses),
          ...others,
        ],
      };
    }
    const clash = conflictOf(state, id, day);
    const move = mustCall("move_event", { event_id: id, day });
    // Contradicting facts: another event as the clash; another day than the one moved to.
    const untouched = forbidOtherTargets(
      "move_event",
      "event_id",
      all.filter((e) => e !== id),
    );
    if (clash) {
      const otherEvents = ids(d.item.idPrefix, ITEM_COUNT).filter((e) => e !== id);
      return {
        slots,
        standards: [check, move, replyContains(["cannot", clash], otherEvents), ...others, ...untouched],
      };
    }
    return { slots, standards: [check, move, replyContains([day], DAYS), ...others, ...untouched] };
  },
  solve(slots, ctx) {
    const id = slots.id ?? "";
    const day = slots.day ?? "";
    const r = ctx.call("get_event", { event_id: id });
    if (!r.ok) return `sorry, event ${id} was not found.`;
    const status = String(r.value.status);
    ctx.known.set(id, status);
    if (status !== "confirmed") return `sorry, event ${id} is ${status}, so I cannot move it.`;
    const w = ctx.call("move_event", { event_id: id, day });
    if (w.ok) return `done, event ${id} is now on ${day}.`;
    const clash = /conflicts with (\S+)/.exec(w.error)?.[1];
    return clash
      ? `sorry, I cannot move event ${id}: it conflicts with ${clash}.`
      : `sorry, I cannot move event ${id}: ${w.error}.`;
  },
};

/** A calendar: people by name, their events, cancellations and moves with conflicts. */
export const CALENDAR: DomainSpec = {
  name: "calendar",
  role: "train",
  system:
    "calendar agent. check an event before acting. cancel or move only confirmed events; never move onto a day with another event; else refuse.",
  owner: {
    noun: "person",
    findTool: "find_person",
    keyField: "name",
    idKey: "person_id",
    idPrefix: "p",
    keys: NAMES.map(capitalised),
  },
  item: {
    noun: "event",
    plural: "events",
    listTool: "list_events",
    getTool: "get_event",
    idKey: "event_id",
    idPrefix: "e",
    statuses: ["confirmed", "past", "cancelled"],
    initialStatuses: ["confirmed", "confirmed", "past", "cancelled"],
    detailField: "day",
    detailValues: DAYS,
    detailDistinctPerOwner: true,
    detailTemplates: ["what day is event {id}?", "when is event {id}?"],
    detailReply: "event {id} is on {value}.",
  },
  actions: [{ tool: "cancel_event", verb: "cancel", from: ["confirmed"], to: "cancelled" }],
  specials: [MOVE],
};
