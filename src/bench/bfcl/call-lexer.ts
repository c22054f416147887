/**
 * Tokens for the Java and JavaScript call decoders (`java-call-decoder.ts`,
 * `js-call-decoder.ts`). Offsets are UTF-8 byte offsets, as tree-sitter reports them, because
 * upstream cuts texts with them.
 */
export class SyntaxFailure extends Error {}

export interface Token {
  kind: "ident" | "number" | "string" | "char" | "template" | "regex" | "punct" | "comment";
  text: string;
  /** UTF-8 byte offsets. */
  start: number;
  end: number;
  /** A line break came between this token and the one before (JavaScript's semicolon insertion). */
  newlineBefore?: boolean;
}

/**
 * `source[start:end]` of a Python str indexed by byte offsets: upstream's Java decoder slices
 * its text with tree-sitter's byte offsets, which shifts the cut after any non-ASCII character;
 * we reproduce that (a code point per index).
 */
export function byteSlicer(source: string): (start: number, end: number) => string {
  const codePoints = Array.from(source);
  return (start, end) => codePoints.slice(start, end).join("");
}

const utf8Length = (ch: string): number => {
  const c = ch.codePointAt(0)!;
  return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
};

const IDENT_START = /[\p{L}\p{Nl}$_]/u;
const IDENT_PART = /[\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}$_\u200c\u200d]/u;

export class Lexer {
  private readonly chars: string[];
  private pos = 0;
  private byte = 0;
  private readonly out: Token[] = [];

  constructor(
    source: string,
    /** Punctuators, longest first. */
    private readonly punct: readonly string[],
    private readonly language: "java" | "javascript",
  ) {
    this.chars = Array.from(source);
  }

  private advance(n = 1): string {
    let s = "";
    for (let k = 0; k < n; k++) {
      const ch = this.chars[this.pos++];
      if (ch === undefined) throw new SyntaxFailure("unexpected end of input");
      this.byte += utf8Length(ch);
      s += ch;
    }
    return s;
  }

  private at(k = 0): string | undefined {
    return this.chars[this.pos + k];
  }

  all(): Token[] {
    for (;;) {
      let newline = false;
      while (this.at() !== undefined && /\s/.test(this.at()!)) newline = this.advance() === "\n" || newline;
      const ch = this.at();
      if (ch === undefined) return this.out;
      const start = this.byte;
      if (ch === "/" && (this.at(1) === "/" || this.at(1) === "*")) {
        // Comments are extras in tree-sitter; the decoders decide where they may stand.
        let s = this.advance(2);
        const block = s === "/*";
        while (this.at() !== undefined && !(block ? s.endsWith("*/") && s.length > 3 : this.at() === "\n")) {
          s += this.advance();
        }
        if (block && !(s.endsWith("*/") && s.length > 3)) throw new SyntaxFailure("unterminated comment");
        this.out.push({
          kind: "comment",
          text: s,
          start,
          end: this.byte,
          ...(newline ? { newlineBefore: true } : {}),
        });
        continue;
      }
      const push = (kind: Token["kind"], text: string) =>
        this.out.push({ kind, text, start, end: this.byte, ...(newline ? { newlineBefore: true } : {}) });
      if (IDENT_START.test(ch)) {
        let s = this.advance();
        while (this.at() !== undefined && IDENT_PART.test(this.at()!)) s += this.advance();
        push("ident", s);
      } else if (/[0-9]/.test(ch) || (ch === "." && /[0-9]/.test(this.at(1) ?? ""))) {
        push("number", this.number());
      } else if (ch === '"' || (ch === "'" && this.language === "javascript")) {
        push("string", this.quoted(ch));
      } else if (ch === "'") {
        push("char", this.charLiteral());
      } else if (ch === "`" && this.language === "javascript") {
        push("template", this.template());
      } else if (ch === "/" && this.language === "javascript" && this.regexAllowed()) {
        push("regex", this.regex());
      } else {
        const p = this.punct.find((x) => Array.from(x).every((c, k) => this.at(k) === c));
        if (!p) throw new SyntaxFailure(`unexpected character '${ch}'`);
        push("punct", this.advance(Array.from(p).length));
      }
    }
  }

  private number(): string {
    let s = "";
    const take = (re: RegExp) => {
      while (this.at() !== undefined && re.test(this.at()!)) s += this.advance();
    };
    if (this.at() === "0" && /[xXbBoO]/.test(this.at(1) ?? "")) {
      s += this.advance(2);
      take(/[0-9a-fA-F_]/);
    } else {
      take(/[0-9_]/);
      if (this.at() === "." && /[0-9]/.test(this.at(1) ?? "")) {
        s += this.advance();
        take(/[0-9_]/);
      } else if (this.at() === "." && this.language === "java" && !/[\p{L}_$]/u.test(this.at(1) ?? "")) {
        s += this.advance(); // `1.` is a Java float
      }
      if (/[eE]/.test(this.at() ?? "") && /[0-9+-]/.test(this.at(1) ?? "")) {
        s += this.advance(2);
        take(/[0-9_]/);
      }
    }
    const suffix = this.language === "java" ? /[lLfFdD]/ : /n/;
    if (suffix.test(this.at() ?? "")) s += this.advance();
    if (IDENT_PART.test(this.at() ?? " ")) throw new SyntaxFailure(`malformed number '${s}${this.at()}'`);
    return s;
  }

  private quoted(q: string): string {
    let s = this.advance();
    for (;;) {
      const c = this.at();
      if (c === undefined || c === "\n") throw new SyntaxFailure("unterminated string");
      if (c === "\\") s += this.advance(2);
      else if (c === q) return s + this.advance();
      else s += this.advance();
    }
  }

  /** tree-sitter-java's character literal: one or more characters or escapes between `'`. */
  private charLiteral(): string {
    let s = this.advance();
    let n = 0;
    for (;;) {
      const c = this.at();
      if (c === undefined || c === "\n") throw new SyntaxFailure("unterminated character literal");
      if (c === "'") {
        if (n === 0) throw new SyntaxFailure("empty character literal");
        return s + this.advance();
      }
      s += c === "\\" ? this.advance(2) : this.advance();
      n++;
    }
  }

  private template(): string {
    let s = this.advance();
    for (;;) {
      const c = this.at();
      if (c === undefined) throw new SyntaxFailure("unterminated template");
      if (c === "\\") s += this.advance(2);
      else if (c === "$" && this.at(1) === "{") s += this.substitution();
      else if (c === "`") return s + this.advance();
      else s += this.advance();
    }
  }

  /** `${…}` inside a template, to its matching brace (strings and nested templates skipped). */
  private substitution(): string {
    let s = this.advance(2);
    let depth = 1;
    while (depth > 0) {
      const c = this.at();
      if (c === undefined) throw new SyntaxFailure("unterminated template substitution");
      if (c === '"' || c === "'") s += this.quoted(c);
      else if (c === "`") s += this.template();
      else {
        if (c === "{") depth++;
        else if (c === "}") depth--;
        s += this.advance();
      }
    }
    return s;
  }

  /** A `/` starts a regular expression where an operand is expected. */
  private regexAllowed(): boolean {
    const prev = this.out.filter((t) => t.kind !== "comment").pop();
    if (!prev) return true;
    if (prev.kind === "punct") return ![")", "]", "}"].includes(prev.text);
    return (
      prev.kind === "ident" && ["return", "typeof", "in", "of", "new", "delete", "void"].includes(prev.text)
    );
  }

  private regex(): string {
    let s = this.advance();
    let inClass = false;
    for (;;) {
      const c = this.at();
      if (c === undefined || c === "\n") throw new SyntaxFailure("unterminated regular expression");
      if (c === "\\") s += this.advance(2);
      else {
        if (c === "[") inClass = true;
        else if (c === "]") inClass = false;
        else if (c === "/" && !inClass) {
          s += this.advance();
          while (/[a-z]/.test(this.at() ?? "")) s += this.advance();
          return s;
        }
        s += this.advance();
      }
    }
  }
}

/**
 * The tokens without comments, for a decoder that reads only source text between tokens (a
 * comment's line break still separates statements). `keep` may refuse a comment by position.
 */
export function withoutComments(tokens: Token[], keep: (index: number) => boolean = () => true): Token[] {
  const out: Token[] = [];
  let pendingNewline = false;
  tokens.forEach((t, i) => {
    if (t.kind === "comment") {
      if (!keep(i)) throw new SyntaxFailure("a comment inside a call is not supported");
      pendingNewline ||= t.newlineBefore === true || t.text.includes("\n");
      return;
    }
    out.push(pendingNewline ? { ...t, newlineBefore: true } : t);
    pendingNewline = false;
  });
  return out;
}
