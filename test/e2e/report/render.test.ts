import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { writeReport } from "../../../src/report/index.js";
import { launchChromium } from "../../helpers/chromium.js";
import { makeDemoRunDir } from "../../helpers/demo-run-fixture.js";

describe("report.html in headless Chromium", () => {
  it("renders every chart with marks", async () => {
    const { dir } = makeDemoRunDir();
    const path = await writeReport(dir);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(pathToFileURL(path).href);
      const charts = await page.$$eval("figure.chart", (figs) =>
        figs.map((f) => {
          const svg = f.querySelector("svg");
          const box = svg?.getBoundingClientRect();
          return { id: f.id, width: box?.width ?? 0, marks: f.querySelectorAll("path, rect, line").length };
        }),
      );
      expect(charts.map((c) => c.id)).toEqual(["reward-per-arm", "reward-per-role", "success", "fidelity"]);
      for (const c of charts) {
        expect(c.width).toBeGreaterThan(100);
        expect(c.marks).toBeGreaterThan(5);
      }
    } finally {
      await browser.close();
    }
  });
});
