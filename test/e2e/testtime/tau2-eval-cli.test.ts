import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { REHEARSAL_SYSTEM_FULL } from "../../../src/rollout/rehearsal-prompt.js";
import { startMockOpenAIServer, type MockChatBody, type MockReply } from "../../../src/testing/index.js";
import {
  createTaskAgentReply,
  evalCreateTaskArgs,
  startCreateTaskUser,
} from "../tau2-bench/mock-create-task.js";

const root = resolve(import.meta.dirname, "../../..");
const isRehearse = (b: MockChatBody) => b.messages[0]?.content === REHEARSAL_SYSTEM_FULL;
const isCommitted = (b: MockChatBody) =>
  (b.messages[0]?.content ?? "").includes("Before acting you rehearsed");

/** The agent model of create_task_1; when rehearsing, it plays create_task's response. */
function agentHandler(b: MockChatBody): MockReply {
  if (isRehearse(b))
    return '<execution_result>\n{"task_id": "task_2", "title": "Important Meeting", "status": "pending"}\n</execution_result>';
  return createTaskAgentReply(b);
}

describe("envace eval --bench tau2:mock --rehearsal (mock agent and user endpoints)", () => {
  it.each([
    ["parallel:2", "digest"],
    ["sequential:2", "summary"],
    ["parallel:2", "consensus"],
  ])(
    "%s --memory %s: commits once, reports rehearsal cost, no real or user call while rehearsing",
    async (spec, memory) => {
      const agent = await startMockOpenAIServer({ handler: agentHandler });
      const user = await startCreateTaskUser();
      try {
        const { stdout } = await promisify(execFile)(
          "npx",
          [...evalCreateTaskArgs(agent.baseURL, user.baseURL), "--rehearsal", spec, "--memory", memory],
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

  it.each(["create_task", "writes"])(
    "--guard-tools %s: a write the rehearsal saw refused is never made for real",
    async (guardTools) => {
      const refused = '{"error": "user_1 may not create tasks"}';
      const agent = await startMockOpenAIServer({
        handler: (b) =>
          isRehearse(b) ? `<execution_result>\n${refused}\n</execution_result>` : createTaskAgentReply(b),
      });
      const user = await startCreateTaskUser();
      try {
        const { stdout } = await promisify(execFile)(
          "npx",
          [
            ...evalCreateTaskArgs(agent.baseURL, user.baseURL),
            ...["--rehearsal", "parallel:2", "--memory", "consensus", "--guard-tools", guardTools],
          ],
          { cwd: root, encoding: "utf8", timeout: 300_000 },
        );
        const s = JSON.parse(stdout) as {
          results: Array<Record<string, unknown>>;
          rehearsal: { held_calls: number; real_calls_during_rehearsal: number; calls: { guard: number } };
        };
        expect(s.results[0]).toMatchObject({
          task_id: "create_task_1",
          reward: 0,
          real_calls: 0,
          held_calls: 1,
        });
        expect(s.rehearsal).toMatchObject({ held_calls: 1, real_calls_during_rehearsal: 0 });
        // the one ask again is rehearsal's cost, in the trial's and the summary's calls
        expect(s.rehearsal.calls.guard).toBe(1);
        expect(s.results[0]?.rehearsal_calls).toBe(2 * 2 + 2 + 1);
        // the committed actor was asked again after the refusal its rehearsal imagined
        const asked = agent.requests.map((r) => r.body).filter(isCommitted);
        const last = asked.map((b) => b.messages[b.messages.length - 1]);
        expect(
          last.filter((m) => m?.role === "tool" && /may not create tasks/.test(m.content ?? "")),
        ).toHaveLength(1);
      } finally {
        await agent.close();
        await user.close();
      }
    },
    300_000,
  );

  it("--note-use decide: the committed steps are written again without the note, and counted", async () => {
    // with the note in its system message the agent words its reply otherwise
    const agent = await startMockOpenAIServer({
      handler: (b) => {
        const reply = agentHandler(b);
        return isCommitted(b) && typeof reply === "string" && !isRehearse(b) ? `(noted) ${reply}` : reply;
      },
    });
    const user = await startCreateTaskUser();
    try {
      const { stdout } = await promisify(execFile)(
        "npx",
        [
          ...evalCreateTaskArgs(agent.baseURL, user.baseURL),
          ...["--rehearsal", "parallel:2", "--memory", "consensus", "--note-use", "decide"],
        ],
        { cwd: root, encoding: "utf8", timeout: 300_000 },
      );
      const s = JSON.parse(stdout) as {
        results: Array<Record<string, unknown>>;
        rehearsal: {
          rewritten_steps: number;
          calls: { rewrite: number };
          real_calls_during_rehearsal: number;
        };
      };
      expect(s.results[0]).toMatchObject({ task_id: "create_task_1", reward: 1, real_calls: 1 });
      expect(s.rehearsal).toMatchObject({ rewritten_steps: 1, real_calls_during_rehearsal: 0 });
      // both committed steps (the call, the reply) written again; only the reply changed
      expect(s.rehearsal.calls.rewrite).toBe(2);
      // what the user was told: the reply written without the note
      const told = user.requests.flatMap((r) => r.body.messages.map((m) => m.content ?? ""));
      expect(told.some((c) => c.includes("Created the task Important Meeting."))).toBe(true);
      expect(told.some((c) => c.includes("(noted)"))).toBe(false);
    } finally {
      await agent.close();
      await user.close();
    }
  }, 300_000);

  it("--guard-tools with a tool the domain does not have exits 2 before any model call", async () => {
    const agent = await startMockOpenAIServer({ handler: agentHandler });
    const user = await startCreateTaskUser();
    try {
      const args = [...evalCreateTaskArgs(agent.baseURL, user.baseURL), "--rehearsal", "parallel:2"];
      const r = await promisify(execFile)("npx", [...args, "--guard-tools", "create_tsak"], {
        cwd: root,
        encoding: "utf8",
        timeout: 300_000,
      }).then(
        () => ({ code: 0, stderr: "" }),
        (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
      );
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--guard-tools: tau2:mock has no tool "create_tsak" (its tools: ');
      expect(agent.requests).toHaveLength(0);
    } finally {
      await agent.close();
      await user.close();
    }
  }, 300_000);
});
