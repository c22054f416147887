import type { ChatModel, ChatRequest, ChatResult, Sample } from "../core/model.js";
import type { PolicyRole } from "../core/messages.js";
import { isRehearsalRequest } from "../rollout/rehearsal-prompt.js";

/**
 * One canned output: the text, a partial sample (text, toolCalls, finishReason, ids), a function
 * of the request, or `{ throws }` to make the call fail.
 */
export type ScriptedOutput =
  | string
  | (Partial<Sample> & { text: string })
  | { throws: Error }
  | ((
      request: ChatRequest,
      info: { role: PolicyRole; index: number },
    ) => string | (Partial<Sample> & { text: string }));

export interface ScriptedRule {
  role?: PolicyRole;
  /** Tested against the last message's content. */
  match: RegExp;
  output: ScriptedOutput;
}

export interface ScriptedPolicyOptions {
  name?: string;
  /** Outputs for act calls, consumed in order (the last repeats when `repeatLast`). */
  act?: ScriptedOutput[];
  /** Outputs for rehearse calls (requests built by the rehearsal prompt), consumed in order. */
  rehearse?: ScriptedOutput[];
  /** Checked before the sequences; the first match answers. */
  rules?: ScriptedRule[];
  repeatLast?: boolean;
}

export interface ScriptedCall {
  role: PolicyRole;
  request: ChatRequest;
}

/** Deterministic stand-in token ids: one per whitespace-separated word (a small hash). */
export function fakeTokenIds(text: string): number[] {
  return text
    .split(/\s+/)
    .filter((w) => w.length > 0)
    .map((w) => {
      let h = 7;
      for (const ch of w) h = (h * 31 + ch.codePointAt(0)!) % 50_000;
      return h + 1;
    });
}

/**
 * A ChatModel that returns canned act and rehearse outputs (by rule, then by sequence per role),
 * records every call, and fills in fake token ids (one per word) and logprobs (-0.1 each) so that
 * rows look like a real worker's.
 */
export class ScriptedPolicy implements ChatModel {
  readonly name: string;
  readonly calls: ScriptedCall[] = [];
  private readonly queues: Record<PolicyRole, ScriptedOutput[]>;
  private readonly used: Record<PolicyRole, number> = { act: 0, rehearse: 0 };
  private readonly consumed: Record<PolicyRole, number> = { act: 0, rehearse: 0 };

  constructor(private readonly opts: ScriptedPolicyOptions) {
    this.name = opts.name ?? "scripted-policy";
    this.queues = { act: opts.act ?? [], rehearse: opts.rehearse ?? [] };
  }

  callsFor(role: PolicyRole): ScriptedCall[] {
    return this.calls.filter((c) => c.role === role);
  }

  async chat(request: ChatRequest): Promise<ChatResult> {
    const role: PolicyRole = isRehearsalRequest(request.messages) ? "rehearse" : "act";
    this.calls.push({ role, request });
    const index = this.used[role]++;
    const output = this.pick(role, request, index);
    if (typeof output === "object" && "throws" in output) throw output.throws;
    const resolved = typeof output === "function" ? output(request, { role, index }) : output;
    const partial = typeof resolved === "string" ? { text: resolved } : resolved;
    const sample: Sample = {
      finishReason: partial.toolCalls ? "tool_calls" : "stop",
      ...partial,
      tokenIds: partial.tokenIds ?? fakeTokenIds(partial.text),
    };
    sample.logprobs = partial.logprobs ?? sample.tokenIds!.map(() => -0.1);
    const promptTokenIds = fakeTokenIds(request.messages.map((m) => m.content).join("\n"));
    return {
      promptTokenIds,
      samples: [sample],
      usage: { promptTokens: promptTokenIds.length, completionTokens: sample.tokenIds!.length },
    };
  }

  /** Rule-answered calls do not consume the role's sequence. */
  private pick(role: PolicyRole, request: ChatRequest, index: number): ScriptedOutput {
    const last = request.messages[request.messages.length - 1]?.content ?? "";
    const rule = this.opts.rules?.find(
      (r) => (r.role === undefined || r.role === role) && r.match.test(last),
    );
    if (rule) return rule.output;
    const queue = this.queues[role];
    const k = this.consumed[role]++;
    const out = queue[k] ?? (this.opts.repeatLast ? queue[queue.length - 1] : undefined);
    if (out === undefined) throw new Error(`ScriptedPolicy: no ${role} output left (call ${index + 1})`);
    return out;
  }
}
