import { z } from "zod";

/**
 * The task format (docs/tasks.md; JSONL, one task a line). The zod schema is the source of truth:
 * `Task` is inferred from it and `envace tasks schema` prints its JSON Schema. Every object is
 * strict, so a misspelt field ("checklist" for "checklists") is an error naming it instead of a task
 * that silently scores 0.
 */
export const ToolSchemaZ = z
  .object({
    name: z.string().min(1).describe("Tool name the agent calls."),
    description: z.string().describe("What the tool does (shown to the agent and the rehearser)."),
    parameters: z
      .record(z.string(), z.unknown())
      .describe("JSON Schema of the arguments (OpenAI function `parameters`)."),
  })
  .strict();

/** A rule checked by code (reward/). Exactly one kind per rule. */
export const RuleZ = z.union([
  /** The turn must contain a call to `call` whose arguments include `args` (deep equality per key). */
  z.object({ call: z.string(), args: z.record(z.string(), z.unknown()).optional() }).strict(),
  /** The turn must contain no call to `forbid` (optionally: with these args). */
  z.object({ forbid: z.string(), args: z.record(z.string(), z.unknown()).optional() }).strict(),
  /**
   * A reply to the user in this turn must contain every string in `reply_contains` (as whole words)
   * and no reply of the turn may contain a string of `reply_excludes`: the facts that contradict the
   * required one, so that a reply listing every possible value (hedging) fails.
   */
  z
    .object({
      reply_contains: z.array(z.string()).min(1),
      reply_excludes: z.array(z.string()).optional(),
    })
    .strict(),
]);

export const StandardZ = z
  .object({
    question: z.string().describe("What the judge checks, as a yes/no question."),
    pass_condition: z.string().default("").describe("When the standard passes."),
    failure_examples: z.array(z.string()).default([]).describe("Behaviours that fail it."),
    weight: z.number().positive().default(1),
    // The reference's standard fields (EnvACE checklists): shown to the judge.
    focus_on: z.string().optional().describe("What part of the turn the judge should look at."),
    reference: z.string().optional().describe("A reference snippet (e.g. the expected reply)."),
    required_for_next_turn: z
      .boolean()
      .optional()
      .describe("The conversation cannot sensibly continue unless this passes."),
    rule: RuleZ.optional().describe("Checked by code instead of the LLM judge."),
  })
  .strict();

export const ExampleZ = z
  .object({
    name: z.string(),
    arguments: z.record(z.string(), z.unknown()),
    result: z.unknown(),
  })
  .strict();

/** One call inside a recorded assistant message. */
export const TraceToolCallZ = z
  .object({
    id: z.string().optional(),
    name: z.string().min(1),
    arguments: z.record(z.string(), z.unknown()),
  })
  .strict();

/** One message of a recorded conversation (OpenAI roles; tool calls with parsed arguments). */
export const TraceMessageZ = z
  .object({
    role: z.enum(["user", "assistant", "tool"]),
    content: z.string().default(""),
    tool_calls: z.array(TraceToolCallZ).optional(),
    /** For `tool` messages: the id of the call answered (matched by position when absent). */
    tool_call_id: z.string().optional(),
    name: z.string().optional(),
  })
  .strict();

/** A recorded session of this task: SFT data for both roles (`sft: {from: traces}`). */
export const TraceZ = z.object({ messages: z.array(TraceMessageZ).min(1) }).strict();

/** A call run at the start of every episode against a real environment (its declared reset). */
export const SetupCallZ = z.object({ name: z.string().min(1), arguments: z.record(z.string(), z.unknown()) });

/** A toolworld env's newer snapshot of its world (`WorldDrift` in envs/toolworld/state.ts). */
export const WorldDriftZ = z.object({ seed: z.number().int(), share: z.number().min(0).max(1) }).strict();

/**
 * The task's real environment. `mcp` starts a fresh server over stdio per episode (`command`), or
 * connects over streamable HTTP (`url`); `${EPISODE_DIR}` in args, env or cwd is replaced by a fresh
 * empty directory per episode, so stateful servers start clean.
 */
export const TaskEnvZ = z.discriminatedUnion("kind", [
  z
    .object({
      kind: z.literal("toolworld"),
      domain: z.string().optional(),
      seed: z.number().int(),
      drift: WorldDriftZ.optional(),
    })
    .strict(),
  z.object({ kind: z.literal("tau2"), domain: z.string(), task_id: z.string().optional() }).strict(),
  z
    .object({
      kind: z.literal("mcp"),
      command: z.string().min(1).optional(),
      args: z.array(z.string()).optional(),
      env: z.record(z.string(), z.string()).optional(),
      cwd: z.string().optional(),
      url: z.string().url().optional(),
      headers: z.record(z.string(), z.string()).optional(),
      setup: z.array(SetupCallZ.strict()).optional(),
    })
    .strict()
    .refine((e) => (e.command === undefined) !== (e.url === undefined), {
      message: 'an mcp env needs exactly one of "command" (stdio) or "url" (streamable HTTP)',
    }),
]);

export const TaskZ = z
  .object({
    id: z.string().min(1),
    domain: z.string().min(1),
    system: z.string().default(""),
    tools: z.array(ToolSchemaZ),
    user_turns: z.array(z.string()).min(1),
    /** checklists[c][t]: checklist c's standards for user turn t. */
    checklists: z.array(z.array(z.array(StandardZ))).default([]),
    examples: z.array(ExampleZ).default([]),
    traces: z.array(TraceZ).default([]),
    env: TaskEnvZ.optional(),
  })
  .strict();

export type Rule = z.infer<typeof RuleZ>;
export type Standard = z.infer<typeof StandardZ>;
export type Example = z.infer<typeof ExampleZ>;
export type Trace = z.infer<typeof TraceZ>;
export type TraceMessage = z.infer<typeof TraceMessageZ>;
export type TaskEnv = z.infer<typeof TaskEnvZ>;
export type McpTaskEnv = Extract<TaskEnv, { kind: "mcp" }>;
export type Task = z.infer<typeof TaskZ>;
