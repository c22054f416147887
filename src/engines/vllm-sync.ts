import { appendFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { ChatModel } from "../core/model.js";
import type { VllmRolloutConfig } from "./vllm-config.js";
import { VllmRolloutEngine, type PublishedWeights } from "./vllm-engine.js";

/** Whatever publishes the trainer's weights (`WorkerClient.publish`). */
export interface WeightPublisher {
  publish(name: string, opts: { dir?: string; keep?: number }): Promise<PublishedWeights>;
}

/** A rollout sampler of the train loop (structurally `EpisodeSampler`). */
export interface StepSampler<T, R> {
  sampleGroups(tasks: T, opts: { groupSize: number; step: number }): Promise<R>;
}

/** What `wrap` needs to sample a step ahead (`async: true`): the loop's own choice of tasks. */
export interface AheadOptions<T> {
  /** The tasks the loop will pass for `step` (the same function it uses). */
  tasksFor(step: number): T;
  /** Identifies a step's tasks, to check that the loop asked for what was sampled ahead. */
  key(tasks: T): string;
  /** The loop's last step: nothing is sampled beyond it. */
  lastStep: number;
}

/** What the wrapped sampler adds to each step's result (metrics.jsonl `off_policy`). */
export interface OffPolicyStep {
  version: string;
  steps: number;
  publish_s: number;
  load_s: number;
}

/** One line of `rollout-sync.jsonl`: what the sampler used for a step. */
export interface SyncRecord {
  step: number;
  /** The version the step's rollouts sampled from. */
  version: string;
  /** Optimizer steps the sampler lags behind the trainer (0: on-policy). */
  off_policy_steps: number;
  /** Seconds spent publishing (worker) and loading (all endpoints) before this step; 0 without a sync. */
  publish_s: number;
  load_s: number;
  ready: number;
  failed: Array<{ endpoint: string; error: string }>;
  unloaded: string[];
  /** The pool's counters so far. */
  calls: number;
  retries: number;
  failovers: number;
}

/**
 * Keeps the vLLM endpoints within `max_off_policy_steps` of the trainer: before the rollouts of a
 * loop step, if the served version is too old (or the loop went back to an earlier checkpoint), the
 * worker publishes its weights and every endpoint loads them. Each step appends a `SyncRecord` to
 * `rollout-sync.jsonl` in the run directory.
 */
export class VllmPolicySync {
  readonly engine: VllmRolloutEngine;
  private readonly cfg: VllmRolloutConfig;
  private readonly publisher: WeightPublisher;
  private readonly runName: string;
  private readonly logPath: string;
  private readonly onWarning: ((m: string) => void) | undefined;
  /** The loop step before whose rollouts the current version was loaded. */
  private syncedAt: number | null = null;

  constructor(
    cfg: VllmRolloutConfig,
    publisher: WeightPublisher,
    opts: { outDir: string; onWarning?: (m: string) => void },
  ) {
    this.cfg = cfg;
    this.publisher = publisher;
    this.runName = cfg.run_name ?? runNameOf(opts.outDir);
    this.logPath = join(opts.outDir, "rollout-sync.jsonl");
    this.onWarning = opts.onWarning;
    this.engine = new VllmRolloutEngine({
      endpoints: cfg.endpoints.map((e) => ({
        baseURL: e.base_url,
        ...(e.api_key ? { apiKey: e.api_key } : {}),
      })),
      baseModel: cfg.base_model,
      sticky: cfg.sticky,
      keepLoaded: cfg.keep_loaded,
      syncRetries: cfg.sync_retries,
    });
  }

  get policy(): ChatModel {
    return this.engine.policy;
  }

  /** Whether the served weights are too old (or too new) for the rollouts of `step`. */
  needsSync(step: number): boolean {
    const last = this.syncedAt;
    return last === null || step < last || step - last > this.cfg.max_off_policy_steps;
  }

  /** Publishes and loads the trainer's weights if the served ones are too old for `step`. */
  async beforeStep(step: number): Promise<SyncRecord> {
    const stale = this.needsSync(step);
    let publishS = 0;
    let loadS = 0;
    let report: Awaited<ReturnType<VllmRolloutEngine["sync"]>> | null = null;
    if (stale) {
      const t0 = performance.now();
      const w = await this.publisher.publish(this.runName, {
        dir: this.cfg.publish_dir,
        keep: this.cfg.keep_published,
      });
      publishS = (performance.now() - t0) / 1000;
      report = await this.engine.sync(w);
      loadS = report.seconds;
      this.syncedAt = step;
      for (const f of report.failed)
        this.onWarning?.(`vllm endpoint ${f.endpoint} did not load ${w.version} (left out): ${f.error}`);
    }
    const s = this.engine.stats();
    const rec: SyncRecord = {
      step,
      version: this.engine.version!.version,
      off_policy_steps: step - this.syncedAt!,
      publish_s: publishS,
      load_s: loadS,
      ready: report?.ready.length ?? 0,
      failed: report?.failed ?? [],
      unloaded: report?.unloaded ?? [],
      calls: s.calls,
      retries: s.retries,
      failovers: s.failovers,
    };
    appendFileSync(this.logPath, JSON.stringify(rec) + "\n");
    return rec;
  }

  /**
   * `sampler` with a sync before each step's rollouts; its result also says which version sampled
   * the step and how stale it was (`offPolicy`, which the loop writes to metrics.jsonl).
   *
   * With `async: true` in the config and `ahead` given, the rollouts of step k+1 start as soon as
   * those of step k are returned, so they run while step k trains, on the version already loaded.
   * They start only when that version is within `max_off_policy_steps` for k+1: a publish must
   * never race the trainer's update (the weights published would depend on timing). The loop then
   * gets them if it asks for step k+1 with the same tasks (else, e.g. after a restart went back to
   * an earlier checkpoint, they are dropped, once finished, and the step is sampled anew; their
   * line in rollout-sync.jsonl stays).
   */
  wrap<T, R extends object>(
    sampler: StepSampler<T, R>,
    ahead?: AheadOptions<T>,
  ): StepSampler<T, R & { offPolicy: OffPolicyStep }> {
    type Out = R & { offPolicy: OffPolicyStep };
    const sampleStep = async (tasks: T, o: { groupSize: number; step: number }): Promise<Out> => {
      const rec = await this.beforeStep(o.step);
      const res = await sampler.sampleGroups(tasks, o);
      const offPolicy: OffPolicyStep = {
        version: rec.version,
        steps: rec.off_policy_steps,
        publish_s: rec.publish_s,
        load_s: rec.load_s,
      };
      return { ...res, offPolicy };
    };
    let next: { step: number; key: string; groupSize: number; result: Promise<Out> } | null = null;
    return {
      sampleGroups: async (tasks, o) => {
        const pending = next;
        next = null;
        let res: Out | null = null;
        if (pending && ahead) {
          const hit =
            pending.step === o.step && pending.groupSize === o.groupSize && pending.key === ahead.key(tasks);
          // a dropped prefetch's failure is not this step's; a used one's is
          if (hit) res = await pending.result;
          else await pending.result.catch(() => undefined);
        }
        res ??= await sampleStep(tasks, o);
        const k = o.step + 1;
        if (this.cfg.async && ahead && k <= ahead.lastStep && !this.needsSync(k)) {
          const nextTasks = ahead.tasksFor(k);
          const result = sampleStep(nextTasks, { groupSize: o.groupSize, step: k });
          result.catch(() => undefined); // awaited (or dropped) by the next call
          next = { step: k, key: ahead.key(nextTasks), groupSize: o.groupSize, result };
        }
        return res;
      },
    };
  }
}

/** A run name the worker accepts, from the output folder's name. */
export function runNameOf(outDir: string): string {
  const name = basename(outDir)
    .replace(/[^A-Za-z0-9._-]/g, "-")
    .replace(/^[^A-Za-z0-9]+/, "");
  return (name || "run").slice(0, 64);
}
