import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { TaskBenchSummary } from "../../../src/bench/tasks/index.js";
import { REPO_ROOT } from "../mcp/servers.js";
import { envaceExec, envaceSync } from "../../cli.js";

// A user's own task file whose world is a real published MCP server (@modelcontextprotocol/server-memory),
// evaluated with test-time rehearsal as `envace eval` runs it.
const file = join(REPO_ROOT, "examples/tasks/memory.jsonl");

async function evalJson(extra: string[]): Promise<TaskBenchSummary> {
  const { stdout } = await envaceExec([
    "eval",
    "--bench",
    `tasks:${file}`,
    "--policy",
    "gold",
    "--json",
    ...extra,
  ]);
  return JSON.parse(stdout) as TaskBenchSummary;
}

describe("envace eval --bench tasks:FILE --rehearsal", () => {
  it("rehearses privately, then commits once in the real MCP world: the plain run's successes and real calls", async () => {
    const plain = await evalJson([]);
    const rehearsed = await evalJson(["--rehearsal", "parallel:2"]);
    expect(plain.rehearsal).toMatchObject({ mode: "none", tokens: { total: 0 } });
    expect(plain.success_rate).toBe(1);
    expect(rehearsed.success_rate).toBe(plain.success_rate);
    expect(rehearsed.env_calls).toBe(plain.env_calls);
    expect(rehearsed.rehearsal).toMatchObject({ mode: "parallel", n: 2, real_calls_during_rehearsal: 0 });
    // every user turn of every task rehearsed twice
    expect(rehearsed.rehearsal.attempts).toBeGreaterThanOrEqual(2 * rehearsed.tasks);
    expect(rehearsed.rehearsal.calls.rehearse).toBeGreaterThan(0);
    const perTrial = rehearsed.results;
    expect(perTrial.every((r) => (r.rehearsal_tokens ?? 0) > 0 && r.real_calls_during_rehearsal === 0)).toBe(
      true,
    );
    expect(perTrial.reduce((n, r) => n + (r.rehearsal_tokens ?? 0), 0)).toBe(
      rehearsed.rehearsal.tokens.total,
    );
    // the committed runs' calls reached the server; none were rehearsed in their place
    expect(perTrial.every((r) => r.env_calls > 0 && r.rehearsed_calls === 0)).toBe(true);
  }, 120_000);

  it("exits 2 on rehearsal without a real world, on --guard-tools writes, and on a tool the file lacks", () => {
    const cases: Array<[string[], RegExp]> = [
      [["--env", "none", "--rehearsal", "parallel:2"], /with --env none every call is rehearsed already/],
      [
        ["--rehearsal", "parallel:2", "--guard-tools", "writes"],
        /a task file does not say which tools write/,
      ],
      [
        ["--rehearsal", "parallel:2", "--guard-tools", "rm_rf"],
        /this task file has no tool "rm_rf" \(its tools: /,
      ],
    ];
    for (const [extra, message] of cases) {
      const r = envaceSync(["eval", "--bench", `tasks:${file}`, "--policy", "gold", ...extra]);
      expect(r.code, extra.join(" ")).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  }, 120_000);
});
