import { createHash } from "node:crypto";
import { EnvaceError } from "../../../src/core/errors.js";
import type { ToolCall } from "../../../src/core/messages.js";
import type { ToolResult, ToolSchema } from "../../../src/core/tools.js";
import type { Tau2DomainLike, Tau2EnvLike } from "../../../src/bench/tau2/env-port.js";
import type { Tau2TaskView } from "../../../src/bench/tau2/types.js";

/** A tiny key-value τ²-style domain for testing the loop and the evaluator without the real port. */
const TOOLS: ToolSchema[] = [
  {
    name: "set_value",
    description: "Set a key",
    parameters: {
      type: "object",
      properties: { key: { type: "string" }, value: { type: "integer" } },
      required: ["key", "value"],
      additionalProperties: false,
    },
  },
  {
    name: "get_value",
    description: "Read a key",
    parameters: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
  },
  {
    name: "transfer_to_human_agents",
    description: "Transfer",
    parameters: { type: "object", properties: { summary: { type: "string" } }, required: ["summary"] },
  },
];

export class FakeEnv implements Tau2EnvLike {
  db: Record<string, number> = { a: 1 };
  calls: ToolCall[] = [];
  tools(): ToolSchema[] {
    return TOOLS;
  }
  async call(call: ToolCall): Promise<ToolResult> {
    this.calls.push(call);
    const args = call.arguments;
    switch (call.name) {
      case "set_value":
        if (typeof args.key !== "string" || typeof args.value !== "number") {
          return { ok: false, error: new EnvaceError("TOOL_EXECUTION_ERROR", "bad args") };
        }
        this.db[args.key] = args.value;
        return { ok: true, content: `set ${args.key}` };
      case "get_value": {
        const v = this.db[String(args.key)];
        return v === undefined
          ? { ok: false, error: new EnvaceError("TOOL_EXECUTION_ERROR", `Key ${String(args.key)} not found`) }
          : { ok: true, content: String(v) };
      }
      case "transfer_to_human_agents":
        return { ok: true, content: "Transfer successful" };
      default:
        return { ok: false, error: new EnvaceError("TOOL_NOT_AVAILABLE", `Tool '${call.name}' not found.`) };
    }
  }
  snapshot(): unknown {
    return this.db;
  }
  dumpDb(): unknown {
    return { ...this.db };
  }
  hash(): string {
    const keys = Object.keys(this.db).sort();
    return createHash("sha256")
      .update(JSON.stringify(keys.map((k) => [k, this.db[k]])))
      .digest("hex");
  }
}

export function fakeTask(
  id: string,
  criteria: Tau2TaskView["evaluation_criteria"],
  extra: Partial<Tau2TaskView> = {},
): Tau2TaskView {
  return {
    id,
    user_scenario: {
      instructions: { domain: "fake", reason_for_call: `Please do ${id}`, task_instructions: "Be brief." },
    },
    evaluation_criteria: criteria,
    ...extra,
  };
}

export function fakeDomain(tasks: Tau2TaskView[]): Tau2DomainLike & { envs: FakeEnv[] } {
  const envs: FakeEnv[] = [];
  return {
    name: "fake",
    policy: "Be nice.",
    tasks,
    splits: { base: tasks.map((t) => t.id), test: tasks.slice(0, 1).map((t) => t.id) },
    envs,
    createEnv() {
      const env = new FakeEnv();
      envs.push(env);
      return env;
    },
  };
}
