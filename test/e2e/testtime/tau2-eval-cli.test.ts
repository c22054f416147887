import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { startMockOpenAIServer, type MockChatBody, type MockReply } from "../../../src/testing/index.js";

const root = resolve(import.meta.dirname, "../../..");
const isRehearse = (b: MockChatBody) => (b.messages[0]?.content ?? "").startsWith("You are a tool simulator");
const isCommitted = (b: MockChatBody) =>
  (b.messages[0]?.content ?? "").includes("Before acting you rehearsed");

/** The agent model: creates the task when the user asks, then confirms; plays create_task when rehearsing. */
function agentHandler(b: MockChatBody): MockReply {
  if (isRehearse(b))
    return '<execution_result>\n{"task_id": "task_2", "title": "Important Meeting", "status": "pending"}\n</execution_result>';
  const last = b.messages[b.messages.length - 1]!;
  if (last.role === "user")
    return {
      content: null,
      toolCalls: [{ name: "create_task", arguments: { user_id: "user_1", title: "Important Meeting" } }],
    };
  return "Created the task Important Meeting.";
}

describe("envace eval --bench tau2:mock --rehearsal (mock agent and user endpoints)", () => {
  it.each([
    ["parallel:2", "digest"],
    ["sequential:2", "summary"],
  ])(
    "%s --memory %s: commits once, reports rehearsal cost, no real or user call while rehearsing",
    async (spec, memory) => {
      const agent = await startMockOpenAIServer({ handler: agentHandler });
      const user = await startMockOpenAIServer({
        handler: (_b, { index }) =>
          index === 0 ? "Please create a task called Important Meeting for user_1." : "###STOP###",
      });
      try {
        const { stdout } = await promisify(execFile)(
          "npx",
          [
            "tsx",
            "src/cli/main.ts",
            "eval",
            "--bench",
            "tau2:mock",
            "--limit",
            "1",
            "--json",
            "--endpoint",
            agent.baseURL,
            "--model",
            "agent",
            "--user-endpoint",
            user.baseURL,
            "--user-model",
            "user",
            "--rehearsal",
            spec,
            "--memory",
            memory,
          ],
          { cwd: root, encoding: "utf8", timeout: 300_000 },
        );
        const s = JSON.parse(stdout) as {
          results: Array<Record<string, unknown>>;
          rehearsal: {
            mode: string;
            n: number;
            memory: string;
            real_calls_during_rehearsal: number;
            user_calls_during_rehearsal: number;
            tokens: { total: number };
          };
        };
        expect(s.results[0]).toMatchObject({
          task_id: "create_task_1",
          reward: 1,
          termination: "user_stop",
          real_calls: 1,
          real_calls_during_rehearsal: 0,
        });
        expect(s.rehearsal).toMatchObject({
          mode: spec.split(":")[0],
          n: 2,
          memory,
          real_calls_during_rehearsal: 0,
          user_calls_during_rehearsal: 0,
        });
        expect(s.rehearsal.tokens.total).toBeGreaterThan(0);
        const bodies = agent.requests.map((r) => r.body);
        // one rehearsal (the user's one request): 2 attempts × (act, rehearse, act) [+ 1 summary], then 2 committed acts
        expect(bodies.filter(isRehearse)).toHaveLength(2);
        expect(bodies.filter(isCommitted)).toHaveLength(2);
        expect(bodies).toHaveLength(2 * 3 + 2 + (memory === "summary" ? 1 : 0));
        expect(user.requests).toHaveLength(2);
      } finally {
        await agent.close();
        await user.close();
      }
    },
    300_000,
  );
});
