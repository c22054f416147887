import { EnvaceError } from "../core/errors.js";
import type { ToolCall } from "../core/messages.js";
import type { ToolResult, ToolSchema } from "../core/tools.js";
import type { Environment } from "../envs/env.js";

/**
 * Marks when one episode is rehearsing. The rehearsing code never receives the environment or the
 * user simulator (that is the guarantee); this flag lets guards around them prove it by counting
 * any call that arrives while a rehearsal runs.
 */
export class RehearsalPhase {
  private depth = 0;
  /** Calls refused by guards while active. */
  realCalls = 0;
  userCalls = 0;
  /** Real calls that passed the guard (the committed run's), where the guard counts them. */
  committedCalls = 0;
  /** The user's own tool calls that passed a guard (τ² dual control: the committed run's). */
  committedUserCalls = 0;

  get active(): boolean {
    return this.depth > 0;
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    this.depth++;
    try {
      return await fn();
    } finally {
      this.depth--;
    }
  }
}

/**
 * The real environment behind a counting guard: a call while the phase is active is counted and
 * refused (it never reaches the environment); other calls pass through and are counted as real.
 */
export class GuardedEnvironment implements Environment {
  /** Calls that reached the real environment. */
  realCalls = 0;

  constructor(
    private readonly inner: Environment,
    private readonly phase: RehearsalPhase,
  ) {}

  tools(): ToolSchema[] {
    return this.inner.tools();
  }
  async call(call: ToolCall): Promise<ToolResult> {
    if (this.phase.active) {
      this.phase.realCalls++;
      return {
        ok: false,
        error: new EnvaceError(
          "REAL_CALL_DURING_REHEARSAL",
          `real call to ${call.name} refused: a rehearsal is running`,
        ),
      };
    }
    this.realCalls++;
    this.phase.committedCalls++;
    return this.inner.call(call);
  }
  snapshot(): unknown {
    return this.inner.snapshot();
  }
  hash(): string {
    return this.inner.hash();
  }
  async close(): Promise<void> {
    await this.inner.close?.();
  }
}
