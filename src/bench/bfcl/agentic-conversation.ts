import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { BackendSession } from "../../envs/bfcl/executor.js";
import { parseJsonPy } from "../../envs/bfcl/lossless-json.js";
import { dict } from "../../envs/bfcl/py-ops.js";
import { toPlain } from "../../envs/bfcl/py-value.js";
import type { BfclEntry } from "./load.js";
import {
  assistantMessage,
  decodeAstPrompting,
  MAXIMUM_STEP_LIMIT,
  toExecutionList,
  toolResultsMessage,
  withSystemPrompt,
  type BfclModel,
} from "./model-handler.js";
import type { PyDict } from "../../envs/bfcl/py-value.js";
import { toOpenAITools, withLanguageHints } from "./prompts.js";

/**
 * One agentic conversation in FC mode (upstream's `inference_multi_turn_FC` as the memory and
 * web-search categories use it): each turn's messages, then model steps until a reply without
 * tool calls (at most 20 more), each call run on the session's backends — awaited, since vector
 * memory and web search call services. `system` is put before the first turn's own system
 * message, as upstream's memory prompt is. Returns the texts of the steps that were not calls.
 */
export async function converse(
  model: BfclModel,
  entry: BfclEntry,
  session: BackendSession,
  system?: string,
): Promise<string[]> {
  return model.opts.mode === "fc"
    ? converseFC(model, entry, session, system)
    : conversePrompting(model, entry, session, system);
}

export async function converseFC(
  model: BfclModel,
  entry: BfclEntry,
  session: BackendSession,
  system?: string,
): Promise<string[]> {
  const tools = toOpenAITools(withLanguageHints(entry.function, entry.category));
  const messages: ChatCompletionMessageParam[] = [];
  const texts: string[] = [];
  for (let turn = 0; turn < entry.question.length; turn++) {
    const turnMessages = toPlain(entry.question[turn]!) as ChatCompletionMessageParam[];
    if (turn === 0 && system !== undefined) {
      if (turnMessages[0]?.role === "system") {
        turnMessages[0] = { role: "system", content: `${system}\n\n${String(turnMessages[0].content)}` };
      } else turnMessages.unshift({ role: "system", content: system });
    }
    messages.push(...turnMessages);
    for (let count = 0; count <= MAXIMUM_STEP_LIMIT; count++) {
      const reply = await model.query(messages, tools);
      messages.push(assistantMessage(reply));
      if (reply.toolCalls.length === 0) {
        texts.push(reply.content);
        break;
      }
      const calls = toExecutionList(
        reply.toolCalls.map((c) => {
          const d = dict([]);
          d[c.name] = parseJsonPy(c.arguments === "" ? "{}" : c.arguments);
          return d;
        }),
        ",",
      );
      const results = await session.executeAsync(calls);
      reply.toolCalls.forEach((c, i) =>
        messages.push({ role: "tool", tool_call_id: c.id, content: results[i] ?? "" }),
      );
    }
  }
  return texts;
}

/**
 * The same conversation in prompting mode (upstream's `inference_multi_turn_prompting`): the
 * default system prompt with the function docs goes before the first turn's system message (which
 * the memory prompt already opens), each reply is decoded as a Python call list, the calls run and
 * their results come back as one user message; a reply that does not decode to calls ends the turn
 * and is the turn's text.
 */
export async function conversePrompting(
  model: BfclModel,
  entry: BfclEntry,
  session: BackendSession,
  system?: string,
): Promise<string[]> {
  const functions = withLanguageHints(entry.function, entry.category);
  const messages: ChatCompletionMessageParam[] = [];
  const texts: string[] = [];
  for (let turn = 0; turn < entry.question.length; turn++) {
    let turnMessages = toPlain(entry.question[turn]!) as ChatCompletionMessageParam[];
    if (turn === 0) {
      if (system !== undefined) {
        if (turnMessages[0]?.role === "system") {
          turnMessages[0] = { role: "system", content: `${system}\n\n${String(turnMessages[0].content)}` };
        } else turnMessages.unshift({ role: "system", content: system });
      }
      turnMessages = withSystemPrompt(turnMessages, functions);
    }
    messages.push(...turnMessages);
    for (let count = 0; count <= MAXIMUM_STEP_LIMIT; count++) {
      const reply = await model.promptText(messages);
      messages.push({ role: "assistant", content: reply });
      const decoded = decodeAstPrompting(reply);
      const calls = Array.isArray(decoded) ? toExecutionList(decoded as PyDict[]) : [];
      if (calls.length === 0) {
        texts.push(reply);
        break;
      }
      messages.push(toolResultsMessage(calls, await session.executeAsync(calls)));
    }
  }
  return texts;
}
