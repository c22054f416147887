import { newDict, type PyDict } from "../../envs/bfcl/py-value.js";
import {
  byteSlicer,
  Lexer,
  matchBrackets,
  MAX_NESTING,
  SyntaxFailure,
  withoutComments,
  type Token,
} from "./call-lexer.js";

/**
 * Upstream's `parse_java_function_call` for prompting mode, without tree-sitter (the project
 * ships no native parser binaries): a small recursive-descent parser of the Java subset model
 * replies use — statements of calls, assignments and declarations; literals, names, field and
 * array access, calls, `new` objects (a class body is skipped) and arrays, casts, unary, binary,
 * ternary and lambda expressions — building just the node kinds upstream's traversal tells
 * apart. Then upstream's reading of the tree: the first method invocation in pre-order, its
 * `name=value` arguments (bare names and class literals under the key `None`), each value
 * rendered as upstream renders it (a top-level string loses its quotes; names, class literals
 * and calls keep their source text; `new T(args)` and `new T[]{…}` are rebuilt; anything else
 * is its tokens joined without spaces). Texts are cut from the source at UTF-8 byte offsets
 * counted in characters, as upstream's `source_code[node.start_byte:node.end_byte]` does.
 *
 * Where tree-sitter recovers from an error we cannot follow it, so we fail (a decode error)
 * where it would: a missing `;` after the last statement is accepted unless that statement is
 * the only one and spans at most 10 bytes (tree-sitter's cost of wrapping it in an ERROR node is
 * then below that of inserting the `;`), and a trailing comma only after two or more arguments.
 * Comments inside a call, annotations, generic method calls (`a.<T>f()`), switch
 * expressions and text blocks are outside the subset and fail to decode.
 */
export type JavaNodeType =
  | "identifier"
  | "type_identifier"
  | "class_literal"
  | "method_invocation"
  | "string_literal"
  | "character_literal"
  | "array_creation_expression"
  | "object_creation_expression"
  | "assignment_expression"
  | "argument_list"
  | "other";

export interface JavaNode {
  type: JavaNodeType;
  start: number;
  end: number;
  /** Sub-nodes and tokens in source order (tokens are leaves). */
  children: Array<JavaNode | Token>;
  fields: { name?: Token; object?: JavaNode; arguments?: JavaNode; type?: JavaNode; value?: JavaNode };
}

const isNode = (c: JavaNode | Token): c is JavaNode => "children" in c;

const PRIMITIVES = new Set(["int", "long", "short", "byte", "char", "float", "double", "boolean", "void"]);
/** Keywords that are their own node kinds in tree-sitter-java, not identifiers. */
const LITERAL_KEYWORDS = new Set(["true", "false", "null", "this", "super"]);
const ASSIGN_OPS = new Set(["=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", ">>>="]);
const BINARY_LEVELS: string[][] = [
  ["||"],
  ["&&"],
  ["|"],
  ["^"],
  ["&"],
  ["==", "!="],
  ["<", ">", "<=", ">=", "instanceof"],
  ["<<", ">>", ">>>"],
  ["+", "-"],
  ["*", "/", "%"],
];
const JAVA_PUNCT = [
  ">>>=",
  "<<=",
  ">>=",
  ">>>",
  "...",
  "->",
  "::",
  "++",
  "--",
  "&&",
  "||",
  "==",
  "!=",
  "<=",
  ">=",
  "+=",
  "-=",
  "*=",
  "/=",
  "%=",
  "&=",
  "|=",
  "^=",
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
];

class JavaParser {
  private i = 0;
  private depth = 0;
  /** Index of each opening bracket's match, found once (lambda detection looks ahead to it). */
  private closing: Array<number | undefined>;
  constructor(private readonly toks: Token[]) {
    this.closing = matchBrackets(toks);
  }

  private peek(k = 0): Token | undefined {
    return this.toks[this.i + k];
  }
  private is(text: string, k = 0): boolean {
    const t = this.peek(k);
    return t !== undefined && t.kind !== "string" && t.kind !== "char" && t.text === text;
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
  private node(
    type: JavaNodeType,
    children: Array<JavaNode | Token>,
    fields: JavaNode["fields"] = {},
  ): JavaNode {
    return { type, start: children[0]!.start, end: children[children.length - 1]!.end, children, fields };
  }
  private atEnd(): boolean {
    return this.i >= this.toks.length;
  }

  /** Statements up to the end; `missingSemicolon` says whether the last one lacked its `;`. */
  program(): { statements: JavaNode[]; missingSemicolon: boolean } {
    const statements: JavaNode[] = [];
    let missingSemicolon = false;
    while (!this.atEnd()) {
      if (this.is(";")) {
        this.next();
        continue;
      }
      const s = this.statement();
      statements.push(s);
      if (this.is(";")) this.next();
      else if (this.atEnd()) missingSemicolon = true;
      else throw new SyntaxFailure("expected ';'");
    }
    return { statements, missingSemicolon };
  }

  private statement(): JavaNode {
    const save = this.i;
    // A local variable declaration: `Type name = value` (tried first; an expression otherwise).
    try {
      const type = this.type();
      const t = this.peek();
      if (t?.kind === "ident" && this.is("=", 1)) {
        const name = this.next();
        const eq = this.next();
        const value = this.expression();
        return this.node("other", [type, this.node("other", [this.leafNode("identifier", name), eq, value])]);
      }
    } catch (e) {
      if (!(e instanceof SyntaxFailure)) throw e;
    }
    this.i = save;
    return this.expression();
  }

  private leafNode(type: JavaNodeType, t: Token): JavaNode {
    return { type, start: t.start, end: t.end, children: [t], fields: {} };
  }

  /** A type: primitive or (scoped, generic) class type, then any `[]`. */
  private type(): JavaNode {
    let t: JavaNode;
    const first = this.next();
    if (first.kind !== "ident") throw new SyntaxFailure("expected a type");
    if (PRIMITIVES.has(first.text)) t = this.node("other", [first]);
    else {
      t = this.leafNode("type_identifier", first);
      for (;;) {
        if (this.is("<")) t = this.node("other", [t, this.typeArguments()]);
        if (this.is(".") && this.peek(1)?.kind === "ident") {
          const dot = this.next();
          t = this.node("other", [t, dot, this.leafNode("type_identifier", this.next())]);
          continue;
        }
        break;
      }
    }
    while (this.is("[") && this.is("]", 1)) t = this.node("other", [t, this.next(), this.next()]);
    return t;
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

  private typeArguments(): JavaNode {
    return this.nest(() => this.typeArgumentsInner());
  }

  private typeArgumentsInner(): JavaNode {
    const parts: Array<JavaNode | Token> = [this.expect("<")];
    if (!this.is(">")) {
      for (;;) {
        if (this.is("?")) {
          parts.push(this.next());
          if (this.is("extends") || this.is("super")) parts.push(this.next(), this.type());
        } else parts.push(this.type());
        if (!this.is(",")) break;
        parts.push(this.next());
      }
    }
    parts.push(this.closeAngle());
    return this.node("other", parts);
  }

  /** A `>` closing type arguments; `>>` and `>>>` close several, so one `>` is split off. */
  private closeAngle(): Token {
    const t = this.peek();
    if (t?.kind === "punct" && (t.text === ">>" || t.text === ">>>")) {
      const rest: Token = { kind: "punct", text: t.text.slice(1), start: t.start + 1, end: t.end };
      this.toks.splice(this.i, 1, { kind: "punct", text: ">", start: t.start, end: t.start + 1 }, rest);
      this.closing = matchBrackets(this.toks);
    }
    return this.expect(">");
  }

  expression(): JavaNode {
    if (++this.depth > MAX_NESTING) throw new SyntaxFailure("nested too deeply");
    try {
      return this.expressionInner();
    } finally {
      this.depth--;
    }
  }

  private expressionInner(): JavaNode {
    // Lambda: `x -> …`, `(a, b) -> …`, `() -> …`.
    if (this.peek()?.kind === "ident" && this.is("->", 1)) {
      const p = this.leafNode("identifier", this.next());
      return this.node("other", [p, this.next(), this.lambdaBody()]);
    }
    if (this.is("(")) {
      const close = this.matchingParen(this.i);
      if (close !== undefined && this.toks[close + 1]?.text === "->") {
        const parts: Array<JavaNode | Token> = [this.next()];
        while (!this.is(")")) {
          const t = this.next();
          parts.push(t.kind === "ident" ? this.leafNode("identifier", t) : t);
        }
        parts.push(this.next());
        const params = this.node("other", parts);
        return this.node("other", [params, this.next(), this.lambdaBody()]);
      }
    }
    const left = this.ternary();
    const op = this.peek();
    if (op && op.kind === "punct" && ASSIGN_OPS.has(op.text)) {
      this.next();
      const right = this.expression();
      return this.node("assignment_expression", [left, op, right]);
    }
    return left;
  }

  private lambdaBody(): JavaNode {
    if (this.is("{")) return this.balancedBlock();
    return this.expression();
  }

  /** A `{…}` block taken as tokens (lambda bodies, class bodies): brackets must balance. */
  private balancedBlock(): JavaNode {
    const parts: Token[] = [this.expect("{")];
    let depth = 1;
    while (depth > 0) {
      const t = this.next();
      if (t.kind === "punct" && (t.text === "{" || t.text === "(" || t.text === "[")) depth++;
      if (t.kind === "punct" && (t.text === "}" || t.text === ")" || t.text === "]")) depth--;
      parts.push(t);
    }
    return this.node("other", parts);
  }

  private matchingParen(from: number): number | undefined {
    return this.closing[from];
  }

  private ternary(): JavaNode {
    const cond = this.binary(0);
    if (!this.is("?")) return cond;
    const q = this.next();
    const a = this.expression();
    const c = this.expect(":");
    const b = this.expression();
    return this.node("other", [cond, q, a, c, b]);
  }

  private binary(level: number): JavaNode {
    if (level >= BINARY_LEVELS.length) return this.unary();
    let left = this.binary(level + 1);
    for (;;) {
      const t = this.peek();
      if (!t || t.kind === "string" || t.kind === "char" || !BINARY_LEVELS[level]!.includes(t.text))
        return left;
      this.next();
      const right = t.text === "instanceof" ? this.type() : this.binary(level + 1);
      left = this.node("other", [left, t, right]);
    }
  }

  private unary(): JavaNode {
    const t = this.peek();
    if (t && t.kind === "punct" && ["+", "-", "!", "~", "++", "--"].includes(t.text)) {
      this.next();
      return this.node("other", [t, this.nest(() => this.unary())]);
    }
    // A cast: `(Type) operand`, when what follows the parenthesis can start an operand.
    if (this.is("(")) {
      const save = this.i;
      try {
        const open = this.next();
        const type = this.type();
        const close = this.expect(")");
        const after = this.peek();
        const primitive = type.children.length === 1 && !isNode(type.children[0]!);
        if (
          after &&
          (after.kind !== "punct" || after.text === "(" || (primitive && ["+", "-"].includes(after.text)))
        ) {
          return this.node("other", [open, type, close, this.nest(() => this.unary())]);
        }
      } catch (e) {
        if (!(e instanceof SyntaxFailure)) throw e;
      }
      this.i = save;
    }
    let e = this.postfix();
    while (this.is("++") || this.is("--")) e = this.node("other", [e, this.next()]);
    return e;
  }

  private postfix(): JavaNode {
    let e = this.primary();
    for (;;) {
      if (this.is(".")) {
        const dot = this.next();
        const name = this.next();
        if (name.kind !== "ident") throw new SyntaxFailure("expected a name after '.'");
        if (name.text === "class") {
          e = this.node("class_literal", [e, dot, name]);
        } else if (this.is("(")) {
          const args = this.argumentList();
          e = this.node("method_invocation", [e, dot, this.leafNode("identifier", name), args], {
            object: e,
            name,
            arguments: args,
          });
        } else e = this.node("other", [e, dot, this.leafNode("identifier", name)]);
      } else if (this.is("[") && this.is("]", 1)) {
        // An array type's class literal: `String[].class`.
        let type: JavaNode = e.type === "identifier" ? { ...e, type: "type_identifier" } : e;
        while (this.is("[") && this.is("]", 1)) type = this.node("other", [type, this.next(), this.next()]);
        const dot = this.expect(".");
        const cls = this.next();
        if (cls.text !== "class") throw new SyntaxFailure("expected 'class'");
        return this.node("class_literal", [type, dot, cls]);
      } else if (this.is("[")) {
        e = this.node("other", [e, this.next(), this.expression(), this.expect("]")]);
      } else if (this.is("::")) {
        const op = this.next();
        const name = this.next();
        if (name.kind !== "ident") throw new SyntaxFailure("expected a method name after '::'");
        e = this.node("other", [e, op, this.leafNode("identifier", name)]);
      } else return e;
    }
  }

  private argumentList(): JavaNode {
    const parts: Array<JavaNode | Token> = [this.expect("(")];
    if (!this.is(")")) {
      for (;;) {
        parts.push(this.expression());
        if (!this.is(",")) break;
        parts.push(this.next());
        if (this.is(")")) {
          // tree-sitter recovers from a trailing comma by inserting a zero-width identifier,
          // unless the list holds one argument (wrapping the comma in an ERROR is cheaper then).
          if (parts.filter(isNode).length < 2) throw new SyntaxFailure("trailing ','");
          const at = this.peek()!.start;
          parts.push({ type: "identifier", start: at, end: at, children: [], fields: {} });
          break;
        }
      }
    }
    parts.push(this.expect(")"));
    return this.node("argument_list", parts);
  }

  private primary(): JavaNode {
    const t = this.next();
    if (t.kind === "string") return this.leafNode("string_literal", t);
    if (t.kind === "char") return this.leafNode("character_literal", t);
    if (t.kind === "number") return this.leafNode("other", t);
    if (t.kind === "punct") {
      if (t.text === "(") {
        const inner = this.expression();
        return this.node("other", [t, inner, this.expect(")")]);
      }
      throw new SyntaxFailure(`unexpected '${t.text}'`);
    }
    if (t.text === "new") return this.creation(t);
    if (PRIMITIVES.has(t.text)) {
      // `int.class`, `int[].class`
      let type: JavaNode = this.node("other", [t]);
      while (this.is("[") && this.is("]", 1)) type = this.node("other", [type, this.next(), this.next()]);
      const dot = this.expect(".");
      const cls = this.next();
      if (cls.text !== "class") throw new SyntaxFailure("expected 'class'");
      return this.node("class_literal", [type, dot, cls]);
    }
    if (LITERAL_KEYWORDS.has(t.text)) return this.leafNode("other", t);
    if (this.is("(")) {
      const args = this.argumentList();
      const name = this.leafNode("identifier", t);
      return this.node("method_invocation", [name, args], { name: t, arguments: args });
    }
    return this.leafNode("identifier", t);
  }

  private creation(kw: Token): JavaNode {
    const type = this.typeWithoutArrays();
    if (this.is("[")) {
      const dims: Array<JavaNode | Token> = [];
      while (this.is("[")) {
        const open = this.next();
        if (this.is("]")) dims.push(open, this.next());
        else dims.push(open, this.expression(), this.expect("]"));
      }
      const dimensions = this.node("other", dims);
      if (this.is("{")) {
        const value = this.arrayInitializer();
        return this.node("array_creation_expression", [kw, type, dimensions, value], { type, value });
      }
      return this.node("array_creation_expression", [kw, type, dimensions], { type });
    }
    const args = this.argumentList();
    const children: Array<JavaNode | Token> = [kw, type, args];
    if (this.is("{")) children.push(this.balancedBlock());
    return this.node("object_creation_expression", children, { type, arguments: args });
  }

  private typeWithoutArrays(): JavaNode {
    const save = this.i;
    const t = this.type();
    // `type()` consumes `[]` pairs; array creation needs them back as dimensions.
    if (t.children.length === 3 && this.toks[this.i - 1]?.text === "]") {
      this.i = save;
      let only: JavaNode;
      const first = this.next();
      if (PRIMITIVES.has(first.text)) only = this.node("other", [first]);
      else {
        only = this.leafNode("type_identifier", first);
        for (;;) {
          if (this.is("<")) only = this.node("other", [only, this.typeArguments()]);
          if (this.is(".") && this.peek(1)?.kind === "ident") {
            const dot = this.next();
            only = this.node("other", [only, dot, this.leafNode("type_identifier", this.next())]);
            continue;
          }
          break;
        }
      }
      return only;
    }
    return t;
  }

  private arrayInitializer(): JavaNode {
    if (++this.depth > MAX_NESTING) throw new SyntaxFailure("nested too deeply");
    try {
      return this.arrayInitializerInner();
    } finally {
      this.depth--;
    }
  }

  private arrayInitializerInner(): JavaNode {
    const parts: Array<JavaNode | Token> = [this.expect("{")];
    while (!this.is("}")) {
      parts.push(this.is("{") ? this.arrayInitializer() : this.expression());
      if (this.is(",")) parts.push(this.next());
      else break;
    }
    parts.push(this.expect("}"));
    return this.node("other", parts);
  }
}

/** The first method invocation in pre-order (upstream's `traverse`). */
function firstInvocation(n: JavaNode | Token): JavaNode | undefined {
  if (!isNode(n)) return undefined;
  if (n.type === "method_invocation") return n;
  for (const c of n.children) {
    const found = firstInvocation(c);
    if (found) return found;
  }
  return undefined;
}

/**
 * Decodes a prompting-mode Java reply as upstream does: `[{name: {param: text}}]`, `{}` when the
 * text holds no call, or throws a `SyntaxFailure` (upstream: SyntaxError or its duplicate-name
 * Exception) — the caller reports that as a decode failure.
 */
export function decodeJavaCall(source: string): PyDict[] | PyDict {
  const slice = byteSlicer(source);
  const raw = new Lexer(source, JAVA_PUNCT, "java").all();
  // Comments between statements are harmless; inside a call upstream would join them into values.
  const tokens = withoutComments(raw, (i) => {
    const before = raw
      .slice(0, i)
      .filter((t) => t.kind !== "comment")
      .pop();
    const after = raw.slice(i + 1).find((t) => t.kind !== "comment");
    return before === undefined || before.text === ";" || after === undefined;
  });
  const parser = new JavaParser(tokens);
  const { statements, missingSemicolon } = parser.program();
  if (missingSemicolon && statements.length === 1) {
    const only = statements[0]!;
    if (only.end - only.start <= 10) throw new SyntaxFailure("statement without ';'");
  }
  const text = (n: JavaNode | Token) => slice(n.start, n.end);
  const render = (n: JavaNode | Token | undefined, nested: boolean): string => {
    if (n === undefined) throw new SyntaxFailure("missing node");
    if (!isNode(n)) return text(n);
    switch (n.type) {
      case "string_literal":
      case "character_literal":
        return nested ? text(n) : text(n).slice(1, -1);
      case "identifier":
      case "class_literal":
      case "type_identifier":
      case "method_invocation":
        return text(n);
      case "array_creation_expression":
        // Upstream reads the `value` field; `new int[3]` has none and fails there.
        return `new ${render(n.fields.type, true)}[]${render(n.fields.value, true)}`;
      case "object_creation_expression": {
        const args = n.fields.arguments!.children.filter(
          (c) => isNode(c) || ![",", "(", ")"].includes(c.text),
        );
        return `new ${render(n.fields.type, true)}(${args.map((a) => render(a, true)).join(", ")})`;
      }
      default:
        return n.children.map((c) => render(c, true)).join("");
    }
  };
  for (const s of statements) {
    const call = firstInvocation(s);
    if (!call) continue;
    const name = slice(call.fields.name!.start, call.fields.name!.end);
    const fn = call.fields.object ? `${text(call.fields.object)}.${name}` : name;
    const args = newDict();
    for (const child of call.fields.arguments!.children) {
      if (!isNode(child)) continue;
      let key: string;
      let value: string;
      if (child.type === "assignment_expression") {
        key = text(child.children[0]!);
        value = render(child.children[2], false);
      } else if (child.type === "identifier" || child.type === "class_literal") {
        key = "None";
        value = render(child, false);
      } else continue;
      if (Object.prototype.hasOwnProperty.call(args, key)) {
        throw new SyntaxFailure("Error: Multiple arguments with the same name are not supported.");
      }
      args[key] = value;
    }
    const out = newDict();
    out[fn] = args;
    return [out];
  }
  return newDict();
}
