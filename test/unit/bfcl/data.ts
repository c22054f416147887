import { join } from "node:path";
import { resolveDataDir } from "../../../src/bench/data-dir.js";

/** The BFCL data folder (`../shared/data/bfcl` beside the checkout, as CI lays it out). */
export const BFCL_DIR = join(resolveDataDir(), "bfcl");
