import { NAMES, NUMBERS, emailOf } from "../pools.js";
import type { Rng } from "../rng.js";
import { forbidOtherTargets, forbidOthers, mustCall, mustNotCall, replyContains } from "../standards.js";
import { confirmed } from "../execute.js";
import { objectSchema } from "../tools.js";
import type { DomainSpec, Outcome, SpecialSpec, ToolworldState } from "../types.js";

const AMOUNTS = NUMBERS.filter((n) => n >= 10 && n <= 100);

/** `transfer`: from an open account with enough balance to another open account. */
const TRANSFER: SpecialSpec = {
  name: "transfer",
  result: "sent",
  tool: {
    name: "transfer",
    description: "send an amount from one account to another",
    parameters: objectSchema({
      account_id: { type: "string" },
      to_account_id: { type: "string" },
      amount: { type: "integer", minimum: 1 },
    }),
  },
  execute(state: ToolworldState, args: Record<string, unknown>): Outcome {
    const fromId = String(args.account_id);
    const toId = String(args.to_account_id);
    const amount = Number(args.amount);
    const from = state.items[fromId];
    const to = state.items[toId];
    if (!from) return { ok: false, error: `account ${fromId} not found` };
    if (!to) return { ok: false, error: `account ${toId} not found` };
    if (fromId === toId) return { ok: false, error: `account ${fromId} cannot send to itself` };
    if (from.status !== "open") return { ok: false, error: `account ${fromId} is ${from.status}` };
    if (to.status !== "open") return { ok: false, error: `account ${toId} is ${to.status}` };
    if (Number(from.detail) < amount)
      return { ok: false, error: `account ${fromId} has only ${String(from.detail)}` };
    from.detail = Number(from.detail) - amount;
    to.detail = Number(to.detail) + amount;
    return confirmed(TRANSFER); // not the new balance: the reply states the amount sent
  },
  templates: [
    "send {amount} from account {id} to account {to}.",
    "transfer {amount} from account {id} to account {to}.",
    "please move {amount} from account {id} to account {to}.",
  ],
  plan(state: ToolworldState, rng: Rng, d: DomainSpec) {
    const all = Object.keys(state.items).sort();
    const roll = rng.next();
    const open = all.filter((i) => state.items[i]?.status === "open");
    // ok: an open account with at least 10; short: an open account below 100; blocked: not open.
    const pool =
      roll < 0.6
        ? open.filter((i) => Number(state.items[i]?.detail) >= 10)
        : roll < 0.8
          ? open.filter((i) => Number(state.items[i]?.detail) < 100)
          : all.filter((i) => state.items[i]?.status !== "open");
    if (pool.length === 0) return undefined;
    const id = rng.pick(pool);
    const targets = open.filter((i) => i !== id);
    if (targets.length === 0) return undefined;
    const to = rng.pick(targets);
    const from = state.items[id];
    if (!from) return undefined;
    const balance = Number(from.detail);
    const amounts = roll < 0.6 ? AMOUNTS.filter((a) => a <= balance) : AMOUNTS.filter((a) => a > balance);
    const amount = roll >= 0.8 ? rng.pick(AMOUNTS) : rng.pick(amounts);
    const check = mustCall(d.item.getTool, { account_id: id });
    const others = forbidOthers(["freeze_account"], []);
    const slots = { id, to, amount: String(amount) };
    // Contradicting facts: another status; another amount than the balance or the amount sent.
    const statuses = d.item.statuses;
    const otherNumbers = (fact: number) => NUMBERS.filter((n) => n !== fact && n !== amount).map(String);
    if (from.status !== "open") {
      return {
        slots,
        standards: [
          check,
          mustNotCall("transfer"),
          replyContains(["cannot", from.status], statuses),
          ...others,
        ],
      };
    }
    if (amount > balance) {
      return {
        slots,
        standards: [
          check,
          mustNotCall("transfer"),
          replyContains(["cannot", String(balance)], otherNumbers(balance)),
          ...others,
        ],
      };
    }
    return {
      slots,
      standards: [
        check,
        mustCall("transfer", { account_id: id, to_account_id: to, amount }),
        replyContains([String(amount)], otherNumbers(amount)),
        ...others,
        ...forbidOtherTargets(
          "transfer",
          "account_id",
          all.filter((i) => i !== id),
        ),
      ],
    };
  },
  solve(slots, ctx) {
    const id = slots.id ?? "";
    const to = slots.to ?? "";
    const amount = Number(slots.amount);
    const r = ctx.call("get_account", { account_id: id });
    if (!r.ok) return `sorry, account ${id} was not found.`;
    const status = String(r.value.status);
    const balance = Number(r.value.balance);
    ctx.known.set(id, status);
    if (status !== "open") return `sorry, account ${id} is ${status}, so I cannot send money.`;
    if (balance < amount) return `sorry, account ${id} has only ${balance}, so I cannot send ${amount}.`;
    const w = ctx.call("transfer", { account_id: id, to_account_id: to, amount });
    if (!w.ok) return `sorry, I cannot send ${amount}: ${w.error}.`;
    return `done, sent ${amount} to ${to}.`;
  },
};

/** A bank: customers by email, their accounts, freezing and transfers. */
export const BANK: DomainSpec = {
  name: "bank",
  role: "train",
  system:
    "bank agent. check an account before acting. freeze only open accounts; send money only from an open account with enough balance; else refuse.",
  owner: {
    noun: "customer",
    findTool: "find_customer",
    keyField: "email",
    idKey: "customer_id",
    idPrefix: "c",
    keys: NAMES.map(emailOf),
  },
  item: {
    noun: "account",
    plural: "accounts",
    listTool: "list_accounts",
    getTool: "get_account",
    idKey: "account_id",
    idPrefix: "a",
    statuses: ["open", "frozen", "closed"],
    initialStatuses: ["open", "open", "frozen", "closed"],
    detailField: "balance",
    detailValues: NUMBERS.filter((n) => n <= 150),
    detailDistinctPerOwner: false,
    detailTemplates: ["what is the balance of account {id}?", "how much money is in account {id}?"],
    detailReply: "account {id} has {value}.",
  },
  actions: [{ tool: "freeze_account", verb: "freeze", from: ["open"], to: "frozen" }],
  specials: [TRANSFER],
};
