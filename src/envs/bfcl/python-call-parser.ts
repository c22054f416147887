import { EnvaceError } from "../../core/errors.js";
import { newDict, PyEllipsis, PyFloat, PyTuple, setItem, type PyDict, type PyValue } from "./py-value.js";

/**
 * A parser for the Python call expressions BFCL models emit (`[f(a=1), g(b='x')]`) and its
 * multi-turn ground truth executes (`sort('final_report.pdf')`). Upstream runs Python's `ast.parse`
 * and, for execution, `eval`; we read literals only — strings (both quote styles, triple quotes,
 * r/u/b prefixes, implicit concatenation), ints, floats, True/False/None, lists, tuples, dicts,
 * unary signs, `...` — and never run anything. A bare name reads as its own text and a nested call
 * as upstream's decoder reads it (keywords → `{name: {...}}`, none → its source text). Arithmetic,
 * lambdas and subscripts, which upstream evaluates, are a parse error here.
 */
export interface ParsedCall {
  /** Dotted name, e.g. `math.sqrt`. */
  name: string;
  args: PyValue[];
  kwargs: PyDict;
}

export class PythonSyntaxError extends EnvaceError {
  constructor(message: string) {
    super("INVALID_TOOL_CALL_FORMAT", message);
    this.name = "PythonSyntaxError";
  }
}

const MAX_DEPTH = 100;

/** One expression that is a call, or a list/tuple of calls (upstream `ast_parse`, Python). */
export function parseCallList(source: string): ParsedCall[] {
  const p = new Parser(source);
  p.skip();
  let calls: ParsedCall[];
  const c = p.peek();
  if (c === "[" || c === "(") {
    const saved = p.i;
    const asCall = p.tryCallAt();
    if (asCall) calls = [asCall];
    else {
      p.i = saved;
      calls = p.callSequence();
    }
  } else {
    calls = [p.call(0)];
  }
  p.skip();
  if (!p.done()) p.fail("unexpected text after the expression");
  return calls;
}

/** Exactly one call expression (a multi-turn ground-truth or replayed step). */
export function parseCall(source: string): ParsedCall {
  const p = new Parser(source);
  p.skip();
  const call = p.call(0);
  p.skip();
  if (!p.done()) p.fail("unexpected text after the call");
  return call;
}

/**
 * One Python literal expression (`[{'a': 5.0}]`, `(1, 'x')`, …). `...` reads as the text "..."
 * (as upstream's call decoder reads it) unless `ellipsis: "object"` asks for Python's Ellipsis.
 */
export function parsePythonLiteral(source: string, opts: { ellipsis?: "text" | "object" } = {}): PyValue {
  const p = new Parser(source, opts.ellipsis === "object");
  const v = p.expr(0);
  p.skip();
  if (!p.done()) p.fail("unexpected text after the literal");
  return v;
}

class Parser {
  i = 0;
  constructor(
    readonly s: string,
    readonly ellipsisObject = false,
  ) {}

  fail(why: string): never {
    throw new PythonSyntaxError(`invalid syntax at offset ${this.i}: ${why}`);
  }
  done(): boolean {
    return this.i >= this.s.length;
  }
  peek(): string | undefined {
    return this.s[this.i];
  }
  skip(): void {
    while (this.i < this.s.length) {
      const c = this.s[this.i]!;
      if (c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f") this.i++;
      else if (c === "\\" && this.s[this.i + 1] === "\n") this.i += 2;
      else if (c === "#") {
        while (this.i < this.s.length && this.s[this.i] !== "\n") this.i++;
      } else break;
    }
  }
  eat(ch: string): boolean {
    this.skip();
    if (this.s[this.i] === ch) {
      this.i++;
      return true;
    }
    return false;
  }
  expect(ch: string): void {
    if (!this.eat(ch)) this.fail(`expected '${ch}'`);
  }

  /** `[call, call]` or `(call, call)`: the outer brackets and their calls. */
  callSequence(): ParsedCall[] {
    const open = this.s[this.i]!;
    const close = open === "[" ? "]" : ")";
    this.i++;
    const out: ParsedCall[] = [];
    for (;;) {
      this.skip();
      if (this.eat(close)) return out;
      out.push(this.call(1));
      this.skip();
      if (this.eat(close)) return out;
      this.expect(",");
    }
  }

  /** A parenthesised single call, e.g. `(f(x=1))`; undefined when the text is not one. */
  tryCallAt(): ParsedCall | undefined {
    if (this.s[this.i] !== "(") return undefined;
    try {
      this.i++;
      const c = this.call(1);
      if (!this.eat(")")) return undefined;
      return c;
    } catch (e) {
      if (e instanceof PythonSyntaxError) return undefined;
      throw e;
    }
  }

  dottedName(): string {
    this.skip();
    const parts = [this.identifier()];
    for (;;) {
      const save = this.i;
      this.skip();
      if (this.s[this.i] === "." && this.s[this.i + 1] !== ".") {
        this.i++;
        this.skip();
        parts.push(this.identifier());
      } else {
        this.i = save;
        return parts.join(".");
      }
    }
  }

  identifier(): string {
    const m = /^[\p{L}_][\p{L}\p{N}_]*/u.exec(this.s.slice(this.i, this.i + 256));
    if (!m) this.fail("expected a name");
    this.i += m[0].length;
    return m[0];
  }

  call(depth: number): ParsedCall {
    if (depth > MAX_DEPTH) this.fail("nesting too deep");
    this.skip();
    if (this.s[this.i] === "(") {
      // A parenthesised call is still a call: `[(f(x=1))]`.
      this.i++;
      const inner = this.call(depth + 1);
      this.expect(")");
      return inner;
    }
    const name = this.dottedName();
    this.skip();
    if (this.s[this.i] !== "(") this.fail("expected a call");
    this.i++;
    return { name, ...this.arguments(depth) };
  }

  arguments(depth: number): { args: PyValue[]; kwargs: PyDict } {
    const args: PyValue[] = [];
    const kwargs = newDict();
    for (;;) {
      this.skip();
      if (this.eat(")")) return { args, kwargs };
      const save = this.i;
      const kw = /^[\p{L}_][\p{L}\p{N}_]*/u.exec(this.s.slice(this.i, this.i + 256));
      let isKw = false;
      if (kw) {
        this.i += kw[0].length;
        this.skip();
        if (this.s[this.i] === "=" && this.s[this.i + 1] !== "=") {
          this.i++;
          isKw = true;
          if (Object.prototype.hasOwnProperty.call(kwargs, kw[0]))
            this.fail(`keyword argument repeated: ${kw[0]}`);
          kwargs[kw[0]] = this.expr(depth + 1);
        } else this.i = save;
      }
      if (!isKw) {
        if (Object.keys(kwargs).length > 0) this.fail("positional argument follows keyword argument");
        args.push(this.expr(depth + 1));
      }
      this.skip();
      if (this.eat(")")) return { args, kwargs };
      this.expect(",");
    }
  }

  expr(depth: number): PyValue {
    if (depth > MAX_DEPTH) this.fail("nesting too deep");
    this.skip();
    const c = this.s[this.i];
    if (c === undefined) this.fail("unexpected end");
    let v: PyValue;
    if (c === "-" || c === "+") {
      this.i++;
      const operand = this.expr(depth + 1);
      if (typeof operand === "number") v = c === "-" ? -operand : operand;
      else if (operand instanceof PyFloat) v = new PyFloat(c === "-" ? -operand.value : operand.value);
      else if (typeof operand === "boolean") v = c === "-" ? -Number(operand) : Number(operand);
      else return this.fail("sign before a non-number");
    } else if (c === "[") v = this.list(depth);
    else if (c === "(") v = this.tuple(depth);
    else if (c === "{") v = this.dict(depth);
    else if (c === "'" || c === '"') v = this.strings();
    else if ((c >= "0" && c <= "9") || (c === "." && /\d/.test(this.s[this.i + 1] ?? ""))) v = this.number();
    else if (this.s.startsWith("...", this.i)) {
      this.i += 3;
      v = this.ellipsisObject ? PyEllipsis.instance : "...";
    } else v = this.nameOrCall(depth);
    // Whatever follows (an operator upstream would evaluate, say) is the caller's to reject.
    return v;
  }

  nameOrCall(depth: number): PyValue {
    const start = this.i;
    const prefixed = /^([rRuUbB]|[rR][bB]|[bB][rR])(['"])/.exec(this.s.slice(this.i, this.i + 3));
    if (prefixed) return this.strings();
    const name = this.dottedName();
    if (name === "True") return true;
    if (name === "False") return false;
    if (name === "None") return null;
    const save = this.i;
    this.skip();
    if (this.s[this.i] !== "(") {
      this.i = save;
      return name;
    }
    this.i++;
    const { args, kwargs } = this.arguments(depth + 1);
    // Upstream: a call without keywords is read as its source text (`ast.unparse`), with
    // keywords as `{name: {kw: value}}` (positional arguments are dropped, as upstream drops them).
    if (Object.keys(kwargs).length === 0) return this.s.slice(start, this.i).trim();
    const out = newDict();
    out[name] = kwargs;
    void args;
    return out;
  }

  list(depth: number): PyValue {
    this.i++;
    const out: PyValue[] = [];
    for (;;) {
      this.skip();
      if (this.eat("]")) return out;
      out.push(this.expr(depth + 1));
      this.skip();
      if (this.eat("]")) return out;
      this.expect(",");
    }
  }

  tuple(depth: number): PyValue {
    this.i++;
    const out: PyValue[] = [];
    let sawComma = false;
    for (;;) {
      this.skip();
      if (this.eat(")")) break;
      out.push(this.expr(depth + 1));
      this.skip();
      if (this.eat(")")) break;
      this.expect(",");
      sawComma = true;
    }
    // `(x)` is just x; `()` and `(x,)` are tuples.
    if (out.length === 1 && !sawComma) return out[0]!;
    return new PyTuple(out);
  }

  dict(depth: number): PyValue {
    this.i++;
    const out = newDict();
    for (;;) {
      this.skip();
      if (this.eat("}")) return out;
      const key = this.expr(depth + 1);
      if (
        typeof key !== "string" &&
        typeof key !== "number" &&
        !(key instanceof PyFloat) &&
        typeof key !== "boolean" &&
        key !== null
      ) {
        this.fail("unsupported dict key");
      }
      this.expect(":");
      // Keys are kept as text (see py-value.ts); non-string keys are rare in BFCL outputs.
      setItem(out, keyText(key), this.expr(depth + 1));
      this.skip();
      if (this.eat("}")) return out;
      this.expect(",");
    }
  }

  number(): PyValue {
    const rest = this.s.slice(this.i, this.i + 400);
    const hex = /^0[xX][0-9a-fA-F](?:_?[0-9a-fA-F])*|^0[oO][0-7](?:_?[0-7])*|^0[bB][01](?:_?[01])*/.exec(
      rest,
    );
    if (hex) {
      this.i += hex[0].length;
      this.noTrailingName();
      return Number(hex[0].replace(/_/g, ""));
    }
    const m = /^(?:\d(?:_?\d)*(\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)([eE][+-]?\d(?:_?\d)*)?/.exec(rest);
    if (!m) return this.fail("bad number");
    this.i += m[0].length;
    this.noTrailingName();
    const text = m[0].replace(/_/g, "");
    const isFloat = text.includes(".") || m[2] !== undefined;
    if (!isFloat && /^0\d/.test(text) && /[1-9]/.test(text)) this.fail("leading zeros in an int");
    return isFloat ? new PyFloat(Number(text)) : Number(text);
  }

  noTrailingName(): void {
    if (/[\p{L}\p{N}_]/u.test(this.s[this.i] ?? "")) this.fail("bad number");
  }

  /** One or more adjacent string literals, concatenated as Python does. */
  strings(): string {
    let out = "";
    let any = false;
    for (;;) {
      const save = this.i;
      this.skip();
      const m = /^([rRuUbB]|[rR][bB]|[bB][rR])?('''|"""|'|")/.exec(this.s.slice(this.i, this.i + 5));
      if (!m) {
        this.i = save;
        if (!any) this.fail("expected a string");
        return out;
      }
      any = true;
      this.i += m[0].length;
      out += this.stringBody(m[2]!, (m[1] ?? "").toLowerCase().includes("r"));
    }
  }

  stringBody(quote: string, raw: boolean): string {
    const triple = quote.length === 3;
    let out = "";
    for (;;) {
      if (this.i >= this.s.length) this.fail("unterminated string");
      if (this.s.startsWith(quote, this.i)) {
        this.i += quote.length;
        return out;
      }
      const c = this.s[this.i]!;
      if (!triple && c === "\n") this.fail("newline in a string");
      if (c !== "\\") {
        out += c;
        this.i++;
        continue;
      }
      const n = this.s[this.i + 1];
      if (n === undefined) this.fail("unterminated string");
      if (raw) {
        out += c + n;
        this.i += 2;
        continue;
      }
      this.i += 2;
      out += this.escape(n);
    }
  }

  escape(n: string): string {
    const simple: Record<string, string> = {
      "\n": "",
      "\\": "\\",
      "'": "'",
      '"': '"',
      a: "\x07",
      b: "\b",
      f: "\f",
      n: "\n",
      r: "\r",
      t: "\t",
      v: "\v",
    };
    if (n in simple) return simple[n]!;
    const hexLen = n === "x" ? 2 : n === "u" ? 4 : n === "U" ? 8 : 0;
    if (hexLen > 0) {
      const h = this.s.slice(this.i, this.i + hexLen);
      if (h.length !== hexLen || !/^[0-9a-fA-F]+$/.test(h)) this.fail(`bad \\${n} escape`);
      this.i += hexLen;
      const cp = parseInt(h, 16);
      if (cp > 0x10ffff) this.fail("escape out of range");
      return String.fromCodePoint(cp);
    }
    if (n >= "0" && n <= "7") {
      let digits = n;
      while (digits.length < 3 && /[0-7]/.test(this.s[this.i] ?? "")) digits += this.s[this.i++];
      return String.fromCodePoint(parseInt(digits, 8));
    }
    // Unknown escapes keep their backslash in Python.
    return "\\" + n;
  }
}

function keyText(k: PyValue): string {
  if (typeof k === "string") return k;
  if (k === null) return "None";
  if (typeof k === "boolean") return k ? "True" : "False";
  if (k instanceof PyFloat) return String(k.value);
  return String(k);
}
