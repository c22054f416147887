import type { Message } from "../../core/messages.js";
import type { ChatModel } from "../../core/model.js";
import { parseAssistantText } from "../../core/tool-call-text.js";
import type { Tau2Agent, Tau2AgentContext, Tau2AgentReply, Tau2AgentSession } from "./agent.js";
import type { Tau2Message } from "./types.js";

// Upstream llm_agent.py AGENT_INSTRUCTION and SYSTEM_PROMPT.
const AGENT_INSTRUCTION = `You are a customer service agent that helps the user according to the <policy> provided below.
In each turn you can either:
- Send a message to the user.
- Make a tool call.
You cannot do both at the same time.

Try to be helpful and always follow the policy. Always make sure you generate valid JSON only.`;

export function agentSystemPrompt(policy: string): string {
  return `<instructions>\n${AGENT_INSTRUCTION}\n</instructions>\n<policy>\n${policy}\n</policy>`;
}

/**
 * What the agent sees of the conversation (upstream `is_valid_agent_history_message`): user text,
 * its own messages and the results of its own calls, not the user's tool use.
 */
export function agentView(history: readonly Tau2Message[]): Message[] {
  const out: Message[] = [];
  for (const m of history) {
    if (m.role === "user" && !(m.toolCalls && m.toolCalls.length > 0))
      out.push({ role: "user", content: m.content });
    else if (m.role === "assistant") {
      out.push(
        m.toolCalls && m.toolCalls.length > 0
          ? { role: "assistant", content: m.content, toolCalls: m.toolCalls }
          : { role: "assistant", content: m.content },
      );
    } else if (m.role === "tool" && m.requestor !== "user") {
      out.push({
        role: "tool",
        content: m.content,
        toolCallId: m.toolCallId ?? "",
        ...(m.name ? { name: m.name } : {}),
      });
    }
  }
  return out;
}

export interface LLMAgentOptions {
  temperature?: number;
  maxTokens?: number;
}

/**
 * The τ² LLM agent over any ChatModel: policy in the system prompt, tools in OpenAI format. Tool
 * calls come from the server's `tool_calls`, or else from `<tool_call>` blocks in the text.
 */
export class LLMAgent implements Tau2Agent {
  readonly name: string;
  constructor(
    private readonly model: ChatModel,
    private readonly opts: LLMAgentOptions = {},
  ) {
    this.name = `llm:${model.name}`;
  }

  start(ctx: Tau2AgentContext): Tau2AgentSession {
    const system: Message = { role: "system", content: agentSystemPrompt(ctx.policy) };
    let turn = 0;
    return {
      next: async (history): Promise<Tau2AgentReply> => {
        const result = await this.model.chat({
          messages: [system, ...agentView(history)],
          tools: ctx.tools,
          temperature: this.opts.temperature ?? 0,
          ...(this.opts.maxTokens !== undefined ? { maxTokens: this.opts.maxTokens } : {}),
        });
        const sample = result.samples[0];
        const parsed = parseAssistantText(sample?.text ?? "", `t${turn++}_call`);
        if (sample?.toolCalls && sample.toolCalls.length > 0) {
          return { content: parsed.content, toolCalls: sample.toolCalls };
        }
        return { content: parsed.content, toolCalls: parsed.toolCalls, formatErrors: parsed.errors };
      },
    };
  }
}
