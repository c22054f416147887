import { expect } from "vitest";
import { resolveDataDir } from "../../../src/bench/data-dir.js";
import { loadTau2Domain, type Tau2DomainName } from "../../../src/envs/tau2/index.js";
import { goldPair, noopAgent } from "../../../src/bench/tau2/oracle-agents.js";
import { replayActions } from "../../../src/bench/tau2/replay.js";
import { runTau2, selectTasks } from "../../../src/bench/tau2/run-tau2.js";
import { scriptedUser } from "../../../src/bench/tau2/user-simulator.js";
import type { Tau2DomainLike } from "../../../src/bench/tau2/env-port.js";

const dataRoot = resolveDataDir();

/**
 * Mock tasks no gold replay can pass, upstream's included: their env assertion checks a change no
 * gold action makes. `update_task_with_user_tools` wants the user to dismiss a notification, but
 * its only gold action is the agent's (no mock gold action has the user as requestor);
 * `update_task_with_history_and_env_assertions` lists no gold actions at all.
 */
const NO_GOLD_PATH: Record<string, string[]> = {
  mock: ["update_task_with_history_and_env_assertions", "update_task_with_user_tools"],
};

/**
 * Runs `gold` (agent and user playing every gold action with its requestor) and `noop` over every
 * task of a real τ² domain (all splits) and checks: gold scores 1 on every task (but `NO_GOLD_PATH`)
 * and ends on the user's stop; noop fails every task whose gold actions write to a DB the reward looks at.
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
      ...goldPair(),
      validateCalls: false,
    });
    const selected = selectTasks(tau2);
    expect(gold.tasks).toBe(selected.length);
    const failed = gold.results.filter((r) => r.reward !== 1);
    expect(failed.map((r) => r.task_id)).toEqual(NO_GOLD_PATH[name] ?? []);
    for (const r of failed) expect(r.components.ENV_ASSERTION?.status).toBe("failed");
    expect(gold.results.every((r) => r.termination === "user_stop")).toBe(true);

    const noop = await runTau2({
      bench: `tau2:${name}`,
      domain,
      agent: noopAgent(),
      user: scriptedUser(),
      validateCalls: false,
    });
    let writing = 0;
    for (const task of selected) {
      // a gold action writes when it is a state-changing tool and succeeds
      const env = tau2.createEnv(task);
      const replayed = await replayActions(env, task.evaluation_criteria?.actions ?? []);
      const writes = replayed.some((r) => r.result.ok && env.isMutating(r.call.name, r.requestor));
      const basis = task.evaluation_criteria?.reward_basis ?? ["DB", "COMMUNICATE"];
      const r = noop.results.find((x) => x.task_id === task.id)!;
      if (writes && basis.includes("DB")) {
        writing++;
        expect(r.reward, task.id).toBe(0);
        expect(r.components.DB?.status, task.id).toBe("failed");
      }
      // Telecom scores the phone's state: a noop conversation leaves every broken phone broken.
      if (writes && basis.includes("ENV_ASSERTION") && !basis.includes("DB")) {
        writing++;
        expect(r.reward, task.id).toBe(0);
        expect(r.components.ENV_ASSERTION?.status, task.id).toBe("failed");
      }
    }
    expect(writing).toBeGreaterThan(0);
  }
}
