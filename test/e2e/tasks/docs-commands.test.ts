import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it, onTestFinished } from "vitest";
import { REPO_ROOT } from "../mcp/servers.js";

const exec = promisify(execFile);

/** The shell commands of docs/tasks.md's "Three commands" block, with continuation lines joined. */
function docCommands(): string[] {
  const doc = readFileSync(join(REPO_ROOT, "docs/tasks.md"), "utf8");
  const block = /## Three commands\s+```sh\n([\s\S]*?)```/.exec(doc)![1]!;
  return block
    .replace(/\\\n\s*/g, "")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
}

describe("docs/tasks.md", () => {
  it("its commands run as written (npx envace is the CLI from source; runs/ a scratch folder)", async () => {
    const commands = docCommands();
    expect(commands).toHaveLength(4);
    mkdirSync(join(REPO_ROOT, "tmp"), { recursive: true });
    const scratch = mkdtempSync(join(REPO_ROOT, "tmp", "e2e-docs-"));
    onTestFinished(() => rmSync(scratch, { recursive: true, force: true }));
    const outputs: string[] = [];
    for (const cmd of commands) {
      const line = cmd.replace(/^npx envace /, "npx tsx src/cli/main.ts ").replaceAll("runs/", `${scratch}/`);
      const { stdout } = await exec("bash", ["-c", line], { cwd: REPO_ROOT, maxBuffer: 16 << 20 });
      outputs.push(stdout);
    }
    expect(outputs[0]).toMatch(/imported 2 tasks \(3 recorded calls, 2 traces, 2 with checklists\)/);
    expect(outputs[1]).toMatch(
      /ok {4}memory-0001: sft act 1, rehearse 1 · rehearsal RL · real env mcp · rules only/,
    );
    expect(outputs[1]).toMatch(/helpdesk-0002: .* no real env/);
    expect(outputs[2]).toMatch(/reward mean: 1\.0000\nenvironment: real \(mcp\)/);
    expect(outputs[3]).toMatch(/environment: rehearsed/);
  });

  it("the schema command prints the JSON Schema with every task field", async () => {
    const { stdout } = await exec("npx", ["tsx", "src/cli/main.ts", "tasks", "schema"], { cwd: REPO_ROOT });
    const schema = JSON.parse(stdout) as {
      properties: Record<string, unknown>;
      additionalProperties: unknown;
    };
    expect(Object.keys(schema.properties)).toEqual([
      "id",
      "domain",
      "system",
      "tools",
      "user_turns",
      "checklists",
      "examples",
      "traces",
      "env",
    ]);
    expect(schema.additionalProperties).toBe(false);
  });
});
