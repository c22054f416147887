import { EnvaceError } from "../../core/errors.js";
import type { Language } from "./categories.js";
import { JAVA_TYPES, javaTypeConverter } from "./java-types.js";
import { JS_TYPES, jsTypeConverter } from "./js-types.js";
import {
  isDict,
  pyIn,
  pyRepr,
  pyType,
  PyFloat,
  type PyDict,
  type PyTypeName,
  type PyValue,
  dictEntries,
  dictKeys,
  dictValues,
} from "../../envs/bfcl/py-value.js";

/**
 * Upstream's AST checker (`ast_eval/ast_checker.py`), ported verdict for verdict: the same
 * `error_type` strings and messages, the same first-failure order, the same quirks (a nested type
 * failure reports `type_error:simple` with two messages; int→float promotion only at the top
 * level; parallel categories match greedily in answer order, not by optimal assignment).
 */
export interface CheckResult {
  valid: boolean;
  error: unknown[];
  error_type?: string;
}

/** A decoded call: `{name: {param: value}}` with exactly one key. */
export type AstCall = PyDict;

export interface AstCheckOptions {
  language: Language;
  /**
   * Upstream's `underscore_to_dot`: models whose API forbids `.` in tool names were sent `a_b`
   * for `a.b`, so the checker looks for the underscored name. False for gold and replays.
   */
  underscoreToDot?: boolean;
}

const PYTHON_TYPES: Record<string, PyTypeName> = {
  string: "str",
  integer: "int",
  float: "float",
  boolean: "bool",
  array: "list",
  tuple: "list",
  dict: "dict",
  any: "str",
};
const PYTHON_NESTED = new Set(["array", "tuple"]);
const NESTED_CONVERSION = new Set(["Array", "ArrayList", "array"]);

const ok = (): CheckResult => ({ valid: true, error: [] });

export function astChecker(
  funcDescriptions: PyDict[],
  modelOutput: AstCall[],
  possibleAnswer: AstCall[],
  category: string,
  opts: AstCheckOptions,
): CheckResult {
  if (category.includes("parallel"))
    return parallelNoOrder(funcDescriptions, modelOutput, possibleAnswer, opts);
  if (category.includes("multiple")) {
    if (modelOutput.length !== possibleAnswer.length) {
      return {
        valid: false,
        error: ["Wrong number of functions."],
        error_type: "multiple_function_checker:wrong_count",
      };
    }
    const expected = dictKeys(possibleAnswer[0]!)[0]!;
    return simpleFunctionChecker(
      findDescription(funcDescriptions, expected),
      modelOutput[0]!,
      possibleAnswer[0]!,
      opts,
    );
  }
  if (modelOutput.length !== 1) {
    return {
      valid: false,
      error: ["Wrong number of functions."],
      error_type: "simple_function_checker:wrong_count",
    };
  }
  return simpleFunctionChecker(funcDescriptions[0]!, modelOutput[0]!, possibleAnswer[0]!, opts);
}

function findDescription(docs: PyDict[], name: string): PyDict {
  const d = docs.find((f) => f.name === name);
  if (!d) throw new EnvaceError("INVALID_DATA_FILE", `no function doc named ${name}`);
  return d;
}

function parallelNoOrder(
  docs: PyDict[],
  output: AstCall[],
  answers: AstCall[],
  opts: AstCheckOptions,
): CheckResult {
  if (output.length !== answers.length) {
    return {
      valid: false,
      error: ["Wrong number of functions."],
      error_type: "parallel_function_checker_no_order:wrong_count",
    };
  }
  const matched: number[] = [];
  for (let i = 0; i < answers.length; i++) {
    const expected = dictKeys(answers[i]!)[0]!;
    const doc = findDescription(docs, expected);
    const allErrors: unknown[] = [];
    let result: CheckResult = ok();
    for (let index = 0; index < output.length; index++) {
      if (matched.includes(index)) continue;
      result = simpleFunctionChecker(doc, output[index]!, answers[i]!, opts);
      if (result.valid) {
        matched.push(index);
        break;
      }
      allErrors.push({
        [`Model Result Index ${index}`]: {
          sub_error: result.error,
          sub_error_type: result.error_type,
          model_output_item: output[index],
          possible_answer_item: answers[i],
        },
      });
    }
    if (!result.valid) {
      const considered = output.map((_, k) => k).filter((k) => !matched.includes(k));
      allErrors.unshift(
        `Could not find a matching function among index [${considered.join(", ")}] of model output for index ${i} of possible answers.`,
      );
      return {
        valid: false,
        error: allErrors,
        error_type: "parallel_function_checker_no_order:cannot_find_match",
      };
    }
  }
  return ok();
}

interface TypeCheck extends CheckResult {
  is_variable: boolean;
}

const classStr = (t: string) => `<class '${t}'>`;

function possibleAnswerType(options: PyValue[]): PyTypeName | undefined {
  for (const a of options) if (a !== "") return pyType(a);
  return undefined;
}

function asOptions(v: PyValue): PyValue[] {
  // Python iterates a string option character by character; only lists occur in the data.
  if (Array.isArray(v)) return v;
  if (typeof v === "string") return [...v];
  return [];
}

/** Python's `"" in options`: for a string (malformed answers have them) that is a substring test, always true. */
function allowsOmission(options: PyValue): boolean {
  return typeof options === "string" || (Array.isArray(options) && pyIn("", options));
}

function typeChecker(
  param: string,
  value: PyValue,
  options: PyValue[],
  expectedDescription: string,
  expected: PyTypeName | "set",
  nested: PyTypeName | "set" | undefined,
): TypeCheck {
  const result: TypeCheck = { valid: true, error: [], is_variable: false, error_type: "type_error:simple" };
  let isVariable = false;
  const paType = possibleAnswerType(options);
  if (paType !== undefined && paType !== expected) isVariable = true;

  if (pyType(value) === expected) {
    if (nested === undefined) {
      result.is_variable = isVariable;
      return result;
    }
    for (const item of options) {
      let flag = true;
      if (Array.isArray(item)) {
        for (const v of value as PyValue[]) {
          if (!typeChecker(param, v, item, classStr(nested), nested, undefined).valid) {
            flag = false;
            break;
          }
        }
      }
      if (flag) return { valid: true, error: [], is_variable: isVariable };
    }
    result.valid = false;
    result.error = [
      `Nested type checking failed for parameter ${pyRepr(param)}. Expected outer type ${expectedDescription} with inner type ${classStr(nested)}. Parameter value: ${pyRepr(value)}.`,
    ];
    result.error_type = "type_error:nested";
  }
  if (paType !== undefined && pyType(value) === paType) {
    result.is_variable = true;
    return result;
  }
  result.valid = false;
  result.error.push(
    `Incorrect type for parameter ${pyRepr(param)}. Expected type ${expectedDescription}, got ${pyType(value)}. Parameter value: ${pyRepr(value)}.`,
  );
  result.error_type = "type_error:simple";
  return result;
}

/** Drops ` ,./-_*^`, lower-cases, turns `'` into `"` (upstream `standardize_string`). */
export function standardizeString(s: string): string {
  return s
    .replace(/[ ,./\-_*^]/g, "")
    .toLowerCase()
    .replace(/'/g, '"');
}

const std = (v: PyValue): PyValue => (typeof v === "string" ? standardizeString(v) : v);

function stringChecker(param: string, output: string, options: PyValue[]): CheckResult {
  const allowed = options.filter((o): o is string => typeof o === "string").map(standardizeString);
  if (!allowed.includes(standardizeString(output))) {
    return {
      valid: false,
      error: [
        `Invalid value for parameter ${pyRepr(param)}: ${pyRepr(output)}. Expected one of ${pyRepr(options)}. Case insensitive.`,
      ],
      error_type: "value_error:string",
    };
  }
  return ok();
}

function listChecker(param: string, output: PyValue[], options: PyValue[]): CheckResult {
  const out = output.map(std);
  const allowed = options.map((o) => asOptions(o).map(std));
  if (!pyIn(out, allowed)) {
    return {
      valid: false,
      error: [
        `Invalid value for parameter ${pyRepr(param)}: ${pyRepr(output)}. Expected one of ${pyRepr(options)}.`,
      ],
      error_type: "value_error:list/tuple",
    };
  }
  return ok();
}

function dictChecker(output: PyDict, options: PyValue[]): CheckResult {
  let result: CheckResult = { valid: false, error: [], error_type: "dict_checker:unclear" };
  for (const option of options) {
    if (option === "") continue;
    result = { valid: false, error: [], error_type: "dict_checker:unclear" };
    const answer = (isDict(option) ? option : {}) as PyDict;
    let flag = true;
    for (const [key, value] of dictEntries(output)) {
      if (!Object.prototype.hasOwnProperty.call(answer, key)) {
        result.error.push(`Unexpected dict key parameter: '${key}'.`);
        result.error_type = "value_error:dict_key";
        flag = false;
        break;
      }
      const allowed = asOptions(answer[key]!).map(std);
      if (!pyIn(std(value), allowed)) {
        result.error.push(
          `Invalid value for parameter ${pyRepr(key)}: ${pyRepr(value)}. Expected one of ${pyRepr(allowed)}.`,
        );
        result.error_type = "value_error:dict_value";
        flag = false;
        break;
      }
    }
    for (const [key, value] of dictEntries(answer)) {
      if (!Object.prototype.hasOwnProperty.call(output, key) && !allowsOmission(value)) {
        result.error.push(`Missing dict key parameter: '${key}'.`);
        result.error_type = "value_error:dict_key";
        flag = false;
        break;
      }
    }
    if (flag) return ok();
  }
  return result;
}

function listDictChecker(output: PyValue[], options: PyValue[]): CheckResult {
  let result: CheckResult = { valid: false, error: [], error_type: "list_dict_checker:unclear" };
  for (const option of options) {
    const dicts = asOptions(option);
    let flag = true;
    if (output.length !== dicts.length) {
      result = {
        valid: false,
        error: ["Wrong number of dictionaries in the list."],
        error_type: "value_error:list_dict_count",
      };
      continue;
    }
    for (let k = 0; k < output.length; k++) {
      result = dictChecker(output[k] as PyDict, [dicts[k]!]);
      if (!result.valid) {
        flag = false;
        break;
      }
    }
    if (flag) return ok();
  }
  return result;
}

function itemsType(details: PyDict, param: string): string {
  const items = details.items ?? null;
  if (!isDict(items) || typeof items.type !== "string") {
    throw new EnvaceError("INVALID_DATA_FILE", `parameter ${param} is an array without items.type`);
  }
  return items.type;
}

function lookup<T>(table: Record<string, T>, key: string, lang: string): T {
  const t = table[key];
  if (t === undefined) throw new EnvaceError("INVALID_DATA_FILE", `unknown ${lang} parameter type "${key}"`);
  return t;
}

export function simpleFunctionChecker(
  doc: PyDict,
  output: AstCall,
  answer: AstCall,
  opts: AstCheckOptions,
): CheckResult {
  const possible = dictValues(answer)[0] as PyDict;
  const params = doc.parameters as PyDict;
  const details = params.properties as PyDict;
  const required = (params.required as string[] | undefined) ?? [];
  let funcName = doc.name as string;
  if (opts.underscoreToDot && funcName.includes(".")) funcName = funcName.replace(/\./g, "_");

  if (!Object.prototype.hasOwnProperty.call(output, funcName)) {
    return {
      valid: false,
      error: [`Function name ${pyRepr(funcName)} not found in model output.`],
      error_type: "simple_function_checker:wrong_func_name",
    };
  }
  const modelParams = output[funcName] as PyDict;
  for (const p of required) {
    if (!Object.prototype.hasOwnProperty.call(modelParams, p)) {
      return {
        valid: false,
        error: [`Missing required parameter: ${pyRepr(p)}.`],
        error_type: "simple_function_checker:missing_required",
      };
    }
  }
  for (const [param, raw] of dictEntries(modelParams)) {
    let value = raw;
    if (
      !Object.prototype.hasOwnProperty.call(details, param) ||
      !Object.prototype.hasOwnProperty.call(possible, param)
    ) {
      return {
        valid: false,
        error: [`Unexpected parameter: ${pyRepr(param)}.`],
        error_type: "simple_function_checker:unexpected_param",
      };
    }
    const full = details[param] as PyDict;
    const desc = full.type as string;
    let expected: PyTypeName | "set";
    let nested: PyTypeName | "set" | undefined;
    if (opts.language === "java" || opts.language === "javascript") {
      const table = opts.language === "java" ? JAVA_TYPES : JS_TYPES;
      expected = lookup(table, desc, opts.language);
      if (typeof value !== "string") {
        return {
          valid: false,
          error: [
            `Incorrect type for parameter ${pyRepr(param)}. Expected type String, got ${pyType(value)}. Parameter value: ${pyRepr(value)}.`,
          ],
          error_type: opts.language === "java" ? "type_error:java" : "type_error:js",
        };
      }
      const convert = opts.language === "java" ? javaTypeConverter : jsTypeConverter;
      if (NESTED_CONVERSION.has(desc)) {
        const inner = itemsType(full, param);
        nested = lookup(table, inner, opts.language);
        value = convert(value, desc, inner);
      } else {
        value = convert(value, desc);
      }
    } else {
      expected = lookup(PYTHON_TYPES, desc, "python");
      if (PYTHON_NESTED.has(desc)) nested = lookup(PYTHON_TYPES, itemsType(full, param), "python");
    }
    if (desc === "tuple" && pyType(value) === "tuple") value = [...(value as { items: PyValue[] }).items];
    if (opts.language === "python" && desc === "float" && pyType(value) === "int")
      value = new PyFloat(value as number);

    const options = asOptions(possible[param]!);
    const tc = typeChecker(param, value, options, desc, expected, nested);
    if (!tc.valid) return { valid: false, error: tc.error, error_type: tc.error_type };

    if (!tc.is_variable) {
      let r: CheckResult | undefined;
      if (expected === "dict") r = dictChecker(value as PyDict, options);
      else if (expected === "list" && nested === "dict") r = listDictChecker(value as PyValue[], options);
      else if (expected === "str") r = stringChecker(param, value as string, options);
      else if (expected === "list") r = listChecker(param, value as PyValue[], options);
      if (r) {
        if (!r.valid) return r;
        continue;
      }
    }
    if (!pyIn(value, options)) {
      return {
        valid: false,
        error: [
          `Invalid value for parameter ${pyRepr(param)}: ${pyRepr(value)}. Expected one of ${pyRepr(options)}.`,
        ],
        error_type: "value_error:others",
      };
    }
  }
  for (const [param, options] of dictEntries(possible)) {
    if (!Object.prototype.hasOwnProperty.call(modelParams, param) && !allowsOmission(options)) {
      return {
        valid: false,
        error: [`Optional parameter ${pyRepr(param)} not provided and not marked as optional.`],
        error_type: "simple_function_checker:missing_optional",
      };
    }
  }
  return { valid: true, error: [] };
}

/** Upstream `is_function_calling_format_output`: a list of one-key dicts whose value is a dict. */
export function isFunctionCallingFormat(decoded: unknown): decoded is AstCall[] {
  if (!Array.isArray(decoded)) return false;
  return decoded.every((item) => {
    if (!isDict(item as PyValue)) return false;
    const keys = dictKeys(item as PyDict);
    return keys.length === 1 && isDict((item as PyDict)[keys[0]!]!);
  });
}
