import { EnvaceError } from "../../core/errors.js";
import type { ToolCall } from "../../core/messages.js";
import { WorldDriftZ, type Task } from "../../core/task.js";
import type { ToolResult, ToolSchema } from "../../core/tools.js";
import { validateToolCall } from "../../core/validate-tool-call.js";
import type { Environment } from "../env.js";
import { canonicalHash } from "../../core/canonical-json.js";
import { executeTool } from "./execute.js";
import { domainSpec } from "./registry.js";
import { buildState, type WorldDrift } from "./state.js";
import { domainTools, writeToolNames } from "./tools.js";
import type { DomainSpec, ToolworldState } from "./types.js";

/** Where a toolworld world comes from: the domain, the seed of its initial state, and any drift. */
export interface ToolworldWorld {
  domain: string;
  seed: number;
  /** A newer snapshot of the seed's world (`WorldDrift`); absent: the world as generated. */
  drift?: WorldDrift;
}

/** An in-memory, synchronous world; `call` is the async `Environment` face of `callSync`. */
export class ToolworldEnvironment implements Environment {
  readonly domain: string;
  readonly seed: number;
  /** Calls executed so far, valid or not (the demo reports real-environment call counts). */
  callCount = 0;
  private readonly spec: DomainSpec;
  private readonly schemas: ToolSchema[];
  private state: ToolworldState;

  constructor(world: ToolworldWorld) {
    this.spec = domainSpec(world.domain);
    this.domain = world.domain;
    this.seed = world.seed;
    this.schemas = domainTools(this.spec);
    this.state = buildState(this.spec, world.seed, world.drift);
  }

  tools(): ToolSchema[] {
    return structuredClone(this.schemas);
  }

  callSync(call: ToolCall): ToolResult {
    this.callCount++;
    const invalid = validateToolCall(call, this.schemas);
    if (invalid) return { ok: false, error: invalid };
    const out = executeTool(this.spec, this.state, call.name, call.arguments);
    if (!out.ok) return { ok: false, error: new EnvaceError("TOOL_EXECUTION_ERROR", out.error) };
    return { ok: true, content: JSON.stringify(out.value) };
  }

  call(call: ToolCall): Promise<ToolResult> {
    return Promise.resolve(this.callSync(call));
  }

  /** A deep copy: mutating it never touches the world. */
  snapshot(): ToolworldState {
    return structuredClone(this.state);
  }

  hash(): string {
    return canonicalHash(this.state);
  }
}

/** Rebuilds a task's initial world from `task.env` ({kind: "toolworld", domain, seed}). */
export function createToolworldEnv(source: Task | ToolworldWorld): ToolworldEnvironment {
  return new ToolworldEnvironment("tools" in source ? worldOf(source) : source);
}

export function worldOf(task: Task): ToolworldWorld {
  const env = task.env as { kind?: unknown; domain?: unknown; seed?: unknown; drift?: unknown } | undefined;
  if (!env || env.kind !== "toolworld") {
    throw new EnvaceError(
      "INVALID_TASK_FILE",
      `task ${task.id} has no toolworld env (env.kind must be "toolworld")`,
    );
  }
  if (typeof env.seed !== "number" || !Number.isInteger(env.seed)) {
    throw new EnvaceError("INVALID_TASK_FILE", `task ${task.id}: env.seed must be an integer`);
  }
  const domain = typeof env.domain === "string" ? env.domain : task.domain;
  const drift = driftOf(task.id, env.drift);
  return { domain, seed: env.seed, ...(drift ? { drift } : {}) };
}

function driftOf(taskId: string, drift: unknown): WorldDrift | undefined {
  if (drift === undefined) return undefined;
  const parsed = WorldDriftZ.safeParse(drift);
  if (!parsed.success) {
    throw new EnvaceError(
      "INVALID_TASK_FILE",
      `task ${taskId}: env.drift must be {seed: integer, share: number in [0, 1]}`,
    );
  }
  return parsed.data;
}

/** A tool result as a JSON value: the parsed object, or `{error}` for a failed call (examples use this). */
export function toolworldResultValue(result: ToolResult): unknown {
  return result.ok ? (JSON.parse(result.content) as unknown) : { error: result.error.message };
}

/** The tools of a task's domain that change the world (what a commit guard covers). */
export function toolworldWriteTools(task: Task): string[] {
  return writeToolNames(domainSpec(worldOf(task).domain));
}
