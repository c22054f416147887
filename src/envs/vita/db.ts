/**
 * A VitaBench task's `environment` as upstream's DB (`DeliveryDB`, `InStoreDB`, `OTADB`, and the
 * cross-domain `MergedDB` of all three), plus the two
 * instance registries upstream keeps beside it: every `Location` and every product constructed is
 * registered under its address / product id, and the address and product tools look things up
 * there. Registration order follows pydantic's validation order (declared field order), which
 * decides ranking ties. Upstream's registries are per thread and outlive a task (locations are
 * never cleared); ours belong to one environment, so a task never sees another task's addresses.
 *
 * Cross-domain (upstream `get_cross_environment("delivery,instore,ota", …)`): each domain's DB is
 * validated from the same `environment` in that order (so registrations happen three times, in
 * that order), and the merged DB takes the shared fields (`time`, `orders`, …) from the last one,
 * OTA's: every tool of every domain then reads and writes that one `orders` table.
 */
import {
  bad,
  bool,
  dict,
  field,
  int,
  list,
  location,
  num,
  optNum,
  optQuantity,
  optStr,
  str,
  strList,
  table,
} from "./db-fields.js";
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
import { Attraction, Hotel, OtaProduct, Trip, type OtaProductKind } from "./models-ota.js";
import type { PyValue } from "./py-value.js";

/** A domain upstream has a DB of. */
export type VitaSubDomain = "delivery" | "instore" | "ota";
/** What a task runs on: one domain, or the cross-domain union of all three. */
export type VitaDomainName = VitaSubDomain | "cross_domain";

/** The domains a task's environment is the union of, in upstream's merge order. */
export const SUB_DOMAINS: Record<VitaDomainName, readonly VitaSubDomain[]> = {
  delivery: ["delivery"],
  instore: ["instore"],
  ota: ["ota"],
  cross_domain: ["delivery", "instore", "ota"],
};

export interface VitaDb {
  domain: VitaDomainName;
  /** Whose tables this DB has (upstream's `hasattr(self.db, "stores")` …). */
  domains: readonly VitaSubDomain[];
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
  hotels: Map<string, Hotel>;
  attractions: Map<string, Attraction>;
  flights: Map<string, Trip>;
  trains: Map<string, Trip>;
}

export class Registries {
  readonly locations = new Map<string, Location>();
  readonly products = new Map<string, StoreProduct | ShopProduct | OtaProduct>();
  location(address: string, longitude: number, latitude: number): Location {
    const loc = new Location(address, longitude, latitude);
    this.locations.set(address, loc);
    return loc;
  }
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
      optQuantity(h("quantity"), `${pp}.quantity`),
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
      optQuantity(h("quantity"), `${pp}.quantity`),
      str(h("name"), `${pp}.name`),
      str(h("shop_id"), `${pp}.shop_id`),
      strList(h("tags"), `${pp}.tags`),
    );
    reg.products.set(product.product_id, product);
    return product;
  });
  return new Shop(shopId, shopName, score, loc, tags, enableBook, bookPrice, enableReservation, products);
}

function otaProduct(kind: OtaProductKind, typeField: string, reg: Registries) {
  return (p: PyValue, i: number, path: string): OtaProduct => {
    const pp = `${path}.products[${i}]`;
    const h = (k: string) => field(p, k, pp);
    const product = new OtaProduct(
      kind,
      optStr(h("product_id"), `${pp}.product_id`, "") ?? "",
      h("price") === undefined ? 0 : num(h("price"), `${pp}.price`),
      optQuantity(h("quantity"), `${pp}.quantity`),
      str(h("date"), `${pp}.date`),
      str(h(typeField), `${pp}.${typeField}`),
    );
    reg.products.set(product.product_id, product);
    return product;
  };
}

function hotel(v: PyValue, path: string, reg: Registries): Hotel {
  const g = (k: string) => field(v, k, path);
  const id = str(g("hotel_id"), `${path}.hotel_id`);
  const name = str(g("hotel_name"), `${path}.hotel_name`);
  const score = num(g("score"), `${path}.score`);
  const stars = int(g("star_rating"), `${path}.star_rating`);
  const loc = location(g("location"), `${path}.location`, reg);
  const tags = strList(g("tags"), `${path}.tags`);
  const each = otaProduct("hotel", "room_type", reg);
  const products = list(g("products"), `${path}.products`).map((p, i) => each(p, i, path));
  return new Hotel(id, name, score, stars, loc, tags, products);
}

function attraction(v: PyValue, path: string, reg: Registries): Attraction {
  const g = (k: string) => field(v, k, path);
  const id = str(g("attraction_id"), `${path}.attraction_id`);
  const name = str(g("attraction_name"), `${path}.attraction_name`);
  const loc = location(g("location"), `${path}.location`, reg);
  const description = str(g("description"), `${path}.description`);
  const score = num(g("score"), `${path}.score`);
  const hours = str(g("opening_hours"), `${path}.opening_hours`);
  const price = num(g("ticket_price"), `${path}.ticket_price`);
  const each = otaProduct("attraction", "ticket_type", reg);
  const products = list(g("products"), `${path}.products`).map((p, i) => each(p, i, path));
  return new Attraction(id, name, loc, description, score, hours, price, products);
}

function trip(kind: "flight" | "train", reg: Registries) {
  const [idKey, noKey, locKey] =
    kind === "flight"
      ? ["flight_id", "flight_number", "airport_location"]
      : ["train_id", "train_number", "station_location"];
  return (v: PyValue, path: string): Trip => {
    const g = (k: string) => field(v, k, path);
    const id = str(g(idKey), `${path}.${idKey}`);
    const no = str(g(noKey), `${path}.${noKey}`);
    const from = str(g("departure_city"), `${path}.departure_city`);
    const to = str(g("arrival_city"), `${path}.arrival_city`);
    const dep = location(g(`departure_${locKey}`), `${path}.departure_${locKey}`, reg);
    const arr = location(g(`arrival_${locKey}`), `${path}.arrival_${locKey}`, reg);
    const depTime = str(g("departure_time"), `${path}.departure_time`);
    const arrTime = str(g("arrival_time"), `${path}.arrival_time`);
    const tags = strList(g("tags"), `${path}.tags`);
    const each = otaProduct(kind, "seat_type", reg);
    const products = list(g("products"), `${path}.products`).map((p, i) => each(p, i, path));
    return new Trip(kind, id, no, from, to, dep, arr, depTime, arrTime, tags, products);
  };
}

/**
 * One domain's DB (`DeliveryDB`, `InStoreDB` or `OTADB`) from a task's `environment`, fields
 * validated (and their locations and products registered) in their declared order.
 */
function loadOne(domain: VitaSubDomain, e: Map<string, PyValue>, reg: Registries): VitaDb {
  const weather = e.get("weather");
  const locs = e.get("location");
  const db: VitaDb = {
    domain,
    domains: [domain],
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
    hotels: new Map(),
    attractions: new Map(),
    flights: new Map(),
    trains: new Map(),
  };
  db.orders = table(e.get("orders"), "orders", (x, p) => parseOrder(x, p, reg));
  if (domain === "delivery") db.stores = table(e.get("stores"), "stores", (x, p) => store(x, p, reg));
  else if (domain === "ota") {
    db.hotels = table(e.get("hotels"), "hotels", (x, p) => hotel(x, p, reg));
    db.attractions = table(e.get("attractions"), "attractions", (x, p) => attraction(x, p, reg));
    db.flights = table(e.get("flights"), "flights", trip("flight", reg));
    db.trains = table(e.get("trains"), "trains", trip("train", reg));
  } else {
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

/**
 * Builds the DB of `domain` from a task's `environment` (keys of other domains are ignored). For
 * cross-domain, as upstream's `MergedDB`: each domain's DB in turn, the shared fields of the last.
 */
export function loadVitaDb(domain: VitaDomainName, env: PyValue, reg: Registries): VitaDb {
  const e = dict(env, "environment");
  const parts = SUB_DOMAINS[domain].map((d) => loadOne(d, e, reg));
  if (parts.length === 1) return parts[0] as VitaDb;
  const part = (d: VitaSubDomain) => parts[SUB_DOMAINS[domain].indexOf(d)] as VitaDb;
  const last = parts[parts.length - 1] as VitaDb;
  return {
    ...last,
    domain,
    domains: SUB_DOMAINS[domain],
    stores: part("delivery").stores,
    shops: part("instore").shops,
    books: part("instore").books,
    reservations: part("instore").reservations,
  };
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
  // MergedDB.model_dump(): each domain's dump in turn, later keys replacing earlier ones.
  const out = { ...base };
  for (const d of db.domains) {
    if (d === "delivery") out.stores = mapDump(db.stores);
    else if (d === "instore") {
      out.shops = mapDump(db.shops);
      out.books = mapDump(db.books);
      out.reservations = mapDump(db.reservations);
    } else {
      out.hotels = mapDump(db.hotels);
      out.attractions = mapDump(db.attractions);
      out.flights = mapDump(db.flights);
      out.trains = mapDump(db.trains);
    }
  }
  return out;
}

function mapDump(m: Map<string, { toPy(): unknown }>): Map<string, unknown> {
  return new Map([...m].map(([k, v]) => [k, v.toPy()]));
}
