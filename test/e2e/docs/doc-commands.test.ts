import { execFile } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../mcp/servers.js";
import { DOC_COMMANDS, type DocCommandEntry } from "./doc-commands.manifest.js";
import { commandsInMarkdown, docCommands } from "./extract-commands.js";

const exec = promisify(execFile);

/**
 * Every command written in README.md, examples/README.md and docs/*.md runs as written, or has a test of its own
 * (doc-commands.manifest.ts says which, and how each is checked).
 */
const documented = docCommands(REPO_ROOT);
const entries = Object.entries(DOC_COMMANDS);
const byKind = <K extends DocCommandEntry["kind"]>(kind: K) =>
  entries.filter((e): e is [string, Extract<DocCommandEntry, { kind: K }>] => e[1].kind === kind);

// CLI commands run in a scratch folder that looks like the repository root to them.
const scratch = mkdtempSync(join(tmpdir(), "envace-doc-commands-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
for (const name of ["examples", "node_modules"]) symlinkSync(join(REPO_ROOT, name), join(scratch, name));
mkdirSync(join(scratch, "runs"));

/** The command as bash runs it: the CLI from source (what `npm ci` builds into dist/ and links). */
function runnable(command: string): { line: string; cwd: string } {
  const cli = `${JSON.stringify(process.execPath)} --import tsx ${JSON.stringify(join(REPO_ROOT, "src/cli/main.ts"))} `;
  const m = /^(envace|npx envace|node dist\/cli\/main\.js) /.exec(command);
  return m ? { line: cli + command.slice(m[0].length), cwd: scratch } : { line: command, cwd: REPO_ROOT }; // npm scripts are the repository's
}

describe("commands in README.md, examples/README.md and docs/*.md", () => {
  it("finds commands in fenced blocks, joining continuations and dropping trailing comments", () => {
    const md =
      "text `envace x`\n```sh\n# envace not this\nenvace a \\\n  --b c   # note\nls\n```\n```\nnpm run d\n```\n";
    expect(commandsInMarkdown(md)).toEqual(["envace a --b c", "npm run d"]);
  });

  it("each documented command has a manifest entry, and each entry a documented command", () => {
    const written = new Set(documented.map((d) => d.command));
    expect(documented.length).toBeGreaterThan(20);
    expect(
      documented.filter((d) => !(d.command in DOC_COMMANDS)).map((d) => `${d.file}: ${d.command}`),
      "commands with no entry in doc-commands.manifest.ts",
    ).toEqual([]);
    expect(
      entries.map(([c]) => c).filter((c) => !written.has(c)),
      "entries whose command is no longer in the docs",
    ).toEqual([]);
  });

  it("a command named as run by a test appears in that test", () => {
    const squeeze = (s: string) => s.replace(/\s+/g, "");
    for (const [command, e] of byKind("test")) {
      const file = join(REPO_ROOT, e.test);
      expect(existsSync(file), `${e.test} (for: ${command})`).toBe(true);
      expect(squeeze(readFileSync(file, "utf8")), `${e.test} runs: ${command}`).toContain(squeeze(e.as));
    }
  });

  it("a command that cannot run here uses only options its --help lists", async () => {
    for (const [command, e] of byKind("help")) {
      const { line, cwd } = runnable(`envace ${e.subcommand.join(" ")} --help`);
      const { stdout } = await exec("bash", ["-c", line], { cwd });
      for (const option of command.match(/--[a-z][a-z-]*/g) ?? []) {
        expect(stdout, `${e.subcommand.join(" ")} --help lists ${option} (for: ${command})`).toContain(
          option,
        );
      }
    }
  });

  it("an npm script too slow to run here is defined and starts a file that exists", () => {
    const scripts = (
      JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
        scripts: Record<string, string>;
      }
    ).scripts;
    for (const [command, e] of byKind("script")) {
      const script = scripts[e.script];
      expect(script, `package.json script ${e.script} (for: ${command})`).toBeDefined();
      const files = [
        ...(script!.match(/\S+\.(?:ts|mjs|js)\b/g) ?? []),
        ...[...script!.matchAll(/-m (\S+)/g)].map((m) => `worker/${m[1]!.replaceAll(".", "/")}.py`),
      ];
      for (const f of files) expect(existsSync(join(REPO_ROOT, f)), `${f} (for: ${command})`).toBe(true);
    }
  });

  it.each(byKind("run"))("runs: %s", async (command, e) => {
    for (const [name, text] of Object.entries(e.files ?? {})) writeFileSync(join(scratch, name), text);
    const { line, cwd } = runnable(command);
    const { stdout } = await exec("bash", ["-c", line], { cwd, maxBuffer: 64 << 20 });
    if (e.expect) expect(stdout).toMatch(e.expect);
  });
});
