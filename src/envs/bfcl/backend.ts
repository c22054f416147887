import { typeError } from "./py-ops.js";
import type { PyDict, PyValue } from "./py-value.js";

/**
 * One BFCL multi-turn backend (a port of a class in upstream's `func_source_code/`). Methods are
 * declared with their Python signatures so calls bind arguments, and fail, as Python's would.
 */
export const REQUIRED = Symbol("required");

/** Text the executor returns as it is: upstream's `str(result)` of a value JSON cannot hold (an mpf, a Decimal). */
export class RawResult {
  constructor(readonly text: string) {}
}

export interface MethodSpec {
  /** Parameters in order, each with its default or REQUIRED. */
  params: Array<[string, PyValue | typeof REQUIRED]>;
  /** A method that needs a service (an embedding model, a search API) returns a promise. */
  fn: (args: Record<string, PyValue>) => PyValue | RawResult | Promise<PyValue | RawResult>;
}

export abstract class Backend {
  /** Python class name, e.g. `GorillaFileSystem`. */
  abstract readonly className: string;
  /** Public methods (upstream: `inspect.getmembers` minus names starting with `_`). */
  abstract methods(): Record<string, MethodSpec>;
  /** Upstream `_load_scenario(initial_config[className], long_context)`. */
  abstract loadScenario(config: PyDict, longContext: boolean): void;
  /** Public attributes (upstream: `vars(instance)` minus names starting with `_`), for the state checker. */
  abstract publicState(): Record<string, PyValue>;
}

function listNames(names: string[]): string {
  const q = names.map((n) => `'${n}'`);
  if (q.length === 1) return q[0]!;
  if (q.length === 2) return `${q[0]} and ${q[1]}`;
  return `${q.slice(0, -1).join(", ")}, and ${q[q.length - 1]}`;
}

/** Binds positional and keyword arguments as CPython does, with its TypeError messages. */
export function bindArguments(
  qualname: string,
  spec: MethodSpec,
  args: PyValue[],
  kwargs: PyDict,
): Record<string, PyValue> {
  const bound: Record<string, PyValue> = {};
  const names = spec.params.map(([n]) => n);
  if (args.length > names.length) {
    const required = spec.params.filter(([, d]) => d === REQUIRED).length;
    const takes =
      required === names.length
        ? `${names.length + 1} positional argument${names.length + 1 === 1 ? "" : "s"}`
        : `from ${required + 1} to ${names.length + 1} positional arguments`;
    throw typeError(`${qualname}() takes ${takes} but ${args.length + 1} were given`);
  }
  args.forEach((v, i) => (bound[names[i]!] = v));
  for (const [k, v] of Object.entries(kwargs)) {
    if (!names.includes(k)) throw typeError(`${qualname}() got an unexpected keyword argument '${k}'`);
    if (k in bound) throw typeError(`${qualname}() got multiple values for argument '${k}'`);
    bound[k] = v;
  }
  const missing = spec.params.filter(([n, d]) => d === REQUIRED && !(n in bound)).map(([n]) => n);
  if (missing.length > 0) {
    throw typeError(
      `${qualname}() missing ${missing.length} required positional argument${missing.length === 1 ? "" : "s"}: ${listNames(missing)}`,
    );
  }
  for (const [n, d] of spec.params) if (!(n in bound) && d !== REQUIRED) bound[n] = d;
  return bound;
}

/** Shorthand for method specs: `m(["file_name"], ["lines", 10], fn)`. */
export function m(params: Array<[string] | [string, PyValue]>, fn: MethodSpec["fn"]): MethodSpec {
  return { params: params.map((p) => (p.length === 1 ? [p[0], REQUIRED] : [p[0], p[1]])), fn };
}
