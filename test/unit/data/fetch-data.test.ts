import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BENCHMARKS, dataFiles, fetchBenchmarkData } from "../../../src/bench/data/index.js";
import { startFakeRawServer } from "./fake-raw-server.js";

const SHARED = join(import.meta.dirname, "..", "..", "..", "..", "shared", "data");

function listFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(relative(root, p).split("\\").join("/"));
    }
  };
  if (existsSync(root)) walk(root);
  return out.sort();
}

let dir: string;
let server: Awaited<ReturnType<typeof startFakeRawServer>> | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "envace-data-"));
});
afterEach(async () => {
  await server?.stop();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe("data manifest", () => {
  it.skipIf(!existsSync(SHARED))("lays each benchmark out exactly like ../shared/data", () => {
    for (const bench of BENCHMARKS) {
      const expected = listFiles(join(SHARED, bench)).map((f) => `${bench}/${f}`);
      const manifest = dataFiles(bench)
        .map((f) => f.dest)
        .sort();
      // The shared copy of VitaBench holds only the English delivery and in-store tasks (the others
      // are too large to be copied there); the fetch gets all four domains in both languages.
      // The shared BFCL copy lacks upstream's long-context padding (long_context.py); the fetch gets it.
      if (bench === "vitabench" || bench === "bfcl")
        expect(manifest).toEqual(expect.arrayContaining(expected));
      else expect(manifest).toEqual(expected);
    }
  });

  it("names upstream repositories and paths", () => {
    const airline = dataFiles("tau2").find((f) => f.dest === "tau2/airline/tau-bench-v1/flights.json")!;
    expect(airline).toMatchObject({
      repo: "sierra-research/tau-bench",
      path: "tau_bench/envs/airline/data/flights.json",
    });
    const retail = dataFiles("tau2").find((f) => f.dest === "tau2/retail/db.json")!;
    expect(retail).toMatchObject({
      repo: "sierra-research/tau2-bench",
      path: "data/tau2/domains/retail/db.json",
    });
  });
});

describe("fetchBenchmarkData", () => {
  it("downloads every file of a benchmark into its place, then skips them on a rerun", async () => {
    server = await startFakeRawServer();
    const progress: string[] = [];
    const report = await fetchBenchmarkData("vitabench", {
      dir,
      baseUrl: server.url,
      onProgress: (p) => progress.push(`${p.done}/${p.total} ${p.status}`),
    });
    expect(listFiles(dir)).toEqual([
      "vitabench/LICENSE",
      ...["cross_domain", "delivery", "instore", "ota"].flatMap((d) => [
        `vitabench/${d}/tasks.json`,
        `vitabench/${d}/tasks_en.json`,
      ]),
    ]);
    expect(readFileSync(join(dir, "vitabench/delivery/tasks_en.json"), "utf8")).toBe(
      "content of /meituan-longcat/vitabench/main/data/vita/domains/delivery/tasks_en.json\n",
    );
    expect(report.downloaded).toHaveLength(9);
    expect(progress.at(-1)).toBe("9/9 downloaded");

    const again = await fetchBenchmarkData("vitabench", { dir, baseUrl: server.url });
    expect(again.downloaded).toEqual([]);
    expect(again.skipped).toHaveLength(9);
    expect(server.requests).toHaveLength(9);
  });

  it("fetches the whole tau2 tree, including the tau-bench v1 airline files", async () => {
    server = await startFakeRawServer();
    await fetchBenchmarkData("tau2", { dir, baseUrl: server.url });
    expect(listFiles(dir)).toEqual(
      dataFiles("tau2")
        .map((f) => f.dest)
        .sort(),
    );
    expect(server.requests).toContain(
      "/sierra-research/tau-bench/main/tau_bench/envs/airline/data/users.json",
    );
  });

  it("stops on a 404 with an error naming the URL, leaving no file for it", async () => {
    server = await startFakeRawServer({ missing: ["instore/tasks_en.json"] });
    await expect(
      fetchBenchmarkData("vitabench", { dir, baseUrl: server.url, concurrency: 1 }),
    ).rejects.toMatchObject({
      code: "DATA_DOWNLOAD_ERROR",
      message: expect.stringMatching(/instore\/tasks_en\.json: HTTP 404/),
    });
    expect(listFiles(dir)).toEqual([
      "vitabench/LICENSE",
      "vitabench/delivery/tasks.json",
      "vitabench/delivery/tasks_en.json",
    ]);
    // 404 is not retried.
    expect(server.requests.filter((r) => r.endsWith("instore/tasks_en.json"))).toHaveLength(1);
  });

  it("leaves no partial file when the connection drops mid-download", async () => {
    server = await startFakeRawServer({ broken: ["delivery/tasks_en.json"] });
    await expect(
      fetchBenchmarkData("vitabench", { dir, baseUrl: server.url, attempts: 2, concurrency: 1 }),
    ).rejects.toMatchObject({
      code: "DATA_DOWNLOAD_ERROR",
    });
    expect(listFiles(dir)).toEqual(["vitabench/LICENSE"]);
    expect(server.requests.filter((r) => r.endsWith("delivery/tasks_en.json"))).toHaveLength(2);
  });

  it("re-downloads present files with force", async () => {
    server = await startFakeRawServer();
    await fetchBenchmarkData("vitabench", { dir, baseUrl: server.url });
    const r = await fetchBenchmarkData("vitabench", { dir, baseUrl: server.url, force: true });
    expect(r.downloaded).toHaveLength(9);
    expect(statSync(join(dir, "vitabench/LICENSE")).size).toBeGreaterThan(0);
  });
});
