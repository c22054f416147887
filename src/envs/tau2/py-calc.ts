/**
 * The `calculate` tool of retail and airline. Upstream checks the characters and then runs Python's
 * `eval` on the expression; this evaluates the same grammar (numbers, + - * / // **, parentheses)
 * with Python's semantics (exact ints, true division to float), never with JavaScript's `eval`.
 */
import { pyRound } from "./py-round.js";
import { PyError, pyStr, pyTypeName } from "./py-errors.js";
import { floatRepr } from "./py-json.js";

type Num = bigint | number; // Python int | float

const syntaxError = () => new PyError("SyntaxError", "invalid syntax (<string>, line 1)");
const zeroDivision = (msg: string) => new PyError("ZeroDivisionError", msg);

function toFloat(x: Num): number {
  if (typeof x === "number") return x;
  const f = Number(x);
  if (!Number.isFinite(f)) throw new PyError("OverflowError", "int too large to convert to float");
  return f;
}

function binary(op: string, a: Num, b: Num): Num {
  if (typeof a === "bigint" && typeof b === "bigint") {
    switch (op) {
      case "+":
        return a + b;
      case "-":
        return a - b;
      case "*":
        return a * b;
      case "/":
        if (b === 0n) throw zeroDivision("division by zero");
        return toFloat(a) / toFloat(b);
      case "//": {
        if (b === 0n) throw zeroDivision("integer division or modulo by zero");
        const q = a / b;
        return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
      }
      case "**":
        if (b < 0n) return toFloat(a) ** toFloat(b);
        if (b > 100000n) throw new PyError("OverflowError", "exponent too large");
        return a ** b;
    }
  }
  const x = toFloat(a);
  const y = toFloat(b);
  switch (op) {
    case "+":
      return x + y;
    case "-":
      return x - y;
    case "*":
      return x * y;
    case "/":
      if (y === 0) throw zeroDivision("float division by zero");
      return x / y;
    case "//":
      if (y === 0) throw zeroDivision("float floor division by zero");
      return Math.floor(x / y);
    case "**": {
      if (x === 0 && y < 0) throw zeroDivision("zero to a negative power");
      const r = x ** y;
      if (Number.isNaN(r)) throw new PyError("ValueError", "complex exponentiation is not supported here");
      if (!Number.isFinite(r)) throw new PyError("OverflowError", "(34, 'Numerical result out of range')");
      return r;
    }
  }
  throw syntaxError();
}

/** Evaluates a Python arithmetic expression made only of the allowed characters. */
export function evalArithmetic(src: string): Num {
  const tokens = src.match(/\d+\.\d*|\.\d+|\d+|\*\*|\/\/|[-+*/()]|\S/g) ?? [];
  let pos = 0;
  const peek = () => tokens[pos];
  const next = () => tokens[pos++];
  // Python grammar: expr := term (('+'|'-') term)*; term := factor (('*'|'/'|'//') factor)*;
  // factor := ('+'|'-') factor | power; power := atom ['**' factor]
  const expr = (): Num => {
    let v = term();
    while (peek() === "+" || peek() === "-") v = binary(next() as string, v, term());
    return v;
  };
  const term = (): Num => {
    let v = factor();
    while (peek() === "*" || peek() === "/" || peek() === "//") v = binary(next() as string, v, factor());
    return v;
  };
  const factor = (): Num => {
    if (peek() === "+") return (next(), factor());
    if (peek() === "-") {
      next();
      const v = factor();
      return typeof v === "bigint" ? -v : -v;
    }
    return power();
  };
  const power = (): Num => {
    const base = atom();
    if (peek() === "**") {
      next();
      return binary("**", base, factor());
    }
    return base;
  };
  const atom = (): Num => {
    const t = next();
    if (t === undefined) throw syntaxError();
    if (t === "(") {
      if (peek() === ")")
        throw new PyError("TypeError", "float() argument must be a string or a real number, not 'tuple'");
      const v = expr();
      if (next() !== ")") throw new PyError("SyntaxError", "'(' was never closed (<string>, line 1)");
      return v;
    }
    if (/^\d+$/.test(t)) {
      if (t.length > 1 && t.startsWith("0") && /[1-9]/.test(t)) {
        throw new PyError(
          "SyntaxError",
          "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)",
        );
      }
      return BigInt(t);
    }
    if (/^(\d+\.\d*|\.\d+)$/.test(t)) return Number(t);
    throw syntaxError();
  };
  if (tokens.length === 0) throw new PyError("SyntaxError", "invalid syntax (<string>, line 0)");
  const v = expr();
  if (pos !== tokens.length) throw syntaxError();
  return v;
}

/** `str(round(float(eval(expression)), 2))` with upstream's character check first. */
export function calculate(expression: unknown): string {
  if (typeof expression !== "string") {
    if (!Array.isArray(expression))
      throw new PyError("TypeError", `'${pyTypeName(expression)}' object is not iterable`);
    if (
      !expression.every((c) => typeof c === "string" && c.length === 1 && "0123456789+-*/(). ".includes(c))
    ) {
      throw new PyError("ValueError", "Invalid characters in expression");
    }
    throw new PyError("TypeError", "eval() arg 1 must be a string, bytes or code object");
  }
  for (const ch of expression) {
    if (!"0123456789+-*/(). ".includes(ch))
      throw new PyError("ValueError", "Invalid characters in expression");
  }
  const result = pyRound(toFloat(evalArithmetic(expression)), 2);
  return Number.isFinite(result) ? floatRepr(result) : pyStr(result);
}
