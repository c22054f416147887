import { describe, expect, it } from "vitest";
import type { ChatModel } from "../../../src/core/model.js";
import { boundedChatModel, groupJobs, rehearsalResponder, runEpisodes } from "../../../src/rollout/index.js";
import { ScriptedPolicy } from "../../../src/testing/index.js";
import { call, orderTask, result } from "./fixtures.js";

describe("runEpisodes", () => {
  it("runs every job, results in job order, progress per episode, in-flight calls bounded", async () => {
    const inner = new ScriptedPolicy({
      rules: [
        { role: "rehearse", match: /./, output: result({ status: "pending" }) },
        { role: "act", match: /^Where/, output: call("get_order", { order_id: "A1" }) },
        { role: "act", match: /status/, output: "pending" },
        { role: "act", match: /^Cancel/, output: call("cancel_order", { order_id: "A1" }) },
      ],
    });
    let inFlight = 0;
    let maxSeen = 0;
    // a slow model whose calls finish out of order
    const slow: ChatModel = {
      name: "slow",
      async chat(req) {
        inFlight++;
        maxSeen = Math.max(maxSeen, inFlight);
        await new Promise((r) => setTimeout(r, Math.random() * 5));
        inFlight--;
        return inner.chat(req);
      },
    };
    const policy = boundedChatModel(slow, 3);
    const tasks = [orderTask(), orderTask({ id: "order-2" })];
    const jobs = groupJobs(tasks, 4, {
      policy,
      responder: rehearsalResponder(policy, { variant: "compact" }),
    });
    const progress: number[] = [];
    const results = await runEpisodes(jobs, { concurrency: 8, onProgress: (p) => progress.push(p.done) });
    expect(results.map((r) => [r.taskId, r.sample])).toEqual(jobs.map((j) => [j.task.id, j.options.sample]));
    expect(results.every((r) => r.endReason === "done" && r.reward === 1)).toBe(true);
    expect(progress).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(maxSeen).toBeLessThanOrEqual(3);
    expect(maxSeen).toBeGreaterThan(1);
  });
});
