import { deepcopy, jsonDumpsIndent } from "../../envs/bfcl/py-ops.js";
import { dictEntries, isDict, setItem, type PyDict, type PyValue } from "../../envs/bfcl/py-value.js";
import { languageOf } from "./categories.js";

/**
 * What upstream's handlers send a model: the default system prompt of prompting mode
 * (`ret_fmt=python&tool_call_tag=False&func_doc_fmt=json&prompt_fmt=plaintext&style=classic`), the
 * language hints added to every function description, and the OpenAI tool schemas of FC mode.
 */
export const ADDITIONAL_FUNCTION_PROMPT_FC =
  "I have updated some more functions you can choose from. What about now?";

export function defaultSystemPrompt(functions: PyDict[]): string {
  // Upstream joins persona and task with no space; kept as it is.
  const persona = "You are an expert in composing functions.";
  const task =
    "You are given a question and a set of possible functions. Based on the question, you will need to make one or more function/tool calls to achieve the purpose. If none of the functions can be used, point it out. If the given question lacks the parameters required by the function, also point it out.";
  const format =
    "You should only return the function calls in your response.\n\nIf you decide to invoke any of the function(s), you MUST put it in the format of [func_name1(params_name1=params_value1, params_name2=params_value2...), func_name2(params)].  You SHOULD NOT include any other text in the response.";
  const behaviour =
    "At each turn, you should try your best to complete the tasks requested by the user within the current turn. Continue to output functions to call until you have fulfilled the user's request to the best of your ability. Once you have no more functions to call, the system will consider the current turn complete and proceed to the next turn or task.";
  const tools = `Here is a list of functions in json format that you can invoke.\n${jsonDumpsIndent(functions, 4)}\n`;
  return `${persona}${task}\n\n${format}\n\n${behaviour}\n\n${tools}`;
}

function hint(category: string): string {
  const lang = languageOf(category);
  if (lang === "java") return " Note that the provided function is in Java 8 SDK syntax.";
  if (lang === "javascript") return " Note that the provided function is in JavaScript syntax.";
  return " Note that the provided function is in Python 3 syntax.";
}

/** Upstream `_func_doc_language_specific_pre_processing`: hints, and Java/JS types as strings. */
export function withLanguageHints(functions: PyDict[], category: string): PyDict[] {
  const lang = languageOf(category);
  return functions.map((f0) => {
    const f = deepcopy(f0);
    f.description = `${String(f.description ?? "")}${hint(category)}`;
    if (lang === "python") return f;
    const props = ((f.parameters as PyDict).properties ?? {}) as PyDict;
    const langName = lang === "java" ? "Java" : "JavaScript";
    for (const [, raw] of dictEntries(props)) {
      const p = raw as PyDict;
      const type = String(p.type);
      p.description =
        String(p.description ?? "") +
        (type === "any"
          ? ` This parameter can be of any type of ${langName} object in string representation.`
          : ` This is ${langName} ${type} type parameter in string representation.`);
      const listType = lang === "java" ? type === "ArrayList" || type === "Array" : type === "array";
      if (listType && isDict(p.items ?? null)) {
        p.description += ` The list elements are of type ${String((p.items as PyDict).type)}; they are not in string representation.`;
        delete p.items;
      }
      if (lang === "javascript" && type === "dict" && isDict(p.properties ?? null)) {
        p.description += ` The dictionary entries have the following schema; they are not in string representation. ${JSON.stringify(p.properties)}`;
        delete p.properties;
      }
      p.type = "string";
    }
    return f;
  });
}

const OPENAPI_TYPES: Record<string, string> = {
  integer: "integer",
  number: "number",
  float: "number",
  string: "string",
  boolean: "boolean",
  bool: "boolean",
  array: "array",
  list: "array",
  dict: "object",
  object: "object",
  tuple: "array",
  any: "string",
  byte: "integer",
  short: "integer",
  long: "integer",
  double: "number",
  char: "string",
  ArrayList: "array",
  Array: "array",
  HashMap: "object",
  Hashtable: "object",
  Queue: "array",
  Stack: "array",
  Any: "string",
  String: "string",
  Bigint: "integer",
};

function castProperties(props: PyDict): PyDict {
  for (const [, raw] of dictEntries(props)) {
    const p = raw as PyDict;
    if (!("type" in p)) p.type = "string";
    else {
      const t = String(p.type);
      if (t === "float") {
        p.format = "float";
        p.description = `${String(p.description ?? "")} This is a float type value.`;
      }
      p.type = OPENAPI_TYPES[t] ?? "string";
    }
    if (p.type === "array" || p.type === "object") {
      if (isDict(p.properties ?? null)) castProperties(p.properties as PyDict);
      else if (isDict(p.items ?? null)) {
        const items = p.items as PyDict;
        items.type = OPENAPI_TYPES[String(items.type)] ?? "string";
        if (items.type === "array" && isDict(items.items ?? null)) {
          const inner = items.items as PyDict;
          inner.type = OPENAPI_TYPES[String(inner.type)] ?? "string";
        } else if (items.type === "object" && isDict(items.properties ?? null)) {
          castProperties(items.properties as PyDict);
        }
      }
    }
  }
  return props;
}

/** Upstream `convert_to_tool` for OpenAI-style APIs: `.` → `_` in names, OpenAPI types. */
export function toOpenAITools(functions: PyDict[]): PyValue[] {
  return functions.map((f0) => {
    const f = deepcopy(f0);
    f.name = String(f.name).replace(/\./g, "_");
    const params = f.parameters as PyDict;
    params.type = "object";
    params.properties = castProperties((params.properties ?? {}) as PyDict);
    const tool: PyDict = Object.create(null) as PyDict;
    setItem(tool, "type", "function");
    setItem(tool, "function", f);
    return tool;
  });
}
