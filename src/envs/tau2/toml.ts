/**
 * The subset of TOML that τ²'s telecom DB files use (`db.toml`, `user_db.toml`): `[table]` and
 * `[[array.of.tables]]` headers with dotted names, `key = value` with basic strings, integers,
 * floats, booleans and one-line arrays of those. Tables become `Map`s (file order kept, as
 * upstream's `toml.load` keeps it) so the typed validation sees the same key order. Anything
 * outside the subset is a SyntaxError naming the line: better to refuse than to guess.
 */

type TomlTable = Map<string, unknown>;

function fail(line: number, what: string): never {
  throw new SyntaxError(`line ${line}: ${what}`);
}

/** Splits `a.b.c` (bare or basic-quoted keys). */
function keyPath(text: string, line: number): string[] {
  const parts: string[] = [];
  const re = /\s*(?:"((?:[^"\\]|\\.)*)"|([A-Za-z0-9_-]+))\s*(\.|$)/y;
  let i = 0;
  while (i < text.length) {
    re.lastIndex = i;
    const m = re.exec(text);
    if (!m) fail(line, `bad key '${text}'`);
    parts.push(m[1] !== undefined ? (JSON.parse(`"${m[1]}"`) as string) : m[2]!);
    i = re.lastIndex;
    if (m[3] === "" && i < text.length) fail(line, `bad key '${text}'`);
  }
  if (parts.length === 0) fail(line, "empty key");
  return parts;
}

/** Parses one value starting at `text[pos]`; returns it and the position after it. */
function parseValue(text: string, pos: number, line: number): [unknown, number] {
  const rest = text.slice(pos);
  if (rest.startsWith('"')) {
    const m = /^"((?:[^"\\]|\\.)*)"/.exec(rest);
    if (!m) fail(line, "unterminated string");
    return [JSON.parse(m[0]) as string, pos + m[0].length];
  }
  if (rest.startsWith("true")) return [true, pos + 4];
  if (rest.startsWith("false")) return [false, pos + 5];
  if (rest.startsWith("[")) {
    const items: unknown[] = [];
    let i = pos + 1;
    for (;;) {
      while (text[i] === " " || text[i] === "\t") i++;
      if (text[i] === "]") return [items, i + 1];
      const [v, next] = parseValue(text, i, line);
      items.push(v);
      i = next;
      while (text[i] === " " || text[i] === "\t") i++;
      if (text[i] === ",") i++;
      else if (text[i] !== "]") fail(line, "expected ',' or ']' in array");
    }
  }
  const num = /^[+-]?\d[\d_]*(\.\d[\d_]*)?([eE][+-]?\d+)?/.exec(rest);
  if (num) return [Number(num[0].replace(/_/g, "")), pos + num[0].length];
  return fail(line, `unsupported value '${rest}'`);
}

function child(table: TomlTable, key: string, line: number): TomlTable {
  const existing = table.get(key);
  if (existing === undefined) {
    const t: TomlTable = new Map();
    table.set(key, t);
    return t;
  }
  // A dotted header walks into the last element of an array of tables.
  if (Array.isArray(existing)) return existing[existing.length - 1] as TomlTable;
  if (existing instanceof Map) return existing as TomlTable;
  return fail(line, `key '${key}' is not a table`);
}

export function parseToml(text: string): TomlTable {
  const root: TomlTable = new Map();
  let current = root;
  text.split(/\r?\n/).forEach((raw, idx) => {
    const line = idx + 1;
    const trimmed = raw.trim();
    if (trimmed === "" || trimmed.startsWith("#")) return;
    const arrayHeader = /^\[\[(.+)\]\]\s*(#.*)?$/.exec(trimmed);
    const header = arrayHeader ? null : /^\[(.+)\]\s*(#.*)?$/.exec(trimmed);
    if (arrayHeader) {
      const path = keyPath(arrayHeader[1]!, line);
      let t = root;
      for (const k of path.slice(0, -1)) t = child(t, k, line);
      const last = path[path.length - 1]!;
      const arr = t.get(last) ?? [];
      if (!Array.isArray(arr)) fail(line, `key '${last}' is not an array of tables`);
      t.set(last, arr);
      current = new Map();
      arr.push(current);
      return;
    }
    if (header) {
      let t = root;
      for (const k of keyPath(header[1]!, line)) t = child(t, k, line);
      current = t;
      return;
    }
    const eq = trimmed.indexOf("=");
    if (eq <= 0) fail(line, "expected 'key = value'");
    const path = keyPath(trimmed.slice(0, eq).trim(), line);
    const valueText = trimmed.slice(eq + 1).trim();
    const [value, end] = parseValue(valueText, 0, line);
    const after = valueText.slice(end).trim();
    if (after !== "" && !after.startsWith("#")) fail(line, `unexpected '${after}' after value`);
    let t = current;
    for (const k of path.slice(0, -1)) t = child(t, k, line);
    const last = path[path.length - 1]!;
    if (t.has(last)) fail(line, `duplicate key '${last}'`);
    t.set(last, value);
  });
  return root;
}
