/** The retail domain (upstream `tau2/domains/retail/tools.py`), same tools, messages and mutations. */
import type { Tau2DomainSpec, Tau2State } from "../environment.js";
import { calculate } from "../py-calc.js";
import { pyJsonDumps } from "../py-json.js";
import { pyRound } from "../py-round.js";
import {
  PyError,
  pyIn,
  pySortedStrings,
  pyStr,
  requireList,
  requireStrMethod,
  typeError,
  valueError,
} from "../py-errors.js";
import { pyConstruct, pyDump } from "../py-model.js";
import { type Args, type ParamSpec, S, transferTool, type Toolkit, type ToolDef } from "../toolkit.js";
import {
  Order,
  OrderPayment,
  Product,
  RetailDBType,
  type ROrder,
  type ROrderPayment,
  type RPaymentMethod,
  type RProduct,
  type RUser,
  type RVariant,
  User,
  UserAddress,
  Variant,
} from "./retail-model.js";

const products = (s: Tau2State) => s.db.products as Map<string, RProduct>;
const users = (s: Tau2State) => s.db.users as Map<string, RUser>;
const orders = (s: Tau2State) => s.db.orders as Map<string, ROrder>;

function getOrder(s: Tau2State, orderId: unknown): ROrder {
  if (!pyIn(orders(s), orderId)) throw valueError("Order not found");
  return orders(s).get(orderId as string)!;
}
function getUser(s: Tau2State, userId: unknown): RUser {
  if (!pyIn(users(s), userId)) throw valueError("User not found");
  return users(s).get(userId as string)!;
}
function getProduct(s: Tau2State, productId: unknown): RProduct {
  if (!pyIn(products(s), productId)) throw valueError("Product not found");
  return products(s).get(productId as string)!;
}
function getItem(s: Tau2State, itemId: unknown): RVariant {
  for (const product of products(s).values()) {
    if (pyIn(product.variants, itemId)) return product.variants.get(itemId as string)!;
  }
  throw valueError("Item not found");
}
function getVariant(s: Tau2State, productId: unknown, variantId: unknown): RVariant {
  const product = getProduct(s, productId);
  if (!pyIn(product.variants, variantId)) throw valueError("Variant not found");
  return product.variants.get(variantId as string)!;
}
function getPaymentMethod(s: Tau2State, userId: unknown, paymentMethodId: unknown): RPaymentMethod {
  const user = getUser(s, userId);
  if (!pyIn(user.payment_methods, paymentMethodId)) throw valueError("Payment method not found");
  return user.payment_methods.get(paymentMethodId as string)!;
}
const isGiftCard = (pm: RPaymentMethod) => pm.source === "gift_card";
const count = (list: unknown[], x: unknown) => list.filter((y) => y === x).length;
/** Gift-card balances are Python floats; bigint marks a Python int (see exchange). */
const num = (x: unknown) => (typeof x === "bigint" ? Number(x) : (x as number));

const ORDER_ID =
  "The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.";
const USER_ID = "The user id, such as 'sara_doe_496'.";
const PM_ID =
  "The payment method id to pay or receive refund for the item price difference, such as 'gift_card_0000000' or 'credit_card_0000000'. These can be looked up from the user or order details.";
const p = (name: string, description: string, schema = S.str): ParamSpec => ({ name, description, schema });
const addressParams: ParamSpec[] = [
  p("address1", "The first line of the address, such as '123 Main St'."),
  p("address2", "The second line of the address, such as 'Apt 1' or ''."),
  p("city", "The city, such as 'San Francisco'."),
  p("state", "The state, such as 'CA'."),
  p("country", "The country, such as 'USA'."),
  p("zip", "The zip code, such as '12345'."),
];
const newAddress = (a: Args) =>
  pyConstruct(UserAddress, {
    address1: a.address1,
    address2: a.address2,
    city: a.city,
    state: a.state,
    country: a.country,
    zip: a.zip,
  });

const dumpOrder = (o: ROrder) => pyDump(o, Order);

const tools: ToolDef<Tau2State>[] = [
  {
    name: "calculate",
    description: "Calculate the result of a mathematical expression.",
    params: [
      p(
        "expression",
        "The mathematical expression to calculate, such as '2 + 2'. The expression can contain numbers, operators (+, -, *, /), parentheses, and spaces.",
      ),
    ],
    mutates: false,
    run: (_s, a) => calculate(a.expression),
  },
  {
    name: "cancel_pending_order",
    description:
      "Cancel a pending order. If the order is already processed or delivered,\n\nit cannot be cancelled. The agent needs to explain the cancellation detail\nand ask for explicit user confirmation (yes/no) to proceed. If the user confirms,\nthe order status will be changed to 'cancelled' and the payment will be refunded.\nThe refund will be added to the user's gift card balance immediately if the payment\nwas made using a gift card, otherwise the refund would take 5-7 business days to process.\nThe function returns the order details after the cancellation.",
    params: [
      p("order_id", ORDER_ID),
      p(
        "reason",
        "The reason for cancellation, which should be either 'no longer needed' or 'ordered by mistake'.",
      ),
    ],
    mutates: true,
    run: (s, a) => {
      const order = getOrder(s, a.order_id);
      if (order.status !== "pending") throw valueError("Non-pending order cannot be cancelled");
      if (Array.isArray(a.reason)) throw typeError("unhashable type: 'list'");
      if (a.reason !== null && typeof a.reason === "object") throw typeError("unhashable type: 'dict'");
      if (a.reason !== "no longer needed" && a.reason !== "ordered by mistake")
        throw valueError("Invalid reason");
      // Look everything up first (upstream refunds gift cards inside this loop, so a later missing
      // payment method would leave an earlier refund applied); then apply.
      const refunds: ROrderPayment[] = [];
      const giftCardRefunds: [RPaymentMethod, number][] = [];
      for (const payment of order.payment_history) {
        refunds.push(
          pyConstruct<ROrderPayment>(OrderPayment, {
            transaction_type: "refund",
            amount: payment.amount,
            payment_method_id: payment.payment_method_id,
          }),
        );
        const user = getUser(s, order.user_id);
        const pm = getPaymentMethod(s, user.user_id, payment.payment_method_id);
        if (isGiftCard(pm)) giftCardRefunds.push([pm, payment.amount]);
      }
      for (const [pm, amount] of giftCardRefunds) pm.balance = pyRound(num(pm.balance) + amount, 2);
      order.status = "cancelled";
      order.cancel_reason = a.reason;
      order.payment_history.push(...refunds);
      return dumpOrder(order);
    },
  },
  {
    name: "exchange_delivered_order_items",
    description:
      "Exchange items in a delivered order to new items of the same product type.\n\nFor a delivered order, return or exchange can be only done once by the agent.\nThe agent needs to explain the exchange detail and ask for explicit user confirmation (yes/no) to proceed.",
    params: [
      p("order_id", ORDER_ID),
      p(
        "item_ids",
        "The item ids to be exchanged, each such as '1008292230'. There could be duplicate items in the list.",
        S.strList,
      ),
      p(
        "new_item_ids",
        "The item ids to be exchanged for, each such as '1008292230'.\nThere could be duplicate items in the list. Each new item id should match the item id\nin the same position and be of the same product.",
        S.strList,
      ),
      p(
        "payment_method_id",
        "The payment method id to pay or receive refund for the item price difference,\nsuch as 'gift_card_0000000' or 'credit_card_0000000'. These can be looked up\nfrom the user or order details.",
      ),
    ],
    mutates: true,
    run: (s, a) => {
      const order = getOrder(s, a.order_id);
      if (order.status !== "delivered") throw valueError("Non-delivered order cannot be exchanged");
      const itemIds = requireList(a.item_ids);
      const allItemIds = order.items.map((i) => i.item_id);
      for (const id of itemIds) {
        if (count(itemIds, id) > count(allItemIds, id)) throw valueError(`Number of ${pyStr(id)} not found.`);
      }
      const newItemIds = requireList(a.new_item_ids, "__len__");
      if (itemIds.length !== newItemIds.length)
        throw valueError("The number of items to be exchanged should match.");
      // Upstream starts from the int 0: with no items the difference stays a Python int (bigint here).
      let diff: number | bigint = 0n;
      itemIds.forEach((id, k) => {
        const item = order.items.find((i) => i.item_id === id);
        if (!item) throw valueError(`Item ${pyStr(id)} not found`);
        const variant = getVariant(s, item.product_id, newItemIds[k]);
        if (!variant.available) throw valueError(`New item ${pyStr(newItemIds[k])} not found or available`);
        diff = num(diff) + (variant.price - item.price);
      });
      const diffPrice = typeof diff === "bigint" ? diff : pyRound(diff, 2);
      const pm = getPaymentMethod(s, order.user_id, a.payment_method_id);
      if (isGiftCard(pm) && num(pm.balance) < num(diffPrice)) {
        throw valueError("Insufficient gift card balance to pay for the price difference");
      }
      const sortedItems = pySortedStrings(itemIds);
      const sortedNewItems = pySortedStrings(newItemIds);
      order.status = "exchange requested";
      order.exchange_items = sortedItems;
      order.exchange_new_items = sortedNewItems;
      order.exchange_payment_method_id = a.payment_method_id;
      order.exchange_price_difference = diffPrice;
      return dumpOrder(order);
    },
  },
  {
    name: "find_user_id_by_name_zip",
    description:
      "Find user id by first name, last name, and zip code. If the user is not found, the function\n\nwill return an error message. By default, find user id by email, and only call this function\nif the user is not found by email or cannot remember email.",
    params: [
      p("first_name", "The first name of the customer, such as 'John'."),
      p("last_name", "The last name of the customer, such as 'Doe'."),
      p("zip", "The zip code of the customer, such as '12345'."),
    ],
    mutates: false,
    run: (s, a) => {
      for (const [userId, user] of users(s)) {
        // Evaluated lazily, in upstream's order: a bad last_name only fails once a first name matches.
        if (
          user.name.first_name.toLowerCase() === requireStrMethod(a.first_name, "lower").toLowerCase() &&
          user.name.last_name.toLowerCase() === requireStrMethod(a.last_name, "lower").toLowerCase() &&
          user.address.zip === a.zip
        ) {
          return userId;
        }
      }
      throw valueError("User not found");
    },
  },
  {
    name: "find_user_id_by_email",
    description:
      "Find user id by email. If the user is not found, the function will return an error message.",
    params: [p("email", "The email of the user, such as 'something@example.com'.")],
    mutates: false,
    run: (s, a) => {
      for (const [userId, user] of users(s)) {
        if (user.email.toLowerCase() === requireStrMethod(a.email, "lower").toLowerCase()) return userId;
      }
      throw valueError("User not found");
    },
  },
  {
    name: "get_order_details",
    description: "Get the status and details of an order.",
    params: [p("order_id", ORDER_ID)],
    mutates: false,
    run: (s, a) => dumpOrder(getOrder(s, a.order_id)),
  },
  {
    name: "get_product_details",
    description: "Get the inventory details of a product.",
    params: [
      p(
        "product_id",
        "The product id, such as '6086499569'. Be careful the product id is different from the item id.",
      ),
    ],
    mutates: false,
    run: (s, a) => pyDump(getProduct(s, a.product_id), Product),
  },
  {
    name: "get_item_details",
    description: "Get the inventory details of an item.",
    params: [
      p(
        "item_id",
        "The item id, such as '6086499569'. Be careful the item id is different from the product id.",
      ),
    ],
    mutates: false,
    run: (s, a) => pyDump(getItem(s, a.item_id), Variant),
  },
  {
    name: "get_user_details",
    description: "Get the details of a user, including their orders.",
    params: [p("user_id", USER_ID)],
    mutates: false,
    run: (s, a) => pyDump(getUser(s, a.user_id), User),
  },
  {
    name: "list_all_product_types",
    description:
      "List the name and product id of all product types.\n\nEach product type has a variety of different items with unique item ids and options.\nThere are only 50 product types in the store.",
    params: [],
    mutates: false,
    run: (s) => {
      const byName = new Map<string, string>();
      for (const product of products(s).values()) byName.set(product.name, product.product_id);
      return pyJsonDumps(byName, { sortKeys: true });
    },
  },
  {
    name: "modify_pending_order_address",
    description:
      "Modify the shipping address of a pending order. The agent needs to explain the modification detail and ask for explicit user confirmation (yes/no) to proceed.",
    params: [p("order_id", ORDER_ID), ...addressParams],
    mutates: true,
    run: (s, a) => {
      const order = getOrder(s, a.order_id);
      if (!order.status.includes("pending")) throw valueError("Non-pending order cannot be modified");
      order.address = newAddress(a);
      return dumpOrder(order);
    },
  },
  {
    name: "modify_pending_order_items",
    description:
      "Modify items in a pending order to new items of the same product type. For a pending order, this function can only be called once. The agent needs to explain the exchange detail and ask for explicit user confirmation (yes/no) to proceed.",
    params: [
      p("order_id", ORDER_ID),
      p(
        "item_ids",
        "The item ids to be modified, each such as '1008292230'. There could be duplicate items in the list.",
        S.strList,
      ),
      p(
        "new_item_ids",
        "The item ids to be modified for, each such as '1008292230'. There could be duplicate items in the list. Each new item id should match the item id in the same position and be of the same product.",
        S.strList,
      ),
      p("payment_method_id", PM_ID),
    ],
    mutates: true,
    run: (s, a) => {
      const order = getOrder(s, a.order_id);
      if (order.status !== "pending") throw valueError("Non-pending order cannot be modified");
      const itemIds = requireList(a.item_ids);
      const allItemIds = order.items.map((i) => i.item_id);
      for (const id of itemIds) {
        if (count(itemIds, id) > count(allItemIds, id)) throw valueError(`${pyStr(id)} not found`);
      }
      const newItemIds = requireList(a.new_item_ids, "__len__");
      if (itemIds.length !== newItemIds.length)
        throw valueError("The number of items to be exchanged should match");
      let diff = 0;
      let variant: RVariant | undefined;
      itemIds.forEach((id, k) => {
        if (id === newItemIds[k])
          throw valueError("The new item id should be different from the old item id");
        const item = order.items.find((i) => i.item_id === id);
        if (!item) throw valueError(`Item ${pyStr(id)} not found`);
        variant = getVariant(s, item.product_id, newItemIds[k]);
        if (!variant.available) throw valueError(`New item ${pyStr(newItemIds[k])} not found or available`);
        diff += variant.price - item.price;
      });
      const pm = getPaymentMethod(s, order.user_id, a.payment_method_id);
      if (isGiftCard(pm) && num(pm.balance) < diff)
        throw valueError("Insufficient gift card balance to pay for the new item");
      order.payment_history.push(
        pyConstruct<ROrderPayment>(OrderPayment, {
          transaction_type: diff > 0 ? "payment" : "refund",
          amount: Math.abs(diff),
          payment_method_id: a.payment_method_id,
        }),
      );
      if (isGiftCard(pm)) pm.balance = pyRound(num(pm.balance) - diff, 2);
      itemIds.forEach((id, k) => {
        const item = order.items.find((i) => i.item_id === id);
        if (!item) throw valueError(`Item ${pyStr(id)} not found`);
        // Upstream quirk kept: every modified item takes the price and options of the *last* new
        // variant looked up above (the loop variable leaks out of the first loop).
        item.item_id = newItemIds[k];
        item.price = variant!.price;
        item.options = variant!.options;
      });
      order.status = "pending (item modified)";
      return dumpOrder(order);
    },
  },
  {
    name: "modify_pending_order_payment",
    description:
      "Modify the payment method of a pending order. The agent needs to explain the modification detail and ask for explicit user confirmation (yes/no) to proceed.",
    params: [p("order_id", ORDER_ID), p("payment_method_id", PM_ID)],
    mutates: true,
    run: (s, a) => {
      const order = getOrder(s, a.order_id);
      if (!order.status.includes("pending")) throw valueError("Non-pending order cannot be modified");
      const pm = getPaymentMethod(s, order.user_id, a.payment_method_id);
      const history = order.payment_history;
      if (history.length !== 1 || history[0]!.transaction_type !== "payment") {
        throw valueError("There should be exactly one payment for a pending order");
      }
      if (history[0]!.payment_method_id === a.payment_method_id) {
        throw valueError("The new payment method should be different from the current one");
      }
      const amount = history[0]!.amount;
      if (isGiftCard(pm) && num(pm.balance) < amount)
        throw valueError("Insufficient gift card balance to pay for the order");
      // Upstream looks the old payment method up after changing the new one; same error, no change.
      const oldPm = getPaymentMethod(s, order.user_id, history[0]!.payment_method_id);
      history.push(
        pyConstruct<ROrderPayment>(OrderPayment, {
          transaction_type: "payment",
          amount,
          payment_method_id: a.payment_method_id,
        }),
        pyConstruct<ROrderPayment>(OrderPayment, {
          transaction_type: "refund",
          amount,
          payment_method_id: history[0]!.payment_method_id,
        }),
      );
      if (isGiftCard(pm)) pm.balance = pyRound(num(pm.balance) - amount, 2);
      if (isGiftCard(oldPm)) oldPm.balance = pyRound(num(oldPm.balance) + amount, 2);
      return dumpOrder(order);
    },
  },
  {
    name: "modify_user_address",
    description:
      "Modify the default address of a user. The agent needs to explain the modification detail and ask for explicit user confirmation (yes/no) to proceed.",
    params: [p("user_id", USER_ID), ...addressParams],
    mutates: true,
    run: (s, a) => {
      const user = getUser(s, a.user_id);
      user.address = newAddress(a);
      return pyDump(user, User);
    },
  },
  {
    name: "return_delivered_order_items",
    description:
      "Return some items of a delivered order.\n\nThe order status will be changed to 'return requested'.\nThe agent needs to explain the return detail and ask for explicit user confirmation (yes/no) to proceed.\nThe user will receive follow-up email for how and where to return the item.",
    params: [
      p("order_id", ORDER_ID),
      p(
        "item_ids",
        "The item ids to be returned, each such as '1008292230'. There could be duplicate items in the list.",
        S.strList,
      ),
      p(
        "payment_method_id",
        "The payment method id to pay or receive refund for the item price difference, such as 'gift_card_0000000' or 'credit_card_0000000'.\nThese can be looked up from the user or order details.",
      ),
    ],
    mutates: true,
    run: (s, a) => {
      const order = getOrder(s, a.order_id);
      if (order.status !== "delivered") throw valueError("Non-delivered order cannot be returned");
      const user = getUser(s, order.user_id);
      const pm = getPaymentMethod(s, user.user_id, a.payment_method_id);
      if (!isGiftCard(pm)) {
        const first = order.payment_history[0];
        if (!first) throw new PyError("IndexError", "list index out of range");
        if (a.payment_method_id !== first.payment_method_id)
          throw valueError("Payment method should be the original payment method");
      }
      const itemIds = requireList(a.item_ids);
      const allItemIds = order.items.map((i) => i.item_id);
      for (const id of itemIds) {
        if (count(itemIds, id) > count(allItemIds, id)) throw valueError("Some item not found");
      }
      const sortedItems = pySortedStrings(itemIds);
      order.status = "return requested";
      order.return_items = sortedItems;
      order.return_payment_method_id = a.payment_method_id;
      return dumpOrder(order);
    },
  },
  transferTool<Tau2State>(),
];

export const retailDomain: Tau2DomainSpec = {
  name: "retail",
  dbType: RetailDBType,
  toolkit: { className: "RetailTools", tools, functions: [] } satisfies Toolkit<Tau2State>,
};
