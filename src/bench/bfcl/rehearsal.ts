import type { ToolCall, Message } from "../../core/messages.js";
import type { ChatModel } from "../../core/model.js";
import type { ToolResult, ToolSchema } from "../../core/tools.js";
import type { Environment } from "../../envs/env.js";
import { BackendSession } from "../../envs/bfcl/executor.js";
import type { LongContextData } from "../../envs/bfcl/long-context.js";
import { dictEntries, fromPlain, newDict, pyRepr, toPlain, type PyDict } from "../../envs/bfcl/py-value.js";
import { liveTask } from "../../testtime/live-task.js";
import { rehearseThenCommit } from "../../testtime/rehearse-then-commit.js";
import {
  addRehearsalStats,
  emptyRehearsalStats,
  type RehearsalOptions,
  type RehearsalStats,
} from "../../testtime/types.js";
import type { BfclEntry } from "./load.js";
import { MAXIMUM_STEP_LIMIT } from "./model-handler.js";
import { ADDITIONAL_FUNCTION_PROMPT_FC, toOpenAITools, withLanguageHints } from "./prompts.js";

/**
 * Multi-turn BFCL with test-time rehearsal: before each user turn the policy rehearses it
 * privately (it plays the tools itself; `GuardedEnvironment` counts any real call made meanwhile,
 * which must stay 0), then commits one real execution whose calls run on the real backends and
 * are scored by upstream's checker like any other model output. Tool arguments arrive through the
 * envace tool-call path (JSON, so `5.0` reads as `5`); upstream's FC handler reads them the same way.
 */
export class BfclEnvironment implements Environment {
  /** Call strings the committed run executed, in order. */
  readonly executed: string[] = [];
  constructor(
    readonly session: BackendSession,
    public schemas: ToolSchema[],
  ) {}
  tools(): ToolSchema[] {
    return this.schemas;
  }
  call(call: ToolCall): Promise<ToolResult> {
    const args = fromPlain(call.arguments) as PyDict;
    const text = `${call.name}(${dictEntries(args)
      .map(([k, v]) => `${k}=${pyRepr(v)}`)
      .join(",")})`;
    this.executed.push(text);
    return Promise.resolve({ ok: true, content: this.session.executeOne(text) });
  }
  snapshot(): unknown {
    return Object.fromEntries(
      [...this.session.instances].map(([k, b]) => [k, toPlain(b.publicState() as PyDict)]),
    );
  }
  hash(): string {
    return JSON.stringify(this.snapshot());
  }
}

function schemasOf(functions: PyDict[]): ToolSchema[] {
  return toOpenAITools(functions).map((t) => {
    const f = toPlain((t as PyDict).function!) as {
      name: string;
      description?: string;
      parameters: Record<string, unknown>;
    };
    return { name: f.name, description: f.description ?? "", parameters: f.parameters };
  });
}

export interface RehearsedMultiTurn {
  decoded: string[][][];
  stats: RehearsalStats;
}

export async function inferMultiTurnRehearsed(
  policy: ChatModel,
  entry: BfclEntry,
  rehearsal: RehearsalOptions,
  longContext?: LongContextData,
): Promise<RehearsedMultiTurn> {
  const isLong = entry.category.includes("long_context");
  const session = new BackendSession(
    entry.initial_config ?? newDict(),
    entry.involved_classes ?? [],
    isLong,
    longContext,
  );
  let functions = withLanguageHints(entry.function, entry.category);
  const env = new BfclEnvironment(session, schemasOf(functions));
  const stats = emptyRehearsalStats(rehearsal);
  const conversation: Message[] = [];
  const decoded: string[][][] = [];
  for (let turn = 0; turn < entry.question.length; turn++) {
    let messages = entry.question[turn]!.map((m) => ({
      role: m.role as Message["role"],
      content: m.content,
    }));
    const missed = entry.missed_function?.[String(turn)];
    if (missed) {
      functions = [...functions, ...withLanguageHints(missed, entry.category)];
      env.schemas = schemasOf(functions);
      messages = [{ role: "user", content: ADDITIONAL_FUNCTION_PROMPT_FC }];
    }
    conversation.push(...messages);
    const before = env.executed.length;
    const committed = await rehearseThenCommit({
      policy,
      task: liveTask({ tools: env.schemas, id: entry.id, domain: "bfcl" }),
      conversation,
      env,
      rehearsal,
      turn,
      stats,
      limits: { maxAssistantTurns: MAXIMUM_STEP_LIMIT, temperature: 0.001 },
    });
    conversation.push(...committed.messages);
    const calls = env.executed.slice(before);
    decoded.push(calls.length > 0 ? [calls] : []);
  }
  return { decoded, stats };
}

export { addRehearsalStats };
