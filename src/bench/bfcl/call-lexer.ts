/**
 * Tokens for the Java and JavaScript call decoders (`java-call-decoder.ts`,
 * `js-call-decoder.ts`). Offsets are UTF-8 byte offsets, as tree-sitter reports them, because
 * upstream cuts texts with them.
 */
export class SyntaxFailure extends Error {}

/** Nesting the decoders follow before giving up (a recursive parser's stack is finite; replies nest a few levels). */
export const MAX_NESTING = 200;

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

const IDENT_START_RE = /[\p{L}\p{Nl}$_]/u;
const IDENT_PART_RE = /[\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}$_\u200c\u200d]/u;
// ASCII first: the Unicode classes are only consulted for other characters (speed on long replies).
const ASCII_IDENT_START = /[A-Za-z$_]/;
const ASCII_IDENT_PART = /[A-Za-z0-9$_]/;
const IDENT_START = {
  test: (c: string) => (c < "\x80" ? ASCII_IDENT_START.test(c) : IDENT_START_RE.test(c)),
};
const IDENT_PART = { test: (c: string) => (c < "\x80" ? ASCII_IDENT_PART.test(c) : IDENT_PART_RE.test(c)) };
const WHITESPACE = /\s/;
const DIGIT = /[0-9]/;

export class Lexer {
  private readonly chars: string[];
  private pos = 0;
  private byte = 0;
  private readonly out: Token[] = [];
  /** Punctuators by first character, longest first. */
  private readonly punctByFirst = new Map<string, string[]>();

  constructor(
    source: string,
    /** Punctuators, longest first. */
    punct: readonly string[],
    private readonly language: "java" | "javascript",
  ) {
    this.chars = Array.from(source);
    for (const p of punct) this.punctByFirst.set(p[0]!, [...(this.punctByFirst.get(p[0]!) ?? []), p]);
  }

  private advance(n = 1): string {
    if (this.pos + n > this.chars.length) throw new SyntaxFailure("unexpected end of input");
    for (let k = 0; k < n; k++) this.byte += utf8Length(this.chars[this.pos + k]!);
    const s = n === 1 ? this.chars[this.pos]! : this.chars.slice(this.pos, this.pos + n).join("");
    this.pos += n;
    return s;
  }

  private at(k = 0): string | undefined {
    return this.chars[this.pos + k];
  }

  all(): Token[] {
    for (;;) {
      let newline = false;
      while (this.pos < this.chars.length && WHITESPACE.test(this.chars[this.pos]!)) {
        newline = this.advance() === "\n" || newline;
      }
      const ch = this.at();
      if (ch === undefined) return this.out;
      const start = this.byte;
      let kind: Token["kind"];
      let text: string;
      if (ch === "/" && (this.at(1) === "/" || this.at(1) === "*")) {
        // Comments are extras in tree-sitter; the decoders decide where they may stand.
        kind = "comment";
        text = this.comment();
      } else if (IDENT_START.test(ch)) {
        kind = "ident";
        text = this.identifier();
      } else if (DIGIT.test(ch) || (ch === "." && DIGIT.test(this.at(1) ?? ""))) {
        kind = "number";
        text = this.number();
      } else if (ch === '"' || (ch === "'" && this.language === "javascript")) {
        kind = "string";
        text = this.quoted(ch);
      } else if (ch === "'") {
        kind = "char";
        text = this.charLiteral();
      } else if (ch === "`" && this.language === "javascript") {
        kind = "template";
        text = this.template();
      } else if (ch === "/" && this.language === "javascript" && this.regexAllowed()) {
        kind = "regex";
        text = this.regex();
      } else {
        kind = "punct";
        text = this.punctuator(ch);
      }
      const token: Token = { kind, text, start, end: this.byte };
      if (newline) token.newlineBefore = true;
      this.out.push(token);
    }
  }

  private comment(): string {
    let stop = this.pos + 2;
    if (this.at(1) === "*") {
      while (stop < this.chars.length && !(this.chars[stop] === "*" && this.chars[stop + 1] === "/")) stop++;
      if (stop >= this.chars.length) throw new SyntaxFailure("unterminated comment");
      stop += 2;
    } else while (stop < this.chars.length && this.chars[stop] !== "\n") stop++;
    return this.advance(stop - this.pos);
  }

  private identifier(): string {
    let stop = this.pos + 1;
    while (stop < this.chars.length && IDENT_PART.test(this.chars[stop]!)) stop++;
    return this.advance(stop - this.pos);
  }

  /** Punctuators are ASCII: the longest one the source continues with. */
  private punctuator(ch: string): string {
    for (const p of this.punctByFirst.get(ch) ?? []) {
      let k = 1;
      while (k < p.length && this.chars[this.pos + k] === p[k]) k++;
      if (k === p.length) return this.advance(p.length);
    }
    throw new SyntaxFailure(`unexpected character '${ch}'`);
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

  private templateDepth = 0;

  private template(): string {
    if (++this.templateDepth > MAX_NESTING) throw new SyntaxFailure("templates nested too deeply");
    try {
      return this.templateInner();
    } finally {
      this.templateDepth--;
    }
  }

  private templateInner(): string {
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
    let k = this.out.length - 1;
    while (k >= 0 && this.out[k]!.kind === "comment") k--;
    const prev = this.out[k];
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
export function withoutComments(
  tokens: Token[],
  keep: (index: number, prev: Token | undefined, next: Token | undefined) => boolean = () => true,
): Token[] {
  // The nearest non-comment token after each position, found in one backward pass.
  const nextCode: Array<Token | undefined> = new Array<Token | undefined>(tokens.length);
  let after: Token | undefined;
  for (let i = tokens.length - 1; i >= 0; i--) {
    nextCode[i] = after;
    if (tokens[i]!.kind !== "comment") after = tokens[i];
  }
  const out: Token[] = [];
  let pendingNewline = false;
  tokens.forEach((t, i) => {
    if (t.kind === "comment") {
      if (!keep(i, out[out.length - 1], nextCode[i])) {
        throw new SyntaxFailure("a comment inside a call is not supported");
      }
      pendingNewline ||= t.newlineBefore === true || t.text.includes("\n");
      return;
    }
    out.push(pendingNewline ? { ...t, newlineBefore: true } : t);
    pendingNewline = false;
  });
  return out;
}

/** For each opening bracket token, the index of its matching closer (undefined when unmatched). */
export function matchBrackets(tokens: Token[]): Array<number | undefined> {
  const match = new Array<number | undefined>(tokens.length);
  const open: number[] = [];
  const pairs: Record<string, string> = { ")": "(", "]": "[", "}": "{" };
  tokens.forEach((t, i) => {
    if (t.kind !== "punct") return;
    if (t.text === "(" || t.text === "[" || t.text === "{") open.push(i);
    else if (pairs[t.text] !== undefined) {
      // A mismatched closer leaves the openers unmatched (the parse fails there anyway).
      if (open.length > 0 && tokens[open[open.length - 1]!]!.text === pairs[t.text]) match[open.pop()!] = i;
      else open.length = 0;
    }
  });
  return match;
}
