import OpenAI from "openai";
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import { toEndpointError } from "../../engines/endpoint-error.js";
import { BackendSession } from "../../envs/bfcl/executor.js";
import type { LongContextData } from "../../envs/bfcl/long-context.js";
import { parseJsonPy } from "../../envs/bfcl/lossless-json.js";
import { parseCallList } from "../../envs/bfcl/python-call-parser.js";
import {
  dictEntries,
  isDict,
  newDict,
  pyRepr,
  toPlain,
  type PyDict,
  type PyValue,
} from "../../envs/bfcl/py-value.js";
import { languageOf } from "./categories.js";
import { SyntaxFailure } from "./call-lexer.js";
import { decodeJavaCall } from "./java-call-decoder.js";
import { decodeJsCall } from "./js-call-decoder.js";
import type { Candidate } from "./evaluate-single-turn.js";
import type { BfclEntry } from "./load.js";
import {
  ADDITIONAL_FUNCTION_PROMPT_FC,
  defaultSystemPrompt,
  toOpenAITools,
  withLanguageHints,
} from "./prompts.js";

/**
 * Upstream's OpenAI handlers against any OpenAI-compatible endpoint. `fc` sends the functions as
 * `tools` (names with `.` become `_`, as upstream sends them) and reads `tool_calls`, keeping the
 * argument JSON lossless; `prompting` puts upstream's default system prompt first and decodes the
 * reply as a Python call list with the literal-only parser (Java and JavaScript categories: with
 * our call decoders for those languages). Multi-turn runs real backends for the
 * tool results, at most 20 steps a turn (upstream's limit; past it the entry is force-terminated).
 */
export type BfclMode = "fc" | "prompting";

export interface BfclModelOptions {
  baseURL: string;
  model: string;
  apiKey?: string;
  mode: BfclMode;
  /** Upstream samples at 0.001 by default. */
  temperature?: number;
  /** Steps a turn may take (upstream MAXIMUM_STEP_LIMIT = 20). */
  maxSteps?: number;
}

export const MAXIMUM_STEP_LIMIT = 20;

interface Reply {
  content: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
}

export class BfclModel {
  private readonly client: OpenAI;
  constructor(readonly opts: BfclModelOptions) {
    this.client = new OpenAI({
      baseURL: opts.baseURL,
      apiKey: opts.apiKey ?? process.env.OPENAI_API_KEY ?? "envace-local",
    });
  }

  /** The reply text to messages sent without tools (prompting mode). */
  async promptText(messages: ChatCompletionMessageParam[]): Promise<string> {
    return (await this.query(messages)).content;
  }

  async query(messages: ChatCompletionMessageParam[], tools?: PyValue[]): Promise<Reply> {
    try {
      const res = await this.client.chat.completions.create({
        model: this.opts.model,
        messages,
        temperature: this.opts.temperature ?? 0.001,
        ...(tools && tools.length > 0 ? { tools: toPlain(tools) as ChatCompletionTool[] } : {}),
      });
      const msg = res.choices[0]?.message;
      return {
        content: msg?.content ?? "",
        toolCalls: (msg?.tool_calls ?? []).flatMap((c) =>
          c.type === "function" ? [{ id: c.id, name: c.function.name, arguments: c.function.arguments }] : [],
        ),
      };
    } catch (e) {
      throw toEndpointError(e, this.opts.baseURL);
    }
  }
}

/** Upstream `default_decode_ast_prompting`: strip fences, wrap in `[...]`, parse as Python. */
export function decodeAstPrompting(text: string): Candidate {
  let t = text.replace(/^[`\n ]+|[`\n ]+$/g, "");
  if (!t.startsWith("[")) t = "[" + t;
  if (!t.endsWith("]")) t = t + "]";
  t = t.trim().replace(/^'+|'+$/g, "");
  try {
    return parseCallList(t).map((c) => {
      const d = newDict();
      d[c.name] = c.kwargs;
      return d;
    });
  } catch (e) {
    return { decodeError: (e as Error).message };
  }
}

/**
 * Upstream's `default_decode_ast_prompting` for the Java and JavaScript categories: the same
 * stripping and bracketing, then the brackets cut off again and the text read by the
 * language's call decoder (ours, in place of upstream's tree-sitter parsers).
 */
export function decodeJavaJsPrompting(text: string, language: "java" | "javascript"): Candidate {
  let t = text.replace(/^[`\n ]+|[`\n ]+$/g, "");
  if (!t.startsWith("[")) t = "[" + t;
  if (!t.endsWith("]")) t = t + "]";
  const inner = t.slice(1, -1);
  try {
    return language === "java" ? decodeJavaCall(inner) : decodeJsCall(inner);
  } catch (e) {
    if (e instanceof SyntaxFailure) return { decodeError: e.message };
    throw e;
  }
}

/**
 * Call strings as upstream executes them: prompting mode's `decoded_output_to_execution_list`
 * (`name(k=v, ...)`, nested calls rebuilt), or FC mode's `convert_to_function_call`
 * (`name(k=repr(v),...)`).
 */
export function toExecutionList(calls: PyDict[], sep = ", "): string[] {
  if (sep === ",") {
    return calls.flatMap((c) =>
      dictEntries(c).map(
        ([name, args]) =>
          `${name}(${dictEntries(args as PyDict)
            .map(([k, v]) => `${k}=${pyRepr(v)}`)
            .join(",")})`,
      ),
    );
  }
  return calls.flatMap((c) =>
    dictEntries(c).map(
      ([name, args]) =>
        `${name}(${dictEntries(args as PyDict)
          .map(([k, v]) => `${k}=${nested(v)}`)
          .join(sep)})`,
    ),
  );
}

function nested(v: PyValue): string {
  if (isDict(v)) {
    const entries = dictEntries(v);
    if (entries.length > 0 && entries.every(([, x]) => isDict(x))) {
      const [name, args] = entries[0]!;
      return `${name}(${dictEntries(args as PyDict)
        .map(([k, x]) => `${k}=${nested(x)}`)
        .join(", ")})`;
    }
    return `{${entries.map(([k, x]) => `'${k}': ${nested(x)}`).join(", ")}}`;
  }
  return pyRepr(v);
}

function fcCalls(reply: Reply): Candidate {
  if (reply.toolCalls.length === 0) return { decodeError: "no tool calls" };
  try {
    return reply.toolCalls.map((c) => {
      const d = newDict();
      d[c.name] = parseJsonPy(c.arguments === "" ? "{}" : c.arguments);
      return d;
    });
  } catch (e) {
    return { decodeError: (e as Error).message };
  }
}

type Msg = ChatCompletionMessageParam;

export async function inferSingleTurn(model: BfclModel, entry: BfclEntry): Promise<Candidate> {
  const functions = withLanguageHints(entry.function, entry.category);
  const messages = toPlain(entry.question[0] ?? []) as Msg[];
  if (model.opts.mode === "fc") return fcCalls(await model.query(messages, toOpenAITools(functions)));
  const reply = (await model.query(withSystemPrompt(messages, functions))).content;
  const language = languageOf(entry.category);
  return language === "python" ? decodeAstPrompting(reply) : decodeJavaJsPrompting(reply, language);
}

/** FC mode's assistant turn as the chat history carries it (its tool calls, when it made any). */
export function assistantMessage(reply: Reply): Msg {
  return {
    role: "assistant",
    content: reply.content,
    ...(reply.toolCalls.length > 0
      ? {
          tool_calls: reply.toolCalls.map((c) => ({
            id: c.id,
            type: "function" as const,
            function: { name: c.name, arguments: c.arguments },
          })),
        }
      : {}),
  };
}

/** Prompting mode's tool results: one user message holding the Python repr of `{role, name, content}` dicts. */
export function toolResultsMessage(calls: string[], results: string[]): Msg {
  const toolResults = calls.map((name, i) => {
    const d = newDict();
    d.role = "tool";
    d.name = name;
    d.content = results[i]!;
    return d;
  });
  return { role: "user", content: pyRepr(toolResults) };
}

/** Upstream's `system_prompt_pre_processing_chat_model`: the default system prompt goes first. */
export function withSystemPrompt(messages: Msg[], functions: PyDict[]): Msg[] {
  const system = defaultSystemPrompt(functions);
  if (messages[0]?.role === "system") {
    return [{ role: "system", content: `${system}\n\n${String(messages[0].content)}` }, ...messages.slice(1)];
  }
  return [{ role: "system", content: system }, ...messages];
}

/** `decoded[turn][step]` as upstream's checker receives them (empty steps dropped). */
export async function inferMultiTurn(
  model: BfclModel,
  entry: BfclEntry,
  longContext?: LongContextData,
): Promise<string[][][]> {
  const category = entry.category;
  const isLong = category.includes("long_context");
  const session = new BackendSession(
    entry.initial_config ?? newDict(),
    entry.involved_classes ?? [],
    isLong,
    longContext,
  );
  let functions = withLanguageHints(entry.function, category);
  const maxSteps = model.opts.maxSteps ?? MAXIMUM_STEP_LIMIT;
  const messages: Msg[] = [];
  const decoded: string[][][] = [];
  for (let turn = 0; turn < entry.question.length; turn++) {
    let turnMessages = toPlain(entry.question[turn]!) as Msg[];
    const missed = entry.missed_function?.[String(turn)];
    if (missed) {
      const docs = withLanguageHints(missed, category);
      functions = [...functions, ...docs];
      turnMessages = [
        {
          role: "user",
          content:
            model.opts.mode === "fc"
              ? ADDITIONAL_FUNCTION_PROMPT_FC
              : `${pyRepr(docs)}\n${ADDITIONAL_FUNCTION_PROMPT_FC}`,
        },
      ];
    }
    if (turn === 0 && model.opts.mode === "prompting")
      turnMessages = withSystemPrompt(turnMessages, functions);
    messages.push(...turnMessages);
    const steps: string[][] = [];
    for (let count = 0; ;) {
      const reply = await model.query(
        messages,
        model.opts.mode === "fc" ? toOpenAITools(functions) : undefined,
      );
      let calls: string[];
      if (model.opts.mode === "fc") {
        messages.push(assistantMessage(reply));
        const cand = fcCalls(reply);
        if (!Array.isArray(cand)) break;
        calls = toExecutionList(cand as PyDict[], ",");
      } else {
        messages.push({ role: "assistant", content: reply.content });
        const cand = decodeAstPrompting(reply.content);
        if (!Array.isArray(cand) || cand.length === 0) break;
        calls = toExecutionList(cand as PyDict[]);
      }
      if (calls.length === 0) break;
      steps.push(calls);
      const results = session.execute(calls);
      if (model.opts.mode === "fc") {
        reply.toolCalls.forEach((c, i) =>
          messages.push({ role: "tool", tool_call_id: c.id, content: results[i] ?? "" }),
        );
      } else {
        messages.push(toolResultsMessage(calls, results));
      }
      count++;
      if (count > maxSteps) {
        decoded.push(steps);
        return decoded; // force-terminated: fewer turns than the ground truth
      }
    }
    decoded.push(steps);
  }
  return decoded;
}
