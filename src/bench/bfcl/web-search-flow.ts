import { BackendSession } from "../../envs/bfcl/executor.js";
import { newDict } from "../../envs/bfcl/py-value.js";
import type { BackendServices } from "../../envs/bfcl/services.js";
import { converse } from "./agentic-conversation.js";
import type { BfclEntry } from "./load.js";
import type { BfclModel } from "./model-handler.js";

/**
 * The web-search categories: the model searches and reads pages through the user's search
 * service until it answers; its last message that is not a tool call is checked for the answer.
 * FC or prompting mode. Returns "" when it never answered.
 */
export async function answerWebSearchQuestion(
  model: BfclModel,
  entry: BfclEntry,
  services: BackendServices,
): Promise<string> {
  const session = new BackendSession(
    entry.initial_config ?? newDict(),
    entry.involved_classes ?? [],
    false,
    undefined,
    services,
  );
  const texts = await converse(model, entry, session);
  return texts[texts.length - 1] ?? "";
}
