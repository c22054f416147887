import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { envaceExec } from "../../cli.js";

const envace = (args: string[]) => envaceExec(args);

describe("envace train refuses runs that would train nothing, before starting a worker", () => {
  const dir = mkdtempSync(join(tmpdir(), "envace-refusals-"));
  const tasks = join(dir, "tasks.jsonl");
  // A task imported from a log and never given checklists: every reward would be 0.
  writeFileSync(
    tasks,
    JSON.stringify({
      id: "t1",
      domain: "d",
      tools: [],
      user_turns: ["hi"],
      traces: [
        {
          messages: [
            { role: "user", content: "hi" },
            { role: "assistant", content: "hello" },
          ],
        },
      ],
    }) + "\n",
  );
  const config = join(dir, "train.json");
  writeFileSync(
    config,
    JSON.stringify({
      worker: { init: { size: "xs" } },
      tasks,
      mode: "rehearsal",
      steps: 1,
      sft: { epochs: 1 },
    }),
  );

  it("a task file without checklists", async () => {
    await expect(envace(["train", "--config", config, "--out", join(dir, "run")])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(
        /\[INVALID_CONFIG\] no task has a checklist, so every episode's reward is 0/,
      ),
    });
  });

  it("an --out that is a file, before reading the config", async () => {
    const taken = join(dir, "taken");
    writeFileSync(taken, "not a folder");
    await expect(
      envace(["train", "--config", join(dir, "missing.json"), "--out", taken]),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining(`[INVALID_CONFIG] --out ${taken} is a file, not a folder`),
    });
  });

  it("--resume on a directory with no checkpoint", async () => {
    await expect(
      envace(["train", "--config", config, "--out", join(dir, "empty"), "--resume"]),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/--resume: no checkpoint in .*empty to resume from/),
    });
  });
});
