import {
  domainSpec,
  ITEM_COUNT,
  OWNER_COUNT,
  TOOLWORLD_DOMAINS,
  type DomainSpec,
} from "../envs/toolworld/index.js";

/**
 * Renamed logs: the SFT acting examples of a share of tasks with the domain's names (tools, key
 * fields, id prefixes, status words) consistently swapped for other names of the same role, as if
 * the same service had been logged under another API's names. Why (issue 11's held-out domain):
 * the tiny word-level model has one token per name and tied embeddings, so a name that is never a
 * target is pushed down at every step (it is a negative of every softmax) and the held-out domain
 * was unreachable by construction; and with fixed names per domain, calling a tool never required
 * reading its name from the prompt's tool index. Renamed logs make every domain's names targets,
 * and the model must take the names from the index and the results in front of it.
 *
 * The pools are every domain's names, the held-out one's included: its *names* appear in training
 * (in the roles they name, inside other domains' tasks); its tasks, requests, policies, checklists
 * and results never do.
 */

interface Surface {
  /** The domain's name for each role (undefined where it has none, e.g. a second action). */
  roles: Record<string, string | undefined>;
  statuses: string[];
  ownerPrefix: string;
  itemPrefix: string;
}

function surfaceOf(d: DomainSpec): Surface {
  const roles = {
    find: d.owner.findTool,
    list: d.item.listTool,
    get: d.item.getTool,
    ownerIdKey: d.owner.idKey,
    itemIdKey: d.item.idKey,
    plural: d.item.plural,
    detail: d.item.detailField,
    // Actions by position: the first action of one domain is renamed to the first of another.
    action0: d.actions[0]?.tool,
    action1: d.actions[1]?.tool,
  };
  return {
    roles,
    statuses: [...d.item.statuses],
    ownerPrefix: d.owner.idPrefix,
    itemPrefix: d.item.idPrefix,
  };
}

const SURFACES = new Map(TOOLWORLD_DOMAINS.map((name) => [name, surfaceOf(domainSpec(name))]));

function pick<T>(pool: readonly T[], rand: () => number): T {
  return pool[Math.floor(rand() * pool.length)]!;
}

/** A random injective map of `from` into `pool` (names of `pool` drawn without replacement). */
function inject(from: readonly string[], pool: readonly string[], rand: () => number): [string, string][] {
  const left = [...new Set(pool)];
  return from.map((name) => [name, left.splice(Math.floor(rand() * left.length), 1)[0]!]);
}

/**
 * A renaming of `domain`'s names: each role's name becomes the same role's name of a random domain
 * (itself included, so a name may stay); status words an injection into all domains' status words;
 * id prefixes another domain's prefix of the same kind (`u7` → `m7`: every pool has the same count).
 */
export function aliasMap(domain: string, rand: () => number): Map<string, string> {
  const own = SURFACES.get(domain);
  if (!own) throw new Error(`no toolworld domain ${domain}`);
  const all = [...SURFACES.values()];
  // Injective: each role draws from its own pool (no name is in two roles' pools), statuses from
  // theirs without replacement, ids keep their number under a prefix of their own kind.
  const map = new Map<string, string>();
  for (const [role, name] of Object.entries(own.roles)) {
    if (!name) continue;
    const pool = all.map((s) => s.roles[role]).filter((n): n is string => n !== undefined);
    map.set(name, pick(pool, rand));
  }
  for (const [from, to] of inject(
    own.statuses,
    all.flatMap((s) => s.statuses),
    rand,
  ))
    map.set(from, to);
  const ownerPrefix = pick(
    all.map((s) => s.ownerPrefix),
    rand,
  );
  const itemPrefix = pick(
    all.map((s) => s.itemPrefix),
    rand,
  );
  for (let i = 1; i <= OWNER_COUNT; i++) map.set(`${own.ownerPrefix}${i}`, `${ownerPrefix}${i}`);
  for (let i = 1; i <= ITEM_COUNT; i++) map.set(`${own.itemPrefix}${i}`, `${itemPrefix}${i}`);
  for (const [from, to] of [...map]) if (from === to) map.delete(from);
  return map;
}

/**
 * `value` with every whole name in `map` replaced, in one pass (so swaps stay swaps), in every
 * string and object key: prompts, tool schemas, calls, argument names and values, results and
 * replies alike. A name matches only as a whole word (`u3` not inside `u31`, `order_id` not inside
 * `to_order_id`). Apply it to what was logged (runs, prompts, tools) *before* fixed scaffolding such
 * as the rehearsal note's wording is added around it: scaffolding is prose, not names, and a status
 * word in it ("returned") must not be renamed.
 */
export function renameNames<T>(value: T, map: ReadonlyMap<string, string>): T {
  if (map.size === 0) return value;
  const names = [...map.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
  const re = new RegExp(`(?<![A-Za-z0-9_])(?:${names.join("|")})(?![A-Za-z0-9_])`, "g");
  const rename = (s: string) => s.replace(re, (name) => map.get(name) ?? name);
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return rename(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === "object")
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [rename(k), walk(x)]));
    return v;
  };
  return walk(value) as T;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
