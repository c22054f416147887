/** The food-delivery domain's own tools (upstream `DeliveryTools`). */
import { rerank } from "./fuzz.js";
import { Order, StoreProduct, type Store } from "./models.js";
import { checkTimeFormat, formatDateTime, parseDateTime } from "./py-time.js";
import { pyAssert, pyTypeName, valueError } from "./py-raise.js";
import { pyRepr, pyStr, PyFloat } from "./py-value.js";
import { pyRound } from "../tau2/py-round.js";
import { addressToLonLat, distanceMeters } from "./tools-generic.js";
import { assignOrderId, getNow, joinKeywords, type ToolContext, type VitaToolDef } from "./tool-context.js";

const s = (v: unknown) => pyStr(v);

function getStore(ctx: ToolContext, storeId: unknown): Store {
  const store = typeof storeId === "string" ? ctx.db.stores.get(storeId) : undefined;
  return store ?? valueError(`Store ${s(storeId)} not found`);
}

function getProduct(ctx: ToolContext, productId: unknown): StoreProduct {
  const product = typeof productId === "string" ? ctx.reg.products.get(productId) : undefined;
  if (!product) valueError(`${s(productId)} not found`);
  if (!(product instanceof StoreProduct)) valueError(`${s(productId)} is not a delivery product`);
  return product as StoreProduct;
}

function getOrder(ctx: ToolContext, orderId: unknown): Order {
  const order = typeof orderId === "string" ? ctx.db.orders.get(orderId) : undefined;
  if (!order) return valueError(`Order ${s(orderId)} not found`);
  if (order.order_type !== "delivery") valueError(`Order ${s(orderId)} is not a delivery order`);
  return order;
}

const checkUser = (ctx: ToolContext, userId: unknown) => userId === ctx.db.user_id;

/** Upstream's delivery time in minutes: `round(25 + int(distance) * 0.00651, 0)`. */
export function distanceToMinutes(distance: unknown): number {
  pyAssert(
    typeof distance === "number" || distance instanceof PyFloat,
    `distance value type should be float or int, but get <class '${pyTypeName(distance)}'>`,
  );
  const d = distance instanceof PyFloat ? distance.value : distance;
  return pyRound(25.0 + Math.trunc(d) * 0.00651, 0);
}

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export const DELIVERY_TOOLS: VitaToolDef[] = [
  {
    name: "delivery_distance_to_time",
    cls: "DeliveryTools",
    type: "generic",
    params: [{ name: "distance" }],
    run: (_ctx, a) => new PyFloat(distanceToMinutes(a.distance)),
  },
  {
    name: "get_delivery_store_info",
    cls: "DeliveryTools",
    type: "read",
    params: [{ name: "store_id" }],
    run: (ctx, a) => getStore(ctx, a.store_id).pyRepr(),
  },
  {
    name: "get_delivery_product_info",
    cls: "DeliveryTools",
    type: "read",
    params: [{ name: "product_id" }],
    run: (ctx, a) => getProduct(ctx, a.product_id).pyRepr(),
  },
  {
    name: "delivery_store_search_recommand",
    cls: "DeliveryTools",
    type: "read",
    params: [{ name: "keywords" }],
    run: (ctx, a) => {
      const docs = new Map(
        [...ctx.db.stores.values()].map((st) => [st.store_id, st.name + st.tags.join(",")]),
      );
      return rerank(joinKeywords(a.keywords), docs)
        .slice(0, 100)
        .map((r) => getStore(ctx, r.id).pyStr())
        .join("\n");
    },
  },
  {
    name: "delivery_product_search_recommand",
    cls: "DeliveryTools",
    type: "read",
    params: [{ name: "keywords" }],
    run: (ctx, a) => {
      const docs = new Map<string, string>();
      for (const p of ctx.reg.products.values())
        if (p instanceof StoreProduct) docs.set(p.product_id, `${p.store_name} ${p.name} ${pyRepr(p.tags)}`);
      return rerank(joinKeywords(a.keywords), docs)
        .slice(0, 100)
        .map((r) => getProduct(ctx, r.id).pyRepr())
        .join("\n");
    },
  },
  {
    name: "create_delivery_order",
    cls: "DeliveryTools",
    type: "write",
    params: [
      { name: "user_id" },
      { name: "store_id" },
      { name: "product_ids" },
      { name: "product_cnts" },
      { name: "address" },
      { name: "dispatch_time" },
      { name: "attributes", default: { value: null } },
      { name: "note", default: { value: "" } },
    ],
    run: (ctx, a) => {
      pyAssert(a.user_id, "User ID cannot be empty");
      pyAssert(checkUser(ctx, a.user_id), "User ID does not match");
      pyAssert(
        typeof a.store_id === "string" && ctx.db.stores.has(a.store_id),
        `Store ${s(a.store_id)} not found`,
      );
      const productIds = list(a.product_ids);
      // `all([...])` builds the whole list first: a missing product raises ValueError here.
      const found = productIds.map((id) => getProduct(ctx, id));
      pyAssert(
        found.every((p) => p !== null),
        `products ${pyRepr(a.product_ids)} not found`,
      );
      pyAssert(a.address !== "", `Location ${s(a.address)} is empty`);
      const counts = list(a.product_cnts);
      pyAssert(
        productIds.length === counts.length && counts.every((c) => typeof c === "number" && c > 0),
        `product_cnts ${pyRepr(a.product_cnts)} list is invalid`,
      );
      pyAssert(
        a.dispatch_time && checkTimeFormat(a.dispatch_time),
        `dispatch_time ${s(a.dispatch_time)} time format is invalid, yyyy-mm-dd HH:MM:SS required`,
      );
      const dispatch = parseDateTime(a.dispatch_time) as number;
      const now = parseDateTime(getNow(ctx));
      if (now === null) valueError(`time data '${getNow(ctx)}' does not match format '%Y-%m-%d %H:%M:%S'`);
      pyAssert(dispatch >= (now as number), `dispatch_time ${s(a.dispatch_time)} must be in the future`);
      const products = productIds.map((id) => getProduct(ctx, id));
      const store = getStore(ctx, a.store_id);
      const address = String(a.address);
      const [lon, lat] = addressToLonLat(ctx, address);
      const distance = distanceMeters(lon, lat, store.location.longitude, store.location.latitude);
      const shipping = pyRound(25.0 + Math.trunc(distance) * 0.00651, 0);
      const deliveryTime = formatDateTime(dispatch + shipping * 60_000);
      const total = products.reduce((sum, p, i) => sum + p.price * (counts[i] as number), 0);
      const attrs = Array.isArray(a.attributes) ? a.attributes : [];
      const attributeList = products.map((_p, i) => {
        const attr = i < attrs.length ? attrs[i] : "";
        return attr ? String(attr) : "";
      });
      const ordered = products.map((p, i) => {
        const copy = new StoreProduct(
          p.product_id,
          p.price,
          counts[i] as number,
          p.name,
          p.store_id,
          p.store_name,
          attributeList[i] as string,
          p.tags,
        );
        // Constructing a product registers it: later lookups of this id see the ordered copy.
        ctx.reg.products.set(copy.product_id, copy);
        return copy;
      });
      const location = ctx.reg.location(address, lon, lat);
      const now2 = getNow(ctx);
      const order = new Order(
        assignOrderId(ctx, "delivery", String(a.user_id)),
        "delivery",
        String(a.user_id),
        String(a.store_id),
        a.note === undefined ? "" : (a.note as string | null),
        location,
        String(a.dispatch_time),
        shipping,
        deliveryTime,
        total,
        now2,
        now2,
        "unpaid",
        ordered,
      );
      if (ctx.db.orders.has(order.order_id)) return "Order already exists";
      ctx.db.orders.set(order.order_id, order);
      return order.pyRepr();
    },
  },
  {
    name: "pay_delivery_order",
    cls: "DeliveryTools",
    type: "write",
    params: [{ name: "order_id" }],
    run: (ctx, a) => {
      const order = getOrder(ctx, a.order_id);
      if (order.status !== "unpaid") return "Order is not in `unpaid` status.";
      order.status = "paid";
      return "Payment successful";
    },
  },
  {
    name: "get_delivery_order_status",
    cls: "DeliveryTools",
    type: "read",
    params: [{ name: "order_id" }],
    run: (ctx, a) => getOrder(ctx, a.order_id).status,
  },
  {
    name: "cancel_delivery_order",
    cls: "DeliveryTools",
    type: "write",
    params: [{ name: "order_id" }],
    run: (ctx, a) => {
      const order = getOrder(ctx, a.order_id);
      pyAssert(order.status !== "cancelled", `Order ${s(a.order_id)} is already cancelled`);
      order.status = "cancelled";
      return `Order ${order.order_id} has been cancelled.`;
    },
  },
  {
    name: "modify_delivery_order",
    cls: "DeliveryTools",
    type: "write",
    params: [{ name: "order_id" }, { name: "note" }],
    run: (ctx, a) => {
      const order = getOrder(ctx, a.order_id);
      order.note = a.note as string | null;
      return `Order ${order.order_id} has been modified.`;
    },
  },
  {
    name: "search_delivery_orders",
    cls: "DeliveryTools",
    type: "read",
    params: [{ name: "user_id" }, { name: "status", default: { value: "unpaid" } }],
    run: (ctx, a) => {
      pyAssert(a.user_id, "User ID cannot be empty");
      pyAssert(checkUser(ctx, a.user_id), "User ID does not match");
      const hits = [...ctx.db.orders.values()].filter(
        (o) => o.order_type === "delivery" && o.status === a.status && o.user_id === a.user_id,
      );
      if (hits.length === 0) return "No delivery orders available";
      return hits.map((o) => o.pyStr()).join("\n");
    },
  },
  {
    name: "get_delivery_order_detail",
    cls: "DeliveryTools",
    type: "read",
    params: [{ name: "order_id" }],
    run: (ctx, a) => {
      pyAssert(a.order_id, "Order ID cannot be empty");
      return getOrder(ctx, a.order_id).pyRepr();
    },
  },
];
