import { EnvaceError } from "../core/errors.js";
import type { ChatModel } from "../core/model.js";
import { OpenAIChatModel } from "../engines/openai-chat-model.js";
import { savedModelDir } from "../engines/saved-model-dir.js";
import { startWorker } from "../engines/worker-supervisor.js";

export interface EvalModelFlags {
  endpoint?: string;
  model?: string;
  apiKey?: string;
  /** A saved model directory: a worker is started to serve it (and stopped by `close`). */
  checkpoint?: string;
}

/** The agent's model for `envace eval`: an OpenAI-compatible endpoint, or a checkpoint served by a worker. */
export async function openEvalModel(
  o: EvalModelFlags,
): Promise<{ model: ChatModel; close(): Promise<void> }> {
  if (o.checkpoint !== undefined) {
    if (o.endpoint !== undefined)
      throw new EnvaceError("INVALID_CONFIG", "give either --checkpoint or --endpoint, not both");
    const worker = await startWorker({ model: savedModelDir(o.checkpoint) });
    const model = new OpenAIChatModel({
      baseURL: `${worker.url}/v1`,
      apiKey: worker.apiKey,
      model: o.model ?? "checkpoint",
    });
    return { model, close: () => worker.stop() };
  }
  if (o.endpoint === undefined || o.model === undefined)
    throw new EnvaceError(
      "INVALID_CONFIG",
      "a model agent needs --endpoint URL --model NAME, or --checkpoint DIR",
    );
  const model = new OpenAIChatModel({
    baseURL: o.endpoint,
    model: o.model,
    ...(o.apiKey ? { apiKey: o.apiKey } : {}),
  });
  return { model, close: async () => {} };
}
