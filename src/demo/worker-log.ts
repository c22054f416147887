import { appendFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";

/**
 * A worker's output, line by line, appended to `file` (an arm's `worker.log`). The demo prints
 * progress, not the worker's lines, and a worker that dies (a crash, a restart, a kill) must leave
 * its last words in the run directory: a user whose arm stops needs them, and so did the
 * twenty-ninth session's `--jobs 4` run whose two stalled arms left no trace. Appended
 * synchronously: the worker prints a few lines a run, and the last ones matter most when it goes.
 */
export function workerLogTo(
  file: string,
  warn: (message: string) => void = (m) => process.stderr.write(`envace: ${m}\n`),
): (line: string) => void {
  let made = false; // the folder is made at the first line: a stage whose worker never starts leaves none
  let failed = false;
  return (line) => {
    if (failed) return;
    try {
      if (!made) mkdirSync(dirname(file), { recursive: true });
      made = true;
      appendFileSync(file, `${line}\n`);
    } catch (error) {
      // The log is called from the worker's output stream: a throw there would end the whole run
      // (every seed) for want of a log file. Said once; the run goes on without it.
      failed = true;
      warn(`cannot write the worker log ${file} (${(error as Error).message}); the run goes on without it`);
    }
  };
}
