import { z } from "zod";
import type { ChatModel } from "../../core/model.js";
import { EnvaceError } from "../../core/errors.js";
import type { Tau2Message } from "./types.js";

// Upstream's judge prompt (evaluator_nl_assertions.py), verbatim apart from indentation.
const JUDGE_SYSTEM_PROMPT = `TASK
- You will be given a list of expected outcomes and a conversation that was collected during a test case run.
- The conversation is between an agent and a customer.
- Your job is to evaluate whether the agent satisfies each of the expected outcomes.
- Grade each expected outcome individually.

FORMAT
- Your response should be a JSON object with the following fields:
- \`reasoning\`: a short explanation for your classification
- \`metExpectation\`: \`true\` if the agent satisfies the expected outcomes, \`false\` otherwise
- \`expectedOutcome\`: repeat the expectation from the input that you are grading

Example response structure:
{
    "results": [
        {
            "expectedOutcome": "<one of the expected outcomes from the input>",
            "reasoning": "<reasoning trace>",
            "metExpectation": <false or true>,
        }
    ]
}`;

const VerdictZ = z.object({
  results: z.array(
    z.object({
      expectedOutcome: z.string(),
      reasoning: z.string().optional().default(""),
      metExpectation: z.boolean(),
    }),
  ),
});

const VERDICT_SCHEMA = {
  type: "object",
  properties: {
    results: {
      type: "array",
      items: {
        type: "object",
        properties: {
          expectedOutcome: { type: "string" },
          reasoning: { type: "string" },
          metExpectation: { type: "boolean" },
        },
        required: ["expectedOutcome", "reasoning", "metExpectation"],
      },
    },
  },
  required: ["results"],
};

export interface NLAssertionCheck {
  assertion: string;
  met: boolean;
  justification: string;
}

/** Python's repr of a list of strings, as upstream interpolates `nl_assertions` into the prompt. */
function pythonListRepr(items: readonly string[]): string {
  const repr = (s: string) =>
    s.includes("'") && !s.includes('"')
      ? `"${s.replace(/\\/g, "\\\\")}"`
      : `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
  return `[${items.map(repr).join(", ")}]`;
}

export function judgePrompt(trajectory: readonly Tau2Message[], assertions: readonly string[]): string {
  const lines = trajectory.map((m) => `${m.role}: ${m.content.length > 0 ? m.content : "None"}`);
  return `conversation:\n${lines.join("\n")}\n\nexpectedOutcomes:\n${pythonListRepr(assertions)}`;
}

/**
 * Asks the judge to grade every assertion. Throws JUDGE_ERROR when the reply is not the verdict
 * JSON or grades fewer assertions than asked (an unreadable verdict must not pass a task);
 * endpoint failures propagate as the engine's ENDPOINT_ERROR.
 */
export async function judgeNLAssertions(
  judge: ChatModel,
  trajectory: readonly Tau2Message[],
  assertions: readonly string[],
): Promise<NLAssertionCheck[]> {
  const result = await judge.chat({
    messages: [
      { role: "system", content: JUDGE_SYSTEM_PROMPT },
      { role: "user", content: judgePrompt(trajectory, assertions) },
    ],
    temperature: 0,
    responseSchema: { name: "nl_assertions_verdict", schema: VERDICT_SCHEMA },
  });
  const text = result.samples[0]?.text ?? "";
  const body = text.replace(/^\s*```(?:json)?\s*/i, "").replace(/\s*```\s*$/, "");
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new EnvaceError("JUDGE_ERROR", `judge reply is not JSON: ${text.slice(0, 200)}`);
  }
  const verdict = VerdictZ.safeParse(parsed);
  if (!verdict.success) {
    throw new EnvaceError(
      "JUDGE_ERROR",
      `judge reply has the wrong shape: ${verdict.error.message.slice(0, 300)}`,
    );
  }
  if (verdict.data.results.length < assertions.length) {
    throw new EnvaceError(
      "JUDGE_ERROR",
      `judge graded ${verdict.data.results.length} of ${assertions.length} expected outcomes`,
    );
  }
  return verdict.data.results.map((r) => ({
    assertion: r.expectedOutcome,
    met: r.metExpectation,
    justification: r.reasoning,
  }));
}
