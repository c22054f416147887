import type { Language } from "./categories.js";
import type { AstCall } from "./ast-checker.js";
import {
  floatRepr,
  isDict,
  newDict,
  pyIn,
  pyStr,
  PyFloat,
  type PyDict,
  type PyValue,
  dictEntries,
  dictKeys,
} from "../../envs/bfcl/py-value.js";

/**
 * The gold answer of an AST entry, as a model would emit it: for each parameter the first allowed
 * value (omitted when `""`, upstream's "optional", is allowed and the parameter is not required),
 * dict answers built key by key the same way. Java and JavaScript arguments are source strings,
 * so values are written in the syntax upstream's type converters read back.
 */
export function goldCalls(answer: PyValue, docs: PyDict[], language: Language): AstCall[] {
  return (answer as PyDict[]).map((call) => {
    const name = dictKeys(call)[0]!;
    const params = call[name] as PyDict;
    const doc = docs.find((d) => d.name === name);
    const props = ((doc?.parameters as PyDict | undefined)?.properties ?? newDict()) as PyDict;
    const required = ((doc?.parameters as PyDict | undefined)?.required ?? []) as string[];
    const args = newDict();
    for (const [param, options] of dictEntries(params)) {
      const chosen = choose(options as PyValue[], required.includes(param));
      if (chosen === undefined) continue;
      const detail = (props[param] ?? newDict()) as PyDict;
      const value = materialize(chosen);
      args[param] = language === "python" ? value : encode(value, detail, language);
    }
    const out = newDict();
    out[name] = args;
    return out;
  });
}

function choose(options: PyValue[], required: boolean): PyValue | undefined {
  if (!required && pyIn("", options)) return undefined;
  return options.find((o) => o !== "");
}

/**
 * Dict answers hold a list of allowed values per key (one level deep, as upstream's dict checker
 * reads them); pick one per key and keep the picked value as it is.
 */
function materialize(v: PyValue): PyValue {
  if (Array.isArray(v)) return v.map((x) => (isDict(x) ? materialize(x) : x));
  if (isDict(v)) {
    const out = newDict();
    for (const [k, options] of dictEntries(v)) {
      // A bare string where a list of options belongs reads, upstream, as its characters, and
      // `"" in "text"` is true there, so the key may be left out.
      const c = Array.isArray(options) ? choose(options, false) : undefined;
      if (c !== undefined) out[k] = c;
    }
    return out;
  }
  return v;
}

function scalar(v: PyValue, type: string | undefined, language: Language): string {
  if (typeof v === "string") return v;
  if (typeof v === "boolean") return v ? "true" : "false";
  if (v instanceof PyFloat || (typeof v === "number" && (type === "float" || type === "double"))) {
    const f = v instanceof PyFloat ? v.value : v;
    const text = floatRepr(f);
    return language === "java" && type === "float" ? `${text}f` : text;
  }
  if (typeof v === "number") return language === "java" && type === "long" ? `${v}L` : String(v);
  return pyStr(v);
}

function literal(v: PyValue, language: Language): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map((x) => literal(x, language)).join(", ")}]`;
  if (isDict(v)) {
    return `{${dictEntries(v)
      .map(([k, x]) => `${JSON.stringify(k)}: ${literal(x, language)}`)
      .join(", ")}}`;
  }
  return scalar(v, undefined, language);
}

function encode(v: PyValue, detail: PyDict, language: Language): PyValue {
  // A variable name (or any string answer) is passed as it is: the converters fall back to it.
  if (typeof v === "string") return v;
  const type = detail.type as string | undefined;
  const itemType = isDict(detail.items ?? null) ? ((detail.items as PyDict).type as string) : undefined;
  if (language === "java") {
    if (type === "Array" && Array.isArray(v)) {
      // Elements of a String array keep their text as written (upstream does not unquote them).
      return `new Object[]{${v.map((x) => scalar(x, itemType, language)).join(", ")}}`;
    }
    if (type === "ArrayList" && Array.isArray(v)) {
      const quote = itemType === "String" || itemType === "char";
      const parts = v.map((x) => (quote ? `"${pyStr(x)}"` : scalar(x, itemType, language)));
      return `new ArrayList<>(Arrays.asList(${parts.join(", ")}))`;
    }
    if (type === "HashMap" && isDict(v)) {
      const puts = dictEntries(v).map(
        ([k, x]) => `put("${k}", ${typeof x === "string" ? `"${x}"` : scalar(x, undefined, language)});`,
      );
      return `new HashMap<String, Object>() {{ ${puts.join(" ")} }}`;
    }
    return scalar(v, type, language);
  }
  if (type === "array" && Array.isArray(v)) {
    const quote = itemType === "String";
    return `[${v.map((x) => (quote ? `"${pyStr(x)}"` : scalar(x, itemType, language))).join(", ")}]`;
  }
  if (type === "dict" && isDict(v)) return literal(v, language);
  return scalar(v, type, language);
}
