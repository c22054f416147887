import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { launchChromium } from "../../helpers/chromium.js";
import { makeTrainRunDir } from "./train-run-fixture.js";
import { envaceExec } from "../../cli.js";

describe("envace report on a train run, rendered in headless Chromium", () => {
  it("writes results.md and a report.html whose per-role curves have a line per role", async () => {
    const { dir } = makeTrainRunDir(5);
    const { stdout } = await envaceExec(["report", dir, "--json"]);
    const path = (JSON.parse(stdout) as { report: string }).report;
    expect(path).toBe(join(dir, "report.html"));
    expect(existsSync(join(dir, "results.md"))).toBe(true);
    expect(
      readFileSync(join(dir, "results.md"), "utf8")
        .split("\n")
        .filter((l) => /^\| \d/.test(l)),
    ).toHaveLength(5);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(pathToFileURL(path).href);
      const charts = await page.$$eval("figure.chart", (figs) =>
        figs.map((f) => {
          const svg = f.querySelector("svg");
          const box = svg?.getBoundingClientRect();
          return {
            id: f.id,
            width: box?.width ?? 0,
            // vega draws each series as one path in a "mark-line" group; the legend names the roles
            lines: f.querySelectorAll("g.mark-line path").length,
            legend: [...f.querySelectorAll("g.mark-text text, text")].map((t) => t.textContent),
          };
        }),
      );
      expect(charts.map((c) => c.id)).toEqual([
        "reward-per-role",
        "advantage-per-role",
        "advantage-net-share-per-role",
        "response-length-per-role",
        "ratio-per-role",
      ]);
      for (const c of charts) {
        expect(c.width).toBeGreaterThan(100);
        expect(c.lines).toBe(2);
        expect(c.legend).toEqual(expect.arrayContaining(["act", "rehearse"]));
      }
      const rows = await page.$$eval("table tbody tr", (trs) => trs.length);
      expect(rows).toBe(5);
    } finally {
      await browser.close();
    }
  });
});
