import { newDict, type PyDict } from "../../envs/bfcl/py-value.js";
import {
  Lexer,
  matchBrackets,
  MAX_NESTING,
  SyntaxFailure,
  withoutComments,
  type Token,
} from "./call-lexer.js";

/**
 * Upstream's `parse_javascript_function_call` for prompting mode, without tree-sitter: a small
 * recursive-descent parser of the JavaScript expression subset model replies use (literals,
 * arrays, objects, arrow and function expressions with their bodies taken as balanced tokens,
 * member access, calls, `new`, unary, binary, ternary, assignment; statements separated by `;`
 * or a line break). Then upstream's reading: the first statement that is a call, its callee's
 * source text as the name, its `name=value` arguments with the value's source text (one pair of
 * matching outer quotes removed) and bare names or `true` under the key `None`. No statement
 * that is a call: `null` (upstream returns None). A syntax error, or a name given twice, throws
 * a `SyntaxFailure`. Classes, control statements, optional calls (`f?.()`), labels and tagged
 * templates are outside the subset and fail to decode.
 */
interface JsNode {
  type: "call_expression" | "assignment_expression" | "identifier" | "true" | "sequence" | "other";
  start: number;
  end: number;
  callee?: JsNode;
  args?: JsNode[];
  left?: JsNode;
  right?: JsNode;
}

const JS_PUNCT = [
  ">>>=",
  "...",
  "===",
  "!==",
  "**=",
  "<<=",
  ">>=",
  ">>>",
  "&&=",
  "||=",
  "??=",
  "=>",
  "==",
  "!=",
  "<=",
  ">=",
  "&&",
  "||",
  "??",
  "?.",
  "++",
  "--",
  "+=",
  "-=",
  "*=",
  "/=",
  "%=",
  "&=",
  "|=",
  "^=",
  "**",
  "<<",
  ">>",
  "(",
  ")",
  "[",
  "]",
  "{",
  "}",
  ",",
  ";",
  ".",
  "=",
  "<",
  ">",
  "!",
  "~",
  "?",
  ":",
  "+",
  "-",
  "*",
  "/",
  "%",
  "&",
  "|",
  "^",
  "@",
  "#",
];
const ASSIGN_OPS = new Set([
  "=",
  "+=",
  "-=",
  "*=",
  "/=",
  "%=",
  "**=",
  "<<=",
  ">>=",
  ">>>=",
  "&=",
  "|=",
  "^=",
  "&&=",
  "||=",
  "??=",
]);
const BINARY_LEVELS: string[][] = [
  ["??"],
  ["||"],
  ["&&"],
  ["|"],
  ["^"],
  ["&"],
  ["==", "!=", "===", "!=="],
  ["<", ">", "<=", ">=", "instanceof", "in"],
  ["<<", ">>", ">>>"],
  ["+", "-"],
  ["*", "/", "%"],
  ["**"],
];
/** Keywords that are node kinds of their own in tree-sitter-javascript (so not bare-name arguments). */
const KEYWORD_VALUES = new Set(["true", "false", "null", "undefined", "this", "super"]);
const RESERVED = new Set([
  "var",
  "let",
  "const",
  "if",
  "else",
  "for",
  "while",
  "do",
  "return",
  "class",
  "import",
  "export",
  "switch",
  "case",
  "default",
  "break",
  "continue",
  "throw",
  "try",
  "catch",
  "finally",
  "with",
  "yield",
  "extends",
]);

class JsParser {
  private i = 0;
  private depth = 0;
  /** Index of each opening bracket's match, found once (arrow detection looks ahead to it). */
  private readonly closing: Array<number | undefined>;
  constructor(private readonly toks: Token[]) {
    this.closing = matchBrackets(toks);
  }

  private peek(k = 0): Token | undefined {
    return this.toks[this.i + k];
  }
  private is(text: string, k = 0): boolean {
    const t = this.peek(k);
    return t !== undefined && (t.kind === "punct" || t.kind === "ident") && t.text === text;
  }
  private next(): Token {
    const t = this.toks[this.i++];
    if (!t) throw new SyntaxFailure("unexpected end of input");
    return t;
  }
  private expect(text: string): Token {
    if (!this.is(text)) throw new SyntaxFailure(`expected '${text}'`);
    return this.next();
  }
  /** Where the next token starts (the end of input is a syntax error here). */
  private here(): number {
    const t = this.peek();
    if (!t) throw new SyntaxFailure("unexpected end of input");
    return t.start;
  }
  private span(type: JsNode["type"], start: number, extra: Partial<JsNode> = {}): JsNode {
    return { type, start, end: this.toks[this.i - 1]!.end, ...extra };
  }

  /**
   * Statements up to the end (or a block's `}`): expression statements, and the declarations and
   * blocks a reply may hold, which are never the call upstream looks for.
   */
  program(inBlock = false): JsNode[] {
    if (inBlock && ++this.depth > MAX_NESTING) throw new SyntaxFailure("nested too deeply");
    const out: JsNode[] = [];
    while (this.i < this.toks.length && !(inBlock && this.is("}"))) {
      if (this.is(";")) {
        this.next();
        continue;
      }
      const t = this.peek()!;
      const start = t.start;
      if (t.kind === "punct" && t.text === "{") {
        this.next();
        this.program(true);
        this.depth--;
        this.expect("}");
        out.push(this.span("other", start));
        continue;
      }
      if (t.kind === "ident" && t.text === "function") {
        this.next();
        if (this.peek()?.kind !== "ident") throw new SyntaxFailure("expected a function name");
        this.next();
        this.balanced("(", ")");
        this.balanced("{", "}");
        out.push(this.span("other", start));
        continue;
      }
      if (t.kind === "ident" && ["var", "let", "const"].includes(t.text)) {
        this.next();
        for (;;) {
          if (this.next().kind !== "ident") throw new SyntaxFailure("expected a variable name");
          if (this.is("=")) {
            this.next();
            this.assignment();
          }
          if (!this.is(",")) break;
          this.next();
        }
        out.push(this.span("other", start));
      } else if (t.kind === "ident" && RESERVED.has(t.text)) {
        throw new SyntaxFailure(`'${t.text}' statements are not supported`);
      } else out.push(this.sequence());
      const after = this.peek();
      if (after === undefined || (inBlock && after.kind === "punct" && after.text === "}")) continue;
      if (after.kind === "punct" && after.text === ";") this.next();
      else if (!after.newlineBefore) throw new SyntaxFailure(`unexpected '${after.text}'`);
    }
    return out;
  }

  private sequence(): JsNode {
    const start = this.here();
    const first = this.assignment();
    if (!this.is(",")) return first;
    while (this.is(",")) {
      this.next();
      this.assignment();
    }
    return this.span("sequence", start);
  }

  assignment(): JsNode {
    if (++this.depth > MAX_NESTING) throw new SyntaxFailure("nested too deeply");
    try {
      return this.assignmentInner();
    } finally {
      this.depth--;
    }
  }

  /** Runs a rule one nesting level deeper (a bound on recursion). */
  private nest<T>(rule: () => T): T {
    if (++this.depth > MAX_NESTING) throw new SyntaxFailure("nested too deeply");
    try {
      return rule();
    } finally {
      this.depth--;
    }
  }

  private assignmentInner(): JsNode {
    const t = this.peek();
    if (!t) throw new SyntaxFailure("unexpected end of input");
    const start = t.start;
    if (this.arrowAhead()) return this.arrow();
    const left = this.ternary();
    const op = this.peek();
    if (op && op.kind === "punct" && ASSIGN_OPS.has(op.text)) {
      this.next();
      const right = this.assignment();
      return this.span(op.text === "=" ? "assignment_expression" : "other", start, { left, right });
    }
    return left;
  }

  /** `x =>`, `async x =>`, `(…) =>`, `async (…) =>` ahead. */
  private arrowAhead(): boolean {
    let k = 0;
    if (
      this.is("async", 0) &&
      !this.peek(1)?.newlineBefore &&
      (this.peek(1)?.kind === "ident" || this.is("(", 1))
    )
      k = 1;
    const t = this.peek(k);
    if (t?.kind === "ident" && this.is("=>", k + 1)) return true;
    if (this.is("(", k)) {
      const close = this.closing[this.i + k];
      return (
        close !== undefined && this.toks[close + 1]?.kind === "punct" && this.toks[close + 1]!.text === "=>"
      );
    }
    return false;
  }

  private arrow(): JsNode {
    const start = this.here();
    if (this.is("async")) this.next();
    if (this.is("(")) this.balanced("(", ")");
    else this.next();
    this.expect("=>");
    if (this.is("{")) this.balanced("{", "}");
    else this.assignment();
    return this.span("other", start);
  }

  /** Tokens from an opening bracket to its match (bodies and parameter lists are taken whole). */
  private balanced(open: string, close: string): void {
    this.expect(open);
    let depth = 1;
    while (depth > 0) {
      const t = this.next();
      if (t.kind !== "punct") continue;
      if (["(", "[", "{"].includes(t.text)) depth++;
      else if ([")", "]", "}"].includes(t.text)) depth--;
      if (depth === 0 && t.text !== close) throw new SyntaxFailure(`expected '${close}'`);
    }
  }

  private ternary(): JsNode {
    const start = this.here();
    const cond = this.binary(0);
    if (!this.is("?")) return cond;
    this.next();
    this.assignment();
    this.expect(":");
    this.assignment();
    return this.span("other", start);
  }

  private binary(level: number): JsNode {
    if (level >= BINARY_LEVELS.length) return this.unary();
    const start = this.here();
    let left = this.binary(level + 1);
    for (;;) {
      const t = this.peek();
      if (!t || (t.kind !== "punct" && t.kind !== "ident") || !BINARY_LEVELS[level]!.includes(t.text))
        return left;
      this.next();
      // `**` is right-associative.
      if (t.text === "**") this.binary(level);
      else this.binary(level + 1);
      left = this.span("other", start);
    }
  }

  private unary(): JsNode {
    const t = this.peek();
    if (!t) throw new SyntaxFailure("unexpected end of input");
    if (
      (t.kind === "punct" && ["!", "~", "+", "-", "++", "--"].includes(t.text)) ||
      (t.kind === "ident" && ["typeof", "void", "delete", "await"].includes(t.text))
    ) {
      this.next();
      this.nest(() => this.unary());
      return this.span("other", t.start);
    }
    const e = this.postfix();
    const after = this.peek();
    if (
      after &&
      !after.newlineBefore &&
      after.kind === "punct" &&
      (after.text === "++" || after.text === "--")
    ) {
      this.next();
      return this.span("other", t.start);
    }
    return e;
  }

  private postfix(): JsNode {
    const start = this.here();
    let e = this.primary();
    for (;;) {
      if (this.is(".")) {
        this.next();
        const name = this.next();
        if (name.kind !== "ident" && !(name.kind === "punct" && name.text === "#")) {
          throw new SyntaxFailure("expected a property name");
        }
        if (name.text === "#") this.next();
        e = this.span("other", start);
      } else if (this.is("?.")) {
        this.next();
        if (this.is("(")) throw new SyntaxFailure("optional calls are not supported");
        if (this.is("[")) {
          this.next();
          this.sequence();
          this.expect("]");
        } else if (this.next().kind !== "ident") throw new SyntaxFailure("expected a property name");
        e = this.span("other", start);
      } else if (this.is("[")) {
        this.next();
        this.sequence();
        this.expect("]");
        e = this.span("other", start);
      } else if (this.is("(")) {
        const args = this.arguments();
        e = this.span("call_expression", start, { callee: e, args });
      } else if (this.peek()?.kind === "template") {
        throw new SyntaxFailure("tagged templates are not supported");
      } else return e;
    }
  }

  private arguments(): JsNode[] {
    this.expect("(");
    const args: JsNode[] = [];
    while (!this.is(")")) {
      if (this.is("...")) {
        const start = this.next().start;
        this.assignment();
        args.push(this.span("other", start));
      } else args.push(this.assignment());
      if (this.is(",")) this.next();
      else break;
    }
    this.expect(")");
    return args;
  }

  private primary(): JsNode {
    const t = this.next();
    const start = t.start;
    switch (t.kind) {
      case "number":
      case "string":
      case "template":
      case "regex":
        return this.span("other", start);
      case "ident":
        if (t.text === "true") return this.span("true", start);
        if (KEYWORD_VALUES.has(t.text)) return this.span("other", start);
        if (t.text === "function") {
          if (this.peek()?.kind === "ident") this.next();
          this.balanced("(", ")");
          this.balanced("{", "}");
          return this.span("other", start);
        }
        if (t.text === "new") {
          if (this.is(".")) {
            this.next();
            this.next();
            return this.span("other", start);
          }
          this.memberOnly();
          if (this.is("(")) this.arguments();
          return this.span("other", start);
        }
        if (RESERVED.has(t.text)) throw new SyntaxFailure(`unexpected '${t.text}'`);
        return this.span("identifier", start);
      case "punct":
        if (t.text === "(") {
          this.sequence();
          this.expect(")");
          return this.span("other", start);
        }
        if (t.text === "[") {
          while (!this.is("]")) {
            if (this.is(",")) {
              this.next();
              continue;
            }
            if (this.is("...")) this.next();
            this.assignment();
            if (this.is(",")) this.next();
            else break;
          }
          this.expect("]");
          return this.span("other", start);
        }
        if (t.text === "{") {
          this.objectBody();
          return this.span("other", start);
        }
        throw new SyntaxFailure(`unexpected '${t.text}'`);
      default:
        throw new SyntaxFailure(`unexpected '${t.text}'`);
    }
  }

  /** `new`'s constructor: a name with property accesses (its arguments are read by the caller). */
  private memberOnly(): void {
    if (this.is("new")) {
      this.next();
      this.nest(() => this.memberOnly());
      if (this.is("(")) this.arguments();
      return;
    }
    const t = this.peek();
    if (t?.kind === "punct" && t.text === "(") {
      this.next();
      this.sequence();
      this.expect(")");
    } else if (t?.kind === "ident" && !RESERVED.has(t.text)) this.next();
    else throw new SyntaxFailure("expected a constructor");
    while (this.is(".") || this.is("[")) {
      if (this.next().text === ".") {
        if (this.next().kind !== "ident") throw new SyntaxFailure("expected a property name");
      } else {
        this.sequence();
        this.expect("]");
      }
    }
  }

  /** An object literal's members after `{`: `k: v`, `"k": v`, `[k]: v`, `...v`, `k`, `k() {…}`. */
  private objectBody(): void {
    while (!this.is("}")) {
      if (this.is("...")) {
        this.next();
        this.assignment();
      } else {
        const key = this.next();
        if (key.kind === "punct" && key.text === "[") {
          this.assignment();
          this.expect("]");
        } else if (!["ident", "string", "number"].includes(key.kind)) {
          throw new SyntaxFailure("expected a property name");
        }
        if (this.is(":")) {
          this.next();
          this.assignment();
        } else if (this.is("(")) {
          this.balanced("(", ")");
          this.balanced("{", "}");
        } else if (key.kind !== "ident") throw new SyntaxFailure("expected ':'");
      }
      if (this.is(",")) this.next();
      else break;
    }
    this.expect("}");
  }
}

/** Decodes a prompting-mode JavaScript reply as upstream does (see the file comment). */
export function decodeJsCall(source: string): PyDict[] | null {
  const bytes = Buffer.from(source, "utf8");
  const text = (n: JsNode) => bytes.subarray(n.start, n.end).toString("utf8");
  // Values are source slices, so a comment inside one stays in it, as upstream's does.
  const tokens = withoutComments(new Lexer(source, JS_PUNCT, "javascript").all());
  const statements = new JsParser(tokens).program();
  for (const s of statements) {
    if (s.type !== "call_expression") continue;
    const args = newDict();
    for (const a of s.args!) {
      let key: string;
      let value: string;
      if (a.type === "assignment_expression") {
        key = text(a.left!);
        value = text(a.right!);
        if (value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.endsWith(value[0]!)) {
          value = value.slice(1, -1);
        }
      } else if (a.type === "identifier" || a.type === "true") {
        key = "None";
        value = text(a);
      } else continue;
      if (Object.prototype.hasOwnProperty.call(args, key)) {
        throw new SyntaxFailure("Error: Multiple arguments with the same name are not supported.");
      }
      args[key] = value;
    }
    const out = newDict();
    out[text(s.callee!)] = args;
    return [out];
  }
  return null;
}
