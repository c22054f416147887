import type { ToolCall } from "../core/messages.js";
import type { ToolResult, ToolSchema } from "../core/tools.js";
import type { Environment } from "../envs/env.js";

/** Wraps an Environment and records every call made to it (to prove rehearsal never touches it). */
export class CountingEnvironment implements Environment {
  readonly log: ToolCall[] = [];
  constructor(private readonly inner: Environment) {}

  get calls(): number {
    return this.log.length;
  }
  tools(): ToolSchema[] {
    return this.inner.tools();
  }
  call(call: ToolCall): Promise<ToolResult> {
    this.log.push(call);
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
