import type { ChatModel, ChatRequest, ChatResult } from "../core/model.js";
import { EnvaceError } from "../core/errors.js";
import { Semaphore } from "./semaphore.js";
import { backoffDelay, sleep } from "./backoff.js";
import { isRetryableError } from "./endpoint-error.js";

export interface EndpointPoolOptions {
  /** Most calls in progress at once across all endpoints (default 64). */
  maxInFlight?: number;
  /** Extra attempts after the first on a retryable error (default 3). */
  retries?: number;
  /** First backoff delay (default 200 ms); doubles per retry, with jitter. */
  baseDelayMs?: number;
  /** Cap on one backoff delay (default 5000 ms). */
  maxDelayMs?: number;
  /** Called before each retry; for logs and tests. */
  onRetry?: (info: { attempt: number; delayMs: number; endpoint: string; error: unknown }) => void;
  /**
   * Sticky sessions: requests with the same key prefer the same endpoint (a hash of the key), so
   * an episode's calls, which share their prompt prefix, reuse that endpoint's prefix cache. The
   * preferred endpoint is skipped when it is down or has more than `affinitySlack` calls in
   * flight above the least-loaded one. Undefined key: least-loaded routing.
   */
  affinity?: (request: ChatRequest) => string | undefined;
  /** How much busier than the least-loaded endpoint a preferred one may be (default 4). */
  affinitySlack?: number;
}

export interface EndpointPoolStats {
  /** Calls made to the pool. */
  calls: number;
  /** Attempts after a call's first. */
  retries: number;
  /** Retries that went to a different endpoint than the failed attempt. */
  failovers: number;
  /** Calls that failed for good. */
  failures: number;
  /** Calls in progress right now. */
  inFlight: number;
}

/**
 * Several endpoints behind one `ChatModel`. Each call goes to the endpoint with the fewest calls in
 * flight (ties round-robin), so one slow endpoint does not collect a queue while others idle —
 * what matters with heavy-tailed generation times. A retryable failure
 * (5xx, timeout, refused connection) marks that endpoint down for the backoff period and the retry
 * goes to the next endpoint that is up. Non-retryable errors (4xx: a bad request stays bad) are
 * thrown at once. The endpoints should not retry themselves (`maxRetries: 0`).
 */
export class EndpointPool implements ChatModel {
  readonly name: string;
  private readonly endpoints: ChatModel[];
  private readonly semaphore: Semaphore;
  private readonly retries: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly onRetry: EndpointPoolOptions["onRetry"];
  private readonly affinity: EndpointPoolOptions["affinity"];
  private readonly affinitySlack: number;
  private readonly downUntil: number[];
  private readonly inFlightByEndpoint: number[];
  private next = 0;
  private readonly counts = { calls: 0, retries: 0, failovers: 0, failures: 0 };

  constructor(endpoints: ChatModel[], opts: EndpointPoolOptions = {}) {
    if (endpoints.length === 0)
      throw new EnvaceError("INVALID_CONFIG", "EndpointPool needs at least one endpoint");
    this.endpoints = endpoints;
    this.name =
      endpoints.length === 1 ? endpoints[0]!.name : `pool(${endpoints.map((e) => e.name).join(",")})`;
    this.semaphore = new Semaphore(opts.maxInFlight ?? 64);
    this.retries = opts.retries ?? 3;
    this.baseDelayMs = opts.baseDelayMs ?? 200;
    this.maxDelayMs = opts.maxDelayMs ?? 5000;
    this.onRetry = opts.onRetry;
    this.affinity = opts.affinity;
    this.affinitySlack = opts.affinitySlack ?? 4;
    this.downUntil = endpoints.map(() => 0);
    this.inFlightByEndpoint = endpoints.map(() => 0);
  }

  stats(): EndpointPoolStats {
    return { ...this.counts, inFlight: this.semaphore.inUse };
  }

  async chat(request: ChatRequest, options?: { signal?: AbortSignal }): Promise<ChatResult> {
    this.counts.calls++;
    const signal = options?.signal;
    const release = await this.semaphore.acquire(signal);
    try {
      const key = this.affinity?.(request);
      let index = this.pick(undefined, key);
      for (let attempt = 0; ; attempt++) {
        let failure: unknown;
        this.inFlightByEndpoint[index]!++;
        try {
          return await this.endpoints[index]!.chat(request, options);
        } catch (err) {
          failure = err;
        } finally {
          this.inFlightByEndpoint[index]!--;
        }
        if (!isRetryableError(failure) || attempt >= this.retries || signal?.aborted) {
          this.counts.failures++;
          throw failure;
        }
        const delayMs = backoffDelay(attempt, this.baseDelayMs, this.maxDelayMs);
        this.downUntil[index] = Date.now() + delayMs;
        const endpoint = this.endpoints[index]!.name;
        this.onRetry?.({ attempt: attempt + 1, delayMs, endpoint, error: failure });
        await sleep(delayMs, signal);
        const nextIndex = this.pick(index);
        this.counts.retries++;
        if (nextIndex !== index) this.counts.failovers++;
        index = nextIndex;
      }
    } finally {
      release();
    }
  }

  /**
   * The endpoint that is up and has the fewest calls in flight, scanning from a rotating start so
   * that ties go round-robin; `avoid` (the one that just failed) only when no other is up.
   */
  private pick(avoid?: number, key?: string): number {
    const n = this.endpoints.length;
    const now = Date.now();
    if (key !== undefined) {
      const home = stableHash(key) % n;
      const least = Math.min(...this.inFlightByEndpoint.filter((_, i) => this.downUntil[i]! <= now));
      if (
        home !== avoid &&
        this.downUntil[home]! <= now &&
        this.inFlightByEndpoint[home]! <= least + this.affinitySlack
      )
        return home;
    }
    const start = this.next++ % n;
    let best = -1;
    for (let k = 0; k < n; k++) {
      const i = (start + k) % n;
      if (i === avoid || this.downUntil[i]! > now) continue;
      if (best < 0 || this.inFlightByEndpoint[i]! < this.inFlightByEndpoint[best]!) best = i;
    }
    if (best >= 0) return best;
    // every other endpoint is down: take the one that comes back soonest
    best = start;
    for (let i = 0; i < n; i++) if (this.downUntil[i]! < this.downUntil[best]!) best = i;
    return best;
  }
}

/** FNV-1a over the key's UTF-16 units: stable across runs and processes (unlike object hashes). */
function stableHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
