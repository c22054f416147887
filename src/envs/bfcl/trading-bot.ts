import { Backend, m, type MethodSpec } from "./backend.js";
import { longContextValue, type LongContextData } from "./long-context.js";
import {
  add,
  compare,
  deepcopy,
  dict,
  formatFixed,
  intKey,
  num,
  PyError,
  sub,
  toFloat,
  truthy,
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
  dictEntries,
  dictKeys,
  setItem,
} from "./py-value.js";

/**
 * Port of upstream's `TradingBot` (`trading_bot.py`). Transaction timestamps are drawn from
 * CPython's `random.Random(random_seed)` as seconds after 2024-09-01 10:30 — upstream converts
 * through the machine's local time zone and back, which gives the same wall-clock time, so we
 * compute it in UTC. Orders are keyed by int ids upstream (we keep their text and look them up
 * as Python would).
 */
const f = (x: number) => new PyFloat(x);
const stock = (price: number, pct: number, vol: number, ma5: number, ma20: number) =>
  dict([
    ["price", f(price)],
    ["percent_change", f(pct)],
    ["volume", f(vol)],
    ["MA(5)", f(ma5)],
    ["MA(20)", f(ma20)],
  ]);

function defaultState(): PyDict {
  return dict([
    [
      "orders",
      dict([
        [
          "12345",
          dict([
            ["id", 12345],
            ["order_type", "Buy"],
            ["symbol", "AAPL"],
            ["price", f(210.65)],
            ["amount", 10],
            ["status", "Completed"],
          ]),
        ],
        [
          "12446",
          dict([
            ["id", 12446],
            ["order_type", "Sell"],
            ["symbol", "GOOG"],
            ["price", f(2840.56)],
            ["amount", 5],
            ["status", "Pending"],
          ]),
        ],
      ]),
    ],
    [
      "account_info",
      dict([
        ["account_id", 12345],
        ["balance", f(10000.0)],
        ["binding_card", 1974202140965533],
      ]),
    ],
    ["authenticated", false],
    ["market_status", "Closed"],
    ["order_counter", 12446],
    [
      "stocks",
      dict([
        ["AAPL", stock(227.16, 0.17, 2.552, 227.11, 227.09)],
        ["GOOG", stock(2840.34, 0.24, 1.123, 2835.67, 2842.15)],
        ["TSLA", stock(667.92, -0.12, 1.654, 671.15, 668.2)],
        ["MSFT", stock(310.23, 0.09, 3.234, 309.88, 310.11)],
        ["NVDA", stock(220.34, 0.34, 1.234, 220.45, 220.67)],
        ["ALPH", stock(1320.45, -0.08, 1.567, 1321.12, 1325.78)],
        ["OMEG", stock(457.23, 0.12, 2.345, 456.78, 458.12)],
        ["QUAS", stock(725.89, -0.03, 1.789, 726.45, 728.0)],
        ["NEPT", stock(88.34, 0.19, 0.654, 88.21, 88.67)],
        ["SYNX", stock(345.67, 0.11, 2.112, 345.34, 346.12)],
        ["ZETA", stock(22.09, -0.05, 0.789, 22.12, 22.34)],
      ]),
    ],
    ["watch_list", ["NVDA"]],
    ["transaction_history", []],
    ["random_seed", 1053520],
  ]);
}

const CURRENT_TIME_MS = Date.UTC(2024, 8, 1, 10, 30);
const err = (msg: string): PyDict => dict([["error", msg]]);
const pad = (n: number, w = 2) => String(n).padStart(w, "0");

function formatTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** `datetime.strptime(s, '%Y-%m-%d')` as a sortable key, or the ValueError Python raises. */
function parseDate(s: PyValue, withTime = false): string {
  const t = pyStr(s);
  const re = withTime
    ? /^(\d{4})-(\d{1,2})-(\d{1,2}) (\d{1,2}):(\d{1,2}):(\d{1,2})$/
    : /^(\d{4})-(\d{1,2})-(\d{1,2})$/;
  const mm = re.exec(t);
  const fmt = withTime ? "%Y-%m-%d %H:%M:%S" : "%Y-%m-%d";
  const bad = () => new PyError("ValueError", `time data ${pyRepr(t)} does not match format '${fmt}'`);
  if (!mm) throw bad();
  const [y, mo, d, h = "0", mi = "0", se = "0"] = mm.slice(1);
  const date = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  if (date.getUTCMonth() !== Number(mo) - 1 || date.getUTCDate() !== Number(d)) throw bad();
  if (Number(h) > 23 || Number(mi) > 59 || Number(se) > 61) throw bad();
  return `${y}-${pad(Number(mo))}-${pad(Number(d))} ${pad(Number(h))}:${pad(Number(mi))}:${pad(Number(se))}`;
}

export class TradingBot extends Backend {
  readonly className = "TradingBot";
  orders: PyDict = newDict();
  account_info: PyDict = newDict();
  authenticated: PyValue = false;
  market_status: PyValue = "Closed";
  order_counter: PyValue = 12446;
  stocks: PyDict = newDict();
  watch_list: PyValue[] = [];
  transaction_history: PyValue[] = [];
  long_context = false;
  private random = new PyRandom(1053520);
  /** Order keys that are ints upstream (digit strings are converted), for printing them. */
  private intKeys = new Set<string>();
  private cached?: Record<string, MethodSpec>;

  constructor(private readonly longContextData?: LongContextData) {
    super();
  }

  loadScenario(config: PyDict, longContext: boolean): void {
    const d = defaultState();
    const get = (k: string) => (k in config ? config[k]! : d[k]!);
    this.orders = get("orders") as PyDict;
    this.intKeys = new Set(dictKeys(this.orders).filter((k) => /^\d+$/.test(k)));
    this.account_info = get("account_info") as PyDict;
    this.authenticated = get("authenticated");
    this.market_status = get("market_status");
    this.order_counter = get("order_counter");
    this.stocks = get("stocks") as PyDict;
    this.watch_list = get("watch_list") as PyValue[];
    this.transaction_history = get("transaction_history") as PyValue[];
    this.long_context = longContext;
    this.random = new PyRandom(Number(get("random_seed")));
  }

  publicState(): Record<string, PyValue> {
    return {
      orders: this.orders,
      account_info: this.account_info,
      authenticated: this.authenticated,
      market_status: this.market_status,
      order_counter: this.order_counter,
      stocks: this.stocks,
      watch_list: this.watch_list,
      transaction_history: this.transaction_history,
      long_context: this.long_context,
    };
  }

  private timestamp(): string {
    const start = Math.floor(CURRENT_TIME_MS / 1000);
    return formatTime(this.random.randint(start, start + 86400) * 1000);
  }

  private order(id: PyValue): PyDict | undefined {
    const k = intKey(id);
    if (k !== undefined && this.intKeys.has(k)) return this.orders[k] as PyDict;
    if (typeof id === "string" && !this.intKeys.has(id) && id in this.orders)
      return this.orders[id] as PyDict;
    return undefined;
  }

  private lc(name: string): PyValue {
    return deepcopy(longContextValue(this.longContextData, name));
  }

  methods(): Record<string, MethodSpec> {
    return (this.cached ??= this.build());
  }

  private build(): Record<string, MethodSpec> {
    const auth = () => truthy(this.authenticated);
    const balance = () => (this.account_info.balance ?? 0) as PyValue;
    return {
      get_current_time: m([], () => dict([["current_time", "10:30 AM"]])),
      get_symbol_by_name: m([["name"]], ({ name }) => {
        const map: Record<string, string> = {
          Apple: "AAPL",
          Google: "GOOG",
          Tesla: "TSLA",
          Microsoft: "MSFT",
          Nvidia: "NVDA",
          "Zeta Corp": "ZETA",
          "Alpha Tech": "ALPH",
          "Omega Industries": "OMEG",
          "Quasar Ltd.": "QUAS",
          "Neptune Systems": "NEPT",
          "Synex Solutions": "SYNX",
          Amazon: "AMZN",
          Gorilla: "GORI",
        };
        return dict([
          ["symbol", typeof name === "string" && Object.hasOwn(map, name) ? map[name]! : "Stock not found"],
        ]);
      }),
      get_stock_info: m([["symbol"]], ({ symbol }) => {
        if (typeof symbol !== "string" || !(symbol in this.stocks))
          return err(`Stock with symbol '${pyStr(symbol!)}' not found.`);
        if (this.long_context) {
          const s = { ...(this.stocks[symbol] as PyDict) } as PyDict;
          s["MA(5)"] = this.lc("MA_5_EXTENSION");
          s["MA(20)"] = this.lc("MA_20_EXTENSION");
          return s;
        }
        return this.stocks[symbol]!;
      }),
      get_order_details: m([["order_id"]], ({ order_id }) => {
        const o = this.order(order_id!);
        if (!o) {
          const keys = dictKeys(this.orders).map((k) => (this.intKeys.has(k) ? k : pyRepr(k)));
          return err(
            `Order with ID ${pyStr(order_id!)} not found.Here is the list of orders_id: [${keys.join(", ")}]`,
          );
        }
        if (this.long_context) {
          const copy = Object.assign(newDict(), o);
          const ext = newDict();
          for (const [k, v] of dictEntries(this.lc("ORDER_DETAIL_EXTENSION") as PyDict)) {
            setItem(
              ext,
              k,
              pyStr(v)
                .replace(/\{symbol\}/g, pyStr(o.symbol!))
                .replace(/\{\{/g, "{")
                .replace(/\}\}/g, "}"),
            );
          }
          copy.metadata = ext;
          return copy;
        }
        return o;
      }),
      cancel_order: m([["order_id"]], ({ order_id }) => {
        const o = this.order(order_id!);
        if (!o) return err(`Order with ID ${pyStr(order_id!)} not found.`);
        if (o.status === "Completed")
          return err(`Can't cancel order ${pyStr(order_id!)}. Order is already completed.`);
        o.status = "Cancelled";
        return dict([
          ["order_id", order_id!],
          ["status", "Cancelled"],
        ]);
      }),
      place_order: m(
        [["order_type"], ["symbol"], ["price"], ["amount"]],
        ({ order_type, symbol, price, amount }) => {
          if (!auth()) return err("User not authenticated. Please log in to place an order.");
          if (typeof symbol !== "string" || !(symbol in this.stocks))
            return err(`Invalid stock symbol: ${pyStr(symbol!)}`);
          if (compare(price!, 0, "<=") || compare(amount!, 0, "<="))
            return err("Price and amount must be positive values.");
          if (pyStr(order_type!).toLowerCase() === "buy") {
            const total = num(price!) * Math.trunc(num(amount!));
            if (compare(total, balance(), ">")) {
              return err(
                `Insufficient funds: required $${formatFixed(total, 2)} but only $${formatFixed(num(balance()), 2)} available.`,
              );
            }
          }
          const p = toFloat(price!);
          const id = this.order_counter;
          const key = String(num(id));
          setItem(
            this.orders,
            key,
            dict([
              ["id", id],
              ["order_type", order_type!],
              ["symbol", symbol],
              ["price", p],
              ["amount", amount!],
              ["status", "Open"],
            ]),
          );
          this.intKeys.add(key);
          this.order_counter = add(this.order_counter, 1);
          return dict([
            ["order_id", id],
            ["order_type", order_type!],
            ["status", "Pending"],
            ["price", p],
            ["amount", amount!],
          ]);
        },
      ),
      withdraw_funds: m([["amount"]], ({ amount }) => {
        if (!auth()) return err("User not authenticated. Please log in to make a transaction.");
        if (this.market_status !== "Open") return err("Market is closed. Transactions are not allowed.");
        if (compare(amount!, 0, "<=")) return err("Transaction amount must be positive.");
        if (compare(amount!, this.account_info.balance!, ">"))
          return err("Insufficient funds for withdrawal.");
        this.account_info.balance = sub(this.account_info.balance!, amount!);
        this.transaction_history.push(
          dict([
            ["type", "withdrawal"],
            ["amount", amount!],
            ["timestamp", this.timestamp()],
          ]),
        );
        return dict([
          ["status", "Withdrawal successful"],
          ["new_balance", this.account_info.balance],
        ]);
      }),
      get_account_info: m([], () =>
        auth()
          ? this.account_info
          : err("User not authenticated. Please log in to view account information."),
      ),
      trading_login: m([["username"], ["password"]], () => {
        if (auth()) return dict([["status", "Already logged in"]]);
        this.authenticated = true;
        return dict([["status", "Logged in successfully"]]);
      }),
      trading_get_login_status: m([], () => dict([["status", auth()]])),
      trading_logout: m([], () => {
        if (!auth()) return dict([["status", "No user is currently logged in"]]);
        this.authenticated = false;
        return dict([["status", "Logged out successfully"]]);
      }),
      fund_account: m([["amount"]], ({ amount }) => {
        if (!auth()) return err("User not authenticated. Please log in to fund the account.");
        if (compare(amount!, 0, "<=")) return err("Funding amount must be positive.");
        this.account_info.balance = add(this.account_info.balance!, amount!);
        this.transaction_history.push(
          dict([
            ["type", "deposit"],
            ["amount", amount!],
            ["timestamp", this.timestamp()],
          ]),
        );
        return dict([
          ["status", "Account funded successfully"],
          ["new_balance", this.account_info.balance],
        ]);
      }),
      remove_stock_from_watchlist: m([["symbol"]], ({ symbol }) => {
        if (!auth()) return err("User not authenticated. Please log in to modify the watchlist.");
        const i = this.watch_list.findIndex((s) => pyEqual(s, symbol!));
        if (i < 0) return err(`Stock ${pyStr(symbol!)} not found in watchlist.`);
        this.watch_list.splice(i, 1);
        return dict([["status", `Stock ${pyStr(symbol!)} removed from watchlist successfully.`]]);
      }),
      get_watchlist: m([], () => {
        if (!auth()) return ["Error: User not authenticated. Please log in to view the watchlist."];
        if (this.long_context) return [...this.watch_list, ...(this.lc("WATCH_LIST_EXTENSION") as PyValue[])];
        return dict([["watchlist", this.watch_list]]);
      }),
      get_order_history: m([], () => {
        if (!auth()) return [err("User not authenticated. Please log in to view order history.")];
        return dict([["history", dictKeys(this.orders).map((k) => (this.intKeys.has(k) ? Number(k) : k))]]);
      }),
      get_transaction_history: m(
        [
          ["start_date", null],
          ["end_date", null],
        ],
        ({ start_date, end_date }) => {
          if (!auth()) return [err("User not authenticated. Please log in to view transaction history.")];
          const start = truthy(start_date!) ? parseDate(start_date!) : "0001-01-01 00:00:00";
          const end = truthy(end_date!) ? parseDate(end_date!) : "9999-12-31 23:59:60";
          const out = this.transaction_history.filter((t) => {
            const at = parseDate((t as PyDict).timestamp!, true);
            return start <= at && at <= end;
          });
          if (this.long_context) out.push(...(this.lc("TRANSACTION_HISTORY_EXTENSION") as PyValue[]));
          return dict([["transaction_history", out]]);
        },
      ),
      get_available_stocks: m([["sector"]], ({ sector }) => {
        const map: Record<string, PyValue[]> = {
          Technology: ["AAPL", "GOOG", "MSFT", "NVDA"],
          Automobile: ["TSLA", "F", "GM"],
        };
        if (this.long_context) {
          map.Technology!.push(...(this.lc("TECHNOLOGY_EXTENSION") as PyValue[]));
          map.Automobile!.push(...(this.lc("AUTOMOBILE_EXTENSION") as PyValue[]));
        }
        return dict([
          ["stock_list", typeof sector === "string" && Object.hasOwn(map, sector) ? map[sector]! : []],
        ]);
      }),
      filter_stocks_by_price: m(
        [["stocks"], ["min_price"], ["max_price"]],
        ({ stocks, min_price, max_price }) => {
          const priceOf = (s: PyValue): PyValue => {
            const st = typeof s === "string" && s in this.stocks ? (this.stocks[s] as PyDict) : undefined;
            return st?.price ?? 0;
          };
          const out = (stocks as PyValue[]).filter(
            (s) => compare(priceOf(s), min_price!, ">=") && compare(priceOf(s), max_price!, "<="),
          );
          return dict([["filtered_stocks", out]]);
        },
      ),
      add_to_watchlist: m([["stock"]], ({ stock: s }) => {
        if (!pyIn(s!, this.watch_list) && typeof s === "string" && s in this.stocks) this.watch_list.push(s);
        return dict([["watchlist", this.watch_list]]);
      }),
      notify_price_change: m([["stocks"], ["threshold"]], ({ stocks, threshold }) => {
        const changed = (stocks as PyValue[]).filter(
          (s) =>
            typeof s === "string" &&
            s in this.stocks &&
            compare(Math.abs(num((this.stocks[s] as PyDict).percent_change!)), threshold!, ">="),
        );
        if (changed.length > 0) {
          return dict([
            ["notification", `Stocks ${changed.map(pyStr).join(", ")} have significant price changes.`],
          ]);
        }
        return dict([["notification", "No significant price changes in the selected stocks."]]);
      }),
    };
  }
}
