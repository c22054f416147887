import { registerTaskGenerator } from "../task-generator-registry.js";
import { registerTaskKind } from "../task-kind-registry.js";
import { generateTasks } from "./generate.js";
import { goldSolve } from "./gold-solver.js";
import { TOOLWORLD_DOMAINS } from "./registry.js";
import { toolworldCorpus, toolworldVocabulary } from "./vocabulary.js";

/**
 * Makes the toolworld demo domains known to the library: `generator: toolworld` task sources and
 * `env.kind: toolworld` tasks' gold solver and tiny-model tokenizer text (their real environments
 * come from `../task-environment.ts`).
 * Importing this module registers them (the CLI and the package entry do); calling again is harmless.
 */
export function registerToolworld(): void {
  registerTaskGenerator("toolworld", (spec) =>
    (spec.domains ?? TOOLWORLD_DOMAINS).flatMap((domain) =>
      generateTasks({ domain, seed: spec.seed, count: spec.count, split: spec.split }),
    ),
  );
  registerTaskKind("toolworld", {
    goldRun: goldSolve,
    corpus: toolworldCorpus,
    vocabulary: (tasks) => {
      // whole tokens for exactly the domains these tasks use
      const domains = [
        ...new Set(tasks.map((t) => (t.env?.kind === "toolworld" ? (t.env.domain ?? t.domain) : t.domain))),
      ];
      return domains.length > 0 ? toolworldVocabulary(domains) : [];
    },
  });
}

registerToolworld();
