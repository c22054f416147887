import type { EnvaceError } from "../core/errors.js";
import type { Task } from "../core/task.js";
import type { Environment } from "../envs/env.js";
import { formatToolError } from "./execution-result.js";
import type { EpisodeResponder, Responder } from "./responder.js";

/**
 * What the actor sees when a real tool fails. An execution failure (unknown id, a refusal) is an
 * ordinary tool result `{"error": message}`, the same shape recorded examples and rehearsed
 * responses use, so that the rehearser can learn to produce it; `error_tool_call` is kept for
 * invalid calls (format, whitelist, schema), whose verdict ends a rehearsed episode.
 */
export function realErrorContent(error: EnvaceError): string {
  if (error.code === "TOOL_EXECUTION_ERROR") return JSON.stringify({ error: error.message });
  return formatToolError(error.code, error.message, error.details);
}

/** A fresh environment for each episode. */
export type EnvFactory = (task: Task) => Environment | Promise<Environment>;

/** Answers every call by executing it in a real environment (one per episode), in order. */
export function realResponder(envFactory: EnvFactory): Responder {
  return {
    mode: "real",
    async open(task: Task): Promise<EpisodeResponder> {
      const env = await envFactory(task);
      let envCalls = 0;
      return {
        sequential: true,
        get envCalls() {
          return envCalls;
        },
        async answer({ call }) {
          envCalls++;
          const res = await env.call(call);
          if (res.ok) return { content: res.content, ok: true };
          return { content: realErrorContent(res.error), ok: false };
        },
        async close() {
          await env.close?.();
        },
      };
    },
  };
}
