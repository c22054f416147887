/**
 * A VitaBench task's `environment` as upstream's DB (`DeliveryDB`, `InStoreDB`), plus the two
 * instance registries upstream keeps beside it: every `Location` and every product constructed is
 * registered under its address / product id, and the address and product tools look things up
 * there. Registration order follows pydantic's validation order (declared field order), which
 * decides ranking ties. Upstream's registries are per thread and outlive a task (locations are
 * never cleared); ours belong to one environment, so a task never sees another task's addresses.
 */
import { EnvaceError } from "../../core/errors.js";
import {
  BookInfo,
  Location,
  Order,
  ReservationInfo,
  Shop,
  ShopProduct,
  Store,
  StoreProduct,
  Weather,
  type OrderType,
} from "./models.js";
import { PyFloat, type PyValue } from "./py-value.js";

export type VitaDomainName = "delivery" | "instore";

export interface VitaDb {
  domain: VitaDomainName;
  time: string | null;
  user_id: string | null;
  weather: Weather[] | null;
  location: Location[] | null;
  user_historical_behaviors: PyValue;
  orders: Map<string, Order>;
  stores: Map<string, Store>;
  shops: Map<string, Shop>;
  books: Map<string, BookInfo>;
  reservations: Map<string, ReservationInfo>;
}

export class Registries {
  readonly locations = new Map<string, Location>();
  readonly products = new Map<string, StoreProduct | ShopProduct>();
  location(address: string, longitude: number, latitude: number): Location {
    const loc = new Location(address, longitude, latitude);
    this.locations.set(address, loc);
    return loc;
  }
}

const bad = (path: string, what: string): never => {
  throw new EnvaceError("INVALID_DATA_FILE", `VitaBench environment: ${path} ${what}`);
};

function field(obj: PyValue, key: string, path: string): PyValue | undefined {
  if (!(obj instanceof Map)) return bad(path, "must be an object");
  return obj.get(key);
}

const num = (v: PyValue | undefined, path: string): number =>
  typeof v === "number" ? v : v instanceof PyFloat ? v.value : bad(path, "must be a number");
const optNum = (v: PyValue | undefined, path: string): number | null =>
  v === null || v === undefined ? null : num(v, path);
const int = (v: PyValue | undefined, path: string): number => {
  const n = num(v, path);
  return Number.isInteger(n) ? n : bad(path, "must be an integer");
};
const str = (v: PyValue | undefined, path: string): string =>
  typeof v === "string" ? v : bad(path, "must be a string");
const optStr = (v: PyValue | undefined, path: string, dflt: string | null): string | null =>
  v === undefined ? dflt : v === null ? null : str(v, path);
const bool = (v: PyValue | undefined, path: string): boolean =>
  typeof v === "boolean" ? v : bad(path, "must be a boolean");
const list = (v: PyValue | undefined, path: string): PyValue[] =>
  Array.isArray(v) ? v : bad(path, "must be a list");
const strList = (v: PyValue | undefined, path: string): string[] =>
  list(v, path).map((x, i) => str(x, `${path}[${i}]`));
const dict = (v: PyValue | undefined, path: string): Map<string, PyValue> =>
  v instanceof Map ? v : bad(path, "must be an object");

function location(v: PyValue | undefined, path: string, reg: Registries): Location {
  return reg.location(
    str(field(v ?? null, "address", path), `${path}.address`),
    num(field(v ?? null, "longitude", path), `${path}.longitude`),
    num(field(v ?? null, "latitude", path), `${path}.latitude`),
  );
}

const ORDER_TYPES = ["delivery", "instore", "hotel", "attraction", "flight", "train"];

export function parseOrder(v: PyValue, path: string, reg: Registries): Order {
  const g = (k: string) => field(v, k, path);
  const type = str(g("order_type"), `${path}.order_type`);
  if (!ORDER_TYPES.includes(type)) bad(`${path}.order_type`, `is not one of ${ORDER_TYPES.join(", ")}`);
  const loc = g("location");
  return new Order(
    str(g("order_id"), `${path}.order_id`),
    type as OrderType,
    str(g("user_id"), `${path}.user_id`),
    str(g("store_id"), `${path}.store_id`),
    optStr(g("note"), `${path}.note`, ""),
    loc === null || loc === undefined ? null : location(loc, `${path}.location`, reg),
    optStr(g("dispatch_time"), `${path}.dispatch_time`, ""),
    g("shipping_time") === undefined ? 0 : optNum(g("shipping_time"), `${path}.shipping_time`),
    optStr(g("delivery_time"), `${path}.delivery_time`, ""),
    g("total_price") === undefined ? 0 : num(g("total_price"), `${path}.total_price`),
    optStr(g("create_time"), `${path}.create_time`, "") ?? bad(`${path}.create_time`, "must be a string"),
    optStr(g("update_time"), `${path}.update_time`, "") ?? bad(`${path}.update_time`, "must be a string"),
    optStr(g("status"), `${path}.status`, "unpaid") ?? bad(`${path}.status`, "must be a string"),
    g("products") === undefined ? [] : list(g("products"), `${path}.products`),
  );
}

function store(v: PyValue, path: string, reg: Registries): Store {
  const g = (k: string) => field(v, k, path);
  const storeId = optStr(g("store_id"), `${path}.store_id`, "") ?? "";
  const name = str(g("name"), `${path}.name`);
  const score = num(g("score"), `${path}.score`);
  const loc = location(g("location"), `${path}.location`, reg);
  const tags = strList(g("tags"), `${path}.tags`);
  const products = list(g("products"), `${path}.products`).map((p, i) => {
    const pp = `${path}.products[${i}]`;
    const h = (k: string) => field(p, k, pp);
    const attrs = h("attributes");
    const product = new StoreProduct(
      optStr(h("product_id"), `${pp}.product_id`, "") ?? "",
      h("price") === undefined ? 0 : num(h("price"), `${pp}.price`),
      h("quantity") === undefined ? 0 : h("quantity") === null ? null : int(h("quantity"), `${pp}.quantity`),
      str(h("name"), `${pp}.name`),
      str(h("store_id"), `${pp}.store_id`),
      str(h("store_name"), `${pp}.store_name`),
      Array.isArray(attrs) ? attrs.map((a) => String(a)).join(", ") : str(attrs, `${pp}.attributes`),
      strList(h("tags"), `${pp}.tags`),
    );
    reg.products.set(product.product_id, product);
    return product;
  });
  return new Store(storeId, name, score, loc, tags, products);
}

function shop(v: PyValue, path: string, reg: Registries): Shop {
  const g = (k: string) => field(v, k, path);
  const shopId = str(g("shop_id"), `${path}.shop_id`);
  const shopName = str(g("shop_name"), `${path}.shop_name`);
  const score = num(g("score"), `${path}.score`);
  const loc = location(g("location"), `${path}.location`, reg);
  const tags = strList(g("tags"), `${path}.tags`);
  const enableBook = bool(g("enable_book"), `${path}.enable_book`);
  const bookPrice = num(g("book_price"), `${path}.book_price`);
  const enableReservation = bool(g("enable_reservation"), `${path}.enable_reservation`);
  const products = list(g("products"), `${path}.products`).map((p, i) => {
    const pp = `${path}.products[${i}]`;
    const h = (k: string) => field(p, k, pp);
    const product = new ShopProduct(
      optStr(h("product_id"), `${pp}.product_id`, "") ?? "",
      h("price") === undefined ? 0 : num(h("price"), `${pp}.price`),
      h("quantity") === undefined ? 0 : h("quantity") === null ? null : int(h("quantity"), `${pp}.quantity`),
      str(h("name"), `${pp}.name`),
      str(h("shop_id"), `${pp}.shop_id`),
      strList(h("tags"), `${pp}.tags`),
    );
    reg.products.set(product.product_id, product);
    return product;
  });
  return new Shop(shopId, shopName, score, loc, tags, enableBook, bookPrice, enableReservation, products);
}

function table<T>(v: PyValue | undefined, path: string, each: (x: PyValue, p: string) => T): Map<string, T> {
  const out = new Map<string, T>();
  if (v === undefined) return out;
  for (const [k, x] of dict(v, path)) out.set(k, each(x, `${path}.${k}`));
  return out;
}

/** Builds the DB of `domain` from a task's `environment` (keys of other domains are ignored). */
export function loadVitaDb(domain: VitaDomainName, env: PyValue, reg: Registries): VitaDb {
  const e = dict(env, "environment");
  const weather = e.get("weather");
  const locs = e.get("location");
  const db: VitaDb = {
    domain,
    time: optStr(e.get("time"), "time", null),
    user_id: optStr(e.get("user_id"), "user_id", null),
    weather:
      weather === undefined || weather === null
        ? null
        : list(weather, "weather").map((w, i) => {
            const p = `weather[${i}]`;
            const temp = list(field(w, "temperature", p), `${p}.temperature`);
            if (temp.length !== 2) bad(`${p}.temperature`, "must have two values");
            return new Weather(
              str(field(w, "city", p), `${p}.city`),
              str(field(w, "category", p), `${p}.category`),
              str(field(w, "datetime", p), `${p}.datetime`),
              [num(temp[0], `${p}.temperature[0]`), num(temp[1], `${p}.temperature[1]`)],
              num(field(w, "humidity", p), `${p}.humidity`),
            );
          }),
    location:
      locs === undefined || locs === null
        ? null
        : list(locs, "location").map((l, i) => location(l, `location[${i}]`, reg)),
    user_historical_behaviors: e.has("user_historical_behaviors")
      ? (e.get("user_historical_behaviors") as PyValue)
      : new Map(),
    orders: new Map(),
    stores: new Map(),
    shops: new Map(),
    books: new Map(),
    reservations: new Map(),
  };
  db.orders = table(e.get("orders"), "orders", (x, p) => parseOrder(x, p, reg));
  if (domain === "delivery") db.stores = table(e.get("stores"), "stores", (x, p) => store(x, p, reg));
  else {
    db.shops = table(e.get("shops"), "shops", (x, p) => shop(x, p, reg));
    db.books = table(e.get("books"), "books", (x, p) => {
      const g = (k: string) => field(x, k, p);
      return new BookInfo(
        str(g("book_id"), `${p}.book_id`),
        str(g("shop_id"), `${p}.shop_id`),
        str(g("book_time"), `${p}.book_time`),
        str(g("update_time"), `${p}.update_time`),
        str(g("customer_id"), `${p}.customer_id`),
        int(g("customer_count"), `${p}.customer_count`),
        num(g("book_price"), `${p}.book_price`),
        str(g("status"), `${p}.status`),
      );
    });
    db.reservations = table(e.get("reservations"), "reservations", (x, p) => {
      const g = (k: string) => field(x, k, p);
      return new ReservationInfo(
        str(g("reservation_id"), `${p}.reservation_id`),
        str(g("shop_id"), `${p}.shop_id`),
        str(g("reservation_time"), `${p}.reservation_time`),
        str(g("update_time"), `${p}.update_time`),
        str(g("customer_id"), `${p}.customer_id`),
        int(g("customer_count"), `${p}.customer_count`),
        str(g("status"), `${p}.status`),
      );
    });
  }
  return db;
}

/** Upstream's `db.model_dump()`: declared field order, floats as floats. */
export function dumpVitaDb(db: VitaDb): Record<string, unknown> {
  const base: Record<string, unknown> = {
    time: db.time,
    user_id: db.user_id,
    weather: db.weather ? db.weather.map((w) => w.toPy()) : null,
    location: db.location ? db.location.map((l) => l.toPy()) : null,
    user_historical_behaviors: db.user_historical_behaviors,
    orders: mapDump(db.orders),
  };
  if (db.domain === "delivery") return { ...base, stores: mapDump(db.stores) };
  return {
    ...base,
    shops: mapDump(db.shops),
    books: mapDump(db.books),
    reservations: mapDump(db.reservations),
  };
}

function mapDump(m: Map<string, { toPy(): unknown }>): Map<string, unknown> {
  return new Map([...m].map(([k, v]) => [k, v.toPy()]));
}
