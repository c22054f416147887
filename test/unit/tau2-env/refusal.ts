import { expect } from "vitest";
import { resultToString, type Tau2Environment } from "../../../src/envs/tau2/index.js";

/** Calls a tool that must fail with `message` and checks the DB did not change. */
export function expectRefusal(
  env: Tau2Environment,
  name: string,
  args: Record<string, unknown>,
  message: string,
): void {
  const before = env.hash();
  const r = env.callSync({ name, arguments: args });
  expect(resultToString(r)).toBe(`Error: ${message}`);
  expect(env.hash()).toBe(before);
}

export function callOk(env: Tau2Environment, name: string, args: Record<string, unknown>): unknown {
  const r = env.callSync({ name, arguments: args });
  if (!r.ok) throw new Error(`${name} failed: ${r.error.message}`);
  return JSON.parse(r.content) as unknown;
}
