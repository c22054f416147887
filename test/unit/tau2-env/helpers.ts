import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  defaultDataDir,
  loadTau2Domain,
  type Tau2Domain,
  type Tau2DomainName,
} from "../../../src/envs/tau2/index.js";

export const dataDir = defaultDataDir();
export const hasData = existsSync(join(dataDir, "tau2", "retail", "tasks.json"));

const cache = new Map<Tau2DomainName, Tau2Domain>();
/** Each domain's files are read once per test file; `createEnv` gives an independent copy. */
export function domain(name: Tau2DomainName): Tau2Domain {
  let d = cache.get(name);
  if (!d) {
    d = loadTau2Domain(name, dataDir);
    cache.set(name, d);
  }
  return d;
}
