/**
 * Replays a fixture's calls (recorded through upstream's Python) on our environment and checks each
 * result, its error flag, and the final DB hash and dump against upstream's.
 */
import { createHash } from "node:crypto";
import { expect } from "vitest";
import { VitaEnvironment } from "../../../src/envs/vita/environment.js";
import type { PyValue } from "../../../src/envs/vita/py-value.js";

export interface UpstreamStep {
  name: string;
  arguments: Record<string, unknown>;
  error: boolean;
  /** The result text, or its digest when it is long. */
  result?: string;
  result_sha256?: string;
}

export interface UpstreamRun {
  steps: UpstreamStep[];
  db_hash: string;
  db_dump_sha256: string;
}

/** The fixture's clock: upstream derived order ids from it, one tick per reading. */
export interface FixtureClock {
  start: number;
  step: number;
}

export const sha256 = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

export function expectUpstreamReplay(
  domain: ConstructorParameters<typeof VitaEnvironment>[0],
  state: PyValue,
  clockSpec: FixtureClock,
  run: UpstreamRun,
): void {
  let k = 0;
  const clock = () => clockSpec.start + k++ * clockSpec.step;
  const env = new VitaEnvironment(domain, state, { clock });
  run.steps.forEach((step, i) => {
    const r = env.callSync({ id: `c${i}`, name: step.name, arguments: step.arguments });
    const text = r.ok ? r.content : `Error: ${r.error.message}`;
    const where = `step ${i} ${step.name}(${JSON.stringify(step.arguments)})`;
    expect(!r.ok, where).toBe(step.error);
    if (step.result !== undefined) expect(text, where).toBe(step.result);
    else expect(sha256(text), `${where}: ${text.slice(0, 300)}`).toBe(step.result_sha256);
  });
  expect(env.hash()).toBe(run.db_hash);
  expect(sha256(env.dumpJsonSorted())).toBe(run.db_dump_sha256);
}
