import { EnvaceError } from "../../core/errors.js";
import { newDict, PyFloat, setItem, type PyValue } from "./py-value.js";

/**
 * JSON text to Python values as Python's `json.loads` gives them: a number with a `.`, `e` or `E`
 * is a float (`5.0` stays a float), any other number an int. `JSON.parse` cannot keep that apart.
 */
export function parseJsonPy(text: string): PyValue {
  const p = new Parser(text);
  p.ws();
  const v = p.value();
  p.ws();
  if (p.i !== text.length) p.fail("trailing characters");
  return v;
}

class Parser {
  i = 0;
  constructor(readonly s: string) {}

  fail(why: string): never {
    throw new EnvaceError("INVALID_DATA_FILE", `invalid JSON at offset ${this.i}: ${why}`);
  }

  ws(): void {
    const s = this.s;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c === 32 || c === 9 || c === 10 || c === 13) this.i++;
      else break;
    }
  }

  value(): PyValue {
    const c = this.s[this.i];
    if (c === "{") return this.object();
    if (c === "[") return this.array();
    if (c === '"') return this.string();
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return this.number();
    if (this.s.startsWith("true", this.i)) return this.lit(4, true);
    if (this.s.startsWith("false", this.i)) return this.lit(5, false);
    if (this.s.startsWith("null", this.i)) return this.lit(4, null);
    // Python's json accepts these too.
    if (this.s.startsWith("NaN", this.i)) return this.lit(3, new PyFloat(NaN));
    if (this.s.startsWith("Infinity", this.i)) return this.lit(8, new PyFloat(Infinity));
    if (this.s.startsWith("-Infinity", this.i)) return this.lit(9, new PyFloat(-Infinity));
    return this.fail("unexpected character");
  }

  lit(n: number, v: PyValue): PyValue {
    this.i += n;
    return v;
  }

  object(): PyValue {
    const out = newDict();
    this.i++;
    this.ws();
    if (this.s[this.i] === "}") {
      this.i++;
      return out;
    }
    for (;;) {
      this.ws();
      if (this.s[this.i] !== '"') this.fail("expected a string key");
      const key = this.string();
      this.ws();
      if (this.s[this.i] !== ":") this.fail("expected ':'");
      this.i++;
      this.ws();
      setItem(out, key, this.value());
      this.ws();
      const c = this.s[this.i++];
      if (c === "}") return out;
      if (c !== ",") this.fail("expected ',' or '}'");
    }
  }

  array(): PyValue {
    const out: PyValue[] = [];
    this.i++;
    this.ws();
    if (this.s[this.i] === "]") {
      this.i++;
      return out;
    }
    for (;;) {
      this.ws();
      out.push(this.value());
      this.ws();
      const c = this.s[this.i++];
      if (c === "]") return out;
      if (c !== ",") this.fail("expected ',' or ']'");
    }
  }

  string(): string {
    // Find the closing quote; hand the literal to JSON.parse for escapes (fast and exact).
    const start = this.i;
    let j = start + 1;
    let escaped = false;
    const s = this.s;
    for (; j < s.length; j++) {
      const c = s.charCodeAt(j);
      if (c === 92) {
        escaped = true;
        j++;
      } else if (c === 34) break;
    }
    if (j >= s.length) this.fail("unterminated string");
    this.i = j + 1;
    const raw = s.slice(start, j + 1);
    return escaped ? (JSON.parse(raw) as string) : raw.slice(1, -1);
  }

  number(): PyValue {
    const m = /^-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.s.slice(this.i, this.i + 400));
    if (!m) return this.fail("bad number");
    this.i += m[0].length;
    const n = Number(m[0]);
    return m[1] !== undefined || m[2] !== undefined ? new PyFloat(n) : n;
  }
}
