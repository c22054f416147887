import { canonicalJson } from "../core/canonical-json.js";
import type { RehearsalProbe, ScoredProbe } from "./fidelity-probes.js";

/** How two rehearsers answer the same probes: alike or not, and which one is right where they differ. */
export interface RehearserAgreement {
  probes: number;
  /** The same answer (canonical JSON; both unparsed counts as the same). */
  same: number;
  /** Of those, how many are right. */
  sameRight: number;
  /** Different answers: only the first right, only the second right, neither. */
  onlyFirstRight: number;
  onlySecondRight: number;
  neitherRight: number;
}

/**
 * Two rehearsers' answers to the same probes, paired in order (both scored by `probeFidelity` on
 * one probe list). Why: two rehearsers with about the same fidelity may still answer different calls
 * right; whether a co-trained rehearser and the frozen SFT one give the actor's RL the same world is
 * how often they answer alike (issue 11: `envace` and `simulator` stay level).
 */
export function rehearserAgreement(
  first: readonly ScoredProbe[],
  second: readonly ScoredProbe[],
): RehearserAgreement {
  if (first.length !== second.length || first.some((p, i) => p.probe !== second[i]!.probe))
    throw new Error("rehearserAgreement: the two lists must score the same probes in the same order");
  const out: RehearserAgreement = {
    probes: first.length,
    same: 0,
    sameRight: 0,
    onlyFirstRight: 0,
    onlySecondRight: 0,
    neitherRight: 0,
  };
  first.forEach((a, i) => {
    const b = second[i]!;
    if (canonicalJson(a.rehearsed ?? null) === canonicalJson(b.rehearsed ?? null)) {
      out.same++;
      if (a.score.exact) out.sameRight++;
    } else if (a.score.exact) out.onlyFirstRight++;
    else if (b.score.exact) out.onlySecondRight++;
    else out.neitherRight++;
  });
  return out;
}

/** Agreement with each rehearser's fidelity (exact answers / probes) on the same probes. */
export interface AgreementFigures extends RehearserAgreement {
  fidelity: { first: number; second: number };
}

/**
 * `rehearserAgreement` on the probes `keep` selects (both lists filtered alike, so they stay
 * paired), with each side's fidelity there (0 where nothing is selected). Why: the figures of
 * `bench:rehearser-agreement --calls training` are read apart for calls whose answer the prompt
 * shows and the others.
 */
export function agreementWhere(
  first: readonly ScoredProbe[],
  second: readonly ScoredProbe[],
  keep: (p: RehearsalProbe) => boolean = () => true,
): AgreementFigures {
  const a = rehearserAgreement(
    first.filter((s) => keep(s.probe)),
    second.filter((s) => keep(s.probe)),
  );
  const n = Math.max(1, a.probes);
  return {
    ...a,
    fidelity: { first: (a.sameRight + a.onlyFirstRight) / n, second: (a.sameRight + a.onlySecondRight) / n },
  };
}
