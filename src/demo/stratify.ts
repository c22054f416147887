import type { Rule, Task } from "../core/task.js";

/**
 * A task's situation, read from its checklist alone: per user turn, the calls it requires, the
 * calls it forbids, and how many facts a reply must state. Listing, refusing, writing and looking up
 * are different situations; two tasks of one situation differ only in their entities and values.
 */
export function situationOf(task: Task): string {
  const turns = task.checklists[0] ?? [];
  return turns
    .map((standards) => [...new Set(standards.map((s) => ruleShape(s.rule)))].sort().join(","))
    .join(" | ");
}

function ruleShape(rule: Rule | undefined): string {
  if (!rule) return "judged";
  if ("call" in rule) return `call:${rule.call}`;
  if ("forbid" in rule) return `forbid:${rule.forbid}${rule.args ? "(args)" : ""}`;
  return `reply:${rule.reply_contains.length}`;
}

/**
 * `n` tasks of `pool` whose situations follow `reference`'s mix (issue 11), in pool order. Each
 * situation the pool has gets its share of `n` by largest remainders; a situation the pool has
 * fewer tasks of than its share gives them all, and the places it leaves are shared out over the
 * others by the same mix (situations the pool lacks are left out of it: the split by request can
 * put every request of a rare situation on the training side). Under v10 the env-less set's share
 * of the two habit situations (refusing, listing) varied 34–54% by seed around the training logs'
 * 42–46%, and SFT success followed it (r = −0.81): the set measured the draw as much as the model.
 */
export function stratifiedPick(pool: readonly Task[], reference: readonly Task[], n: number): Task[] {
  if (n >= pool.length) return [...pool];
  const bySituation = new Map<string, Task[]>();
  for (const t of pool) {
    const s = situationOf(t);
    const group = bySituation.get(s);
    if (group) group.push(t);
    else bySituation.set(s, [t]);
  }
  const weight = new Map<string, number>();
  for (const s of reference.map(situationOf)) if (bySituation.has(s)) weight.set(s, (weight.get(s) ?? 0) + 1);
  // A situation of the pool that the reference never shows still fills places nothing else can.
  for (const s of bySituation.keys()) if (!weight.has(s)) weight.set(s, 0);
  const quota = new Map<string, number>();
  let open = [...weight.keys()];
  let left = n;
  // Situations whose share exceeds what the pool has give all they have; repeat over the rest.
  for (;;) {
    const total = open.reduce((a, s) => a + weight.get(s)!, 0);
    const capped = open.filter(
      (s) => total > 0 && (left * weight.get(s)!) / total >= bySituation.get(s)!.length,
    );
    if (capped.length === 0) {
      const exact = open.map((s) => ({ s, x: total > 0 ? (left * weight.get(s)!) / total : 0 }));
      for (const { s, x } of exact) quota.set(s, Math.floor(x));
      let rest = left - exact.reduce((a, { x }) => a + Math.floor(x), 0);
      // Largest remainders (a stable sort: ties in the reference's order), then any room left.
      for (const { s } of [...exact].sort((a, b) => (b.x % 1) - (a.x % 1))) {
        if (rest <= 0) break;
        if (quota.get(s)! < bySituation.get(s)!.length) {
          quota.set(s, quota.get(s)! + 1);
          rest--;
        }
      }
      for (const s of open) {
        const room = Math.min(rest, bySituation.get(s)!.length - quota.get(s)!);
        quota.set(s, quota.get(s)! + room);
        rest -= room;
      }
      break;
    }
    for (const s of capped) {
      quota.set(s, bySituation.get(s)!.length);
      left -= bySituation.get(s)!.length;
    }
    open = open.filter((s) => !capped.includes(s));
  }
  const picked = new Set<Task>();
  for (const [s, tasks] of bySituation) for (const t of tasks.slice(0, quota.get(s) ?? 0)) picked.add(t);
  return pool.filter((t) => picked.has(t));
}
