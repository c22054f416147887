import { accessSync, constants, existsSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";

/**
 * Why `dir` cannot hold a command's output, or undefined when it can (it exists as a folder, or can
 * be made under the nearest folder above it). Checked before any work, so a mistyped `--out` fails
 * at once and not at the first write minutes later; creates nothing.
 */
export function outputDirProblem(option: string, dir: string): string | undefined {
  const wanted = resolve(dir);
  let p = wanted;
  while (!existsSync(p) && dirname(p) !== p) p = dirname(p);
  if (!statSync(p).isDirectory())
    return p === wanted
      ? `${option} ${dir} is a file, not a folder`
      : `${option} ${dir} cannot be made: ${p} is a file`;
  try {
    accessSync(p, constants.W_OK);
  } catch {
    return `${option} ${dir}: ${p} is not writable`;
  }
  return undefined;
}
