/**
 * What a VitaBench tool runs against: the DB, the instance registries, the clock that order ids
 * are derived from, and the language (which picks `get_holiday_date`'s table).
 */
import { createHash } from "node:crypto";
import type { Registries, VitaDb } from "./db.js";
import { formatDateTime } from "./py-time.js";
import { floatRepr, pyStr } from "./py-value.js";
import { PyRaise, pyTypeName } from "./py-raise.js";

/** Seconds since the epoch as a float, like Python's `datetime.now().timestamp()`. */
export type VitaClock = () => number;

export const wallClock: VitaClock = () => Date.now() / 1000;

export interface ToolContext {
  db: VitaDb;
  reg: Registries;
  clock: VitaClock;
  lang: "en" | "zh";
}

export type Args = Record<string, unknown>;

export interface VitaToolDef {
  name: string;
  /** The Python class defining the method, for TypeError texts ("DeliveryTools.x() got …"). */
  cls: "ToolKitBase" | "DeliveryTools" | "InStoreTools" | "OTATools";
  params: { name: string; default?: { value: unknown } }[];
  /** Upstream's tool type: WRITE tools change the DB. */
  type: "read" | "write" | "generic";
  run(ctx: ToolContext, args: Args): unknown;
}

export const sha256Hex = (s: string): string => createHash("sha256").update(s, "utf8").digest("hex");

const ORDER_ID_SCHEME: Record<string, { prefix: string; idPrefix: string; params: string[] }> = {
  delivery: { prefix: "#DELIVERY#", idPrefix: "OT", params: ["user_id"] },
  hotel: { prefix: "#HOTEL#", idPrefix: "OO", params: ["hotel_id", "product_id", "user_id"] },
  attraction: { prefix: "#ATTRACTION#", idPrefix: "OO", params: ["user_id"] },
  flight: { prefix: "#FLIGHT#", idPrefix: "OO", params: ["user_id"] },
  train: { prefix: "#TRAIN#", idPrefix: "OO", params: ["user_id"] },
  instore: { prefix: "#INSTORE#", idPrefix: "OI", params: [] },
  instore_book: { prefix: "#INSTORE_BOOK#", idPrefix: "OI", params: [] },
  instore_reservation: { prefix: "#INSTORE_RESV#", idPrefix: "OI", params: [] },
};

/**
 * Upstream's `DB.assign_order_id`: id prefix + sha256(scheme prefix + its params + str(timestamp))[:10].
 * `extra` holds the scenario's other params (the hotel's `hotel_id`, `product_id`), as `str()` of them.
 */
export function assignOrderId(
  ctx: ToolContext,
  scenario: keyof typeof ORDER_ID_SCHEME,
  userId: string,
  extra: Record<string, unknown> = {},
): string {
  const scheme = ORDER_ID_SCHEME[scenario];
  if (!scheme) throw new Error(`Unsupported scenario type: ${scenario}`);
  const params = scheme.params.map((p) => (p === "user_id" ? userId : pyStr(extra[p])));
  const input = scheme.prefix + params.join("") + floatRepr(ctx.clock());
  return scheme.idPrefix + sha256Hex(input).slice(0, 10);
}

/** Upstream's `get_now`: the task's frozen time when set, else the clock's. */
export function getNow(ctx: ToolContext): string {
  if (ctx.db.time) return ctx.db.time;
  return formatDateTime(Math.floor(ctx.clock() * 1000));
}

/** `"".join(keywords)`: search keywords run together with no separator, as upstream joins them. */
export function joinKeywords(keywords: unknown): string {
  if (typeof keywords === "string") return keywords;
  if (!Array.isArray(keywords)) throw new PyRaise("TypeError", "can only join an iterable");
  keywords.forEach((k, i) => {
    if (typeof k !== "string")
      throw new PyRaise("TypeError", `sequence item ${i}: expected str instance, ${pyTypeName(k)} found`);
  });
  return keywords.join("");
}
