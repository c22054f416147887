import { describe, expect, it } from "vitest";
import { resultToString } from "../../../src/envs/tau2/index.js";
import { domain, hasData } from "./helpers.js";
import { callOk, expectRefusal } from "./refusal.js";

// Real records of the retail DB.
const PENDING_GC = "#W6779827"; // ethan_lopez_6291, paid 4079.45 by gift_card_7219486 (balance 49.0)
const DELIVERED = "#W3113816"; // emma_santos_9753, paid by credit_card_5869505; gift_card_6023546 holds 36.0
const PROCESSED = "#W2611340";
const env = () => domain("retail").createEnv();
type Order = Record<string, unknown> & {
  payment_history: { amount: number; payment_method_id: string; transaction_type: string }[];
};

describe.skipIf(!hasData)("retail tools", () => {
  it("cancel_pending_order refunds a gift card at once and records the refund", () => {
    const e = env();
    const order = callOk(e, "cancel_pending_order", {
      order_id: PENDING_GC,
      reason: "no longer needed",
    }) as Order;
    expect(order.status).toBe("cancelled");
    expect(order.cancel_reason).toBe("no longer needed");
    expect(order.payment_history.at(-1)).toEqual({
      transaction_type: "refund",
      amount: 4079.45,
      payment_method_id: "gift_card_7219486",
    });
    const user = callOk(e, "get_user_details", { user_id: "ethan_lopez_6291" }) as {
      payment_methods: Record<string, { balance?: number }>;
    };
    expect(user.payment_methods.gift_card_7219486!.balance).toBe(4128.45); // round(49.0 + 4079.45, 2)
  });

  it("cancel_pending_order refusals leave the DB unchanged", () => {
    const e = env();
    expectRefusal(
      e,
      "cancel_pending_order",
      { order_id: "#W0000000", reason: "no longer needed" },
      "Order not found",
    );
    expectRefusal(
      e,
      "cancel_pending_order",
      { order_id: DELIVERED, reason: "no longer needed" },
      "Non-pending order cannot be cancelled",
    );
    expectRefusal(
      e,
      "cancel_pending_order",
      { order_id: PENDING_GC, reason: "too expensive" },
      "Invalid reason",
    );
    expectRefusal(
      e,
      "cancel_pending_order",
      { order_id: PENDING_GC, reason: ["x"] },
      "unhashable type: 'list'",
    );
  });

  it("modify_pending_order_payment refuses a same or unknown method and non-pending orders", () => {
    const e = env();
    expectRefusal(
      e,
      "modify_pending_order_payment",
      { order_id: PENDING_GC, payment_method_id: "gift_card_7219486" },
      "The new payment method should be different from the current one",
    );
    expectRefusal(
      e,
      "modify_pending_order_payment",
      { order_id: PENDING_GC, payment_method_id: "paypal_1" },
      "Payment method not found",
    );
    expectRefusal(
      e,
      "modify_pending_order_payment",
      { order_id: DELIVERED, payment_method_id: "gift_card_6023546" },
      "Non-pending order cannot be modified",
    );
    const order = callOk(e, "modify_pending_order_payment", {
      order_id: PENDING_GC,
      payment_method_id: "credit_card_9789590",
    }) as Order;
    expect(order.payment_history.map((p) => p.transaction_type)).toEqual(["payment", "payment", "refund"]);
    // the old gift card gets the amount back
    const user = callOk(e, "get_user_details", { user_id: "ethan_lopez_6291" }) as {
      payment_methods: Record<string, { balance?: number }>;
    };
    expect(user.payment_methods.gift_card_7219486!.balance).toBe(4128.45);
    expectRefusal(
      e,
      "modify_pending_order_payment",
      { order_id: PENDING_GC, payment_method_id: "gift_card_7219486" },
      "There should be exactly one payment for a pending order",
    );
  });

  it("modify_pending_order_items: refusals, then the upstream pricing quirk", () => {
    const e = env();
    const base = { order_id: PENDING_GC, payment_method_id: "credit_card_9789590" };
    expectRefusal(
      e,
      "modify_pending_order_items",
      { ...base, item_ids: ["7896397433"], new_item_ids: ["7896397433"] },
      "The new item id should be different from the old item id",
    );
    expectRefusal(
      e,
      "modify_pending_order_items",
      { ...base, item_ids: ["1"], new_item_ids: ["2"] },
      "1 not found",
    );
    expectRefusal(
      e,
      "modify_pending_order_items",
      { ...base, item_ids: ["7896397433"], new_item_ids: [] },
      "The number of items to be exchanged should match",
    );
    expectRefusal(
      e,
      "modify_pending_order_items",
      { ...base, item_ids: ["7896397433"], new_item_ids: ["8140269513"] },
      "New item 8140269513 not found or available",
    );
    expectRefusal(
      e,
      "modify_pending_order_items",
      { ...base, item_ids: ["7896397433"], new_item_ids: ["999"] },
      "Variant not found",
    );
    expectRefusal(
      e,
      "modify_pending_order_items",
      {
        ...base,
        payment_method_id: "gift_card_7219486",
        item_ids: ["7896397433"],
        new_item_ids: ["2444431651"],
      },
      "Insufficient gift card balance to pay for the new item",
    );
    const order = callOk(e, "modify_pending_order_items", {
      ...base,
      item_ids: ["7896397433"],
      new_item_ids: ["2444431651"],
    }) as Order & { items: { item_id: string; price: number }[]; status: string };
    expect(order.status).toBe("pending (item modified)");
    expect(order.items[0]).toMatchObject({ item_id: "2444431651", price: 534.84 });
    expect(order.payment_history.at(-1)).toMatchObject({
      transaction_type: "payment",
      payment_method_id: "credit_card_9789590",
    });
    expect(order.payment_history.at(-1)!.amount).toBeCloseTo(534.84 - 457.81, 10);
    expectRefusal(
      e,
      "modify_pending_order_items",
      { ...base, item_ids: ["2444431651"], new_item_ids: ["8068777068"] },
      "Non-pending order cannot be modified",
    );
  });

  it("exchange_delivered_order_items: refusals (gift card balance, status, items) and the change", () => {
    const e = env();
    const base = { order_id: DELIVERED, payment_method_id: "credit_card_5869505" };
    expectRefusal(
      e,
      "exchange_delivered_order_items",
      { ...base, order_id: PENDING_GC, item_ids: [], new_item_ids: [] },
      "Non-delivered order cannot be exchanged",
    );
    expectRefusal(
      e,
      "exchange_delivered_order_items",
      { ...base, item_ids: ["2206116040", "2206116040"], new_item_ids: ["a", "b"] },
      "Number of 2206116040 not found.",
    );
    expectRefusal(
      e,
      "exchange_delivered_order_items",
      { ...base, item_ids: ["2206116040"], new_item_ids: [] },
      "The number of items to be exchanged should match.",
    );
    expectRefusal(
      e,
      "exchange_delivered_order_items",
      { ...base, item_ids: ["2206116040"], new_item_ids: ["1676105083"] },
      "New item 1676105083 not found or available",
    );
    // 2206116040 (209.91) -> 7811981098 (213.86): +3.95, more than nothing but within 36.0; 4422467033 -> 2444431651: +51.37 > 36.0
    expectRefusal(
      e,
      "exchange_delivered_order_items",
      {
        ...base,
        payment_method_id: "gift_card_6023546",
        item_ids: ["4422467033"],
        new_item_ids: ["2444431651"],
      },
      "Insufficient gift card balance to pay for the price difference",
    );
    expectRefusal(
      e,
      "exchange_delivered_order_items",
      { ...base, payment_method_id: "gift_card_0", item_ids: ["4422467033"], new_item_ids: ["2444431651"] },
      "Payment method not found",
    );
    const order = callOk(e, "exchange_delivered_order_items", {
      ...base,
      item_ids: ["4422467033", "2206116040"],
      new_item_ids: ["2444431651", "7811981098"],
    }) as Record<string, unknown>;
    expect(order).toMatchObject({
      status: "exchange requested",
      exchange_items: ["2206116040", "4422467033"],
      exchange_new_items: ["2444431651", "7811981098"],
      exchange_price_difference: 55.32, // round(51.37 + 3.95, 2)
      exchange_payment_method_id: "credit_card_5869505",
    });
  });

  it("return_delivered_order_items: only the original method or a gift card, existing items", () => {
    const e = env();
    expectRefusal(
      e,
      "return_delivered_order_items",
      { order_id: PROCESSED, item_ids: [], payment_method_id: "x" },
      "Non-delivered order cannot be returned",
    );
    expectRefusal(
      e,
      "return_delivered_order_items",
      { order_id: DELIVERED, item_ids: ["2206116040"], payment_method_id: "credit_card_0" },
      "Payment method not found",
    );
    expectRefusal(
      e,
      "return_delivered_order_items",
      { order_id: DELIVERED, item_ids: ["1"], payment_method_id: "gift_card_6023546" },
      "Some item not found",
    );
    const order = callOk(e, "return_delivered_order_items", {
      order_id: DELIVERED,
      item_ids: ["6243148452", "2206116040"],
      payment_method_id: "gift_card_6023546",
    }) as Record<string, unknown>;
    expect(order).toMatchObject({
      status: "return requested",
      return_items: ["2206116040", "6243148452"],
      return_payment_method_id: "gift_card_6023546",
    });
  });

  it("address changes validate like pydantic and refuse non-pending orders", () => {
    const e = env();
    const addr = {
      address1: "1 Main St",
      address2: "",
      city: "Austin",
      state: "TX",
      country: "USA",
      zip: "78701",
    };
    expectRefusal(
      e,
      "modify_pending_order_address",
      { order_id: DELIVERED, ...addr },
      "Non-pending order cannot be modified",
    );
    const r = e.callSync({
      name: "modify_user_address",
      arguments: { user_id: "ethan_lopez_6291", ...addr, zip: 78701 },
    });
    expect(resultToString(r)).toMatch(
      /^Error: 1 validation error for UserAddress\nzip\n {2}Input should be a valid string \[type=string_type, input_value=78701, input_type=int\]/,
    );
    expectRefusal(e, "modify_user_address", { user_id: "nobody", ...addr }, "User not found");
    const user = callOk(e, "modify_user_address", { user_id: "ethan_lopez_6291", ...addr }) as {
      address: Record<string, string>;
    };
    expect(Object.keys(user.address)).toEqual(["address1", "address2", "city", "country", "state", "zip"]);
  });

  it("lookups keep DB order, never coerce ids, and report Python errors", () => {
    const e = env();
    expect(
      resultToString(e.callSync({ name: "get_product_details", arguments: { product_id: 7233192239 } })),
    ).toBe("Error: Product not found");
    expect(resultToString(e.callSync({ name: "find_user_id_by_email", arguments: { email: 5 } }))).toBe(
      "Error: 'int' object has no attribute 'lower'",
    );
    expect(resultToString(e.callSync({ name: "get_order_details", arguments: {} }))).toBe(
      "Error: RetailTools.get_order_details() missing 1 required positional argument: 'order_id'",
    );
    expect(
      resultToString(e.callSync({ name: "get_order_details", arguments: { order_id: PROCESSED, x: 1 } })),
    ).toBe("Error: RetailTools.get_order_details() got an unexpected keyword argument 'x'");
    const unknown = e.callSync({ name: "delete_everything", arguments: {} });
    expect(unknown.ok ? "" : unknown.error.code).toBe("TOOL_NOT_AVAILABLE");
    expect(resultToString(unknown)).toBe("Error: Tool 'delete_everything' not found.");
    const item = callOk(e, "get_item_details", { item_id: "2444431651" });
    expect(item).toMatchObject({ item_id: "2444431651", price: 534.84 });
    // integral floats print as Python floats
    const content = e.callSync({ name: "get_user_details", arguments: { user_id: "ethan_lopez_6291" } });
    expect(content.ok && content.content).toContain('"balance": 49.0');
  });

  it("calculate follows Python arithmetic and rounding", () => {
    const e = env();
    const calc = (expression: unknown) =>
      resultToString(e.callSync({ name: "calculate", arguments: { expression } }));
    expect(calc("2 + 2")).toBe("4.0");
    expect(calc("10 / 4")).toBe("2.5");
    expect(calc("0.125 * 1")).toBe("0.12");
    expect(calc("2 ** 10")).toBe("1024.0");
    expect(calc("-2 ** 2")).toBe("-4.0");
    expect(calc("7 // 2")).toBe("3.0");
    expect(calc("1 / 0")).toBe("Error: division by zero");
    expect(calc("import os")).toBe("Error: Invalid characters in expression");
    expect(calc("(1 + 2")).toMatch(/^Error: '\(' was never closed/);
  });
});
