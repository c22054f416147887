import type { PastAgentHabits } from "../envs/toolworld/index.js";
import { REHEARSAL_PROMPT_VARIANTS, type RehearsalPromptVariant } from "../rollout/rehearsal-prompt.js";
import type { NoteUse, RehearsalMemoryKind } from "../testtime/types.js";

/**
 * The demo's scenario (issue 5): executable environments are scarce. Of the three training
 * domains only `shop` has its environment during training; `bank` and `calendar` exist only as
 * recorded traces; `library` is never seen in training and measures transfer.
 */
export const ENV_DOMAIN = "shop";
export const ENVLESS_DOMAINS = ["bank", "calendar"] as const;
export const HELDOUT_DOMAIN = "library";
export const TRAIN_DOMAINS = [ENV_DOMAIN, ...ENVLESS_DOMAINS];

/** The three evaluation sets, all measured in the real environments. */
export type EvalSplit = "env_domain" | "envless" | "heldout_domain";
export const EVAL_SPLITS: readonly EvalSplit[] = ["env_domain", "envless", "heldout_domain"];

/** Experiment-only settings of a demo run; none of them is set by `FULL_PLAN` or `QUICK_PLAN`. */
export interface DemoExperiments {
  /** The past agent's habits in the SFT logs and RL notes, if not `PAST_AGENT_HABITS`. */
  pastAgentHabits?: PastAgentHabits;
  /** Share of results in SFT notes swapped for another task's (default 0). */
  sftNoteNoise?: number;
  /**
   * Added to the seed of the RL stage only (sampling, task order), not of the data or SFT:
   * repeats of one arm from one SFT checkpoint, to measure how much an RL run alone varies.
   */
  rlSeedOffset?: number;
  /**
   * Share of each step's single-turn RL tasks played under a note the policy wrote itself just
   * before, as test-time rehearsal writes it (`own-rehearsal-notes.ts`; default 0). Seed 3, in place
   * of the logged notes at 0.25: `envace` none 73.0, parallel:4 −7.9 (logged notes: 78.3, −11.2).
   */
  rlOwnNoteShare?: number;
  /** The rehearse role's GRPO baseline in the rehearsal arms (`rehearse_baseline`; default `role`, the reference's). */
  rehearseBaseline?: "role" | "call";
  /**
   * What RL's rehearser is shown as evidence for each training task: `own` (default, the issue's
   * scenario and the reference's `tool_call_response_map`: the task's own recorded calls) or
   * `borrowed` (other tasks' logged calls on the same world, as at evaluation: no call of the
   * task's own run is answered in the prompt, so the rehearser must know the world).
   */
  rlExamples?: "own" | "borrowed";
  /**
   * The rehearse role's reward in the rehearsal arms: `task` (default, the reference's: the
   * episode's success) or `logged`: a rehearsal of a call the past agent's logs (the SFT logs)
   * answered on the untouched world is rewarded 1 if it answers as logged, else 0, in its own GRPO
   * group (`logged-answers.ts`); other rehearsals keep the task reward. `recorded`: the same, with
   * the RL tasks' own recorded calls as the answers (the `tool_call_response_map` used as a target
   * rather than shown; with `worldDrift`, the new snapshot's answers).
   */
  rehearseReward?: "task" | "logged" | "recorded";
  /**
   * The world moves between the logs and RL (`WorldDrift`): SFT trains on the logs of the run's
   * worlds as before (same data, same cached checkpoint), while every RL task and every evaluation
   * task is on a newer snapshot in which each item's status moved with this probability (0 or
   * absent: no drift). The frozen `simulator` knows only the logs' world; a co-trained rehearser
   * may follow the new one.
   */
  worldDrift?: number;
}

/** The demo's rehearsal prompts: `compact` (recipe v16 and before) and `compact-related` (v17). */
export type DemoRehearsalPrompt = Exclude<RehearsalPromptVariant, "full">;

/** The names of the demo's rehearsal prompts (`full`, the reference's, is too long for the tiny model). */
export const DEMO_REHEARSAL_PROMPTS: readonly DemoRehearsalPrompt[] = REHEARSAL_PROMPT_VARIANTS.filter(
  (v): v is DemoRehearsalPrompt => v !== "full",
);

/** The plan's rehearsal prompt (`compact` where a plan names none, as before recipe v17). */
export function demoRehearsalPrompt(plan: Pick<DemoPlan, "rehearsalPrompt">): DemoRehearsalPrompt {
  return plan.rehearsalPrompt ?? "compact";
}

/** How the SFT logs are pseudonymized (`entity-coverage.ts`). */
export interface Pseudonyms {
  /**
   * `renamed` (recipe v9): only renamed logs, each entity no training task names moved into up to
   * `uses` of them. `balanced` (v10): any log, towards every entity fewer than `uses` training
   * tasks name, never taking an entity below `uses`.
   */
  mode: "renamed" | "balanced";
  uses: number;
}

/** Sizes of one demo run; `quick` is the same pipeline, smaller, for CI and a first look. */
export interface DemoPlan {
  /** Knobs that only experiments set (RESULTS.md); the rest of the plan is the recipe a user runs. */
  experiments?: DemoExperiments;
  /**
   * The rehearsal prompt of SFT, RL, evaluation and test-time rows. `compact-related` (recipe v17)
   * adds to `compact` the conversation's earlier answered calls on the same argument values; another
   * prompt means other SFT data, so its own cache key.
   */
  rehearsalPrompt?: DemoRehearsalPrompt;
  /** Share of training tasks whose SFT acting examples are renamed logs (`tool-aliases.ts`; 0: none). */
  sftAliasShare?: number;
  /**
   * Pseudonymized logs (`entity-coverage.ts`): a log's own entities may move to entities that few
   * or no training tasks name, so that every entity is written by some SFT targets. `true` is
   * `{ mode: "renamed", uses: 1 }` (recipe v9).
   */
  sftPseudonymize?: boolean | Pseudonyms;
  /**
   * Copy drills per acting example whose write call copies a day from the request past a lookup that
   * names another day (`copy-drills.ts`; 0 or absent: none): the example again with the days permuted.
   */
  sftCopyDrills?: number;
  /**
   * Copy drills per acting example whose transfer copies its target account from the request past
   * the lookup call on the source account (`copy-drills.ts` over the bank's account ids, recipe v15;
   * 0 or absent: none): the example again with the account ids permuted.
   */
  sftTargetDrills?: number;
  /**
   * Share of training tasks that add one rehearsing example of an owner's listing in their world, as
   * a snapshot of the world's data answers it (`snapshotListing` in `sft-data.ts`; 0 or absent: none).
   */
  sftSnapshotListings?: number;
  /**
   * SFT attempts at most (default 1): an attempt whose far-copy check on held-back logs fails
   * (`copy-check.ts`; v18: on its write calls) is trained again from another initialisation; the
   * best-checked one is kept.
   */
  sftAttempts?: number;
  /**
   * How the tiny tokenizer writes entities (ids, emails, names): `whole`, one token each (the
   * vocabulary; default), or `pieces`, left to the BPE with one token per digit, so that an entity
   * no training text names is made of trained tokens. Measured on seeds 4/6/7 (RESULTS.md, issue
   * 11): first-call copy 92.1/91.4/92.8 → 80.9/80.9/82.2, as the tiny model copies a sequence of
   * pieces less reliably than one token; kept as an option, not the default.
   */
  entityTokens?: "whole" | "pieces";
  /**
   * Share of training tasks that add one SFT rehearsing example of a lookup logged in another world
   * of the domain, answered by the task's world under its tenant line (`tenantContrast` in
   * `sft-data.ts`; default 0).
   */
  sftTenantContrasts?: number;
  /**
   * Padded tokens per training micro-batch of the demo's workers (worker `--micro-batch-tokens`;
   * default the worker's 8192). The gradient is the same sum whatever the split (losses equal to
   * 1e-6); only the speed changes.
   */
  microBatchTokens?: number;
  /**
   * Arms of a seed trained and evaluated side by side, each with its own worker (default 1: one
   * after another). Arms share nothing but the SFT checkpoint, so this changes the wall time, not
   * what an arm does.
   */
  armJobs?: number;
  /** Tiny model size (worker `--init tiny --size`). */
  size: "xs" | "s" | "m";
  trainTasksPerDomain: number;
  /** Worlds (databases) per domain that tasks share; evaluation tasks use the same worlds. */
  worldsPerDomain: number;
  /** Held-out tasks per evaluation set (the env-less set splits them over its two domains). */
  evalTasks: number;
  sft: { epochs: number; batchSize: number; lr: number; warmupSteps: number };
  rl: {
    steps: number;
    tasksPerStep: number;
    groupSize: number;
    lr: number;
    klAnchor: number;
    /** Steps between two points of the success curve (real and rehearsed world). */
    curveEvery: number;
    /**
     * Nucleus for the rehearse role's samples in the rehearsal arms (1: none, the reference's
     * rollout setting). The loss's logprobs stay the full distribution's (as with any top_p).
     */
    rehearseTopP?: number;
    /** Share of RL training tasks whose prompt carries a logged rehearsal note (0: none). */
    noteShare?: number;
  };
  /** Sampling temperature of test-time rehearsal's imagined attempts (default 1). */
  testtimeTemperature?: number;
  /** How test-time rehearsal's attempts become the committed actor's note (default `digest`). */
  testtimeMemory?: RehearsalMemoryKind;
  /** Imagined attempts per rehearsal in the test-time rows (and behind RL's own notes). */
  testtimeAttempts: number;
  /**
   * The test-time rows' committed run holds back the domain's writes its rehearsal saw refused
   * (`RehearsalOptions.guardTools`); the rows say so (`guard`, `held_calls`).
   */
  testtimeGuard?: boolean;
  /** What the note does in the test-time rows' committed runs (`RehearsalOptions.noteUse`; default `act`). */
  testtimeNoteUse?: NoteUse;
  /** Env-less evaluation tasks the success curve runs at each of its points. */
  curveTasks: number;
  /** Calls per fidelity set (recorded, own, unseen), taken from the env-less domains in turn. */
  fidelityCalls: number;
  concurrency: number;
}

/**
 * The plan with `steps` RL steps an arm (`envace demo --rl-steps`), the success curve keeping its
 * number of points (`curveEvery` scaled with the steps). The default's 20 steps keep a seed within
 * 30 min on 2 cores; RL has not converged there: from 20 to 60 steps every RL arm gained another
 * 6–8 points of env-less success on the mean of six seeds, `envace` and `simulator` alike (RESULTS.md,
 * issue 11).
 */
export function withRlSteps(plan: DemoPlan, steps: number): DemoPlan {
  const curveEvery = Math.max(1, Math.round((plan.rl.curveEvery * steps) / plan.rl.steps));
  return { ...plan, rl: { ...plan.rl, steps, curveEvery } };
}

/** The worker arguments every demo worker gets from the plan. */
export function demoWorkerArgs(plan: DemoPlan): string[] {
  return plan.microBatchTokens ? ["--micro-batch-tokens", String(plan.microBatchTokens)] : [];
}

export const FULL_PLAN: DemoPlan = {
  size: "xs",
  // SFT recipe (measured on 2 cores, see sft-data.ts): many distinct tasks seen twice beat few tasks
  // seen often (the model memorises id → result pairs instead of copying), and batches of 16 buy the
  // optimizer steps (~750, ~1.1M tokens, ~6 min) after which copying ids switches on.
  trainTasksPerDomain: 1000,
  // A few tenants per domain, named in the prompts (issue 11): the rehearser learns each world from
  // other tasks' logs. With 20 unnamed worlds an unseen call was unanswerable (4–11% exact).
  worldsPerDomain: 4,
  // 152 tasks per set: a 95% CI half-width of at most 8 points (1.96·√(.25/152) = 7.95).
  evalTasks: 152,
  // 3 epochs of ~11,000 examples (3,000 acting and ~1,300 copy drills, 6,000 short rehearsing: half
  // of them learn the tenant from other tasks' logs; ~750 snapshot listings), ~2,080 optimizer steps
  // (v13 with fewer drills: 1,905; v12 without the listings: 1,767; v10 without drills: 1,690).
  // Measured on seed 0 (issue 11): at 2 epochs
  // first-call copy was 89.5% and env-less success 36.8%; at 3, 98.7% and 43.4%.
  sft: { epochs: 3, batchSize: 16, lr: 3e-3, warmupSteps: 20 },
  // Every RL arm gets the same budget: 20 steps × 6 tasks × 8 samples = 960 episodes (~1.5–2 min an
  // arm on 2 cores; the whole demo measured 13.6 min at 10 steps).
  // Rehearsals sampled with top_p 0.8 (the reference's setting for its external simulator, whose
  // rollout samples the shared model at top_p 1): at temperature 1 the tiny model's rehearsals of
  // recorded calls were exact 65% of the time (greedy 83%, top_p 0.8 77%), a world too noisy to learn
  // in; env-less success of `envace` over RL runs on 3 seeds: 55.8 mean (42.1–59.9, 6 runs) at top_p 1,
  // 61.8 (57.2–69.1, 4 runs) at 0.8 (RESULTS.md, issue 11).
  rl: {
    steps: 20,
    tasksPerStep: 6,
    groupSize: 8,
    lr: 2e-4,
    klAnchor: 0.1,
    curveEvery: 5,
    rehearseTopP: 0.8,
    // A quarter of the single-turn RL tasks carry a logged note, as in SFT (the design). Seed 0,
    // attempts at T=1: `envace` parallel:4 −3.9 and −7.8 against its none row in two runs with it, −6.5 without; the
    // test-time rows' own sampling noise is that large, so this is kept for the design, not a gain.
    noteShare: 0.25,
  },
  // Renamed logs (issue 11's held-out domain): a quarter of the tasks' acting examples use another
  // domain's names (tools, keys, id prefixes, statuses) for the same roles, so every domain's names
  // are SFT targets and calls must read names from the tool index. Measured on seeds 0/1/2: held-out
  // success of the SFT model 0/0/0 → 20.4/1.3/5.9, SFT gate 2 of 3 → 3 of 3, unseen fidelity 69.6 →
  // 73.1 (RESULTS.md).
  sftAliasShare: 0.25,
  // Pseudonymized logs (issue 11's SFT gate): an evaluation request may name an entity that no
  // training request names (the split by request holds out every request of a rare entity); a
  // whole-token tiny model never trained to write it copies another. v9 (renamed logs only, each
  // unnamed entity once) lifted seeds 4/6/7's first-call copy 92.1/91.4/92.8 → 98.0/94.1/97.4 but
  // left seed 9 at 92.8 (a name written once; the renamed logs' slots run out). v10, balanced over
  // all logs with 8 uses: first-call copy 100 on seeds 0/1/9 (seed 9 was 92.8; RESULTS.md).
  sftPseudonymize: { mode: "balanced", uses: 8 },
  // Copy drills (v11, issue 11's gate on the write call's arguments): under v10 seeds 3 and 9 wrote
  // the looked-up or the most frequent day in 43–58% of their write calls (seeds 0–2: 79–89%).
  // v15: four drills per such example (v11–v14: two) and four per transfer whose target is copied
  // past the lookup on its source account. The far-copy check's failures under v13 were these
  // (seed 3: a constant day and amount; seed 4: the source account as the target in most
  // transfers; both again on a second SFT run from another init: write copy 53 / 76%); with the
  // drills both pass it at the first run (write 51/51, 41/41; gate write-call copy 100 / 100; SFT
  // success 53.9 / 59.2 from 42.8 / 52.0). ~650 more acting examples: ~2,080 steps (v13 1,905).
  sftCopyDrills: 4,
  sftTargetDrills: 4,
  // Listings from a data snapshot (v13, issue 11's rehearsed-world gap): under v12 no evaluated
  // listing was rehearsed right (0 of 29 unseen list calls), as the logs list an owner ~once. A
  // quarter of the tasks add one listing each (~750 short examples; each of the 36 owners' listings
  // ~20 times an epoch).
  sftSnapshotListings: 0.25,
  // Tenant contrasts (v16, issue 11's rehearsed-world gap): every training task adds one lookup
  // logged in another world of its domain where both worlds hold the entity with other facts,
  // answered by its own world (~1,150 examples). Under v15 the rehearser read the tenant line on
  // 5–8% of unseen calls (`bench:rehearser-misses`); 39 of 98 misses on 4 seeds were another world's
  // or tool's answer. Seed 1: unseen fidelity of the SFT model 86.3 → 95.0, held-out misses 29 → 11,
  // envace's gap −11.8 → −2.6. Contrasts that may answer "not found" (share 0.5) taught "not found":
  // unseen fidelity 73.8 (RESULTS.md).
  sftTenantContrasts: 1,
  // Micro-batches of ≤ 2,048 padded tokens: SFT 93 → 145–150 steps a minute on 2 cores (1,024–3,072
  // alike; measured on seed 1's data), the same gradient.
  microBatchTokens: 2048,
  // Two arms at a time: seed 2's six arms 16.4 → 11.4 min on 2 cores (an arm's decoding uses one
  // core); every arm's success and fidelity identical to one-at-a-time, test-time rows within 0.7.
  armJobs: 2,
  // Up to three SFT attempts (v14, issue 11's gate). The far-copy check on held-back logs of v13's
  // checkpoints, seeds 0–4: write copy 100 / 100 / 86 / 6 / 37%, reply copy 78 / 63 / 78 / 84 / 89%.
  // Seed 3 fails as on the gate (write-call copy 51.0); seed 4 writes the source account as the target
  // in most transfers (the gate's 83.3 saw few transfers); seed 1's replies state the looked-up day
  // after a move (its 19 reply failures). A failing attempt costs one more SFT run (~15 min alone).
  // v18 trains again on the write rate only (`COPY_CHECK_MIN`): reply-only failures cost whole runs
  // and did not predict a worse checkpoint. Continuing a failed run one more epoch (lr 1e-3) instead
  // of a fresh run left seed 0's replies at 29/40 (RESULTS.md, issue 11): not adopted.
  sftAttempts: 3,
  // Imagined attempts at temperature 0.5: at 1 a third of them named wrong ids or facts, and the
  // committed actor copied from them; on 3 seeds × {sft, envace} the loss against the none row
  // shrank in every case (e.g. `envace` seed 0: −7.8 → −1.3), RESULTS.md (issue 11).
  testtimeTemperature: 0.5,
  // The committed actor reads the plan most attempts agree on, refused calls left out
  // (`consensusPlan`), not a digest of every attempt: with the digest it copied the minority
  // attempt and the refused write as readily as the majority (envace, seed 3: forbidden writes
  // 11 → 22). `envace` parallel:4 against its none row on seeds 1–3, digest −2.0 / −2.0 / −11.2,
  // consensus −4.6 / −2.7 / 0.0 (mean −5.1 → −2.4; sequential:4 −6.2 → −2.0). RESULTS.md (issue 11).
  testtimeMemory: "consensus",
  testtimeAttempts: 4,
  // The committed run holds back a domain write its own rehearsal saw refused in most attempts that
  // made it (`commitGuard`): the note alone did not stop the small actor (seed 2: 34 of 39 forbidden
  // writes against a note that left the write out). Parallel:4 against the none row, seeds 1–3:
  // `envace` +0.7 / +17.1 / +0.7 (note alone −4.6 / −2.7 / 0.0), `sft` +4.6 / +17.8 / +9.9. Seed 2:
  // 32 forbidden-write failures became successes, 3 successes were lost to a write the rehearsal
  // wrongly imagined refused. RESULTS.md (issue 11).
  testtimeGuard: true,
  // The note decides what each committed step does, not how (`noteDecides`): reading the note, the
  // tiny actor wrote ids and days into calls and replies that neither the note nor the real results
  // hold (`envace` with the note: replies with a wrong fact seed 0 16 → 20, seed 9 11 → 14; wrong
  // arguments seed 1 2 → 6). `envace` parallel:4 (same seeded attempts), note acting → deciding:
  // seed 0 80.3 → 82.9, seed 1 85.5 → 88.8, seed 9 76.3 → 78.3 (none 80.9 / 84.2 / 70.4).
  // RESULTS.md (issue 11).
  testtimeNoteUse: "decide",
  // The rehearser also sees the conversation's earlier calls on the call's values (v17, issue 11's
  // test-time target): under `compact` it answered `freeze_account a72` without the lookup that
  // said a72 is frozen. Seeds 1–3: refusal recall of forbidden writes (`sft`/`envace`) 53.6/35.7 →
  // 67.9/67.9 and 55.6/55.6 → 60.0/64.4; `envace` parallel:4 against none +0.7/+17.1/+0.7 →
  // +2.0/+15.1/+3.9; env-less success 76.3 → 77.4 (sft 58.8 → 59.6). SFT gate 10 of 10 seeds (seed 5
  // at its second SFT run, seed 9 at its third; v16: seed 0 at its second). RESULTS.md (issue 11).
  rehearsalPrompt: "compact-related",
  curveTasks: 40,
  fidelityCalls: 80,
  concurrency: 64,
};

/**
 * The full recipe on far fewer tasks and steps: only sizes and the number of SFT runs differ from
 * `FULL_PLAN`, so a recipe change reaches `--quick` (and the CI runs made with it) by construction.
 */
export const QUICK_PLAN: DemoPlan = {
  ...FULL_PLAN,
  trainTasksPerDomain: 60,
  worldsPerDomain: 2,
  evalTasks: 12,
  sft: { ...FULL_PLAN.sft, epochs: 1, warmupSteps: 2 },
  // The curve's two points (before RL and after) are what CI can afford.
  rl: { ...FULL_PLAN.rl, steps: 2, tasksPerStep: 2, groupSize: 4, curveEvery: 2 },
  // One SFT run: a second from another initialisation would not pass the far-copy check either
  // after 43 steps, and would double the stage.
  sftAttempts: 1,
  testtimeAttempts: 2,
  curveTasks: 4,
  fidelityCalls: 16,
  concurrency: 32,
};
