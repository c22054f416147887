import { EnvaceError } from "../../core/errors.js";
import type { ChatModel } from "../../core/model.js";
import type { Task } from "../../core/task.js";
import { openEvalModel } from "../../testtime/eval-model.js";
import { goldChatModel, noopChatModel } from "./oracle-models.js";

export interface PolicySource {
  /** The policy for one task (oracles are per task; models are shared). */
  forTask(task: Task): ChatModel;
  oracle: boolean;
  close(): Promise<void>;
}

export interface PolicyFlags {
  policy?: string;
  endpoint?: string;
  model?: string;
  apiKey?: string;
  checkpoint?: string;
}

const usage = (msg: string) => new EnvaceError("INVALID_CONFIG", msg);

/**
 * The agent named by the flags: an oracle (`--policy gold|noop`), a saved model served by a worker
 * started here (`--checkpoint DIR`, stopped by `close`), or any OpenAI-compatible endpoint.
 */
export async function policySource(o: PolicyFlags): Promise<PolicySource> {
  const given = [o.policy !== undefined, o.endpoint !== undefined, o.checkpoint !== undefined].filter(
    Boolean,
  ).length;
  if (given !== 1)
    throw usage(
      "give exactly one agent: --policy gold|noop, --endpoint URL --model NAME, or --checkpoint DIR",
    );
  if (o.policy !== undefined) {
    if (o.policy === "gold") return { forTask: goldChatModel, oracle: true, close: async () => {} };
    if (o.policy === "noop") {
      const noop = noopChatModel();
      return { forTask: () => noop, oracle: true, close: async () => {} };
    }
    throw usage(`unknown --policy "${o.policy}" for toolworld; use gold or noop`);
  }
  const { model, close } = await openEvalModel(o);
  return { forTask: () => model, oracle: false, close };
}
