import { Backend, bindArguments, RawResult, type MethodSpec } from "./backend.js";
import { createBackend, STATELESS_CLASSES } from "./backends.js";
import type { LongContextData } from "./long-context.js";
import type { BackendServices } from "./services.js";
import { EnvaceError } from "../../core/errors.js";
import { deepcopy, jsonDumps } from "./py-ops.js";
import { parseCall, PythonSyntaxError } from "./python-call-parser.js";
import { pyRepr, pyType, type PyDict, type PyValue } from "./py-value.js";

/**
 * Upstream's `execute_multi_turn_func_call`, without `eval`: each call string is parsed as a
 * literal-only call, routed to the backend instance that owns the method (a later class in
 * `involved_classes` wins a shared name, as upstream's mapping does), and its result turned into
 * text as upstream does: strings as they are, dicts as `json.dumps`, anything else as `str()`;
 * a Python exception as `Error during execution: <message>`.
 */
const BLOCKED = new Set(["kill", "exit", "quit", "remove", "unlink", "popen", "Popen", "run"]);

export class BackendSession {
  readonly instances = new Map<string, Backend>();
  private readonly owner = new Map<string, Backend>();

  constructor(
    initialConfig: PyDict,
    involvedClasses: readonly string[],
    longContext: boolean,
    data?: LongContextData,
    services: BackendServices = {},
  ) {
    for (const className of involvedClasses) {
      const b = createBackend(className, data, services);
      if (!STATELESS_CLASSES.has(className)) {
        b.loadScenario(deepcopy((initialConfig[className] ?? {}) as PyDict), longContext);
      }
      this.instances.set(className, b);
      for (const name of Object.keys(b.methods()).sort()) this.owner.set(name, b);
    }
  }

  /** Runs the calls in order; one result string per call. */
  execute(calls: readonly string[]): string[] {
    return calls.map((c) => this.executeOne(c));
  }

  /** As `execute`, for backends whose methods call a service (vector memory, web search). */
  async executeAsync(calls: readonly string[]): Promise<string[]> {
    const out: string[] = [];
    // In order, one at a time: a later call may read what an earlier one stored.
    for (const c of calls) {
      const step = this.start(c);
      out.push(typeof step === "string" ? step : await this.finish(step));
    }
    return out;
  }

  executeOne(source: string): string {
    const step = this.start(source);
    if (typeof step === "string") return step;
    let value;
    try {
      value = step.run();
    } catch (e) {
      return errorText(e);
    }
    if (value instanceof Promise) {
      throw new EnvaceError(
        "INVALID_CONFIG",
        `${step.qualname} calls a service; run it with executeAsync (a bug in the caller)`,
      );
    }
    return resultText(value);
  }

  /** Parses, routes and binds one call: its result text when that already settles it, else a runnable step. */
  private start(source: string): string | PendingCall {
    let call;
    try {
      call = parseCall(source);
    } catch (e) {
      if (e instanceof PythonSyntaxError) return `Error during execution: invalid syntax (<string>, line 1)`;
      throw e;
    }
    const parts = call.name.split(".");
    const backend = parts.length === 1 ? this.owner.get(call.name) : undefined;
    const shownName = backend ? call.name : parts.length > 1 ? parts[1]! : call.name;
    if (BLOCKED.has(shownName)) return `Error during execution: Function call ${shownName} is not allowed.`;
    if (!backend) return `Error during execution: name '${parts[0]}' is not defined`;
    const spec = backend.methods()[call.name]!;
    const qualname = `${backend.className}.${call.name}`;
    try {
      const args = bindArguments(qualname, spec, call.args, call.kwargs);
      return { qualname, run: () => spec.fn(args) };
    } catch (e) {
      return errorText(e);
    }
  }

  private async finish(step: PendingCall): Promise<string> {
    try {
      return resultText(await step.run());
    } catch (e) {
      return errorText(e);
    }
  }
}

interface PendingCall {
  qualname: string;
  run: () => ReturnType<MethodSpec["fn"]>;
}

/**
 * A Python exception is the tool's error text. So is any other failure of a backend on
 * arguments upstream never anticipated (its message then differs from Python's); broken
 * configuration (missing long-context data, a dead service) still throws.
 */
function errorText(e: unknown): string {
  if (e instanceof EnvaceError) throw e;
  if (e instanceof Error) return `Error during execution: ${e.message}`;
  throw e;
}

export function resultText(v: PyValue | RawResult): string {
  if (v instanceof RawResult) return v.text;
  if (typeof v === "string") return v;
  return pyType(v) === "dict" ? jsonDumps(v) : pyRepr(v);
}
