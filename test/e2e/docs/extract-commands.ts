import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** A shell command written in a fenced code block of a markdown file. */
export interface DocCommand {
  /** The file, relative to the repository root. */
  file: string;
  /** The command with continuation lines joined and a trailing `# comment` removed. */
  command: string;
}

/** What a line must start with to be a command of ours (the CLI, built or from source, or npm). */
const COMMAND_START = /^(envace|npx envace|node dist\/cli\/main\.js|npm) /;

/** The commands in the fenced code blocks of one markdown text. */
export function commandsInMarkdown(markdown: string): string[] {
  const out: string[] = [];
  for (const block of markdown.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)) {
    const lines = block[1]!.replace(/\\\n\s*/g, "").split("\n");
    for (const raw of lines) {
      const line = raw
        .trim()
        .replace(/^\$ /, "")
        .replace(/\s+#(\s.*)?$/, "");
      if (COMMAND_START.test(line)) out.push(line.replace(/\s+/g, " "));
    }
  }
  return out;
}

/** Every command of README.md, examples/README.md and docs/*.md, in file order. */
export function docCommands(repoRoot: string): DocCommand[] {
  const files = [
    "README.md",
    "examples/README.md",
    ...readdirSync(join(repoRoot, "docs"))
      .filter((f) => f.endsWith(".md"))
      .sort()
      .map((f) => `docs/${f}`),
  ];
  return files.flatMap((file) =>
    commandsInMarkdown(readFileSync(join(repoRoot, file), "utf8")).map((command) => ({ file, command })),
  );
}
