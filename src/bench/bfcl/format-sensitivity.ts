import { readFileSync } from "node:fs";
import { join } from "node:path";
import { EnvaceError } from "../../core/errors.js";
import { jsonDumpsIndent } from "../../envs/bfcl/py-ops.js";
import { parseCallList, parsePythonLiteral } from "../../envs/bfcl/python-call-parser.js";
import { parseJsonPy } from "../../envs/bfcl/lossless-json.js";
import { dictEntries, isDict, newDict, pyRepr, type PyDict, type PyValue } from "../../envs/bfcl/py-value.js";
import { pyFloatOf, pyIntOf } from "../../envs/bfcl/py-parse-number.js";
import type { BfclCategory } from "./categories.js";
import type { Candidate } from "./evaluate-single-turn.js";
import { loadCategory, type BfclAnswer, type BfclEntry } from "./load.js";

/**
 * Upstream's non-scoring `format_sensitivity` category: 200 AST entries (listed in
 * `BFCL_v4_format_sensitivity.json`) asked under 26 system-prompt variations — return format
 * (python, json, verbose or concise XML), with or without `<TOOLCALL>` tags, function docs as
 * Python, XML or JSON, plain or markdown prompt, classic or experimental wording — and scored per
 * variation; the spread across variations (max delta, std) is the result.
 */
export interface FormatConfig {
  returnFormat: "python" | "json" | "verbose_xml" | "concise_xml";
  toolCallTag: boolean;
  docFormat: "python" | "xml" | "json";
  promptFormat: "plaintext" | "markdown";
  style: "classic" | "experimental";
}

export function formatConfigs(): string[] {
  const out: string[] = [];
  for (const r of ["python", "json", "verbose_xml", "concise_xml"]) {
    for (const t of ["True", "False"]) {
      for (const d of ["python", "xml", "json"]) {
        out.push(`ret_fmt=${r}&tool_call_tag=${t}&func_doc_fmt=${d}&prompt_fmt=plaintext&style=classic`);
      }
    }
  }
  out.push("ret_fmt=python&tool_call_tag=False&func_doc_fmt=json&prompt_fmt=markdown&style=classic");
  out.push("ret_fmt=python&tool_call_tag=False&func_doc_fmt=json&prompt_fmt=plaintext&style=experimental");
  return out;
}

export function parseFormatConfig(s: string): FormatConfig {
  const m =
    /^ret_fmt=(python|json|verbose_xml|concise_xml)&tool_call_tag=(True|False)&func_doc_fmt=(python|xml|json)&prompt_fmt=(plaintext|markdown)&style=(classic|experimental)$/.exec(
      s,
    );
  if (!m) throw new EnvaceError("INVALID_CONFIG", `Invalid query format: '${s}'`);
  return {
    returnFormat: m[1] as FormatConfig["returnFormat"],
    toolCallTag: m[2] === "True",
    docFormat: m[3] as FormatConfig["docFormat"],
    promptFormat: m[4] as FormatConfig["promptFormat"],
    style: m[5] as FormatConfig["style"],
  };
}

export interface FormatEntry {
  entry: BfclEntry;
  answer: BfclAnswer;
  config: string;
  /** The original entry id, which also names the checker's category. */
  originalId: string;
}

/** The 5,200 (entry × variation) cases with upstream's ids `format_sensitivity_<i>:<config>:<id>`. */
export function loadFormatSensitivity(bfclDir: string): FormatEntry[] {
  const ids = JSON.parse(readFileSync(join(bfclDir, "BFCL_v4_format_sensitivity.json"), "utf8")) as Record<
    string,
    string[]
  >;
  const configs = formatConfigs();
  const out: FormatEntry[] = [];
  let index = 0;
  for (const [category, wanted] of Object.entries(ids)) {
    if (wanted.length === 0) continue;
    const set = new Set(wanted);
    const { entries, answers } = loadCategory(bfclDir, category as BfclCategory);
    entries.forEach((e, i) => {
      if (!set.has(e.id)) return;
      for (const config of configs) {
        out.push({
          entry: { ...e, id: `format_sensitivity_${index}:${config}:${e.id}` },
          answer: answers![i]!,
          config,
          originalId: e.id,
        });
        index++;
      }
    });
  }
  return out;
}

/** Upstream's per-variation statistics (sample variance and std over the 26 accuracies, in %). */
export function formatStats(byConfig: Record<string, { correct: number; total: number }>) {
  const accs = Object.values(byConfig).map((s) => s.correct / s.total);
  const round2 = (x: number) => Math.round(x * 100) / 100;
  if (accs.length < 2) return { accuracy_max_delta: 0, accuracy_variance: 0, accuracy_std: 0 };
  const mean = accs.reduce((a, b) => a + b, 0) / accs.length;
  const variance = accs.reduce((a, b) => a + (b - mean) ** 2, 0) / (accs.length - 1);
  return {
    accuracy_max_delta: round2((Math.max(...accs) - Math.min(...accs)) * 100),
    accuracy_variance: round2(variance * 100 ** 2),
    accuracy_std: round2(Math.sqrt(variance) * 100),
  };
}

// ---- prompts ----

const OUTPUT_FORMAT: Record<FormatConfig["returnFormat"], string> = {
  python: "[func_name1(params_name1=params_value1, params_name2=params_value2...), func_name2(params)]",
  json: '```json\n[{"function":"func_name1","parameters":{"param1":"value1","param2":"value2"...}},{"function":"func_name2","parameters":{"param":"value"}}]\n```',
  verbose_xml:
    '<functions><function name="func_name1"><params><param name="param1" value="value1" type="type1"/><param name="param2" value="value2" type="type2"/>...</params></function><function name="func_name2"><params><param name="param3" value="value3" type="type3"/></params></function></functions>',
  concise_xml:
    '<functions><function name="func_name1"><param name="param1" type="type1">value1</param><param name="param2" type="type2">value2</param>...</function><function name="func_name2"><param name="param3" type="type3">value</param></function></functions>',
};
const XML_TYPES =
  "The type fields of the parameters in your function calls must be one of: string, integer, float, boolean, array, dict, or tuple.";
const PARAM_TYPES: Record<FormatConfig["returnFormat"], string> = {
  python: "",
  json: "",
  verbose_xml: XML_TYPES,
  concise_xml: XML_TYPES,
};

const STYLES = {
  classic: {
    persona: "You are an expert in composing functions.",
    task: "You are given a question and a set of possible functions. Based on the question, you will need to make one or more function/tool calls to achieve the purpose. If none of the functions can be used, point it out. If the given question lacks the parameters required by the function, also point it out.",
    noTag:
      "You should only return the function calls in your response.\n\nIf you decide to invoke any of the function(s), you MUST put it in the format of {output_format}. {param_types} You SHOULD NOT include any other text in the response.",
    withTag:
      "You should only return the function calls in the <TOOLCALL> section. If you decide to invoke any of the function(s), you MUST put it in the format of <TOOLCALL>{output_format}</TOOLCALL>. {param_types} You SHOULD NOT include any other text in the response.",
    multiturn:
      "At each turn, you should try your best to complete the tasks requested by the user within the current turn. Continue to output functions to call until you have fulfilled the user's request to the best of your ability. Once you have no more functions to call, the system will consider the current turn complete and proceed to the next turn or task.",
    tools: "Here is a list of functions in {format} format that you can invoke.\n{functions}\n",
  },
  experimental: {
    persona: "You are an expert in generating structured function calls.",
    task: "You are given a user query and a set of available functions. Your task is to produce one or more function/tool calls to fulfill the user's request. If no suitable function exists, or required parameters are missing, clearly indicate this.",
    noTag:
      "Respond with only the function calls.\n\nYou MUST format it exactly as {output_format}. {param_types} Do NOT include any other text.",
    withTag:
      "Return only the function calls enclosed in <TOOLCALL> tags.\n\nYou MUST format it exactly as <TOOLCALL>{output_format}</TOOLCALL>. {param_types} Do NOT include any other text.",
    multiturn:
      "At every turn, aim to complete the user's tasks within that turn. Continue emitting function calls until the request is satisfied to the best of your ability. Once no more calls are needed, the system will proceed to the next turn.",
    tools: "Below is a list of callable functions in the {format} style:\n{functions}\n",
  },
};

const str = (v: PyValue | undefined, d = ""): string => (typeof v === "string" ? v : d);

function docXml(functions: PyDict[]): string {
  const param = (name: string, meta: PyDict, required: PyValue[] | null, level: number): string => {
    const indent = " ".repeat(level * 2);
    let type = str(meta.type, "string");
    let desc = str(meta.description);
    const isRequired = required === null ? "true" : required.includes(name) ? "true" : "false";
    if (meta.enum !== undefined) desc += ` Enum values: ${pyRepr(meta.enum)}.`;
    if (isDict(meta.items ?? null) && (meta.items as PyDict).type !== undefined) {
      type = `${type}[${str((meta.items as PyDict).type)}]`;
    } else if (isDict(meta.additionalProperties ?? null)) {
      type = `${type}[${str((meta.additionalProperties as PyDict).type, "string")}]`;
    }
    const attrs = [`name="${name}", type="${type}", required="${isRequired}"`];
    if (meta.default !== undefined) attrs.push(`default="${pyRepr(meta.default)}"`);
    let xml = `${indent}<param ${attrs.join(" ").replace(/,/g, "")}>\n${indent}  <desc>${desc}</desc>\n`;
    if (isDict(meta.properties ?? null)) {
      const childRequired = Array.isArray(meta.required) ? meta.required : null;
      xml += `${indent}  <params>\n`;
      for (const [c, cm] of dictEntries(meta.properties as PyDict))
        xml += param(c, cm as PyDict, childRequired, level + 2);
      xml += `${indent}  </params>\n`;
    }
    return `${xml}${indent}</param>\n`;
  };
  return functions
    .map((fn) => {
      const params = (fn.parameters ?? newDict()) as PyDict;
      const required = Array.isArray(params.required) ? params.required : null;
      let xml = `<function name="${str(fn.name)}">\n  <desc>${str(fn.description)}</desc>\n  <params>\n`;
      for (const [p, meta] of dictEntries((params.properties ?? newDict()) as PyDict))
        xml += param(p, meta as PyDict, required, 2);
      return `${xml}  </params>\n</function>\n`;
    })
    .join("\n");
}

function docPython(functions: PyDict[]): string {
  const toPy = (meta: PyDict): string => {
    const t = str(meta.type, "string");
    const prim: Record<string, string> = { string: "str", number: "float", integer: "int", boolean: "bool" };
    if (prim[t]) return prim[t];
    if ((t === "array" || t === "list" || t === "tuple") && isDict(meta.items ?? null))
      return `list[${toPy(meta.items as PyDict)}]`;
    if (t === "object" || t === "dict") {
      return isDict(meta.additionalProperties ?? null)
        ? `dict[str, ${toPy(meta.additionalProperties as PyDict)}]`
        : "dict";
    }
    return t;
  };
  const paramDoc = (name: string, meta: PyDict, depth: number): string[] => {
    const indent = " ".repeat(8 + 4 * depth);
    let desc = str(meta.description);
    if (meta.enum !== undefined) desc += ` Enum values: ${pyRepr(meta.enum)}.`;
    const def = meta.default !== undefined ? `, default=${pyRepr(meta.default)}` : "";
    const lines = [`${indent}${name} (${toPy(meta)}${def}): ${desc}\n`];
    if (isDict(meta.properties ?? null)) {
      for (const [c, cm] of dictEntries(meta.properties as PyDict))
        lines.push(...paramDoc(c, cm as PyDict, depth + 1));
    }
    return lines;
  };
  const docs: string[] = [];
  for (const fn of functions) {
    const lines = [`# Function: ${str(fn.name)}\n`, '    """\n', `    ${str(fn.description)}\n\n`];
    const props = (((fn.parameters ?? newDict()) as PyDict).properties ?? newDict()) as PyDict;
    if (dictEntries(props).length > 0) {
      lines.push("    Args:\n");
      for (const [p, meta] of dictEntries(props)) lines.push(...paramDoc(p, meta as PyDict, 0));
    }
    lines.push('    """\n');
    docs.push(lines.join(""), "\n");
  }
  return docs.join("\n\n");
}

export function formatSystemPrompt(configText: string, functions: PyDict[]): string {
  const c = parseFormatConfig(configText);
  const style = STYLES[c.style];
  const docs =
    c.docFormat === "xml"
      ? docXml(functions)
      : c.docFormat === "python"
        ? docPython(functions)
        : jsonDumpsIndent(functions, 4);
  const toolCallFormat = (c.toolCallTag ? style.withTag : style.noTag)
    .replace("{output_format}", OUTPUT_FORMAT[c.returnFormat])
    .replace("{param_types}", PARAM_TYPES[c.returnFormat]);
  const tools = style.tools.replace("{format}", c.docFormat).replace("{functions}", docs);
  return c.promptFormat === "markdown"
    ? `${style.persona}\n\n## Task\n${style.task}\n\n## Tool Call Format\n${toolCallFormat}\n\n## Multi-turn Behavior\n${style.multiturn}\n\n## Available Tools\n${tools}`
    : `${style.persona}${style.task}\n\n${toolCallFormat}\n\n${style.multiturn}\n\n${tools}`;
}

// ---- decoders ----

/** Upstream `default_decode_ast_prompting` for every return format, `<TOOLCALL>` tag included. */
export function decodeFormatted(text: string, configText: string): Candidate {
  const c = parseFormatConfig(configText);
  let t = text.replace(/^[`\n ]+|[`\n ]+$/g, "");
  if (!t.startsWith("[")) t = "[" + t;
  if (!t.endsWith("]")) t = t + "]";
  try {
    if (c.toolCallTag) {
      const m = /<TOOLCALL>([\s\S]*?)<\/TOOLCALL>/.exec(t);
      if (!m) return { decodeError: `No tool call tag found in input string: ${t}` };
      t = m[1]!.trim();
    }
    if (c.returnFormat === "python") {
      return parseCallList(t.trim().replace(/^'+|'+$/g, "")).map((call) => {
        const d = newDict();
        d[call.name] = call.kwargs;
        return d;
      });
    }
    if (c.returnFormat === "json") {
      const m = /\[[\s\S]*\]/.exec(t);
      return decodeJsonCalls(m ? m[0] : t);
    }
    const m = /<functions>[\s\S]*?<\/functions>/.exec(t);
    if (!m)
      return { decodeError: `No XML function call found in input string: ${t}. Missing <functions> tag.` };
    return decodeXmlCalls(m[0], c.returnFormat === "verbose_xml");
  } catch (e) {
    return { decodeError: (e as Error).message };
  }
}

function decodeJsonCalls(source: string): PyValue {
  const m = /\[\s*{[\s\S]*?}\s*(?:,\s*{[\s\S]*?}\s*)*\]/.exec(source);
  let v: PyValue;
  try {
    v = parseJsonPy(m ? m[0] : source);
  } catch {
    return [];
  }
  if (!Array.isArray(v)) throw new Error("not a list of calls");
  return v.filter(isDict).map((call) => {
    const d = newDict();
    d[String((call as PyDict).function)] = (call as PyDict).parameters ?? null;
    return d;
  });
}

function convertByType(raw: string, type: string): PyValue {
  switch (type) {
    case "string":
      return raw;
    case "integer": {
      const n = pyIntOf(raw);
      if (n === undefined) throw new Error(`invalid literal for int() with base 10: ${pyRepr(raw)}`);
      return n;
    }
    case "float": {
      const f = pyFloatOf(raw);
      if (f === undefined) throw new Error(`could not convert string to float: ${pyRepr(raw)}`);
      return f;
    }
    case "boolean":
      return raw.toLowerCase() === "true";
    case "null":
      return null;
    case "array":
    case "tuple":
    case "object":
    case "dict":
      return parsePythonLiteral(raw);
    default:
      return raw;
  }
}

/** A small XML reader for `<functions>` (elements, attributes, text, entities); malformed input throws. */
interface XmlNode {
  tag: string;
  attrs: Record<string, string>;
  children: XmlNode[];
  text: string;
}

function unescapeXml(s: string): string {
  return s.replace(/&(lt|gt|amp|quot|apos|#\d+|#x[0-9a-fA-F]+);/g, (_, e: string) => {
    if (e === "lt") return "<";
    if (e === "gt") return ">";
    if (e === "amp") return "&";
    if (e === "quot") return '"';
    if (e === "apos") return "'";
    return String.fromCodePoint(e.startsWith("#x") ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
  });
}

function parseXml(src: string): XmlNode {
  let i = 0;
  const fail = (why: string): never => {
    throw new Error(`syntax error: ${why} at ${i}`);
  };
  const node = (): XmlNode => {
    const open = /^<([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/.exec(
      src.slice(i),
    );
    if (!open) return fail("expected an element");
    i += open[0].length;
    const attrs: Record<string, string> = {};
    for (const a of open[2]!.matchAll(/([A-Za-z_][\w.-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
      if (a[1]! in attrs) fail("duplicate attribute");
      attrs[a[1]!] = unescapeXml(a[2] ?? a[3] ?? "");
    }
    const n: XmlNode = { tag: open[1]!, attrs, children: [], text: "" };
    if (open[3] === "/") return n;
    let firstText = true;
    for (;;) {
      const lt = src.indexOf("<", i);
      if (lt < 0) fail("unclosed element");
      if (firstText) n.text = unescapeXml(src.slice(i, lt));
      firstText = false;
      i = lt;
      if (src.startsWith(`</${n.tag}`, i)) {
        const close = /^<\/[\w.-]+\s*>/.exec(src.slice(i));
        if (!close) fail("bad closing tag");
        i += close![0].length;
        return n;
      }
      if (src.startsWith("</", i)) fail("mismatched tag");
      n.children.push(node());
    }
  };
  const root = node();
  if (src.slice(i).trim() !== "") fail("junk after document element");
  return root;
}

function decodeXmlCalls(src: string, verbose: boolean): PyValue {
  const root = parseXml(src);
  return root.children
    .filter((c) => c.tag === "function")
    .map((fn) => {
      const name = fn.attrs.name;
      if (name === undefined) throw new Error("KeyError: 'name'");
      const args = newDict();
      const container = fn.children.find((c) => c.tag === "params");
      const params = (verbose && container ? container.children : fn.children).filter(
        (c) => c.tag === "param",
      );
      for (const p of params) {
        if (verbose) {
          args[p.attrs.name ?? "None"] = convertByType(p.attrs.value ?? "", p.attrs.type ?? "string");
        } else {
          if (p.attrs.name === undefined) throw new Error("KeyError: 'name'");
          args[p.attrs.name] = convertByType(p.text.trim(), p.attrs.type ?? "string");
        }
      }
      const d = newDict();
      d[name] = args;
      return d;
    });
}
