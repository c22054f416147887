import type { ArmResult } from "../report/results.js";
import { ENV_DOMAIN, TRAIN_DOMAINS } from "./layout.js";

export type ArmName = ArmResult["name"];

/**
 * The arms of the comparison (issue 5), all starting from the same SFT checkpoint with the same
 * number of RL steps and samples:
 * - `sft`: no RL;
 * - `real`: real-environment RL on the one domain whose environment exists;
 * - `simulator`: RL on all training domains, tool calls answered by the frozen SFT model;
 * - `envace`: world rehearsal, both roles trained with role-wise GRPO, shared parameters;
 * - `envace_anchored`: the same plus a KL anchor to the SFT model (our variant);
 * - `real_all`: real-environment RL on every training domain — the oracle ceiling, using
 *   environments the scenario says we do not have.
 */
export interface ArmSpec {
  name: ArmName;
  /** How training rollouts answer tool calls; `null`: no RL. */
  mode: "rehearsal" | "simulator" | "real" | null;
  domains: readonly string[];
  roles: { act: "train" | "frozen"; rehearse: "train" | "frozen" };
  /** KL coefficient to the SFT weights (the worker's reference is the model it started from). */
  klCoef: number;
  /** Whether this arm's own rehearsed world is measured (the co-adaptation diagnostic). */
  rehearsedWorld: boolean;
}

export function armSpecs(klAnchor: number): ArmSpec[] {
  const train = { act: "train", rehearse: "train" } as const;
  const actOnly = { act: "train", rehearse: "frozen" } as const;
  return [
    { name: "sft", mode: null, domains: [], roles: train, klCoef: 0, rehearsedWorld: true },
    { name: "real", mode: "real", domains: [ENV_DOMAIN], roles: actOnly, klCoef: 0, rehearsedWorld: false },
    {
      name: "simulator",
      mode: "simulator",
      domains: TRAIN_DOMAINS,
      roles: actOnly,
      klCoef: 0,
      rehearsedWorld: false,
    },
    {
      name: "envace",
      mode: "rehearsal",
      domains: TRAIN_DOMAINS,
      roles: train,
      klCoef: 0,
      rehearsedWorld: true,
    },
    {
      name: "envace_anchored",
      mode: "rehearsal",
      domains: TRAIN_DOMAINS,
      roles: train,
      klCoef: klAnchor,
      rehearsedWorld: true,
    },
    {
      name: "real_all",
      mode: "real",
      domains: TRAIN_DOMAINS,
      roles: actOnly,
      klCoef: 0,
      rehearsedWorld: false,
    },
  ];
}
