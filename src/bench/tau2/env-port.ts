import { EnvaceError } from "../../core/errors.js";
import type { Environment } from "../../envs/env.js";
import type { ToolCall } from "../../core/messages.js";
import type { ToolResult, ToolSchema } from "../../core/tools.js";
import type { Tau2EnvAssertion, Tau2Requestor, Tau2TaskView } from "./types.js";

/**
 * What the evaluator and the loop need from `src/envs/tau2/`. Kept narrow so that the bench code
 * can be tested against any environment with these methods; the optional ones are the user side
 * (mock's notification inbox) and env assertions, which only some domains have.
 */
export interface Tau2EnvLike extends Environment {
  /** The DB in upstream's model_dump shape. */
  dumpDb(): unknown;
  /** Whether an agent tool changes state (upstream's WRITE tools), where the port knows. */
  isMutating?(name: string): boolean;
  /** Tools the user simulator may call (upstream `user_tools`), if the domain has any. */
  userTools?(): ToolSchema[];
  /**
   * Executes a call on the side of `requestor` (user tools act on the user DB). `sync: false` is
   * upstream's `make_tool_call` (how gold actions build the expected state): the domain's
   * `sync_tools` does not run after it.
   */
  callSync?(
    call: Pick<ToolCall, "name" | "arguments">,
    requestor?: Tau2Requestor,
    options?: { sync?: boolean },
  ): ToolResult;
  /** The user DB in model_dump's JSON shape (null where the domain has none). */
  dumpUserDb?(): unknown;
  /** Hash of the user DB (null where the domain has none); compared like the agent DB. */
  userHash?(): string | null;
  /**
   * Upstream `run_env_assertion`: true when the function's result equals `assert_value`; throws
   * when the function itself fails.
   */
  runEnvAssertion?(assertion: Tau2EnvAssertion): boolean | Promise<boolean>;
}

export interface Tau2DomainLike<T extends Tau2TaskView = Tau2TaskView> {
  name: string;
  policy: string;
  tasks: T[];
  splits: Record<string, string[]>;
  /** The split to run when none is named (else every task). */
  defaultSplit?: string;
  /** Dual control (telecom): the user acts on their own device, whose state is dumped with the DB. */
  dualControl?: boolean;
  /** A fresh environment in the task's initial state (initialization data, actions, history). */
  createEnv(task?: T): Tau2EnvLike;
}

/** Executes `call` on the requestor's side; domains without user tools only have the agent side. */
export async function callOn(
  env: Tau2EnvLike,
  call: ToolCall,
  requestor: Tau2Requestor,
): Promise<ToolResult> {
  if (requestor === "user") {
    if (!env.callSync) {
      return { ok: false, error: new EnvaceError("TOOL_NOT_AVAILABLE", "User tools not available") };
    }
    return env.callSync(call, "user");
  }
  return env.call(call);
}

/** The tool schemas a requestor may use. */
export function toolsOf(env: Tau2EnvLike, requestor: Tau2Requestor): ToolSchema[] {
  return requestor === "user" ? (env.userTools?.() ?? []) : env.tools();
}
