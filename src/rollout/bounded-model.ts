import type { ChatModel, ChatRequest, ChatResult } from "../core/model.js";
import { Semaphore } from "../engines/semaphore.js";

export interface BoundedChatModel extends ChatModel {
  /** Calls in progress now. */
  readonly inFlight: number;
}

/**
 * Bounds the calls in flight to `model` (shared by every episode that holds it). An
 * `EndpointPool` already does this with its `maxInFlight` across its endpoints, plus retries and
 * failover; this is for a single bare endpoint.
 */
export function boundedChatModel(model: ChatModel, maxInFlight: number): BoundedChatModel {
  const sem = new Semaphore(maxInFlight);
  return {
    name: model.name,
    get inFlight() {
      return sem.inUse;
    },
    async chat(request: ChatRequest, options?: { signal?: AbortSignal }): Promise<ChatResult> {
      const release = await sem.acquire(options?.signal);
      try {
        return await model.chat(request, options);
      } finally {
        release();
      }
    },
  };
}
