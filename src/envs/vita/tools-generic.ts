/**
 * The tools every VitaBench domain has (upstream `ToolKitBase`): distances, weather, address
 * lookup, holidays, the user's history and orders, and nearby places.
 */
import { CHINA_HOLIDAYS } from "./china-holidays.js";
import { rerank, thefuzzRatio } from "./fuzz.js";
import { checkTimeFormat, parseDateTime } from "./py-time.js";
import { pyAssert, PyRaise, valueError } from "./py-raise.js";
import { pyStr, PyFloat } from "./py-value.js";
import type { ToolContext, VitaToolDef } from "./tool-context.js";
import { HOLIDAY_DATES } from "./holiday-dates.js";

const asNumber = (v: unknown, name: string): number => {
  if (typeof v === "number") return v;
  if (v instanceof PyFloat) return v.value;
  throw new PyRaise(
    "TypeError",
    `must be real number, not ${typeof v === "string" ? "str" : "NoneType"} (${name})`,
  );
};

const RADIANS = Math.PI / 180;

/** Upstream's haversine distance in metres, rounded with Python's `round(x, 0)`. */
export function distanceMeters(lon1: number, lat1: number, lon2: number, lat2: number): number {
  if (lon1 === lon2 && lat1 === lat2) return 0;
  const [l1, p1, l2, p2] = [lon1 * RADIANS, lat1 * RADIANS, lon2 * RADIANS, lat2 * RADIANS];
  const a = Math.sin((p2 - p1) / 2) ** 2 + Math.cos(p1) * Math.cos(p2) * Math.sin((l2 - l1) / 2) ** 2;
  const distance = 6371000 * 2 * Math.asin(Math.sqrt(a));
  return roundHalfEven(distance);
}

/** Python's `round(x, 0)` for a float (ties to even). */
export function roundHalfEven(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/** Returns [longitude, latitude] of the registered address closest to `address`. */
export function addressToLonLat(ctx: ToolContext, address: string): [number, number] {
  const docs = new Map([...ctx.reg.locations.keys()].map((a) => [a, a]));
  const best = rerank(address, docs)[0];
  if (!best) throw new PyRaise("IndexError", "list index out of range");
  if (best.score < 30 || thefuzzRatio(address, best.doc) < 20)
    valueError(`Longitude and latitude not found for address ${address}`);
  const loc = ctx.reg.locations.get(best.doc);
  if (!loc) throw new PyRaise("IndexError", "list index out of range");
  return [loc.longitude, loc.latitude];
}

const str = (v: unknown) => pyStr(v);

export const GENERIC_TOOLS: VitaToolDef[] = [
  {
    name: "longitude_latitude_to_distance",
    cls: "ToolKitBase",
    type: "generic",
    params: [{ name: "longitude1" }, { name: "latitude1" }, { name: "longitude2" }, { name: "latitude2" }],
    run: (_ctx, a) =>
      new PyFloat(
        distanceMeters(
          asNumber(a.longitude1, "longitude1"),
          asNumber(a.latitude1, "latitude1"),
          asNumber(a.longitude2, "longitude2"),
          asNumber(a.latitude2, "latitude2"),
        ),
      ),
  },
  {
    name: "weather",
    cls: "ToolKitBase",
    type: "generic",
    params: [{ name: "address" }, { name: "date_start" }, { name: "date_end" }],
    run: (ctx, a) => {
      const start = parseDateTime(a.date_start, false);
      pyAssert(start !== null, `Invalid date_start format. Expected yyyy-mm-dd, got: ${str(a.date_start)}`);
      const end = parseDateTime(a.date_end, false);
      pyAssert(end !== null, `Invalid date_end format. Expected yyyy-mm-dd, got: ${str(a.date_end)}`);
      const weather = ctx.db.weather ?? [];
      const best = rerank(String(a.address), new Map(weather.map((w) => [w.city, w.city])))[0];
      if (!best) throw new PyRaise("IndexError", "list index out of range");
      if (best.score < 50) valueError(`Weather information not found for ${str(a.address)}`);
      const hits = weather.filter((w) => {
        if (w.city !== best.doc) return false;
        const day = parseDateTime(w.datetime, false);
        if (day === null) valueError(`time data '${w.datetime}' does not match format '%Y-%m-%d'`);
        return (day as number) >= start && (day as number) <= end;
      });
      if (hits.length === 0)
        return `No weather information found for ${best.doc} between ${str(a.date_start)} and ${str(a.date_end)}`;
      // Python's list.sort is stable: equal dates keep their order.
      hits.sort((x, y) => (x.datetime < y.datetime ? -1 : x.datetime > y.datetime ? 1 : 0));
      return hits.map((w) => w.pyRepr()).join("\n");
    },
  },
  {
    name: "address_to_longitude_latitude",
    cls: "ToolKitBase",
    type: "generic",
    params: [{ name: "address" }],
    run: (ctx, a) => addressToLonLat(ctx, String(a.address)).map((x) => new PyFloat(x)),
  },
  {
    name: "get_date_holiday_info",
    cls: "ToolKitBase",
    type: "generic",
    params: [{ name: "date" }],
    run: (_ctx, a) => {
      pyAssert(
        checkTimeFormat(a.date, false),
        `Date format error, should be yyyy-mm-dd, actual: ${str(a.date)}`,
      );
      const ms = parseDateTime(a.date, false) as number;
      const iso = new Date(ms).toISOString().slice(0, 10);
      return CHINA_HOLIDAYS[iso] ?? `Date ${str(a.date)} is not a holiday`;
    },
  },
  {
    name: "get_holiday_date",
    cls: "ToolKitBase",
    type: "generic",
    params: [{ name: "year" }, { name: "holiday_name" }],
    run: (ctx, a) => {
      const table = HOLIDAY_DATES[ctx.lang];
      const year = typeof a.year === "string" ? table[a.year] : undefined;
      if (!year) return `Holiday data for year ${str(a.year)} not found`;
      const names = Object.keys(year);
      // process.extract with partial_ratio and no processor override: the default processor runs.
      const ranked = rerank(String(a.holiday_name), new Map(names.map((n) => [n, n])));
      const best = ranked[0];
      if (best && best.score >= 80) return year[best.id];
      return `Holiday named '${str(a.holiday_name)}' not found in year ${str(a.year)}`;
    },
  },
  {
    name: "get_user_historical_behaviors",
    cls: "ToolKitBase",
    type: "read",
    params: [],
    run: (ctx) => pyStr(ctx.db.user_historical_behaviors),
  },
  {
    name: "get_user_all_orders",
    cls: "ToolKitBase",
    type: "read",
    params: [],
    run: (ctx) => [...ctx.db.orders.values()].map((o) => o.pyRepr()).join("\n"),
  },
  {
    name: "get_nearby",
    cls: "ToolKitBase",
    type: "read",
    params: [{ name: "longitude" }, { name: "latitude" }, { name: "range" }],
    run: (ctx, a) => {
      const lon = asNumber(a.longitude, "longitude");
      const lat = asNumber(a.latitude, "latitude");
      const range = asNumber(a.range, "range");
      const near = (l: { longitude: number; latitude: number }) =>
        distanceMeters(lon, lat, l.longitude, l.latitude) <= range;
      const hits: string[] = [];
      const has = (d: "delivery" | "instore" | "ota") => ctx.db.domains.includes(d);
      if (has("delivery")) for (const s of ctx.db.stores.values()) if (near(s.location)) hits.push(s.pyStr());
      if (has("instore")) for (const s of ctx.db.shops.values()) if (near(s.location)) hits.push(s.pyStr());
      if (has("ota")) {
        for (const h of ctx.db.hotels.values()) if (near(h.location)) hits.push(h.strText());
        for (const x of ctx.db.attractions.values()) if (near(x.location)) hits.push(x.strText());
        // A flight or train is listed once, when either end is in range.
        for (const t of [...ctx.db.flights.values(), ...ctx.db.trains.values()])
          if (near(t.departure_location) || near(t.arrival_location)) hits.push(t.strText());
      }
      return hits.length === 0 ? "No search results found" : hits.join("\n");
    },
  },
];
