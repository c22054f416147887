/**
 * The online-travel domain's own tools (upstream `OTATools`): hotels, attractions, flights and
 * trains — search, details, orders (create, pay, search, detail, modify, cancel). Results, error
 * texts and the order of checks are upstream's; so are its quirks, kept because the benchmark's
 * expected states were produced with them:
 * - the info tools return a missing id as an ordinary result (`"Error: hotel X not found"`), the
 *   order tools raise it (the agent sees the same text, flagged as an error);
 * - `create_hotel_order` with an unknown room still creates an order (no products, price 0);
 * - `pay_*`/`search_*` read the one shared `orders` table, `pay_*` any order type;
 * - a date filter only matches products a tool created (task-loaded order products are plain dicts,
 *   which have no `date` attribute), and `train_ticket_search` lists a train once per matching seat.
 */
import { rerank, thefuzzPartialRatio } from "./fuzz.js";
import { Order } from "./models.js";
import { OtaProduct, type Attraction, type Hotel, type OtaProductKind, type Trip } from "./models-ota.js";
import { parseDateTime } from "./py-time.js";
import { PyRaise, pyTypeName, valueError } from "./py-raise.js";
import { pyRepr, pyStr, PyFloat, type PyValue } from "./py-value.js";
import {
  assignOrderId,
  getNow,
  joinKeywords,
  type Args,
  type ToolContext,
  type VitaToolDef,
} from "./tool-context.js";

const s = (v: unknown) => pyStr(v);

/** Python truthiness (empty lists and dicts are false, unlike JavaScript's). */
function truthy(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof Map) return v.size > 0;
  if (v instanceof PyFloat) return v.value !== 0;
  if (v !== null && typeof v === "object") return Object.keys(v).length > 0;
  return Boolean(v);
}

function check(cond: unknown, message: string): void {
  if (!truthy(cond)) throw new PyRaise("AssertionError", message);
}

const asNum = (v: unknown): number | undefined =>
  typeof v === "number" ? v : typeof v === "boolean" ? Number(v) : v instanceof PyFloat ? v.value : undefined;

/** Python's ordering comparison: numbers compare, anything else raises its TypeError. */
function cmp(a: unknown, op: "<" | "<=" | ">" | ">=", b: unknown): boolean {
  const x = asNum(a);
  const y = asNum(b);
  if (x === undefined || y === undefined)
    throw new PyRaise(
      "TypeError",
      `'${op}' not supported between instances of '${pyTypeName(a)}' and '${pyTypeName(b)}'`,
    );
  return op === "<" ? x < y : op === "<=" ? x <= y : op === ">" ? x > y : x >= y;
}

/** Python's `a * b`, `a - b`, `a += b`, `a -= b` on numbers, with its TypeError otherwise. */
function arith(a: unknown, op: "*" | "-" | "+=" | "-=", b: unknown): number {
  const x = asNum(a);
  const y = asNum(b);
  if (x === undefined || y === undefined)
    throw new PyRaise(
      "TypeError",
      `unsupported operand type(s) for ${op}: '${pyTypeName(a)}' and '${pyTypeName(b)}'`,
    );
  return op === "*" ? x * y : op === "+=" ? x + y : x - y;
}

/** Upstream's `check_date_format`: strptime("%Y-%m-%d"); only its ValueError is caught. */
function checkDate(v: unknown): boolean {
  if (typeof v !== "string")
    throw new PyRaise("TypeError", `strptime() argument 1 must be str, not ${pyTypeName(v)}`);
  return parseDateTime(v, false) !== null;
}

const DATE_FORMAT = "Date format is incorrect, correct format is %Y-%m-%d";

/** Upstream's `fuzzy_match`: thefuzz `partial_ratio(x, y) >= 40`, no preprocessing. */
const fuzzyMatch = (x: unknown, y: string): boolean =>
  x !== null && x !== undefined && thefuzzPartialRatio(String(x), y) >= 40;

const checkUser = (ctx: ToolContext, userId: unknown) => userId === ctx.db.user_id;

function lookup<T>(table: Map<string, T>, id: unknown, what: string): T {
  const hit = typeof id === "string" ? table.get(id) : undefined;
  return hit ?? valueError(`${what} ${s(id)} not found`);
}

function getOrder(ctx: ToolContext, orderId: unknown): Order {
  return lookup(ctx.db.orders, orderId, "Order");
}

const ordersOf = (ctx: ToolContext, scene: string) =>
  [...ctx.db.orders.values()].filter((o) => o.order_type === scene);

/** An ordered copy of a product; constructing it registers it, as upstream's model does. */
function orderedCopy(
  ctx: ToolContext,
  p: OtaProduct,
  date: string,
  quantity: number,
  type = p.type,
): OtaProduct {
  const copy = new OtaProduct(p.kind, p.product_id, p.price, quantity, date, type);
  ctx.reg.products.set(copy.product_id, copy);
  return copy;
}

function newOrder(
  ctx: ToolContext,
  id: string,
  kind: OtaProductKind,
  a: Args,
  storeId: string,
  items: OtaProduct[],
) {
  const now = getNow(ctx);
  const total = items.reduce((sum, p) => sum + p.price * (p.quantity as number), 0);
  return new Order(
    id,
    kind,
    String(a.user_id),
    storeId,
    "",
    null,
    "",
    0,
    "",
    total,
    now,
    now,
    "unpaid",
    items,
  );
}

function addOrder(ctx: ToolContext, order: Order): string {
  if (ctx.db.orders.has(order.order_id)) return "Order already exists";
  ctx.db.orders.set(order.order_id, order);
  return order.pyRepr();
}

const ARTICLE: Record<OtaProductKind, string> = {
  hotel: "a hotel",
  attraction: "an attraction",
  flight: "a flight",
  train: "a train",
};
const CAP: Record<OtaProductKind, string> = {
  hotel: "Hotel",
  attraction: "Attraction",
  flight: "Flight",
  train: "Train",
};

function infoTool(
  kind: OtaProductKind,
  table: (ctx: ToolContext) => Map<string, { pyRepr(): string }>,
): VitaToolDef {
  const idName = `${kind}_id`;
  return {
    name: `get_ota_${kind}_info`,
    cls: "OTATools",
    type: "read",
    params: [{ name: idName }],
    run: (ctx, a) => {
      check(a[idName], `${CAP[kind]} ID cannot be empty`);
      const hit = typeof a[idName] === "string" ? table(ctx).get(a[idName]) : undefined;
      if (!hit) return `Error: ${kind} ${s(a[idName])} not found`;
      return `${CAP[kind]} Info:\n${hit.pyRepr()}`;
    },
  };
}

/** `create_attraction_order` / `create_flight_order` / `create_train_order`. */
function createTicketOrder(
  kind: "attraction" | "flight" | "train",
  table: (ctx: ToolContext) => Map<string, Attraction | Trip>,
): VitaToolDef {
  const [idName, itemName, itemWord, stockWord] =
    kind === "attraction"
      ? ["attraction_id", "ticket_id", "Ticket", "ticket"]
      : [`${kind}_id`, "seat_id", "Seat", "seat"];
  return {
    name: `create_${kind}_order`,
    cls: "OTATools",
    type: "write",
    params: [
      { name: idName },
      { name: itemName },
      { name: "user_id" },
      { name: "date" },
      { name: "quantity" },
    ],
    run: (ctx, a) => {
      check(a[idName], `${CAP[kind]} ID cannot be empty`);
      check(a[itemName], `${itemWord} ID cannot be empty`);
      check(a.user_id, "User ID cannot be empty");
      check(cmp(a.quantity, ">", 0), "Booking quantity must be greater than 0");
      check(checkUser(ctx, a.user_id), "User ID does not match");
      const entity = lookup(table(ctx), a[idName], kind);
      const target = entity.products.find((p) => p.date === a.date && p.product_id === a[itemName]);
      if (!target) return `The ${kind} does not have the specified ${stockWord} on the specified date`;
      if (cmp(target.quantity, "<", a.quantity))
        return `Insufficient ${stockWord} inventory for the specified date`;
      target.quantity = arith(target.quantity, "-", a.quantity);
      const item = orderedCopy(ctx, target, String(a.date), asNum(a.quantity) as number);
      const id = assignOrderId(ctx, kind, String(a.user_id));
      return addOrder(ctx, newOrder(ctx, id, kind, a, String(a[idName]), [item]));
    },
  };
}

function payTool(kind: OtaProductKind): VitaToolDef {
  return {
    name: `pay_${kind}_order`,
    cls: "OTATools",
    type: "write",
    params: [{ name: "order_id" }],
    run: (ctx, a) => {
      check(a.order_id, "Order ID cannot be empty");
      const order = getOrder(ctx, a.order_id);
      if (order.status !== "unpaid") return "Order status must be unpaid";
      order.status = "paid";
      order.update_time = getNow(ctx);
      return "Payment successful";
    },
  };
}

/** Whether an order product has this `date` attribute (only product models have one). */
const hasDate = (p: unknown, date: unknown) => p instanceof OtaProduct && p.date === date;

function searchTool(kind: OtaProductKind): VitaToolDef {
  return {
    name: `search_${kind}_order`,
    cls: "OTATools",
    type: "read",
    params: [
      { name: "user_id" },
      { name: "date", default: { value: null } },
      { name: "status", default: { value: "paid" } },
    ],
    run: (ctx, a) => {
      check(a.user_id, "User ID cannot be empty");
      check(checkUser(ctx, a.user_id), "User ID does not match");
      if (kind === "hotel" && !ordersOf(ctx, "hotel").some((o) => o.user_id === a.user_id))
        valueError("User does not exist or has no order records");
      if (truthy(a.date)) check(checkDate(a.date), DATE_FORMAT);
      const hits = ordersOf(ctx, kind).filter(
        (o) =>
          o.user_id === a.user_id &&
          !(truthy(a.status) && o.status !== a.status) &&
          !(truthy(a.date) && !o.products.some((p) => hasDate(p, a.date))),
      );
      return hits.map((o) => o.pyStr()).join("\n");
    },
  };
}

function detailTool(kind: OtaProductKind): VitaToolDef {
  return {
    name: `get_${kind}_order_detail`,
    cls: "OTATools",
    type: "read",
    params: [{ name: "order_id" }],
    run: (ctx, a) => {
      check(a.order_id, "Order ID cannot be empty");
      const order = getOrder(ctx, a.order_id);
      check(order.order_type === kind, `Order type is not ${ARTICLE[kind]} order`);
      return order.pyRepr();
    },
  };
}

/** `old_product.get(key) if isinstance(old_product, dict) else old_product.<key>`. */
function attr(p: unknown, key: "seat_type" | "quantity" | "date" | "price"): unknown {
  if (p instanceof Map) return (p as Map<string, PyValue>).get(key) ?? null;
  if (p instanceof OtaProduct) return key === "seat_type" ? p.type : p[key];
  throw new PyRaise("AttributeError", `'${pyTypeName(p)}' object has no attribute '${key}'`);
}

/** `modify_train_order` / `modify_flight_order`: move a paid one-product order to another date. */
function modifyTool(kind: "flight" | "train"): VitaToolDef {
  return {
    name: `modify_${kind}_order`,
    cls: "OTATools",
    type: "write",
    params: [{ name: "order_id" }, { name: "user_id" }, { name: "new_date" }],
    run: (ctx, a) => {
      check(a.order_id, "Order ID cannot be empty");
      check(a.user_id, "User ID cannot be empty");
      check(a.new_date, "New departure date cannot be empty");
      // The two tools check the user and the date format in opposite orders upstream.
      if (kind === "train") check(checkUser(ctx, a.user_id), "User ID does not match");
      check(checkDate(a.new_date), DATE_FORMAT);
      if (kind === "flight") check(checkUser(ctx, a.user_id), "User ID does not match");
      const order = getOrder(ctx, a.order_id);
      check(order.order_type === kind, `Order type is not ${ARTICLE[kind]} order`);
      if (kind === "train") {
        check(order.user_id === a.user_id, `Order ${s(a.order_id)} does not belong to user ${s(a.user_id)}`);
        check(order.status === "paid", `Only paid orders can be modified, current status: ${order.status}`);
      } else {
        check(
          order.user_id === a.user_id,
          `User ${s(a.user_id)} does not have permission to modify this order`,
        );
        check(order.status === "paid", "Only paid orders can be modified");
      }
      check(order.products.length === 1, `Only single ${kind} ticket order modification is supported`);
      const old = order.products[0];
      const seatType = attr(old, "seat_type");
      const quantity = attr(old, "quantity");
      const trips = kind === "train" ? ctx.db.trains : ctx.db.flights;
      const trip = trips.get(order.store_id);
      if (!trip) throw new PyRaise("KeyError", pyRepr(order.store_id));
      const next = trip.products.find((p) => p.date === a.new_date && p.type === seatType);
      check(next, `New date ${s(a.new_date)} does not have ${s(seatType)} type seats`);
      const target = next as OtaProduct;
      check(
        cmp(target.quantity, ">=", quantity),
        `Insufficient ${s(seatType)} seat inventory for new date ${s(a.new_date)}`,
      );
      const oldDate = attr(old, "date");
      const back = trip.products.find((p) => p.date === oldDate && p.type === seatType);
      if (back) back.quantity = arith(back.quantity, "+=", quantity);
      target.quantity = arith(target.quantity, "-=", quantity);
      const diff = arith(target.price, "*", quantity) - arith(attr(old, "price"), "*", quantity);
      if (diff > 0) order.status = "unpaid";
      // The new product is built from the model's fields: its quantity must be an int.
      order.products = [
        orderedCopy(ctx, target, String(a.new_date), asNum(quantity) as number, String(seatType)),
      ];
      order.total_price = arith(target.price, "*", quantity);
      order.update_time = getNow(ctx);
      const d = new PyFloat(diff);
      return diff > 0
        ? `Modification successful, need to pay additional amount: ${s(d)}, please pay as soon as possible`
        : `Modification successful, price difference: ${s(d)}, refunded`;
    },
  };
}

function cancelTool(kind: OtaProductKind): VitaToolDef {
  return {
    name: `cancel_${kind}_order`,
    cls: "OTATools",
    type: "write",
    params: [{ name: "order_id" }, { name: "user_id" }],
    run: (ctx, a) => {
      check(a.order_id, "Order ID cannot be empty");
      check(a.user_id, "User ID cannot be empty");
      check(checkUser(ctx, a.user_id), "User ID does not match");
      const order = getOrder(ctx, a.order_id);
      check(order.order_type === kind, `Order type is not ${ARTICLE[kind]} order`);
      check(order.status !== "cancelled", "Order is already in cancelled status");
      const refund = order.status === "paid" ? s(new PyFloat(order.total_price)) : "0";
      order.status = "cancelled";
      order.update_time = getNow(ctx);
      return `Cancellation successful, refund amount: ${refund}`;
    },
  };
}

const KINDS: OtaProductKind[] = ["hotel", "attraction", "flight", "train"];

/** Ranked search results: rerank the candidates' texts, keep the first 100, print each. */
function ranked<T>(
  keywords: string,
  docs: Map<string, string>,
  get: (id: string) => T,
  print: (x: T) => string,
) {
  return rerank(keywords, docs)
    .slice(0, 100)
    .map((r) => print(get(r.id)))
    .join("\n");
}

export const OTA_TOOLS: VitaToolDef[] = [
  infoTool("hotel", (ctx) => ctx.db.hotels),
  infoTool("attraction", (ctx) => ctx.db.attractions),
  infoTool("flight", (ctx) => ctx.db.flights),
  infoTool("train", (ctx) => ctx.db.trains),
  {
    name: "hotel_search_recommand",
    cls: "OTATools",
    type: "read",
    params: [{ name: "city_name" }, { name: "key_words", default: { value: null } }],
    run: (ctx, a) => {
      const targets = [...ctx.db.hotels.values()].filter((h) => fuzzyMatch(a.city_name, h.location.address));
      if (targets.length === 0)
        return "No hotels found matching the criteria. Please check if the city name is correct and try again.";
      const tags = (id: string): string => {
        const h = ctx.db.hotels.get(id);
        if (!h) throw new PyRaise("KeyError", pyRepr(id));
        return h.hotel_name + h.tags.join(",");
      };
      const docs = new Map(targets.map((h) => [h.hotel_id, tags(h.hotel_id)]));
      const keywords = joinKeywords(truthy(a.key_words) ? a.key_words : []);
      return ranked<Hotel>(
        keywords,
        docs,
        (id) => lookup(ctx.db.hotels, id, "hotel"),
        (h) => h.strText(),
      );
    },
  },
  {
    name: "attractions_search_recommend",
    cls: "OTATools",
    type: "read",
    params: [{ name: "city_name" }, { name: "key_words" }],
    run: (ctx, a) => {
      const targets = [...ctx.db.attractions.values()].filter((x) =>
        fuzzyMatch(a.city_name, x.location.address),
      );
      if (targets.length === 0)
        return "No attractions found matching the criteria. Please check if the city name is correct and try again.";
      const tags = (id: string): string => {
        const x = ctx.db.attractions.get(id);
        if (!x) throw new PyRaise("KeyError", pyRepr(id));
        return `${x.attraction_name},${x.description},${x.location.address}`;
      };
      const docs = new Map(targets.map((x) => [x.attraction_id, tags(x.attraction_id)]));
      return ranked<Attraction>(
        joinKeywords(a.key_words),
        docs,
        (id) => lookup(ctx.db.attractions, id, "attraction"),
        (x) => x.strText(),
      );
    },
  },
  {
    name: "flight_search_recommend",
    cls: "OTATools",
    type: "read",
    params: [{ name: "departure" }, { name: "destination" }],
    run: (ctx, a) => {
      check(a.departure, "Departure city cannot be empty");
      check(a.destination, "Destination city cannot be empty");
      const hits = [...ctx.db.flights.values()].filter(
        (f) => fuzzyMatch(a.departure, f.departure_city) && fuzzyMatch(a.destination, f.arrival_city),
      );
      if (hits.length === 0) return "No flights found matching the criteria";
      return hits.map((f) => f.strText()).join("\n");
    },
  },
  {
    name: "train_ticket_search",
    cls: "OTATools",
    type: "read",
    params: [{ name: "departure" }, { name: "destination" }, { name: "date" }],
    run: (ctx, a) => {
      check(a.departure, "Departure city cannot be empty");
      check(a.destination, "Destination city cannot be empty");
      check(a.date, "Departure date cannot be empty");
      check(checkDate(a.date), DATE_FORMAT);
      const hits: Trip[] = [];
      for (const t of ctx.db.trains.values())
        for (const p of t.products)
          if (
            p.date === a.date &&
            fuzzyMatch(a.departure, t.departure_city) &&
            fuzzyMatch(a.destination, t.arrival_city)
          )
            hits.push(t);
      if (hits.length === 0) return "No trains found matching the criteria";
      return hits.map((t) => t.strText()).join("\n");
    },
  },
  {
    name: "create_hotel_order",
    cls: "OTATools",
    type: "write",
    params: [{ name: "hotel_id" }, { name: "room_id" }, { name: "user_id" }],
    run: (ctx, a) => {
      check(a.hotel_id, "Hotel ID cannot be empty");
      check(a.user_id, "User ID cannot be empty");
      check(checkUser(ctx, a.user_id), "User ID does not match");
      const hotel = lookup(ctx.db.hotels, a.hotel_id, "hotel");
      const rooms: OtaProduct[] = [];
      const room = hotel.products.find((p) => p.product_id === a.room_id);
      if (room) {
        if (cmp(room.quantity, "<=", 0)) return "No available rooms at the moment";
        room.quantity = (room.quantity as number) - 1;
        rooms.push(orderedCopy(ctx, room, room.date, 1));
      }
      const id = assignOrderId(ctx, "hotel", String(a.user_id), {
        hotel_id: a.hotel_id,
        product_id: a.room_id,
      });
      return addOrder(ctx, newOrder(ctx, id, "hotel", a, String(a.hotel_id), rooms));
    },
  },
  createTicketOrder("attraction", (ctx) => ctx.db.attractions),
  createTicketOrder("flight", (ctx) => ctx.db.flights),
  createTicketOrder("train", (ctx) => ctx.db.trains),
  ...KINDS.map(payTool),
  ...KINDS.map(searchTool),
  ...KINDS.map(detailTool),
  modifyTool("train"),
  modifyTool("flight"),
  ...KINDS.map(cancelTool),
];
