import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Per-request sampling seeds: every model request made inside an episode's scope gets a seed
 * derived from (run seed, step, task, sample, call index), so the same seed and config ask the
 * server for the same random draws request for request, whatever order concurrent episodes
 * finish in (the index counts the episode's own requests, not the run's). A request that sets
 * its own seed keeps it; outside a scope nothing is added. Engines call `scopedSeed()` where they
 * build a request; the rollout sampler opens the scope around each episode.
 */

export interface SeedKey {
  seed: number;
  step: number;
  task: string;
  sample: number;
}

/** The seed of one request: a 31-bit FNV-1a hash of the key and the call index (JSON-safe, ≥ 0). */
export function requestSeed(key: SeedKey, call: number): number {
  const text = JSON.stringify([key.seed, key.step, key.task, key.sample, call]);
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) & 0x7fffffff;
}

interface Scope {
  key: SeedKey;
  calls: number;
}

const scopes = new AsyncLocalStorage<Scope>();

/** Runs `fn` (one episode) with its requests seeded from `key`; calls are counted from 0. */
export function withSamplingSeeds<T>(key: SeedKey, fn: () => Promise<T>): Promise<T> {
  return scopes.run({ key, calls: 0 }, fn);
}

/**
 * Runs `fn` (one of several concurrent branches of an episode, e.g. a parallel rehearsal attempt)
 * in a scope of its own, keyed by the episode's key and `branch` (unique within the episode), its
 * calls counted from 0: the branch's requests get the same seeds however the branches interleave.
 * Outside any scope, `fn` runs as is.
 */
export function withBranchSeeds<T>(branch: string, fn: () => Promise<T>): Promise<T> {
  const s = scopes.getStore();
  if (!s) return fn();
  return scopes.run({ key: { ...s.key, task: `${s.key.task}|${branch}` }, calls: 0 }, fn);
}

/**
 * The next request's seed in the current episode's scope (and counts the request), or undefined
 * outside any scope. Call it once per request sent, when the request is issued.
 */
export function scopedSeed(): number | undefined {
  const s = scopes.getStore();
  if (!s) return undefined;
  return requestSeed(s.key, s.calls++);
}
