/** The in-store consumption domain's own tools (upstream `InStoreTools`). */
import { rerank } from "./fuzz.js";
import { BookInfo, Order, ReservationInfo, ShopProduct, type Shop } from "./models.js";
import { checkTimeFormat } from "./py-time.js";
import { pyAssert, PyRaise, pyTypeName, valueError } from "./py-raise.js";
import { pyStr } from "./py-value.js";
import {
  assignOrderId,
  getNow,
  joinKeywords,
  type Args,
  type ToolContext,
  type VitaToolDef,
} from "./tool-context.js";

const s = (v: unknown) => pyStr(v);
const key = (v: unknown) => (typeof v === "string" ? v : undefined);

function getShop(ctx: ToolContext, shopId: unknown): Shop {
  return ctx.db.shops.get(key(shopId) ?? "\u0000") ?? valueError(`Shop ${s(shopId)} does not exist`);
}

function getProduct(ctx: ToolContext, productId: unknown): ShopProduct {
  const product = ctx.reg.products.get(key(productId) ?? "\u0000");
  if (!product) valueError(`Product ${s(productId)} does not exist`);
  if (!(product instanceof ShopProduct))
    valueError(`Product ${s(productId)} is not an instore scenario product`);
  return product as ShopProduct;
}

function getOrder(ctx: ToolContext, orderId: unknown): Order {
  const order = ctx.db.orders.get(key(orderId) ?? "\u0000");
  if (!order) return valueError(`Order ${s(orderId)} not found`);
  if (order.order_type !== "instore") valueError(`Order ${s(orderId)} is not an instore order`);
  return order;
}

const getBook = (ctx: ToolContext, id: unknown): BookInfo =>
  ctx.db.books.get(key(id) ?? "\u0000") ?? valueError(`BookInfo ${s(id)} not found`);
const getReservation = (ctx: ToolContext, id: unknown): ReservationInfo =>
  ctx.db.reservations.get(key(id) ?? "\u0000") ?? valueError(`ReservationInfo ${s(id)} not found`);

/** Python's `x > 0` on a tool argument: comparing a non-number raises TypeError. */
function positive(v: unknown, orEqual = false): boolean {
  if (typeof v !== "number" && typeof v !== "boolean")
    throw new PyRaise(
      "TypeError",
      `'${orEqual ? ">=" : ">"}' not supported between instances of '${pyTypeName(v)}' and 'int'`,
    );
  const n = Number(v);
  return orEqual ? n >= 0 : n > 0;
}

function checkUser(ctx: ToolContext, a: Args): void {
  pyAssert(a.user_id, "User ID cannot be empty");
  pyAssert(a.user_id === ctx.db.user_id, "User ID does not match");
}

const TIME_FORMAT_HINT = "correct format is %Y-%m-%d %H:%M:%S";

export const INSTORE_TOOLS: VitaToolDef[] = [
  {
    name: "instore_shop_search_recommend",
    cls: "InStoreTools",
    type: "read",
    params: [{ name: "keywords" }],
    run: (ctx, a) => {
      const docs = new Map(
        [...ctx.db.shops.values()].map((sh) => [sh.shop_id, sh.shop_name + "," + sh.tags.join(",")]),
      );
      return rerank(joinKeywords(a.keywords), docs)
        .slice(0, 1000)
        .map((r) => getShop(ctx, r.id).pyStr())
        .join("\n");
    },
  },
  {
    name: "instore_product_search_recommend",
    cls: "InStoreTools",
    type: "read",
    params: [{ name: "keywords" }],
    run: (ctx, a) => {
      const docs = new Map<string, string>();
      for (const [id, p] of ctx.reg.products)
        if (p instanceof ShopProduct) docs.set(id, p.name + "," + p.tags.join(","));
      return rerank(joinKeywords(a.keywords), docs)
        .slice(0, 1000)
        .map((r) => getProduct(ctx, r.id).pyRepr())
        .join("\n");
    },
  },
  {
    name: "create_instore_product_order",
    cls: "InStoreTools",
    type: "write",
    params: [
      { name: "user_id" },
      { name: "shop_id" },
      { name: "product_id" },
      { name: "quantity", default: { value: 1 } },
    ],
    run: (ctx, a) => {
      checkUser(ctx, a);
      pyAssert(ctx.db.shops.has(key(a.shop_id) ?? "\u0000"), "Shop does not exist");
      pyAssert(
        getShop(ctx, a.shop_id).products.some((p) => p.product_id === a.product_id),
        "Product does not exist",
      );
      pyAssert(positive(a.quantity), "Quantity must be greater than 0");
      const product = getProduct(ctx, a.product_id);
      // Upstream sets the quantity on the registered product itself, which is the shop's product:
      // the order and the shop's catalogue share it, so the DB dump shows the new quantity.
      product.quantity = a.quantity as number;
      const now = getNow(ctx);
      const order = new Order(
        assignOrderId(ctx, "instore", String(a.user_id)),
        "instore",
        String(a.user_id),
        String(a.shop_id),
        "",
        null,
        "",
        0,
        "",
        (a.quantity as number) * product.price,
        now,
        now,
        "unpaid",
        [product],
      );
      if (ctx.db.orders.has(order.order_id)) return "Order already exists";
      ctx.db.orders.set(order.order_id, order);
      return order.pyRepr();
    },
  },
  {
    name: "pay_instore_order",
    cls: "InStoreTools",
    type: "write",
    params: [{ name: "order_id" }],
    run: (ctx, a) => {
      pyAssert(a.order_id, "Order ID cannot be empty");
      const order = getOrder(ctx, a.order_id);
      if (order.status !== "unpaid") return `Order ${s(a.order_id)} is not in \`unpaid\` status.`;
      order.status = "paid";
      order.update_time = getNow(ctx);
      return "Payment successful";
    },
  },
  {
    name: "instore_cancel_order",
    cls: "InStoreTools",
    type: "write",
    params: [{ name: "order_id" }],
    run: (ctx, a) => {
      pyAssert(a.order_id, "Order ID cannot be empty");
      const order = getOrder(ctx, a.order_id);
      if (order.status === "cancelled") return `Order ${order.order_id} is already cancelled.`;
      order.status = "cancelled";
      order.update_time = getNow(ctx);
      return `Order ${order.order_id} is cancelled.`;
    },
  },
  {
    name: "instore_book",
    cls: "InStoreTools",
    type: "write",
    params: [
      { name: "user_id" },
      { name: "shop_id" },
      { name: "time" },
      { name: "customer_count", default: { value: 1 } },
    ],
    run: (ctx, a) => {
      checkUser(ctx, a);
      pyAssert(ctx.db.shops.has(key(a.shop_id) ?? "\u0000"), "Shop does not exist");
      pyAssert(positive(a.customer_count), "Number of customers for table booking must be greater than 0");
      pyAssert(a.time, "Table booking time cannot be empty");
      pyAssert(checkTimeFormat(a.time), `Table booking time format is incorrect, ${TIME_FORMAT_HINT}`);
      const shop = getShop(ctx, a.shop_id);
      pyAssert(shop.enable_book, "Shop does not support table booking");
      const book = new BookInfo(
        assignOrderId(ctx, "instore_book", String(a.user_id)),
        shop.shop_id,
        String(a.time),
        getNow(ctx),
        String(a.user_id),
        a.customer_count as number,
        shop.book_price,
        shop.book_price > 0 ? "unpaid" : "paid",
      );
      if (ctx.db.books.has(book.book_id)) return "BookInfo already exists";
      ctx.db.books.set(book.book_id, book);
      return book.pyRepr();
    },
  },
  {
    name: "pay_instore_book",
    cls: "InStoreTools",
    type: "write",
    params: [{ name: "book_id" }],
    run: (ctx, a) => {
      pyAssert(a.book_id, "Booking ID cannot be empty");
      const book = getBook(ctx, a.book_id);
      if (book.status !== "unpaid") return `BookInfo ${book.book_id} is not in \`unpaid\` status.`;
      book.status = "paid";
      book.update_time = getNow(ctx);
      return "Payment successful";
    },
  },
  {
    name: "instore_cancel_book",
    cls: "InStoreTools",
    type: "write",
    params: [{ name: "book_id" }],
    run: (ctx, a) => {
      pyAssert(a.book_id, "Booking ID cannot be empty");
      const book = getBook(ctx, a.book_id);
      if (book.status === "cancelled") return `BookInfo ${book.book_id} is already cancelled.`;
      book.status = "cancelled";
      book.update_time = getNow(ctx);
      return `BookInfo ${book.book_id} is cancelled.`;
    },
  },
  {
    name: "instore_reservation",
    cls: "InStoreTools",
    type: "write",
    params: [
      { name: "user_id" },
      { name: "shop_id" },
      { name: "time" },
      { name: "customer_count", default: { value: 1 } },
    ],
    run: (ctx, a) => {
      checkUser(ctx, a);
      pyAssert(ctx.db.shops.has(key(a.shop_id) ?? "\u0000"), "Shop does not exist");
      pyAssert(checkTimeFormat(a.time), `Reservation time format is incorrect, ${TIME_FORMAT_HINT}`);
      pyAssert(positive(a.customer_count), "Number of customers for reservation must be greater than 0");
      const resv = new ReservationInfo(
        assignOrderId(ctx, "instore_reservation", String(a.user_id)),
        String(a.shop_id),
        String(a.time),
        getNow(ctx),
        String(a.user_id),
        a.customer_count as number,
        "unconsumed",
      );
      if (ctx.db.reservations.has(resv.reservation_id)) return "ReservationInfo already exists";
      ctx.db.reservations.set(resv.reservation_id, resv);
      return resv.pyRepr();
    },
  },
  {
    name: "instore_modify_reservation",
    cls: "InStoreTools",
    type: "write",
    params: [{ name: "reservation_id" }, { name: "time" }, { name: "customer_count", default: { value: 0 } }],
    run: (ctx, a) => {
      pyAssert(a.reservation_id, "Reservation ID cannot be empty");
      const resv = getReservation(ctx, a.reservation_id);
      if (resv.status === "consumed" || resv.status === "cancelled")
        return `ReservationInfo ${resv.reservation_id} is already ${resv.status}.`;
      pyAssert(
        positive(a.customer_count, true),
        "Number of customers for reservation must be greater than or equal to 0",
      );
      pyAssert(a.time, "Reservation time cannot be empty");
      pyAssert(checkTimeFormat(a.time), `Reservation time format is incorrect, ${TIME_FORMAT_HINT}`);
      resv.reservation_time = String(a.time);
      resv.customer_count = a.customer_count as number;
      resv.update_time = getNow(ctx);
      return resv.pyRepr();
    },
  },
  {
    name: "instore_cancel_reservation",
    cls: "InStoreTools",
    type: "write",
    params: [{ name: "reservation_id" }],
    run: (ctx, a) => {
      pyAssert(a.reservation_id, "Reservation ID cannot be empty");
      const resv = getReservation(ctx, a.reservation_id);
      if (resv.status === "cancelled") return `ReservationInfo ${resv.reservation_id} is already cancelled.`;
      resv.status = "cancelled";
      resv.update_time = getNow(ctx);
      return `ReservationInfo ${resv.reservation_id} is cancelled.`;
    },
  },
  {
    name: "get_instore_orders",
    cls: "InStoreTools",
    type: "read",
    params: [{ name: "user_id" }],
    run: (ctx, a) => {
      checkUser(ctx, a);
      const hits = [...ctx.db.orders.values()].filter(
        (o) => o.order_type === "instore" && o.user_id === a.user_id,
      );
      if (hits.length === 0) return `User ${s(a.user_id)} has no order information.`;
      return hits.map((o) => o.pyRepr()).join("\n");
    },
  },
  {
    name: "get_instore_reservations",
    cls: "InStoreTools",
    type: "read",
    params: [{ name: "user_id" }],
    run: (ctx, a) => listReservations(ctx, a),
  },
  {
    name: "get_instore_books",
    cls: "InStoreTools",
    type: "read",
    params: [{ name: "user_id" }],
    run: (ctx, a) => listBooks(ctx, a),
  },
  {
    name: "search_instore_book",
    cls: "InStoreTools",
    type: "read",
    params: [{ name: "user_id" }, { name: "book_id", default: { value: null } }],
    run: (ctx, a) => {
      if (a.book_id === null || a.book_id === undefined) return listBooks(ctx, a);
      checkUser(ctx, a);
      const book = getBook(ctx, a.book_id);
      if (book.customer_id !== a.user_id)
        return `BookInfo ${s(a.book_id)} is not belong to user ${s(a.user_id)}.`;
      return book.pyRepr();
    },
  },
  {
    name: "search_instore_reservation",
    cls: "InStoreTools",
    type: "read",
    params: [{ name: "user_id" }, { name: "reservation_id", default: { value: null } }],
    run: (ctx, a) => {
      if (a.reservation_id === null || a.reservation_id === undefined) return listReservations(ctx, a);
      checkUser(ctx, a);
      const resv = getReservation(ctx, a.reservation_id);
      if (resv.customer_id !== a.user_id)
        return `ReservationInfo ${s(a.reservation_id)} is not belong to user ${s(a.user_id)}.`;
      return resv.pyRepr();
    },
  },
];

function listBooks(ctx: ToolContext, a: Args): string {
  checkUser(ctx, a);
  const hits = [...ctx.db.books.values()].filter((b) => b.customer_id === a.user_id);
  if (hits.length === 0) return `User ${s(a.user_id)} has no book information.`;
  return hits.map((b) => b.pyRepr()).join("\n");
}

function listReservations(ctx: ToolContext, a: Args): string {
  checkUser(ctx, a);
  const hits = [...ctx.db.reservations.values()].filter((r) => r.customer_id === a.user_id);
  if (hits.length === 0) return `User ${s(a.user_id)} has no reservation information.`;
  return hits.map((r) => r.pyRepr()).join("\n");
}
