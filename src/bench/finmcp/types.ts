/**
 * FinMCP-Bench's published sample format (aliyun/qwen-dianjin, `DianJin-TIR/Benchmark/*.json`): a
 * JSON array of samples, each with its business scenario, difficulty, and the expert-checked
 * ground-truth conversation in OpenAI message shape. Inference adds `messages_pred` (the model's
 * conversation) and, when it failed, `error: true`.
 */
import { z } from "zod";

export const FinToolCallSchema = z
  .object({
    id: z.string().optional(),
    type: z.string().optional(),
    function: z.object({
      name: z.string(),
      /** A JSON string, as OpenAI sends it (an object is accepted too). */
      arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).default("{}"),
    }),
  })
  .passthrough();

export const FinMessageSchema = z
  .object({
    role: z.string(),
    content: z.string().nullable().optional(),
    tool_calls: z.array(FinToolCallSchema).nullable().optional(),
    tool_call_id: z.string().optional(),
  })
  .passthrough();

export const FinSampleSchema = z
  .object({
    id: z.union([z.number(), z.string()]),
    /** Business scenario, levels joined by "-" ("市场分析与研究-宏观经济-市场环境研判"). */
    scenery: z.string(),
    diff_level: z.object({ level: z.string() }).passthrough(),
    /** "single step" | "multi step" | "multi turn". */
    task: z.string().optional(),
    messages: z.array(FinMessageSchema),
    messages_pred: z.array(FinMessageSchema).optional(),
    error: z.boolean().optional(),
  })
  .passthrough();

export type FinToolCall = z.infer<typeof FinToolCallSchema>;
export type FinMessage = z.infer<typeof FinMessageSchema>;
export type FinSample = z.infer<typeof FinSampleSchema>;
