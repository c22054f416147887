import type { ChatRequest } from "../core/model.js";

/**
 * The sticky-session key of a chat request: its first two messages (system prompt and first user
 * message). Every call of one episode repeats them, so the episode stays on one endpoint and its
 * growing conversation hits that server's prefix cache; episodes of the same task (a GRPO group)
 * share them too, and their common prompt is cached once. A request with fewer messages has no
 * key (least-loaded routing).
 */
export function sessionKey(request: ChatRequest): string | undefined {
  const head = request.messages.slice(0, 2);
  if (head.length < 2) return undefined;
  return head.map((m) => `${m.role}\u0000${m.content}`).join("\u0001");
}
