import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A small deterministic corpus in a fresh temp dir, for `--init tiny` workers in tests. */
export function writeTinyCorpus(): { dir: string; corpus: string } {
  const dir = mkdtempSync(join(tmpdir(), "envace-engines-"));
  const words =
    "the user asks to cancel order status pending delivered refund email name tool call result".split(" ");
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const lines: string[] = [];
  for (let i = 0; i < 300; i++) {
    lines.push(Array.from({ length: 12 }, () => words[Math.floor(rand() * words.length)]).join(" "));
  }
  const corpus = join(dir, "corpus.txt");
  writeFileSync(corpus, lines.join("\n") + "\n");
  return { dir, corpus };
}
