/**
 * A VitaBench domain (delivery, in-store, OTA, or the cross-domain union) as an executable `Environment`, on the state a task's
 * `environment` field sets up. Results are upstream's: a tool's `AssertionError` message comes back
 * as an ordinary result, any other exception as an error whose text the agent sees as
 * `"Error: <message>"` (`resultToString`), non-string returns as upstream's `to_json_str` writes
 * them (floats become strings: `"40.0"`, `["102.7", "25.0"]`). `hash()` is upstream's
 * `get_db_hash()`; `snapshot()` its `db.model_dump()`.
 */
import type { ToolCall } from "../../core/messages.js";
import type { ToolResult, ToolSchema } from "../../core/tools.js";
import { EnvaceError } from "../../core/errors.js";
import type { Environment } from "../env.js";
import { bindArgs } from "../tau2/toolkit.js";
import { PyError } from "../tau2/py-errors.js";
import { dumpVitaDb, loadVitaDb, Registries, type VitaDb, type VitaDomainName } from "./db.js";
import { PyRaise } from "./py-raise.js";
import { fromJs, parsePy, pyJsonDumpsUnicode, pyStr, PyFloat, type PyValue } from "./py-value.js";
import { sha256Hex, wallClock, type ToolContext, type VitaClock, type VitaToolDef } from "./tool-context.js";
import { DELIVERY_TOOLS } from "./tools-delivery.js";
import { GENERIC_TOOLS } from "./tools-generic.js";
import { INSTORE_TOOLS } from "./tools-instore.js";
import { OTA_TOOLS } from "./tools-ota.js";
import SCHEMAS from "./tool-schemas.json" with { type: "json" };

export type VitaLang = "en" | "zh";

export interface VitaEnvOptions {
  /** Source of `datetime.now().timestamp()` for order ids; the wall clock by default. */
  clock?: VitaClock;
  lang?: VitaLang;
}

/**
 * Tools in upstream's order: the domain's own, then the shared ones. Cross-domain is upstream's
 * union (the shared tools, then delivery's, in-store's and OTA's; no name is defined twice).
 */
export const DOMAIN_TOOLS: Record<VitaDomainName, VitaToolDef[]> = {
  delivery: [...DELIVERY_TOOLS, ...GENERIC_TOOLS],
  instore: [...INSTORE_TOOLS, ...GENERIC_TOOLS],
  ota: [...OTA_TOOLS, ...GENERIC_TOOLS],
  cross_domain: [...GENERIC_TOOLS, ...DELIVERY_TOOLS, ...INSTORE_TOOLS, ...OTA_TOOLS],
};

/** A domain's tools that change the world (upstream's write type): what a commit guard covers. */
export function vitaWriteTools(domain: VitaDomainName): string[] {
  return DOMAIN_TOOLS[domain].filter((t) => t.type === "write").map((t) => t.name);
}

/** Upstream's `Environment.to_json_str`: strings as they are; numbers inside become strings. */
export function toJsonStr(value: unknown): string {
  if (typeof value === "string") return value;
  const process = (v: unknown): unknown => {
    if (typeof v === "string" || v === null || v === undefined) return v ?? null;
    if (typeof v === "number" || typeof v === "boolean" || v instanceof PyFloat) return pyStr(v);
    if (Array.isArray(v)) return v.map(process);
    if (v instanceof Map) return new Map([...v].map(([k, x]) => [k, process(x)]));
    return v;
  };
  return pyJsonDumpsUnicode(process(value));
}

export class VitaEnvironment implements Environment {
  readonly db: VitaDb;
  readonly registries = new Registries();
  private readonly ctx: ToolContext;
  private readonly byName: Map<string, VitaToolDef>;

  constructor(
    readonly domain: VitaDomainName,
    environment: PyValue | Record<string, unknown>,
    options: VitaEnvOptions = {},
  ) {
    const env = environment instanceof Map ? environment : fromJs(environment);
    this.db = loadVitaDb(domain, env, this.registries);
    const lang = options.lang ?? "en";
    this.ctx = { db: this.db, reg: this.registries, clock: options.clock ?? wallClock, lang };
    this.byName = new Map(DOMAIN_TOOLS[domain].map((t) => [t.name, t]));
  }

  /** Builds the environment from a task file's JSON text of `environment` (keeps `12.0` a float). */
  static fromJsonText(domain: VitaDomainName, text: string, options: VitaEnvOptions = {}): VitaEnvironment {
    return new VitaEnvironment(domain, parsePy(text), options);
  }

  tools(): ToolSchema[] {
    return (SCHEMAS as unknown as Record<VitaLang, Record<VitaDomainName, ToolSchema[]>>)[this.ctx.lang][
      this.domain
    ];
  }

  /** Whether the tool changes the DB (upstream's WRITE type). */
  isWriteTool(name: string): boolean {
    return this.byName.get(name)?.type === "write";
  }

  async call(call: ToolCall): Promise<ToolResult> {
    return this.callSync(call);
  }

  callSync(call: ToolCall): ToolResult {
    const tool = this.byName.get(call.name);
    if (!tool)
      return { ok: false, error: new EnvaceError("TOOL_NOT_AVAILABLE", `Tool '${call.name}' not found.`) };
    const raw = call.arguments;
    const args =
      raw !== null && typeof raw === "object" && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
    try {
      const bound = bindArgs(tool.cls, tool, args);
      return { ok: true, content: toJsonStr(tool.run(this.ctx, bound)) };
    } catch (e) {
      if (e instanceof PyRaise && e.kind === "AssertionError") return { ok: true, content: e.message };
      if (e instanceof PyRaise || e instanceof PyError)
        return {
          ok: false,
          error: new EnvaceError(
            e instanceof PyError && /argument/.test(e.message)
              ? "INVALID_PARAMETERS"
              : "TOOL_EXECUTION_ERROR",
            e.message,
          ),
        };
      // A JavaScript error here means arguments of a type the port does not mimic; still data.
      return {
        ok: false,
        error: new EnvaceError("TOOL_EXECUTION_ERROR", e instanceof Error ? e.message : String(e)),
      };
    }
  }

  /** Upstream's `db.model_dump()`, as a value `pyJsonDumpsUnicode` writes like Python. */
  snapshot(): Record<string, unknown> {
    return dumpVitaDb(this.db);
  }

  /** `sha256(json.dumps(model_dump, sort_keys=True, ensure_ascii=False))`, as upstream hashes. */
  hash(): string {
    return sha256Hex(this.dumpJsonSorted());
  }

  /** The DB dump as sorted-key JSON text (what `hash()` digests). */
  dumpJsonSorted(): string {
    return pyJsonDumpsUnicode(this.snapshot(), true);
  }

  /** The DB dump as JSON text (the `--dump-db` file). */
  dumpJson(): string {
    return pyJsonDumpsUnicode(this.snapshot());
  }
}
