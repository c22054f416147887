import { DAYS, NAMES, emailOf } from "../pools.js";
import type { DomainSpec } from "../types.js";

/** Held out from training: a library with members by email, loans, renewals and returns. */
export const LIBRARY: DomainSpec = {
  name: "library",
  role: "heldout",
  system:
    "library agent. check a loan before acting. renew only active loans; return only active, renewed or overdue loans; else refuse.",
  owner: {
    noun: "member",
    findTool: "find_member",
    keyField: "email",
    idKey: "member_id",
    idPrefix: "m",
    keys: NAMES.map(emailOf),
  },
  item: {
    noun: "loan",
    plural: "loans",
    listTool: "list_loans",
    getTool: "get_loan",
    idKey: "loan_id",
    idPrefix: "l",
    statuses: ["active", "renewed", "overdue", "returned"],
    initialStatuses: ["active", "renewed", "overdue", "returned"],
    detailField: "due",
    detailValues: DAYS,
    detailDistinctPerOwner: false,
    detailTemplates: ["when is loan {id} due?", "what day is loan {id} due?"],
    detailReply: "loan {id} is due on {value}.",
  },
  actions: [
    { tool: "renew_loan", verb: "renew", from: ["active"], to: "renewed" },
    { tool: "return_loan", verb: "return", from: ["active", "renewed", "overdue"], to: "returned" },
  ],
  specials: [],
};
