import type { Message } from "../core/messages.js";
import { stripThink } from "../core/tool-call-text.js";
import type { MeteredModel } from "./metered-model.js";

export const SUMMARY_SYSTEM =
  "You review your own private rehearsal of a task and write a short note to yourself for the real attempt.";

/** The request that asks the policy to condense its attempts into a note. */
export function summaryPrompt(conversation: readonly Message[], digest: string): Message[] {
  const lastUser = [...conversation].reverse().find((m) => m.role === "user")?.content ?? "";
  return [
    { role: "system", content: SUMMARY_SYSTEM },
    {
      role: "user",
      content: [
        `The user's request:\n${lastUser}`,
        `Your imagined attempts (tool results were imagined, not real):\n${digest}`,
        "Write the rehearsal note: in at most 6 short lines, which tool calls to make with which arguments, what to avoid, and what to tell the user. Output only the note.",
      ].join("\n\n"),
    },
  ];
}

/** The policy's own summary of its attempts; undefined when the call fails or says nothing. */
export async function summarizeAttempts(
  model: MeteredModel,
  conversation: readonly Message[],
  digest: string,
  maxTokens: number,
  signal?: AbortSignal,
): Promise<string | undefined> {
  try {
    const result = await model.chat(
      { messages: summaryPrompt(conversation, digest), temperature: 0, maxTokens },
      signal ? { signal } : undefined,
    );
    const text = stripThink(result.samples[0]?.text ?? "").trim();
    return text.length > 0 ? text : undefined;
  } catch (e) {
    if (signal?.aborted) throw e;
    return undefined;
  }
}
