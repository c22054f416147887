import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startFakeRawServer } from "../../unit/data/fake-raw-server.js";
import { envaceExec } from "../../cli.js";

let dir: string;
let server: Awaited<ReturnType<typeof startFakeRawServer>> | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "envace-cli-data-"));
});
afterEach(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

// Async execFile: the fake upstream runs in this process and must keep answering.
const envace = (args: string[], baseUrl: string) =>
  envaceExec(args, { env: { ...process.env, ENVACE_DATA_BASE_URL: baseUrl } });

describe("envace data fetch", () => {
  it("downloads vitabench into --dir with progress on stderr and a JSON report on stdout", async () => {
    server = await startFakeRawServer();
    const { stdout, stderr } = await envace(
      ["data", "fetch", "vitabench", "--dir", dir, "--json"],
      server.url,
    );
    const report = JSON.parse(stdout) as { bench: string; downloaded: string[] };
    expect(report.bench).toBe("vitabench");
    expect(report.downloaded.sort()).toEqual([
      "vitabench/LICENSE",
      ...["cross_domain", "delivery", "instore", "ota"].flatMap((d) => [
        `vitabench/${d}/tasks.json`,
        `vitabench/${d}/tasks_en.json`,
      ]),
    ]);
    expect(stderr).toContain("[9/9]");
    expect(existsSync(join(dir, "vitabench/instore/tasks_en.json"))).toBe(true);
  });

  it("exits 1 with a clear error on a 404 and leaves no partial file", async () => {
    server = await startFakeRawServer({ missing: ["delivery/tasks_en.json"] });
    await expect(envace(["data", "fetch", "vitabench", "--dir", dir], server.url)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(
        /\[DATA_DOWNLOAD_ERROR\] cannot fetch .*delivery\/tasks_en\.json: HTTP 404/,
      ),
    });
    expect(existsSync(join(dir, "vitabench/delivery/tasks_en.json"))).toBe(false);
    const leftovers = existsSync(join(dir, "vitabench/delivery"))
      ? readdirSync(join(dir, "vitabench/delivery"))
      : [];
    // the Chinese file of the same domain may have arrived before the failure; no partial file did
    expect(leftovers.filter((f) => f !== "tasks.json")).toEqual([]);
  });
});
