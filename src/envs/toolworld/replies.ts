import type { ActionSpec, DomainSpec } from "./types.js";

/** The scripted solver's replies: one fixed wording per outcome, so a tiny model sees one pattern. */
export const reply = {
  itemNotFound: (d: DomainSpec, id: string) => `sorry, ${d.item.noun} ${id} was not found.`,
  ownerNotFound: (key: string) => `sorry, ${key} was not found.`,
  status: (d: DomainSpec, id: string, status: string) => `${d.item.noun} ${id} is ${status}.`,
  detail: (d: DomainSpec, id: string, value: string) =>
    d.item.detailReply.replace("{id}", id).replace("{value}", value),
  list: (d: DomainSpec, key: string, itemIds: string[]) =>
    `${key} has ${d.item.plural} ${itemIds.join(", ")}.`,
  done: (d: DomainSpec, id: string, status: string) => `done, ${d.item.noun} ${id} is now ${status}.`,
  refused: (d: DomainSpec, a: ActionSpec, id: string, status: string) =>
    `sorry, ${d.item.noun} ${id} is ${status}, so I cannot ${a.verb} it.`,
  failed: (d: DomainSpec, verb: string, id: string, error: string) =>
    `sorry, I cannot ${verb} ${d.item.noun} ${id}: ${error}.`,
};
