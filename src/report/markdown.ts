import type { DemoResults, MeanCIJson } from "./results.js";

/** One seed's row of the SFT gate, as the results file holds it. */
type SeedGateRow = NonNullable<DemoResults["sft_gate"]["per_seed"]>[number];

function pct(m: MeanCIJson | null | undefined): string {
  if (!m || m.mean === null) return "–";
  const base = (100 * m.mean).toFixed(1);
  return m.ci95 === null || Number.isNaN(m.ci95) ? base : `${base} ± ${(100 * m.ci95).toFixed(1)}`;
}

/** A share as a percentage with one decimal; "–" where there is none. */
function p1(x: number | null): string {
  return x === null ? "–" : (100 * x).toFixed(1);
}

/** A test-time row's seeds, each with its change against the policy's none row when given ("–" for one seed). */
function perSeedCell(seeds?: readonly (number | null)[], none?: readonly (number | null)[]): string {
  if (!seeds) return "–";
  return seeds
    .map((x, k) => {
      const base = none?.[k];
      if (x === null || base === undefined || base === null) return p1(x);
      const d = 100 * (x - base);
      return `${p1(x)} (${d >= 0 ? "+" : "−"}${Math.abs(d).toFixed(1)})`;
    })
    .join(" / ");
}

/** The demo's main table (issue 5) as GitHub markdown, plus the test-time rows. */
export function resultsMarkdown(r: DemoResults): string {
  const lines = [
    "| arm | env calls in training | success: env domain | success: env-less domains | success: held-out domain | fidelity (answers in prompt) | fidelity (unseen calls) | rehearsed-world success |",
    "|---|---|---|---|---|---|---|---|",
  ];
  for (const a of r.arms) {
    const fid = a.fidelity ? `${(100 * a.fidelity.recorded.exact).toFixed(1)}` : "–";
    const unseen = a.fidelity_unseen
      ? `${(100 * a.fidelity_unseen.exact).toFixed(1)} (n=${a.fidelity_unseen.n})`
      : "–";
    lines.push(
      `| ${a.name} | ${a.train_env_calls} | ${pct(a.success.env_domain)} | ${pct(a.success.envless)} | ${pct(
        a.success.heldout_domain,
      )} | ${fid} | ${unseen} | ${pct(a.rehearsed_world_success)} |`,
    );
  }
  if (r.rl_steps !== undefined)
    lines.push("", `Every RL arm: ${r.rl_steps} RL steps from the same SFT checkpoint.`);
  const perSeed = r.arms.filter((a) => a.success_per_seed);
  if ((r.seeds ?? 1) > 1 && perSeed.length > 0) {
    const seeds = perSeed[0]!.success_per_seed!.envless.map((_, k) => (r.seed ?? 0) + k);
    lines.push(
      "",
      "Env-less success per seed (each seed's own tasks):",
      "",
      `| arm | ${seeds.map((s) => `seed ${s}`).join(" | ")} |`,
      `|${"---|".repeat(seeds.length + 1)}`,
    );
    for (const a of perSeed) {
      lines.push(`| ${a.name} | ${a.success_per_seed!.envless.map(p1).join(" | ")} |`);
    }
  }
  const transfer = r.arms.filter((a) => a.heldout_first_call);
  if (transfer.length > 0) {
    lines.push(
      "",
      "Held-out domain, first act call (where transfer fails): " +
        transfer
          .map((a) => {
            const f = a.heldout_first_call!;
            return `${a.name} ${p1(f.domain_tool)}% name one of its tools, ${p1(f.right_tool)}% the right one, ${p1(f.exact)}% exact`;
          })
          .join("; ") +
        ".",
    );
  }
  const failures = r.arms.filter((a) => a.envless_failures);
  if (failures.length > 0) {
    // Columns in the schema's order of kinds (`src/bench/failure-kinds.ts`), named by their keys.
    const kinds = Object.keys(failures[0]!.envless_failures!).filter((k) => k !== "episodes");
    lines.push(
      "",
      "Why env-less tasks failed (failed tasks by the first failing standard's kind, summed over seeds):",
      "",
      `| arm | tasks | failed | ${kinds.map((k) => k.replaceAll("_", " ")).join(" | ")} |`,
      `|${"---|".repeat(kinds.length + 3)}`,
    );
    for (const a of failures) {
      const f = a.envless_failures as Record<string, number>;
      const counts = kinds.map((k) => f[k]!);
      const failed = counts.reduce((x, y) => x + y, 0);
      lines.push(`| ${a.name} | ${f.episodes} | ${failed} | ${counts.join(" | ")} |`);
    }
  }
  const byTool = r.arms.filter((a) => a.fidelity_unseen_by_tool);
  if (byTool.length > 0) {
    const tools = [...new Set(byTool.flatMap((a) => Object.keys(a.fidelity_unseen_by_tool!)))].sort();
    lines.push(
      "",
      "Fidelity on unseen calls by tool (exact %, calls; pooled over seeds): where a rehearsed world departs from the real one.",
      "",
      `| arm | ${tools.join(" | ")} |`,
      `|${"---|".repeat(tools.length + 1)}`,
    );
    for (const a of byTool) {
      const cell = (t: string) => {
        const f = a.fidelity_unseen_by_tool![t];
        return f ? `${(100 * f.exact).toFixed(0)} (${f.n})` : "–";
      };
      lines.push(`| ${a.name} | ${tools.map(cell).join(" | ")} |`);
    }
  }
  const g = r.sft_gate;
  const gateSeeds =
    g.seeds_passed !== undefined && g.per_seed
      ? ` Passed on ${g.seeds_passed} of ${g.per_seed.length} seed(s)` +
        (g.fidelity_unseen !== undefined
          ? `; fidelity on unseen calls ${(100 * g.fidelity_unseen).toFixed(1)}%.`
          : ".")
      : "";
  const single = g.per_seed?.length === 1 ? g.per_seed[0] : undefined;
  const checkLine = single?.copy_check ? ` Far-copy check on held-back logs: ${copyCheckCell(single)}.` : "";
  const out = [
    `# envace demo results`,
    "",
    `Run time ${r.minutes.toFixed(1)} min. SFT gate: first-call copy ${(
      100 * r.sft_gate.first_call_copy
    ).toFixed(1)}%,` +
      (r.sft_gate.write_call_copy !== undefined
        ? ` write-call copy ${(100 * r.sft_gate.write_call_copy).toFixed(1)}%,`
        : "") +
      ` fidelity ${(100 * r.sft_gate.fidelity).toFixed(1)}% (answers in prompt).${gateSeeds}${checkLine}`,
    "",
    ...lines,
    "",
    "Success is measured in the real environments (every checklist standard met), mean ± 95% CI over tasks" +
      (r.seeds && r.seeds > 1 ? " and seeds" : "") +
      ". Fidelity is the exact-match rate of rehearsed tool responses against the real ones: on recorded calls" +
      " with the task's own answers in the prompt (a copying test), and on calls whose answers no prompt showed" +
      " (held-out recorded calls with other tasks' logs as evidence, and the policy's own calls).",
  ];
  if (g.per_seed && g.per_seed.length > 1) {
    out.push(
      "",
      "## SFT gate per seed",
      "",
      "| seed | first-call copy | write-call copy | fidelity (unseen calls) | fidelity (answers in prompt) | SFT success, env-less | flawed log traces | copy check (write / reply), SFT runs | gate |",
      "|---|---|---|---|---|---|---|---|---|",
    );
    const p1 = (x: number | undefined) => (x === undefined ? "–" : (100 * x).toFixed(1));
    for (const s of g.per_seed) {
      out.push(
        `| ${s.seed} | ${p1(s.first_call_copy)} | ${p1(s.write_call_copy)} | ${p1(s.fidelity_unseen)} | ${p1(s.fidelity)} | ${p1(
          s.envless_success,
        )} | ${p1(s.flawed_traces)} | ${copyCheckCell(s)} | ${s.passed ? "passed" : "NOT met"} |`,
      );
    }
  }
  if (r.testtime.length > 0) {
    out.push(
      "",
      "## Test-time private rehearsal",
      "",
      "| policy | mode | memory | success | per seed (change against none) | real calls while rehearsing | writes held back | steps written without the note | rehearsal tokens / task |",
      "|---|---|---|---|---|---|---|---|---|",
    );
    for (const t of r.testtime) {
      const none = r.testtime.find((x) => x.policy === t.policy && x.mode === "none");
      out.push(
        `| ${t.policy} | ${t.mode}${t.n ? `:${t.n}` : ""} | ${t.memory ?? "–"} | ${pct(t.success)} | ${perSeedCell(
          t.success_per_seed,
          t === none ? undefined : none?.success_per_seed,
        )} | ${t.real_calls_during_rehearsal} | ${t.guard ? String(t.held_calls ?? 0) : "–"} | ${
          t.note_use ? `${t.rewritten_steps ?? 0} replaced` : "–"
        } | ${t.rehearsal_tokens_per_task.toFixed(0)} |`,
      );
    }
  } else {
    out.push("", "Test-time rehearsal rows: not run in this pipeline yet.");
  }
  for (const n of r.notes ?? []) out.push("", `> ${n}`);
  return out.join("\n") + "\n";
}

/**
 * A seed's far-copy check: write / reply copy rates, its verdict (v18: on writes), a reply rate
 * under its level (reported, not retrained), and the SFT runs it took.
 */
function copyCheckCell(s: Pick<SeedGateRow, "copy_check" | "sft_attempts">): string {
  if (!s.copy_check) return "–";
  const c = s.copy_check;
  const runs = s.sft_attempts ?? 1;
  // the level as the CLI's progress line names it; older results files do not carry it
  const level = c.reply_level === undefined ? "their level" : `${(100 * c.reply_level).toFixed(0)}%`;
  const replies = c.reply_met === false ? ` (replies under ${level}: reported, not retrained)` : "";
  return (
    `${(100 * c.write).toFixed(0)} / ${(100 * c.reply).toFixed(0)} ${c.passed ? "passed" : "NOT met"}${replies}, ` +
    `${runs} SFT run${runs === 1 ? "" : "s"}`
  );
}
