import type { Task } from "../core/task.js";
import type { Environment } from "../envs/env.js";
import { formatToolError } from "./execution-result.js";
import type { EpisodeResponder, Responder } from "./responder.js";

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
          return { content: formatToolError(res.error.code, res.error.message, res.error.details), ok: false };
        },
        async close() {
          await env.close?.();
        },
      };
    },
  };
}
