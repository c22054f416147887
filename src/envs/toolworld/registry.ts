import { EnvaceError } from "../../core/errors.js";
import { DOMAIN_SPECS } from "./domains/index.js";
import type { DomainSpec } from "./types.js";

/** Domain names: training domains, then the held-out domain (never seen in training). */
export const TOOLWORLD_DOMAINS = DOMAIN_SPECS.map((d) => d.name);
export const TOOLWORLD_TRAIN_DOMAINS = DOMAIN_SPECS.filter((d) => d.role === "train").map((d) => d.name);
export const TOOLWORLD_HELDOUT_DOMAINS = DOMAIN_SPECS.filter((d) => d.role === "heldout").map((d) => d.name);

export function domainSpec(name: string): DomainSpec {
  const d = DOMAIN_SPECS.find((s) => s.name === name);
  if (!d) {
    throw new EnvaceError(
      "INVALID_CONFIG",
      `unknown toolworld domain "${name}"; known: ${TOOLWORLD_DOMAINS.join(", ")}`,
    );
  }
  return d;
}
