import type { Tau2DomainLike, Tau2EnvLike } from "./env-port.js";
import { replayActions, replayMessages } from "./replay.js";
import type { Tau2EnvAssertion, Tau2Message, Tau2TaskView } from "./types.js";

export interface DbCheck {
  match: boolean;
  goldHash: string;
  predictedHash: string;
  /** User DB hashes, where the domain has a user DB (upstream compares both). */
  goldUserHash?: string | null;
  predictedUserHash?: string | null;
}

export interface EnvAssertionCheck {
  assertion: Tau2EnvAssertion;
  met: boolean;
  error?: string;
}

export interface EnvCheckResult {
  /** Undefined when the task has neither actions nor env assertions (upstream: DB passes unchecked). */
  db?: DbCheck;
  assertions: EnvAssertionCheck[];
  /** Set when env assertions exist but this environment cannot run them. */
  assertionsUnsupported?: boolean;
  /** The rebuilt environment after the agent's calls (kept for --dump-db). */
  predicted: Tau2EnvLike;
}

// The gold end state depends only on the task: computed once per task object (a trial re-run or
// another policy on the same loaded domain reuses it). Hashing a large DB is the costly part.
const goldHashes = new WeakMap<object, { hash: string; userHash: string | null | undefined }>();

async function goldHashesOf(domain: Tau2DomainLike, task: Tau2TaskView) {
  let h = goldHashes.get(task);
  if (!h) {
    const gold = domain.createEnv(task);
    await replayActions(gold, task.evaluation_criteria?.actions ?? []);
    h = { hash: gold.hash(), userHash: gold.userHash?.() };
    await gold.close?.();
    goldHashes.set(task, h);
  }
  return h;
}

/**
 * Upstream EnvironmentEvaluator: the predicted environment is a fresh one in the task's initial
 * state with every call of the conversation replayed; the gold one gets the gold actions instead.
 * `newMessages` are the messages after the task's initial history (the fresh env already has it).
 */
export async function checkEnvironment(
  domain: Tau2DomainLike,
  task: Tau2TaskView,
  newMessages: readonly Tau2Message[],
): Promise<EnvCheckResult> {
  const criteria = task.evaluation_criteria ?? {};
  const predicted = domain.createEnv(task);
  await replayMessages(predicted, newMessages);
  const assertions = criteria.env_assertions ?? [];
  if (criteria.actions == null && criteria.env_assertions == null) return { assertions: [], predicted };

  const gold = await goldHashesOf(domain, task);
  const db: DbCheck = { goldHash: gold.hash, predictedHash: predicted.hash(), match: false };
  if (gold.userHash !== undefined || predicted.userHash) {
    db.goldUserHash = gold.userHash ?? null;
    db.predictedUserHash = predicted.userHash?.() ?? null;
  }
  db.match = db.goldHash === db.predictedHash && db.goldUserHash === db.predictedUserHash;

  if (assertions.length > 0 && !predicted.runEnvAssertion) {
    return { db, assertions: [], assertionsUnsupported: true, predicted };
  }
  const checks: EnvAssertionCheck[] = [];
  for (const assertion of assertions) {
    try {
      checks.push({ assertion, met: await predicted.runEnvAssertion!(assertion) });
    } catch (e) {
      // upstream (raise_assertion_error=False) counts a failing assertion function as not met
      checks.push({ assertion, met: false, error: (e as Error).message });
    }
  }
  return { db, assertions: checks, predicted };
}
