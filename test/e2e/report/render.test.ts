import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { writeReport } from "../../../src/report/index.js";
import { launchChromium } from "../../helpers/chromium.js";
import { makeDemoRunDir } from "../../helpers/demo-run-fixture.js";

describe("report.html in headless Chromium", () => {
  it("renders every chart with marks", async () => {
    const { dir } = makeDemoRunDir();
    // a loop log with adv_net_share (the fixture's logs are from before the field)
    mkdirSync(join(dir, "arms", "envace_anchored"), { recursive: true });
    writeFileSync(
      join(dir, "arms", "envace_anchored", "metrics.jsonl"),
      [1, 2, 3]
        .map((step) =>
          JSON.stringify({
            step,
            reward_mean: 0.3,
            role: {
              act: { reward_mean: 0.3, adv_net_share: 0.7 - step / 20 },
              rehearse: { reward_mean: 0.3, adv_net_share: 0.4 - step / 20 },
            },
          }),
        )
        .join("\n") + "\n",
    );
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
      expect(charts.map((c) => c.id)).toEqual([
        "reward-per-arm",
        "reward-per-role",
        "advantage-net-share",
        "success",
        "fidelity",
      ]);
      for (const c of charts) {
        expect(c.width).toBeGreaterThan(100);
        expect(c.marks).toBeGreaterThan(5);
      }
    } finally {
      await browser.close();
    }
  });
});
