import { Backend, m, type MethodSpec } from "./backend.js";
import { longContextValue, type LongContextData } from "./long-context.js";
import {
  add,
  compare,
  deepcopy,
  dict,
  mul,
  num,
  PyError,
  pyRound,
  sub,
  toFloat,
  valueError,
} from "./py-ops.js";
import { PyRandom } from "./py-random.js";
import {
  newDict,
  PyFloat,
  pyEqual,
  pyIn,
  pyRepr,
  pyStr,
  type PyDict,
  type PyValue,
  delItem,
  dictEntries,
  dictKeys,
  setItem,
} from "./py-value.js";

/**
 * Port of upstream's `TravelAPI` (`travel_booking.py`). Tokens, card ids, balances, booking,
 * transaction and insurance ids come from CPython's `random.Random(random_seed)` (default 141053)
 * drawn in upstream's order, so they equal upstream's (the first access token is "251675").
 * Upstream computes the traveller's age from the machine's date; we use a fixed date
 * (`TRAVEL_TODAY`, the BFCL v4 release day) so verdicts do not change with the calendar, and we
 * print the set of travel classes in one fixed order (upstream's order depends on string hashing).
 */
export const TRAVEL_TODAY = { year: 2025, month: 7, day: 17 };

/** Route → base cost, in upstream's table order (the long-context cost list follows it). */
const ROUTES: Array<[string, string, number]> =
  "SFO-LAX:200 SFO-JFK:500 SFO-ORD:400 SFO-BOS:450 SFO-RMS:300 SFO-SBK:350 SFO-MPC:370 SFO-SVP:320 SFO-SHD:330 SFO-SSV:340 SFO-OKD:360 SFO-WLB:310 SFO-CRH:380 SFO-ATV:390 SFO-PHV:420 SFO-GFD:430 SFO-CIA:700 LAX-SFO:100 LAX-JFK:600 LAX-ORD:500 LAX-BOS:550 LAX-RMS:310 LAX-SBK:320 LAX-MPC:330 LAX-SVP:340 LAX-SHD:350 LAX-SSV:360 LAX-OKD:370 LAX-WLB:380 LAX-CRH:390 LAX-ATV:400 LAX-PHV:410 LAX-GFD:420 LAX-HND:430 JFK-ORD:300 JFK-BOS:250 JFK-RMS:450 JFK-SBK:460 JFK-MPC:470 JFK-SVP:480 JFK-SHD:490 JFK-SSV:500 JFK-OKD:510 JFK-WLB:520 JFK-CRH:530 JFK-ATV:540 JFK-PHV:550 JFK-GFD:560 JFK-LAX:570 JFK-HND:800 JFK-PVG:950 JFK-PEK:1000 ORD-LAX:180 ORD-BOS:200 ORD-RMS:350 ORD-SBK:360 ORD-MPC:370 ORD-SVP:380 ORD-SHD:390 ORD-SSV:400 ORD-OKD:410 ORD-WLB:420 ORD-CRH:430 ORD-ATV:440 ORD-PHV:450 ORD-GFD:460 BOS-RMS:400 BOS-SBK:410 BOS-MPC:420 BOS-SVP:430 BOS-SHD:440 BOS-SSV:450 BOS-OKD:460 BOS-WLB:470 BOS-CRH:480 BOS-ATV:490 BOS-PHV:500 BOS-GFD:510 RMS-BOS:200 RMS-JFK:210 RMS-SBK:220 RMS-MPC:230 RMS-SVP:240 RMS-SHD:250 RMS-SSV:260 RMS-OKD:270 RMS-WLB:280 RMS-CRH:290 RMS-ATV:300 RMS-PHV:310 RMS-GFD:320 RMS-LAX:330 SBK-MPC:200 SBK-SVP:210 SBK-SHD:220 SBK-SSV:230 SBK-OKD:240 SBK-WLB:250 SBK-CRH:260 SBK-ATV:270 SBK-PHV:280 SBK-GFD:290 MPC-SVP:210 MPC-SHD:220 MPC-SSV:230 MPC-OKD:240 MPC-WLB:250 MPC-CRH:260 MPC-ATV:270 MPC-PHV:280 MPC-GFD:290 SVP-SHD:230 SVP-SSV:240 SVP-OKD:250 SVP-WLB:260 SVP-CRH:270 SVP-ATV:280 SVP-PHV:290 SVP-GFD:300 SHD-SSV:220 SHD-OKD:230 SHD-WLB:240 SHD-CRH:250 SHD-ATV:260 SHD-PHV:270 SHD-GFD:280 SSV-OKD:240 SSV-WLB:250 SSV-CRH:260 SSV-ATV:270 SSV-PHV:280 SSV-GFD:290 OKD-WLB:230 OKD-CRH:240 OKD-ATV:250 OKD-PHV:260 OKD-GFD:270 WLB-CRH:250 WLB-ATV:260 WLB-PHV:270 WLB-GFD:280 CRH-ATV:240 CRH-PHV:250 CRH-GFD:260 CRH-SFO:270 CRH-RMS:280 CRH-HKG:290 CRH-JFK:300 ATV-PHV:230 ATV-GFD:240 PHV-GFD:220 LHR-CDG:100 OKD-LAX:220"
    .split(" ")
    .map((r) => {
      const [pair, cost] = r.split(":") as [string, string];
      const [from, to] = pair.split("-") as [string, string];
      return [from, to, Number(cost)];
    });

const AIRPORTS = [
  "RMS",
  "SBK",
  "MPC",
  "SVP",
  "SHD",
  "CDG",
  "LHR",
  "SSV",
  "OKD",
  "WLB",
  "PEK",
  "HND",
  "HKG",
  "CIA",
  "CRH",
  "ATV",
  "PHV",
  "GFD",
  "SFO",
  "LAX",
  "JFK",
  "ORD",
  "BOS",
];
const CITY_AIRPORT: Record<string, string> = {
  Rivermist: "RMS",
  Stonebrook: "SBK",
  Maplecrest: "MPC",
  Silverpine: "SVP",
  Shadowridge: "SHD",
  London: "LHR",
  Paris: "CDG",
  "Sunset Valley": "SSV",
  Oakendale: "OKD",
  Willowbend: "WLB",
  "Crescent Hollow": "CRH",
  Autumnville: "ATV",
  Pinehaven: "PHV",
  Greenfield: "GFD",
  "San Francisco": "SFO",
  "Los Angeles": "LAX",
  "New York": "JFK",
  Chicago: "ORD",
  Boston: "BOS",
  Beijing: "PEK",
  "Hong Kong": "HKG",
  Rome: "CIA",
  Tokyo: "HND",
};
const RATES: Array<[string, string, number]> = [
  ["USD", "RMB", 7],
  ["USD", "EUR", 0.8],
  ["USD", "JPY", 110],
  ["USD", "GBP", 0.7],
  ["USD", "CAD", 1.3],
  ["USD", "AUD", 1.4],
  ["USD", "INR", 70],
  ["USD", "RUB", 60],
  ["USD", "BRL", 3.8],
  ["USD", "MXN", 20],
];

const err = (msg: string): PyDict => dict([["error", msg]]);

/** `datetime.strptime(s, '%Y-%m-%d')` succeeds. */
function validDate(s: PyValue): { y: number; m: number; d: number } | undefined {
  const mm = typeof s === "string" ? /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(s) : null;
  if (!mm) return undefined;
  const [y, mo, d] = [Number(mm[1]), Number(mm[2]), Number(mm[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (mo < 1 || mo > 12 || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return undefined;
  return { y, m: mo, d };
}

export class TravelAPI extends Backend {
  readonly className = "TravelAPI";
  credit_card_list: PyDict = newDict();
  booking_record: PyDict = newDict();
  access_token: PyValue = null;
  token_type: PyValue = null;
  token_expires_in: PyValue = null;
  token_scope: PyValue = null;
  user_first_name: PyValue = null;
  user_last_name: PyValue = null;
  budget_limit: PyValue = null;
  long_context = false;
  private random = new PyRandom(141053);
  private flightCostLookup = new Map<string, PyValue>();
  private cached?: Record<string, MethodSpec>;

  constructor(private readonly longContextData?: LongContextData) {
    super();
  }

  loadScenario(config: PyDict, longContext: boolean): void {
    const get = (k: string, d: PyValue) => (k in config ? config[k]! : d);
    this.random = new PyRandom(Number(get("random_seed", 141053)));
    this.credit_card_list = get("credit_card_list", newDict()) as PyDict;
    this.booking_record = get("booking_record", newDict()) as PyDict;
    this.access_token = get("access_token", null);
    this.token_type = get("token_type", null);
    this.token_expires_in = get("token_expires_in", null);
    this.token_scope = get("token_scope", null);
    this.user_first_name = get("user_first_name", null);
    this.user_last_name = get("user_last_name", null);
    this.budget_limit = get("budget_limit", null);
    this.long_context = longContext;
    if (longContext) {
      for (const [k, v] of dictEntries(
        deepcopy(longContextValue(this.longContextData, "CREDIT_CARD_EXTENSION")) as PyDict,
      )) {
        if (!(k in this.credit_card_list)) setItem(this.credit_card_list, k, v);
      }
      for (const [k, v] of dictEntries(
        deepcopy(longContextValue(this.longContextData, "BOOKING_RECORD_EXTENSION")) as PyDict,
      )) {
        if (!(k in this.booking_record)) setItem(this.booking_record, k, v);
      }
    }
  }

  publicState(): Record<string, PyValue> {
    return {
      credit_card_list: this.credit_card_list,
      booking_record: this.booking_record,
      access_token: this.access_token,
      token_type: this.token_type,
      token_expires_in: this.token_expires_in,
      token_scope: this.token_scope,
      user_first_name: this.user_first_name,
      user_last_name: this.user_last_name,
      budget_limit: this.budget_limit,
      long_context: this.long_context,
    };
  }

  private expired(): boolean {
    return pyEqual(this.token_expires_in, 0);
  }
  private card(id: PyValue): PyDict | undefined {
    return typeof id === "string" && id in this.credit_card_list
      ? (this.credit_card_list[id] as PyDict)
      : undefined;
  }
  private booking(id: PyValue): PyDict | undefined {
    return typeof id === "string" && id in this.booking_record
      ? (this.booking_record[id] as PyDict)
      : undefined;
  }

  private flightCost(from: PyValue, to: PyValue, date: PyValue, cls: PyValue): PyDict {
    const route = ROUTES.find(([a, b]) => a === from && b === to);
    if (!route) throw valueError("No available route for the given airports.");
    const factor = cls === "economy" ? 1 : cls === "business" ? 2 : cls === "first" ? 5 : undefined;
    if (factor === undefined)
      throw valueError("Invalid travel class. Options are: economy, business, first.");
    const digitSum = [...pyStr(date)].filter((c) => c >= "0" && c <= "9").reduce((a, c) => a + Number(c), 0);
    const mult = digitSum % 2 === 0 ? 2 : 1;
    const key = (a: string, b: string) => `${a}|${b}|${pyStr(cls)}|${pyStr(date)}`;
    let costs: PyValue[];
    this.flightCostLookup = new Map();
    if (this.long_context) {
      costs = ROUTES.map(([a, b, base]) => {
        const cost = new PyFloat(base * factor * mult);
        this.flightCostLookup.set(key(a, b), cost);
        return cost;
      });
    } else {
      const cost = new PyFloat(route[2] * factor * mult);
      this.flightCostLookup.set(key(pyStr(from), pyStr(to)), cost);
      costs = [cost];
    }
    return dict([["travel_cost_list", costs]]);
  }

  methods(): Record<string, MethodSpec> {
    return (this.cached ??= this.build());
  }

  private build(): Record<string, MethodSpec> {
    const tokenOk = (t: PyValue) => pyEqual(t, this.access_token);
    return {
      authenticate_travel: m(
        [
          ["client_id"],
          ["client_secret"],
          ["refresh_token"],
          ["grant_type"],
          ["user_first_name"],
          ["user_last_name"],
        ],
        ({ grant_type, user_first_name, user_last_name }) => {
          this.token_expires_in = 2;
          this.access_token = String(this.random.randint(100000, 999999));
          this.token_type = "Bearer";
          this.token_scope = grant_type!;
          this.user_first_name = user_first_name!;
          this.user_last_name = user_last_name!;
          return dict([
            ["expires_in", 2],
            ["access_token", this.access_token],
            ["token_type", "Bearer"],
            ["scope", grant_type!],
          ]);
        },
      ),
      travel_get_login_status: m([], () =>
        dict([["status", !(this.token_expires_in === null || pyEqual(this.token_expires_in, 0))]]),
      ),
      get_budget_fiscal_year: m(
        [
          ["lastModifiedAfter", null],
          ["includeRemoved", null],
        ],
        () => dict([["budget_fiscal_year", "2018"]]),
      ),
      register_credit_card: m(
        [
          ["access_token"],
          ["card_number"],
          ["expiration_date"],
          ["cardholder_name"],
          ["card_verification_number"],
        ],
        ({ access_token, card_number, expiration_date, cardholder_name, card_verification_number }) => {
          if (this.token_expires_in === null) return err("Token not initialized");
          if (this.expired()) return err("Token expired");
          if (!tokenOk(access_token!)) return err("Invalid access token");
          if (typeof card_number === "string" && card_number in this.credit_card_list)
            return err("Card already registered");
          const id = String(this.random.randint(100000000000, 999999999999));
          setItem(
            this.credit_card_list,
            id,
            dict([
              ["card_number", card_number!],
              ["expiration_date", expiration_date!],
              ["cardholder_name", cardholder_name!],
              ["card_verification_number", card_verification_number!],
              ["balance", this.random.randint(10000, 99999)],
            ]),
          );
          return dict([["card_id", id]]);
        },
      ),
      get_flight_cost: m([["travel_from"], ["travel_to"], ["travel_date"], ["travel_class"]], (a) =>
        this.flightCost(a.travel_from!, a.travel_to!, a.travel_date!, a.travel_class!),
      ),
      get_credit_card_balance: m([["access_token"], ["card_id"]], ({ access_token, card_id }) => {
        if (this.expired()) return err("Token expired");
        if (!tokenOk(access_token!)) return err("Invalid access token");
        const c = this.card(card_id!);
        if (!c)
          return err(
            "Card not registered. Here are a list of card_id's: " + pyRepr(dictKeys(this.credit_card_list)),
          );
        return dict([["card_balance", c.balance!]]);
      }),
      book_flight: m(
        [["access_token"], ["card_id"], ["travel_date"], ["travel_from"], ["travel_to"], ["travel_class"]],
        ({ access_token, card_id, travel_date, travel_from, travel_to, travel_class }) => {
          const fail = (msg: string) =>
            dict([
              ["booking_status", false],
              ["error", msg],
            ]);
          if (this.expired()) return fail("Token expired");
          if (!tokenOk(access_token!)) return fail("Invalid access token");
          const c = this.card(card_id!);
          if (!c) return fail("Card not registered");
          if (!("balance" in c)) return fail("Balance not found");
          if (!pyIn(travel_from!, AIRPORTS))
            return fail(`Invalid departure airport code: ${pyStr(travel_from!)}`);
          if (!pyIn(travel_to!, AIRPORTS))
            return fail(`Invalid destination airport code: ${pyStr(travel_to!)}`);
          if (!validDate(travel_date!)) return fail("Invalid date format. Use YYYY-MM-DD.");
          if (!pyIn(travel_class!, ["economy", "business", "first"])) {
            return fail("Invalid travel class. Must be one of {'economy', 'business', 'first'}");
          }
          let cost: PyValue;
          try {
            this.flightCost(travel_from!, travel_to!, travel_date!, travel_class!);
            const entry = this.flightCostLookup.get(
              `${pyStr(travel_from!)}|${pyStr(travel_to!)}|${pyStr(travel_class!)}|${pyStr(travel_date!)}`,
            );
            if (entry === undefined) return fail("No available route for the given parameters");
            cost = entry;
          } catch (e) {
            if (e instanceof Error && e.name === "ValueError") return fail(e.message);
            throw e;
          }
          if (compare(c.balance!, cost, "<")) return fail("Insufficient funds");
          if (this.budget_limit !== null && compare(c.balance!, this.budget_limit, "<"))
            return fail("Balance is less than budget limit");
          c.balance = sub(c.balance!, cost);
          const bookingId = String(this.random.randint(1000000, 9999999));
          const transactionId = String(this.random.randint(10000000, 99999999));
          setItem(
            this.booking_record,
            bookingId,
            dict([
              ["card_id", card_id!],
              ["travel_date", travel_date!],
              ["travel_from", travel_from!],
              ["travel_to", travel_to!],
              ["travel_class", travel_class!],
              ["travel_cost", cost],
              ["transaction_id", transactionId],
            ]),
          );
          return dict([
            ["booking_id", bookingId],
            ["transaction_id", transactionId],
            ["booking_status", true],
            ["booking_history", this.long_context ? this.booking_record : newDict()],
          ]);
        },
      ),
      retrieve_invoice: m(
        [["access_token"], ["booking_id", null], ["insurance_id", null]],
        ({ access_token, booking_id }) => {
          if (this.expired()) return err("Token expired");
          if (!tokenOk(access_token!)) return err("Invalid access token");
          const b = this.booking(booking_id!);
          if (!b) return err("Booking not found");
          return dict([
            [
              "invoice",
              dict([
                ["booking_id", booking_id!],
                ["travel_date", b.travel_date!],
                ["travel_from", b.travel_from!],
                ["travel_to", b.travel_to!],
                ["travel_class", b.travel_class!],
                ["travel_cost", b.travel_cost!],
                ["transaction_id", b.transaction_id!],
              ]),
            ],
          ]);
        },
      ),
      get_booking_history: m([["access_token"]], ({ access_token }) => {
        if (this.expired()) return err("Token expired");
        if (!tokenOk(access_token!)) return err("Invalid access token");
        return dict([["booking_history", deepcopy(this.booking_record)]]);
      }),
      list_all_airports: m([], () => [...AIRPORTS]),
      cancel_booking: m([["access_token"], ["booking_id"]], ({ access_token, booking_id }) => {
        const fail = (msg: string) =>
          dict([
            ["cancel_status", false],
            ["error", msg],
          ]);
        if (this.expired()) return fail("Token expired");
        if (!tokenOk(access_token!)) return fail("Invalid access token");
        const b = this.booking(booking_id!);
        if (!b) return fail("Booking not found");
        const c = this.card(b.card_id!);
        if (!c) throw new PyError("KeyError", pyRepr(b.card_id!));
        if (!("balance" in c)) throw new PyError("KeyError", "'balance'");
        c.balance = add(c.balance!, b.travel_cost!);
        delItem(this.booking_record, booking_id as string);
        return dict([["cancel_status", true]]);
      }),
      compute_exchange_rate: m(
        [["base_currency"], ["target_currency"], ["value"]],
        ({ base_currency, target_currency, value }) => {
          for (const [a, b, rate] of RATES) {
            const r = Number.isInteger(rate) ? rate : new PyFloat(rate);
            if (base_currency === a && target_currency === b)
              return dict([["exchanged_value", toFloat(mul(value!, r))]]);
            if (base_currency === b && target_currency === a)
              return dict([["exchanged_value", pyRound(new PyFloat(num(value!) / rate), 2)]]);
          }
          throw valueError("No available exchange rate for the given currencies.");
        },
      ),
      verify_traveler_information: m(
        [["first_name"], ["last_name"], ["date_of_birth"], ["passport_number"]],
        ({ first_name, last_name, date_of_birth, passport_number }) => {
          const fail = (msg: string) =>
            dict([
              ["verification_status", false],
              ["verification_failure", msg],
            ]);
          if (!pyEqual(this.user_first_name, first_name!) || !pyEqual(this.user_last_name, last_name!)) {
            return fail(
              "Cannot book flight information for another user." +
                `Expected ${pyStr(this.user_first_name)} ${pyStr(this.user_last_name)}, got ${pyStr(first_name!)} ${pyStr(last_name!)}`,
            );
          }
          const birth = validDate(date_of_birth!);
          if (!birth) return fail("Invalid date of birth format. Please use YYYY-MM-DD.");
          const t = TRAVEL_TODAY;
          const age =
            t.year - birth.y - (t.month < birth.m || (t.month === birth.m && t.day < birth.d) ? 1 : 0);
          if (age < 18) return fail("Traveler must be at least 18 years old.");
          if (!pyStr(passport_number!).startsWith("US"))
            return fail("Passport must be issued by the United States.");
          return dict([["verification_status", true]]);
        },
      ),
      set_budget_limit: m([["access_token"], ["budget_limit"]], ({ access_token, budget_limit }) => {
        if (this.expired()) return err("Token expired");
        if (!tokenOk(access_token!)) return err("Invalid access token");
        const limit = toFloat(budget_limit!);
        this.budget_limit = limit;
        return dict([["budget_limit", limit]]);
      }),
      get_nearest_airport_by_city: m([["location"]], ({ location }) =>
        dict([
          [
            "nearest_airport",
            typeof location === "string" && Object.hasOwn(CITY_AIRPORT, location)
              ? CITY_AIRPORT[location]!
              : "Unknown",
          ],
        ]),
      ),
      purchase_insurance: m(
        [["access_token"], ["insurance_type"], ["booking_id"], ["insurance_cost"], ["card_id"]],
        ({ access_token, booking_id, insurance_cost, card_id }) => {
          const fail = (msg: string) =>
            dict([
              ["insurance_status", false],
              ["error", msg],
            ]);
          if (this.expired()) return fail("Token expired");
          if (!tokenOk(access_token!)) return fail("Invalid access token");
          if (this.budget_limit !== null && compare(this.budget_limit, insurance_cost!, "<"))
            return fail("Exceeded budget limit");
          if (!this.booking(booking_id!)) return fail("Booking not found");
          const c = this.card(card_id!);
          if (!c) return fail("Credit card not registered");
          c.balance = sub(c.balance!, insurance_cost!);
          return dict([
            ["insurance_id", String(this.random.randint(100000000, 999999999))],
            ["insurance_status", true],
          ]);
        },
      ),
      contact_customer_support: m([["booking_id"], ["message"]], ({ booking_id }) => {
        if (!this.booking(booking_id!)) return err("Booking not found");
        return dict([
          [
            "customer_support_message",
            "Thank you for contacting customer support. Your message has been received and we will get back to you shortly.",
          ],
        ]);
      }),
      get_all_credit_cards: m([], () => dict([["credit_card_list", this.credit_card_list]])),
    };
  }
}
