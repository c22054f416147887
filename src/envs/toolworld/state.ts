import { ITEM_COUNT, OWNER_COUNT, ids } from "./pools.js";
import { createRng } from "./rng.js";
import type { DomainSpec, Item, Owner, ToolworldState } from "./types.js";

/** Owners per world and items per owner: small worlds keep tool results and lists short. */
export const OWNERS_PER_WORLD = 3;
export const MAX_ITEMS_PER_OWNER = 2;

/** The initial state of one world: a pure function of (domain, state seed). */
export function buildState(d: DomainSpec, stateSeed: number): ToolworldState {
  const rng = createRng(stateSeed);
  const ownerIds = rng.sample(ids(d.owner.idPrefix, OWNER_COUNT), OWNERS_PER_WORLD);
  const keys = rng.sample(d.owner.keys, OWNERS_PER_WORLD);
  const itemCounts = ownerIds.map(() => 1 + rng.int(MAX_ITEMS_PER_OWNER));
  const itemIds = rng.sample(
    ids(d.item.idPrefix, ITEM_COUNT),
    itemCounts.reduce((a, b) => a + b, 0),
  );
  const owners: Record<string, Owner> = {};
  const items: Record<string, Item> = {};
  let next = 0;
  ownerIds.forEach((ownerId, i) => {
    const mine = itemIds.slice(next, next + (itemCounts[i] ?? 1));
    next += mine.length;
    owners[ownerId] = { key: keys[i] as string, items: mine };
    const details = d.item.detailDistinctPerOwner
      ? rng.sample(d.item.detailValues, mine.length)
      : mine.map(() => rng.pick(d.item.detailValues));
    mine.forEach((itemId, j) => {
      items[itemId] = {
        owner: ownerId,
        status: rng.pick(d.item.initialStatuses),
        detail: details[j] as string | number,
      };
    });
  });
  return { domain: d.name, owners, items };
}
