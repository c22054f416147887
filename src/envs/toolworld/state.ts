import { ITEM_COUNT, OWNER_COUNT, ids } from "./pools.js";
import { createRng, seedOf } from "./rng.js";
import type { DomainSpec, Item, Owner, ToolworldState } from "./types.js";

/**
 * A newer snapshot of a world (the demo's drift experiment): the same owners and items, and each
 * item's status, with probability `share`, moved to another of the domain's initial statuses, as
 * orders ship and accounts freeze between the logs a team has and the tasks it trains on.
 */
export interface WorldDrift {
  /** Which items move, and where: the same seed and share give the same snapshot. */
  seed: number;
  /** Probability in [0, 1] that an item's status moves. */
  share: number;
}

/** Owners per world and items per owner: small worlds keep tool results and lists short. */
export const OWNERS_PER_WORLD = 3;
export const MAX_ITEMS_PER_OWNER = 2;

/** The initial state of one world: a pure function of (domain, state seed, drift). */
export function buildState(d: DomainSpec, stateSeed: number, drift?: WorldDrift): ToolworldState {
  const state = baseState(d, stateSeed);
  return drift ? driftedState(d, state, stateSeed, drift) : state;
}

/**
 * `state` with each item's status, with probability `drift.share`, replaced by another status of
 * the domain (never the same one: a moved item always reads differently). The draw visits items in
 * id order, so which items move depends on the world and the drift alone; the items keep their order.
 */
function driftedState(
  d: DomainSpec,
  state: ToolworldState,
  stateSeed: number,
  drift: WorldDrift,
): ToolworldState {
  const rng = createRng(seedOf(d.name, "drift", stateSeed, drift.seed));
  const statuses = [...new Set(d.item.initialStatuses)];
  const moved = new Map<string, string>();
  for (const id of Object.keys(state.items).sort()) {
    const others = statuses.filter((s) => s !== state.items[id]!.status);
    const moves = rng.next() < drift.share;
    if (moves && others.length > 0) moved.set(id, rng.pick(others));
  }
  const items: Record<string, Item> = {};
  for (const [id, item] of Object.entries(state.items)) {
    const status = moved.get(id);
    items[id] = status === undefined ? item : { ...item, status };
  }
  return { ...state, items };
}

function baseState(d: DomainSpec, stateSeed: number): ToolworldState {
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
