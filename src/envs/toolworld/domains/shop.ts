import { NAMES, NUMBERS, emailOf } from "../pools.js";
import type { DomainSpec } from "../types.js";

/** An online shop: users by email, their orders, cancellations and returns. */
export const SHOP: DomainSpec = {
  name: "shop",
  role: "train",
  system:
    "shop agent. check an order before acting. cancel only pending orders; return only delivered orders; else refuse.",
  owner: {
    noun: "user",
    findTool: "find_user",
    keyField: "email",
    idKey: "user_id",
    idPrefix: "u",
    keys: NAMES.map(emailOf),
  },
  item: {
    noun: "order",
    plural: "orders",
    listTool: "list_orders",
    getTool: "get_order",
    idKey: "order_id",
    idPrefix: "o",
    statuses: ["pending", "shipped", "delivered", "cancelled", "returned"],
    initialStatuses: ["pending", "shipped", "delivered", "cancelled"],
    detailField: "total",
    detailValues: NUMBERS.filter((n) => n >= 10 && n <= 200),
    detailDistinctPerOwner: false,
    detailTemplates: ["how much was order {id}?", "what did order {id} cost?"],
    detailReply: "order {id} cost {value}.",
  },
  actions: [
    { tool: "cancel_order", verb: "cancel", from: ["pending"], to: "cancelled" },
    { tool: "return_order", verb: "return", from: ["delivered"], to: "returned" },
  ],
  specials: [],
};
