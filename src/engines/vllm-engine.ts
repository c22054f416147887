import { EnvaceError } from "../core/errors.js";
import type { ChatModel, ChatRequest, ChatResult } from "../core/model.js";
import { backoffDelay, sleep } from "./backoff.js";
import { isRetryableError } from "./endpoint-error.js";
import { EndpointPool, type EndpointPoolOptions, type EndpointPoolStats } from "./endpoint-pool.js";
import { OpenAIChatModel } from "./openai-chat-model.js";
import { VllmAdmin, type VllmEndpoint } from "./vllm-admin.js";
import { sessionKey } from "./vllm-session.js";

/** What the worker's `POST /v1/train/publish` returned: the weights of one trainer step. */
export interface PublishedWeights {
  /** `<run>@<step>`: the model name requests use once loaded (LoRA). */
  version: string;
  /** Where the endpoints read it (absolute; the same filesystem, or a shared one). */
  path: string;
  step: number;
  format: "lora" | "full";
}

export interface VllmRolloutEngineOptions {
  endpoints: VllmEndpoint[];
  /** The name each server serves its base weights under (`vllm serve --served-model-name`). */
  baseModel: string;
  /** Retries, backoff and in-flight bound of the sampling pool (endpoints never retry themselves). */
  pool?: Omit<EndpointPoolOptions, "affinity">;
  /** Route an episode's calls to one endpoint (its prefix cache); default true. */
  sticky?: boolean;
  /** LoRA versions each server keeps loaded (older ones are unloaded after a sync); default 2. */
  keepLoaded?: number;
  /** Attempts after the first to load a version into one endpoint; default 2. */
  syncRetries?: number;
  /** Base backoff between those attempts (ms); default 500. */
  syncDelayMs?: number;
  /** Per-request timeout of sampling calls (ms). */
  timeoutMs?: number;
  /** Extra request fields for every sampling call (vLLM knobs). */
  extraBody?: Record<string, unknown>;
}

/** What one `sync` did. */
export interface SyncReport {
  version: string;
  step: number;
  seconds: number;
  /** Endpoints that serve the version now (rollouts go only to them). */
  ready: string[];
  /** Endpoints that could not load it, with why; they get no rollouts until a later sync works. */
  failed: Array<{ endpoint: string; error: string }>;
  /** LoRA versions unloaded from the servers after this one was in. */
  unloaded: string[];
}

export interface VllmEngineStats extends EndpointPoolStats {
  syncs: number;
  /** Sampling calls answered, by the version that answered them. */
  callsByVersion: Record<string, number>;
}

/**
 * Rollouts on vLLM servers that follow the trainer: after each optimizer step the worker publishes
 * its weights (`WorkerClient.publish`), `sync` hot-loads them into every endpoint, and from then on
 * `policy` requests that version by name. LoRA: each version is a new adapter name, loaded with
 * `POST /v1/load_lora_adapter` while the previous one still serves (no request ever mixes two
 * versions); requests name `<run>@<step>`. Full weights: each server reloads from disk between
 * `/pause` and `/resume`, and requests keep the base name.
 *
 * Sampling goes through an `EndpointPool` over the endpoints that hold the current version:
 * retries and failover as for any pool, sticky sessions by conversation prefix (`vllm-session.ts`),
 * token ids and logprobs on (`return_token_ids`: the rows record the exact tokens the engine used,
 * never re-tokenized). Servers should run with `--logprobs-mode processed_logprobs` so that the
 * logprobs are after temperature, as the trainer computes them.
 */
export class VllmRolloutEngine {
  /** The policy as a chat model; always the version of the last successful `sync`. */
  readonly policy: ChatModel;
  private readonly opts: VllmRolloutEngineOptions;
  private readonly admins: VllmAdmin[];
  private current: PublishedWeights | null = null;
  private pool: EndpointPool | null = null;
  private readonly loaded: string[] = []; // LoRA versions loaded, oldest first
  private readonly retired: EndpointPoolStats = {
    calls: 0,
    retries: 0,
    failovers: 0,
    failures: 0,
    inFlight: 0,
  };
  private readonly callsByVersion: Record<string, number> = {};
  private syncs = 0;

  constructor(opts: VllmRolloutEngineOptions) {
    if (opts.endpoints.length === 0)
      throw new EnvaceError("INVALID_CONFIG", "the vllm rollout engine needs at least one endpoint");
    this.opts = opts;
    this.admins = opts.endpoints.map((e) => new VllmAdmin(e));
    const names = this.admins.map((a) => a.root);
    if (new Set(names).size !== names.length)
      throw new EnvaceError("INVALID_CONFIG", `vllm endpoints are listed twice: ${names.join(", ")}`);
    this.policy = {
      name: `vllm(${names.join(",")})`,
      chat: (req, o) => this.chat(req, o),
    };
  }

  /** The weights rollouts sample from now (null before the first sync). */
  get version(): PublishedWeights | null {
    return this.current;
  }

  stats(): VllmEngineStats {
    const live = this.pool?.stats() ?? { calls: 0, retries: 0, failovers: 0, failures: 0, inFlight: 0 };
    return {
      calls: this.retired.calls + live.calls,
      retries: this.retired.retries + live.retries,
      failovers: this.retired.failovers + live.failovers,
      failures: this.retired.failures + live.failures,
      inFlight: live.inFlight,
      syncs: this.syncs,
      callsByVersion: { ...this.callsByVersion },
    };
  }

  /**
   * Loads `w` into every endpoint (concurrently, each with retries) and switches rollouts to it.
   * Endpoints that fail are left out of rollouts until a later sync reaches them; if none loads
   * it, the engine keeps the previous version and throws `ENDPOINT_ERROR`.
   */
  async sync(w: PublishedWeights): Promise<SyncReport> {
    const t0 = performance.now();
    const results = await Promise.all(this.admins.map((a) => this.loadInto(a, w)));
    const ready = this.admins.filter((_, i) => results[i] === null);
    const failed = this.admins.flatMap((a, i) =>
      results[i] === null ? [] : [{ endpoint: a.root, error: results[i]! }],
    );
    if (ready.length === 0) {
      throw new EnvaceError(
        "ENDPOINT_ERROR",
        `no vllm endpoint loaded ${w.version}: ${failed.map((f) => `${f.endpoint}: ${f.error}`).join("; ")}`,
        { failed },
      );
    }
    this.switchTo(w, ready);
    const unloaded = w.format === "lora" ? await this.unloadOld(w.version) : [];
    this.syncs++;
    return {
      version: w.version,
      step: w.step,
      seconds: (performance.now() - t0) / 1000,
      ready: ready.map((a) => a.root),
      failed,
      unloaded,
    };
  }

  private async chat(request: ChatRequest, options?: { signal?: AbortSignal }): Promise<ChatResult> {
    const pool = this.pool;
    const version = this.current;
    if (!pool || !version) {
      throw new EnvaceError(
        "ENDPOINT_ERROR",
        "the vllm rollout engine has no weights yet: publish and sync a version before sampling",
        { retryable: false },
      );
    }
    const res = await pool.chat(request, options);
    this.callsByVersion[version.version] = (this.callsByVersion[version.version] ?? 0) + 1;
    return res;
  }

  /** null when `w` is loaded in `a`, else why not (after retries). */
  private async loadInto(a: VllmAdmin, w: PublishedWeights): Promise<string | null> {
    const retries = this.opts.syncRetries ?? 2;
    for (let attempt = 0; ; attempt++) {
      try {
        if (w.format === "lora") {
          await a.loadLoraAdapter(w.version, w.path);
          // the same name again (a resumed run republishes a step): its weights may differ
          if (this.loaded.includes(w.version)) await a.resetPrefixCache();
        } else await a.reloadWeights(w.path);
        return null;
      } catch (e) {
        if (!isRetryableError(e) || attempt >= retries) return (e as Error).message;
        await sleep(backoffDelay(attempt, this.opts.syncDelayMs ?? 500, 10_000));
      }
    }
  }

  private switchTo(w: PublishedWeights, ready: VllmAdmin[]): void {
    const model = w.format === "lora" ? w.version : this.opts.baseModel;
    const members = ready.map((a) => {
      const apiKey = this.opts.endpoints[this.admins.indexOf(a)]!.apiKey;
      return new OpenAIChatModel({
        baseURL: a.baseURL,
        model,
        ...(apiKey !== undefined ? { apiKey } : {}),
        maxRetries: 0, // the pool retries and fails over
        returnTokenIds: true,
        ...(this.opts.timeoutMs !== undefined ? { timeoutMs: this.opts.timeoutMs } : {}),
        // vLLM refuses tools with the default "auto" tool choice unless started with a tool
        // parser; "none" still renders the tools into the prompt, and envace parses the
        // `<tool_call>` text itself, as it does for the worker's
        extraBody: { tool_choice: "none", ...this.opts.extraBody },
      });
    });
    if (this.pool) {
      const s = this.pool.stats();
      this.retired.calls += s.calls;
      this.retired.retries += s.retries;
      this.retired.failovers += s.failovers;
      this.retired.failures += s.failures;
    }
    // Calls already in flight finish on the old pool (and the old version, still loaded).
    this.pool = new EndpointPool(members, {
      ...this.opts.pool,
      ...(this.opts.sticky === false ? {} : { affinity: sessionKey }),
    });
    this.current = w;
    if (w.format === "lora" && !this.loaded.includes(w.version)) this.loaded.push(w.version);
  }

  /** Unloads LoRA versions beyond `keepLoaded` from every endpoint (best effort). */
  private async unloadOld(keepVersion: string): Promise<string[]> {
    const keep = Math.max(this.opts.keepLoaded ?? 2, 1);
    const old = this.loaded.filter((v) => v !== keepVersion).slice(0, Math.max(this.loaded.length - keep, 0));
    for (const v of old) {
      await Promise.all(this.admins.map((a) => a.unloadLoraAdapter(v).catch(() => undefined)));
      this.loaded.splice(this.loaded.indexOf(v), 1);
    }
    return old;
  }
}
