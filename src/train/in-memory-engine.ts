import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EnvaceError } from "../core/errors.js";
import type {
  ForwardBackwardResult,
  LossOptions,
  OptimStepResult,
  TrainEngine,
  TrainSequence,
} from "./engine.js";

/**
 * A test double for the worker's training API: records every call, keeps a step counter as its
 * "weights", and saves/loads that counter as a file so checkpoints and resume can be tested
 * without PyTorch. `failOn` makes a chosen call throw WORKER_UNAVAILABLE (a dead worker).
 */
export class InMemoryTrainEngine implements TrainEngine {
  readonly forwardBackwardCalls: Array<{ sequences: TrainSequence[]; loss: LossOptions }> = [];
  readonly optimCalls: Array<{ lr: number; weightDecay?: number; maxGradNorm?: number }> = [];
  readonly saves: string[] = [];
  readonly loads: string[] = [];
  /** Optimizer steps applied to the current weights (restored by `load`). */
  step = 0;
  /** Pending gradient: target tokens accumulated since the last optim step. */
  pendingTokens = 0;
  /** Throw WORKER_UNAVAILABLE on the n-th (1-based, counted over the engine's life) forward_backward. */
  failOnForwardBackward?: number;
  private fbCount = 0;

  async forwardBackward(req: {
    sequences: TrainSequence[];
    loss: LossOptions;
  }): Promise<ForwardBackwardResult> {
    this.fbCount++;
    if (this.failOnForwardBackward === this.fbCount) {
      throw new EnvaceError("WORKER_UNAVAILABLE", "in-memory engine: simulated worker death");
    }
    for (const s of req.sequences) {
      if (s.lossMask.length !== s.tokenIds.length || s.advantages.length !== s.tokenIds.length) {
        throw new EnvaceError("WORKER_ERROR", "sequence arrays differ in length");
      }
    }
    this.forwardBackwardCalls.push(req);
    // The worker's objective at ratio 1: Σ w·(−A) over target tokens, w = the sequence's weight
    // when given (the loss aggregation), else 1/targets of the call.
    let n = 0;
    for (const s of req.sequences) n += s.lossMask.filter(Boolean).length;
    let loss = 0;
    for (const s of req.sequences) {
      const w = s.weight ?? (n ? 1 / n : 0);
      s.lossMask.forEach((m, i) => {
        if (m) loss += w * -s.advantages[i]!;
      });
    }
    this.pendingTokens += n;
    // sampler = trainer here: every truncated importance weight is 1
    const tis: Record<string, number> =
      req.loss.tisCap !== undefined ? { tis_weight_mean: 1, tis_capped_fraction: 0 } : {};
    return { loss, metrics: { tokens: n, num_tokens: n, ...tis } };
  }

  async optimStep(req: { lr: number; weightDecay?: number; maxGradNorm?: number }): Promise<OptimStepResult> {
    this.optimCalls.push(req);
    this.step++;
    this.pendingTokens = 0;
    return { step: this.step, gradNorm: 1 };
  }

  async save(path: string): Promise<void> {
    mkdirSync(path, { recursive: true });
    writeFileSync(join(path, "engine.json"), JSON.stringify({ step: this.step }));
    this.saves.push(path);
  }

  async load(path: string): Promise<void> {
    this.step = (JSON.parse(readFileSync(join(path, "engine.json"), "utf8")) as { step: number }).step;
    this.pendingTokens = 0;
    this.loads.push(path);
  }
}
