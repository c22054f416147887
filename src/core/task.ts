import { z } from "zod";

/**
 * The task format (ARCHITECTURE.md, JSONL one task a line). The zod schema is the source of truth;
 * `Task` is inferred from it.
 */
export const ToolSchemaZ = z.object({
  name: z.string().min(1),
  description: z.string(),
  parameters: z.record(z.string(), z.unknown()),
});

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

export const StandardZ = z.object({
  question: z.string(),
  pass_condition: z.string().default(""),
  failure_examples: z.array(z.string()).default([]),
  weight: z.number().positive().default(1),
  rule: RuleZ.optional(),
});

export const ExampleZ = z.object({
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  result: z.unknown(),
});

export const TaskZ = z.object({
  id: z.string().min(1),
  domain: z.string().min(1),
  system: z.string().default(""),
  tools: z.array(ToolSchemaZ),
  user_turns: z.array(z.string()).min(1),
  /** checklists[c][t]: checklist c's standards for user turn t. */
  checklists: z.array(z.array(z.array(StandardZ))).default([]),
  examples: z.array(ExampleZ).default([]),
  env: z.object({ kind: z.string(), domain: z.string().optional() }).passthrough().optional(),
});

export type Rule = z.infer<typeof RuleZ>;
export type Standard = z.infer<typeof StandardZ>;
export type Example = z.infer<typeof ExampleZ>;
export type Task = z.infer<typeof TaskZ>;
