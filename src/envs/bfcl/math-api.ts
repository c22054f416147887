import { Backend, m, RawResult, type MethodSpec } from "./backend.js";
import { lnCorrect } from "./py-math.js";
import {
  add,
  compare,
  dict,
  div,
  isFloat,
  isNum,
  mul,
  num,
  pyRound,
  sub,
  truthy,
  typeError,
} from "./py-ops.js";
import { PyFloat, pyRepr, pyStr, pyType, type PyDict, type PyValue } from "./py-value.js";

/**
 * Port of upstream's stateless `MathAPI` (`math_api.py`). `logarithm` computes with mpmath at
 * `precision` decimal digits and its result prints as `{'result': mpf('…')}`; we round the
 * logs and the quotient to the same binary precision in doubles, exact for precision ≤ 15.
 * `square_root` uses `Decimal`; we print `Decimal('…')` from a double (not digit-exact past 15
 * digits). `sum` adds floats left to right (CPython ≤ 3.11; 3.12 compensates).
 */
const err = (msg: string): PyDict => dict([["error", msg]]);
const result = (v: PyValue): PyDict => dict([["result", v]]);

/** Rounds x to `bits` significant bits, ties to even (mpmath's default rounding). */
function roundToBits(x: number, bits: number): number {
  if (x === 0 || !Number.isFinite(x) || bits >= 53) return x;
  const e = Math.floor(Math.log2(Math.abs(x)));
  const scale = 2 ** (bits - 1 - e);
  const y = x * scale;
  let r = Math.round(y);
  if (Math.abs(y - Math.trunc(y)) === 0.5) r = 2 * Math.round(y / 2);
  return r / scale;
}

/** mpmath's repr of an mpf at binary precision `prec`. */
function mpfRepr(x: number, prec: number): string {
  const dps = Math.max(1, Math.round(prec / 3.3219280948873626) - 1);
  const digits = dps === 15 ? 17 : dps + 3;
  if (x === 0) return "mpf('0.0')";
  const [mant, expStr] = x.toExponential(digits - 1).split("e") as [string, string];
  const exp = Number(expStr);
  const neg = mant.startsWith("-");
  let ds = mant.replace("-", "").replace(".", "").replace(/0+$/, "");
  if (ds === "") ds = "0";
  let body: string;
  if (exp >= -Math.floor(digits / 3) && exp < digits) {
    if (exp >= 0) {
      const intPart = ds.slice(0, exp + 1).padEnd(exp + 1, "0");
      const frac = ds.slice(exp + 1);
      body = `${intPart}.${frac === "" ? "0" : frac}`;
    } else body = `0.${"0".repeat(-exp - 1)}${ds}`;
  } else {
    body = `${ds[0]}.${ds.length > 1 ? ds.slice(1) : "0"}e${exp >= 0 ? "+" : ""}${exp}`;
  }
  return `mpf('${neg ? "-" : ""}${body}')`;
}

function pySum(numbers: PyValue[]): PyValue {
  let total: PyValue = 0;
  for (const n of numbers) total = add(total, n);
  return total;
}

export class MathAPI extends Backend {
  readonly className = "MathAPI";
  private cached?: Record<string, MethodSpec>;

  loadScenario(): void {}
  publicState(): Record<string, PyValue> {
    return {};
  }
  methods(): Record<string, MethodSpec> {
    return (this.cached ??= this.build());
  }

  private build(): Record<string, MethodSpec> {
    const guard = (msg: string, f: () => PyValue | RawResult): PyValue | RawResult => {
      try {
        return f();
      } catch (e) {
        if (e instanceof Error && e.name === "TypeError") return err(msg);
        throw e;
      }
    };
    // `not numbers` first (an empty list, "", None), then Python iterates: a string's characters.
    // Anything else is not iterable: the TypeError upstream turns into its "must be numbers" error.
    const list = (v: PyValue): PyValue[] | undefined => {
      if (!truthy(v)) return undefined;
      if (Array.isArray(v)) return v;
      if (typeof v === "string") return [...v];
      throw typeError(`'${pyType(v)}' object is not iterable`);
    };
    return {
      logarithm: m([["value"], ["base"], ["precision"]], ({ value, base, precision }) => {
        for (const x of [value!, base!]) if (!isNum(x)) return err(`cannot create mpf from ${pyRepr(x)}`);
        const dps = num(precision!);
        const prec = Math.max(1, Math.round((dps + 1) * 3.3219280948873626));
        const v = num(value!);
        const b = num(base!);
        if (v <= 0 || b <= 0) return err("math domain error");
        const q = roundToBits(roundToBits(lnCorrect(v), prec) / roundToBits(lnCorrect(b), prec), prec);
        return new RawResult(`{'result': ${mpfRepr(q, prec)}}`);
      }),
      mean: m([["numbers"]], ({ numbers }) => {
        let xs: PyValue[] | undefined;
        try {
          xs = list(numbers!);
        } catch {
          return err("All elements in the list must be numbers");
        }
        if (!xs || xs.length === 0) return err("Cannot calculate mean of an empty list");
        return guard("All elements in the list must be numbers", () => result(div(pySum(xs), xs.length)));
      }),
      standard_deviation: m([["numbers"]], ({ numbers }) => {
        let xs: PyValue[] | undefined;
        try {
          xs = list(numbers!);
        } catch {
          return err("All elements in the list must be numbers");
        }
        if (!xs || xs.length === 0) return err("Cannot calculate standard deviation of an empty list");
        return guard("All elements in the list must be numbers", () => {
          const mean = num(div(pySum(xs), xs.length));
          let acc = 0;
          for (const x of xs) acc += (num(x) - mean) ** 2;
          return result(new PyFloat(Math.sqrt(acc / xs.length)));
        });
      }),
      si_unit_conversion: m([["value"], ["unit_in"], ["unit_out"]], ({ value, unit_in, unit_out }) => {
        const toMeters: Record<string, number> = { km: 1000, m: 1, cm: 0.01, mm: 0.001, um: 1e-6, nm: 1e-9 };
        if (!isNum(value!) || typeof value === "boolean") return err("Value must be a number");
        const i = pyStr(unit_in!);
        const o = pyStr(unit_out!);
        if (!(i in toMeters) || !(o in toMeters))
          return err(`Conversion from '${i}' to '${o}' is not supported`);
        const inMeters = mul(
          value!,
          typeof toMeters[i] === "number" && Number.isInteger(toMeters[i])
            ? toMeters[i]!
            : new PyFloat(toMeters[i]!),
        );
        return result(mul(inMeters, new PyFloat(1 / toMeters[o]!)));
      }),
      imperial_si_conversion: m([["value"], ["unit_in"], ["unit_out"]], ({ value, unit_in, unit_out }) => {
        const conversion: Record<string, number> = {
          cm_to_in: 0.393701,
          in_to_cm: 2.54,
          m_to_ft: 3.28084,
          ft_to_m: 0.3048,
          m_to_yd: 1.09361,
          yd_to_m: 0.9144,
          km_to_miles: 0.621371,
          miles_to_km: 1.60934,
          kg_to_lb: 2.20462,
          lb_to_kg: 0.453592,
          celsius_to_fahrenheit: 1.8,
          fahrenheit_to_celsius: 5 / 9,
        };
        if (!isNum(value!) || typeof value === "boolean") return err("Value must be a number");
        if (unit_in === unit_out) return result(value!);
        const key = `${pyStr(unit_in!)}_to_${pyStr(unit_out!)}`;
        if (!(key in conversion)) {
          return err(`Conversion from '${pyStr(unit_in!)}' to '${pyStr(unit_out!)}' is not supported`);
        }
        const f = new PyFloat(conversion[key]!);
        if (unit_in === "celsius" && unit_out === "fahrenheit") return result(add(mul(value!, f), 32));
        if (unit_in === "fahrenheit" && unit_out === "celsius") return result(mul(sub(value!, 32), f));
        return result(mul(value!, f));
      }),
      add: m([["a"], ["b"]], ({ a, b }) => guard("Both inputs must be numbers", () => result(add(a!, b!)))),
      subtract: m([["a"], ["b"]], ({ a, b }) =>
        guard("Both inputs must be numbers", () => result(sub(a!, b!))),
      ),
      multiply: m([["a"], ["b"]], ({ a, b }) => {
        if (!isNum(a!) || !isNum(b!)) return err("Both inputs must be numbers");
        return result(mul(a!, b!));
      }),
      divide: m([["a"], ["b"]], ({ a, b }) =>
        guard("Both inputs must be numbers", () => {
          if (isNum(b!) && num(b!) === 0) return err("Cannot divide by zero");
          return result(div(a!, b!));
        }),
      ),
      power: m([["base"], ["exponent"]], ({ base, exponent }) =>
        guard("Both inputs must be numbers", () => {
          const x = num(base!, "** or pow()");
          const y = num(exponent!, "** or pow()");
          const float = isFloat(base!) || isFloat(exponent!) || y < 0;
          return result(float ? new PyFloat(x ** y) : x ** y);
        }),
      ),
      square_root: m([["number"], ["precision"]], ({ number, precision }) => {
        if (!isNum(number!))
          return err("Input must be a number or computation resulted in an invalid operation");
        if (compare(number!, 0, "<")) return err("Cannot calculate square root of a negative number");
        const digits = Math.max(1, Math.min(100, num(precision!)));
        const r = Math.sqrt(num(number!));
        const text = Number.isInteger(r) ? String(r) : String(Number(r.toPrecision(Math.min(digits, 17))));
        return new RawResult(`{'result': Decimal('${text}')}`);
      }),
      absolute_value: m([["number"]], ({ number }) =>
        guard("Input must be a number", () => {
          const n = num(number!, "abs()");
          return result(isFloat(number!) ? new PyFloat(Math.abs(n)) : Math.abs(n));
        }),
      ),
      round_number: m([["number"], ["decimal_places", 0]], ({ number, decimal_places }) =>
        guard("First input must be a number, second input must be an integer", () =>
          result(pyRound(number!, num(decimal_places!))),
        ),
      ),
      percentage: m([["part"], ["whole"]], ({ part, whole }) =>
        guard("Both inputs must be numbers", () => {
          if (isNum(whole!) && num(whole!) === 0) return err("Whole value cannot be zero");
          return result(mul(div(part!, whole!), 100));
        }),
      ),
      min_value: m([["numbers"]], ({ numbers }) => {
        let xs: PyValue[] | undefined;
        try {
          xs = list(numbers!);
        } catch {
          return err("All elements in the list must be numbers");
        }
        if (!xs || xs.length === 0) return err("Cannot find minimum of an empty list");
        return guard("All elements in the list must be numbers", () =>
          result(xs.reduce((a, b) => (compare(b, a, "<") ? b : a))),
        );
      }),
      max_value: m([["numbers"]], ({ numbers }) => {
        let xs: PyValue[] | undefined;
        try {
          xs = list(numbers!);
        } catch {
          return err("All elements in the list must be numbers");
        }
        if (!xs || xs.length === 0) return err("Cannot find maximum of an empty list");
        return guard("All elements in the list must be numbers", () =>
          result(xs.reduce((a, b) => (compare(b, a, ">") ? b : a))),
        );
      }),
      sum_values: m([["numbers"]], ({ numbers }) => {
        let xs: PyValue[] | undefined;
        try {
          xs = list(numbers!);
        } catch {
          return err("All elements in the list must be numbers");
        }
        if (!xs || xs.length === 0) return err("Cannot calculate sum of an empty list");
        return guard("All elements in the list must be numbers", () => result(pySum(xs)));
      }),
    };
  }
}
