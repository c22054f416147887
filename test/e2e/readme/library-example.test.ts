import { execFile } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  startMockOpenAIServer,
  type MockChatBody,
  type MockOpenAIServer,
} from "../../../src/testing/index.js";

const exec = promisify(execFile);
const REPO_ROOT = resolve(import.meta.dirname, "../../..");
const bin = (name: string) => join(REPO_ROOT, "node_modules", ".bin", name);

/** The README's library example: the ```ts block of the section that imports from "envace". */
function readmeExample(): string {
  const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
  const blocks = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  const mine = blocks.filter((b) => /from "envace"/.test(b));
  if (mine.length !== 1)
    throw new Error(`expected one README ts block importing "envace", found ${mine.length}`);
  return mine[0]!;
}

/**
 * A project outside the repository with the packed package installed the way npm lays it out
 * (node_modules/envace from the tarball). Its dependencies are the repository's own, linked in:
 * the npm cache holds the locked tarballs but not the registry metadata an offline
 * `npm install <tarball>` needs to resolve ranges, and a network install would make CI slow and flaky.
 */
async function projectWithPackedEnvace(): Promise<string> {
  if (!existsSync(join(REPO_ROOT, "dist", "index.js")))
    throw new Error("dist/ is missing: run `npm run build` (npm ci does it through `prepare`)");
  const root = mkdtempSync(join(tmpdir(), "envace-readme-"));
  const { stdout } = await exec("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", root], {
    cwd: REPO_ROOT,
  });
  const tarball = join(root, (JSON.parse(stdout) as { filename: string }[])[0]!.filename);
  const proj = join(root, "proj");
  const nm = join(proj, "node_modules");
  mkdirSync(join(nm, "envace"), { recursive: true });
  writeFileSync(join(proj, "package.json"), JSON.stringify({ name: "agent", private: true, type: "module" }));
  await exec("tar", ["-xzf", tarball, "-C", join(nm, "envace"), "--strip-components=1"]);
  for (const entry of readdirSync(join(REPO_ROOT, "node_modules")))
    if (entry !== "envace") symlinkSync(join(REPO_ROOT, "node_modules", entry), join(nm, entry));
  return proj;
}

/**
 * A model that acts sensibly enough for the example to do real work: on a user turn it calls the
 * memory server (store, then read), after a tool result it answers, and when asked to play a tool
 * (the rehearsal prompt) it returns a well-formed imagined result.
 */
function handler(body: MockChatBody): string {
  const text = body.messages.map((m) => m.content ?? "").join("\n");
  if (/execution_result/.test(body.messages[0]?.content ?? ""))
    return '<execution_result>\n{"entities": [], "relations": []}\n</execution_result>';
  const last = body.messages[body.messages.length - 1]!;
  if (last.role === "user" && /Remember that Ada/.test(last.content ?? ""))
    return '<tool_call>{"name": "create_entities", "arguments": {"entities": [{"name": "Ada", "entityType": "person", "observations": ["works at the Analytical Engine Company"]}]}}</tool_call>';
  if (last.role === "user" && /Where does Ada work/.test(last.content ?? ""))
    return '<tool_call>{"name": "read_graph", "arguments": {}}</tool_call>';
  return /Analytical Engine Company/.test(last.content ?? "") || /read_graph/.test(text)
    ? "Ada works at the Analytical Engine Company."
    : "Noted.";
}

describe("the README's library example, outside the repository", () => {
  let proj: string;
  let mock: MockOpenAIServer;
  beforeAll(async () => {
    [proj, mock] = await Promise.all([projectWithPackedEnvace(), startMockOpenAIServer({ handler })]);
    writeFileSync(join(proj, "agent.mts"), readmeExample());
  }, 120_000);
  afterAll(async () => {
    await mock?.close();
    if (proj) rmSync(dirname(proj), { recursive: true, force: true });
  });

  it("typechecks against the packed package's declarations", async () => {
    writeFileSync(
      join(proj, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "nodenext",
          target: "es2022",
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ["node"],
        },
        files: ["agent.mts"],
      }),
    );
    await expect(exec(bin("tsc"), ["-p", "tsconfig.json"], { cwd: proj })).resolves.toBeDefined();
    // it resolved "envace" to the installed package, not to the repository's sources
    expect(existsSync(join(proj, "node_modules", "envace", "dist", "index.d.ts"))).toBe(true);
  }, 120_000);

  it("runs as written against a real MCP memory server, with no real call while rehearsing", async () => {
    const memoryFile = join(proj, "memory.jsonl");
    const { stdout } = await exec(bin("tsx"), ["agent.mts"], {
      cwd: proj,
      env: {
        ...process.env,
        OPENAI_BASE_URL: mock.baseURL,
        MODEL: "mock-model",
        MEMORY_FILE_PATH: memoryFile,
      },
      timeout: 90_000,
    });
    expect(stdout).toContain("agent: Ada works at the Analytical Engine Company.  [1 real call(s)]");
    expect(stdout).toMatch(/rehearsal: [1-9]\d* attempts, [1-9]\d* tokens, 0 real calls while rehearsing/);
    // the real server stored what the committed turn sent
    expect(readFileSync(memoryFile, "utf8")).toContain("works at the Analytical Engine Company");
    expect(mock.requests.some((r) => /execution_result/.test(r.body.messages[0]?.content ?? ""))).toBe(true);
  }, 120_000);
});
