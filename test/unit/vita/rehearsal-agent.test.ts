/** VitaBench's agent with test-time rehearsal, on a scripted model. */
import { describe, expect, it } from "vitest";
import type { ChatModel, ChatRequest } from "../../../src/core/model.js";
import { RehearsingVitaAgent } from "../../../src/bench/vita/rehearsal-agent.js";
import { readVitaTasks } from "../../../src/bench/vita/tasks.js";
import { VitaEnvironment } from "../../../src/envs/vita/environment.js";
import { ScriptedPolicy } from "../../../src/testing/index.js";
import { MEMORY_HEADER } from "../../../src/testtime/memory-view.js";

const FILE = new URL("../../../../shared/data/vitabench/instore/tasks_en.json", import.meta.url).pathname;
const task = readVitaTasks(FILE, "instore")[0]!;

describe("RehearsingVitaAgent", () => {
  it("rehearses privately when the user speaks, then answers with the memory in its system message", async () => {
    const seen: ChatRequest[] = [];
    const model: ChatModel = {
      name: "scripted",
      async chat(req) {
        seen.push(req);
        return {
          samples: [{ text: "Which gym do you prefer?", finishReason: "stop" }],
          usage: { promptTokens: 10, completionTokens: 5 },
        };
      },
    };
    const agent = new RehearsingVitaAgent(model, { mode: "parallel", n: 2, memory: "digest", scope: "turn" });
    const tools = new VitaEnvironment("instore", task.environment).tools();
    const session = agent.start(task, tools, "en");
    const reply = await session.next([
      { role: "assistant", content: "Hello, how can I help you?" },
      { role: "user", content: "I want a gym near home." },
    ]);
    expect(reply).toEqual({ content: "Which gym do you prefer?", toolCalls: [] });
    const final = seen[seen.length - 1]!;
    expect(final.messages[0]!.content).toContain("- Current time: 2025-11-06 14:30:00 Thursday");
    expect(final.messages[0]!.content).toContain(MEMORY_HEADER);
    expect(final.tools).toHaveLength(24);
    expect(seen.length).toBeGreaterThan(1); // the rehearsal attempts came first
    expect(agent.sessions[0]!.stats.attempts).toBe(2);
  });

  it("with guardTools, answers a write its rehearsal saw refused from the imagined refusal", async () => {
    const env = new VitaEnvironment("instore", task.environment);
    const tools = env.tools();
    const write = tools.find((t) => env.isWriteTool(t.name))!.name;
    const attempt = `<tool_call>${JSON.stringify({ name: write, arguments: { id: "x" } })}</tool_call>`;
    const policy = new ScriptedPolicy({
      act: [
        (r) =>
          r.messages[r.messages.length - 1]!.role === "tool" ? "Sorry, that is not possible." : attempt,
      ],
      rehearse: ['<execution_result>\n{"error":"x is sold out"}\n</execution_result>'],
      repeatLast: true,
    });
    const agent = new RehearsingVitaAgent(policy, {
      mode: "parallel",
      n: 2,
      memory: "consensus",
      promptVariant: "compact",
      guardTools: [write],
    });
    const reply = await agent.start(task, tools, "en").next([{ role: "user", content: "Book it for me." }]);
    expect(reply).toEqual({ content: "Sorry, that is not possible.", toolCalls: [] });
    expect(agent.sessions[0]!.stats.heldCalls).toBe(1);
  });
});
