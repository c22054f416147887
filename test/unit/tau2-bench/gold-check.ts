import { expect } from "vitest";
import { resolveDataDir } from "../../../src/bench/data-dir.js";
import { loadTau2Domain, type Tau2DomainName } from "../../../src/envs/tau2/index.js";
import { goldAgent, noopAgent } from "../../../src/bench/tau2/oracle-agents.js";
import { replayActions } from "../../../src/bench/tau2/replay.js";
import { runTau2 } from "../../../src/bench/tau2/run-tau2.js";
import { scriptedUser } from "../../../src/bench/tau2/user-simulator.js";
import type { Tau2DomainLike } from "../../../src/bench/tau2/env-port.js";

const dataRoot = resolveDataDir();

/**
 * Mock tasks no agent-side oracle can pass, in upstream too: their ENV_ASSERTION needs the *user*
 * to act (dismiss a notification) or checks a change that no gold action makes.
 */
const NEEDS_MORE_THAN_GOLD: Record<string, string[]> = {
  mock: ["update_task_with_user_tools", "update_task_with_history_and_env_assertions"],
  retail: [],
  airline: [],
};

/**
 * Runs `gold` and `noop` over every task of a real τ² domain (all splits) and checks: gold scores 1
 * everywhere (but the known exceptions), noop fails every task whose gold actions write to the DB.
 */
export async function checkGoldAndNoop(name: Tau2DomainName): Promise<void> {
  {
    const tau2 = loadTau2Domain(name, dataRoot);
    const domain: Tau2DomainLike = tau2;
    const allIds = new Set(Object.values(domain.splits).flat());
    expect(domain.tasks.every((t) => allIds.has(t.id))).toBe(true);

    const gold = await runTau2({
      bench: `tau2:${name}`,
      domain,
      agent: goldAgent(),
      user: scriptedUser(),
      validateCalls: false,
    });
    expect(gold.tasks).toBe(domain.tasks.length);
    const failed = gold.results.filter((r) => r.reward !== 1);
    expect(failed.map((r) => r.task_id).sort()).toEqual([...NEEDS_MORE_THAN_GOLD[name]!].sort());
    for (const r of failed) {
      expect(r.components.ENV_ASSERTION?.status).toBe("failed");
      expect(r.components.DB?.status).toBe("passed");
    }
    for (const r of gold.results)
      expect(r.termination === "user_stop" || r.termination === "agent_transfer").toBe(true);

    const noop = await runTau2({
      bench: `tau2:${name}`,
      domain,
      agent: noopAgent(),
      user: scriptedUser(),
      validateCalls: false,
    });
    let writing = 0;
    for (const task of tau2.tasks) {
      // a gold action writes when it is a state-changing tool and succeeds
      const env = tau2.createEnv(task);
      const replayed = await replayActions(env, task.evaluation_criteria?.actions ?? []);
      const writes = replayed.some(
        (r) => r.result.ok && r.requestor === "assistant" && env.isMutating(r.call.name),
      );
      const basis = task.evaluation_criteria?.reward_basis ?? ["DB", "COMMUNICATE"];
      if (writes && basis.includes("DB")) {
        writing++;
        const r = noop.results.find((x) => x.task_id === task.id)!;
        expect(r.reward, task.id).toBe(0);
        expect(r.components.DB?.status, task.id).toBe("failed");
      }
    }
    expect(writing).toBeGreaterThan(0);
  }
}
