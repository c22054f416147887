import { describe, expect, it } from "vitest";
import type { Command } from "commander";
import { envaceProgram } from "../../../src/cli/commands.js";

/** Every command of the program, depth first, with its path ("envace demo"). */
function walk(c: Command, path: string[] = []): { path: string; command: Command }[] {
  const here = [...path, c.name()];
  return [{ path: here.join(" "), command: c }, ...c.commands.flatMap((s) => walk(s, here))];
}

describe("envace --help", () => {
  const all = walk(envaceProgram());

  it("has every command the README's reference names", () => {
    const paths = all.map((c) => c.path);
    for (const p of [
      "envace demo",
      "envace train",
      "envace eval",
      "envace tasks import",
      "envace data fetch",
    ])
      expect(paths).toContain(p);
  });

  // commander re-wraps descriptions to the terminal's width, so a hard line break inside one
  // prints as a line cut off mid-sentence; lines meant as written go in addHelpText
  it("has no hard line breaks inside descriptions, which commander would print mid-line", () => {
    const broken: string[] = [];
    for (const { path, command } of all) {
      if (command.description().includes("\n")) broken.push(path);
      for (const o of command.options) if (o.description.includes("\n")) broken.push(`${path} ${o.flags}`);
    }
    expect(broken).toEqual([]);
  });

  it("describes every command and option", () => {
    const bare: string[] = [];
    for (const { path, command } of all) {
      if (command.description().trim() === "") bare.push(path);
      for (const o of command.options) if (o.description.trim() === "") bare.push(`${path} ${o.flags}`);
    }
    expect(bare).toEqual([]);
  });
});
