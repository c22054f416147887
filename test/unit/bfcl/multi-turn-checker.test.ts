import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { BfclCategory } from "../../../src/bench/bfcl/categories.js";
import { loadCategory } from "../../../src/bench/bfcl/load.js";
import { multiTurnChecker } from "../../../src/bench/bfcl/multi-turn-checker.js";
import { loadLongContext } from "../../../src/envs/bfcl/long-context.js";
import { BFCL_DIR } from "./data.js";

const gold = (gt: string[][]) => gt.map((t) => (t.length > 0 ? [t] : []));

describe("multi-turn checker: the ground truth passes", () => {
  const categories: BfclCategory[] = ["multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param"];
  for (const category of categories) {
    it(`replaying every ${category} ground truth passes`, () => {
      const { entries, answers } = loadCategory(BFCL_DIR, category);
      expect(entries).toHaveLength(200);
      for (const [i, e] of entries.entries()) {
        const gt = answers![i] as string[][];
        expect({ id: e.id, ...multiTurnChecker(gold(gt), gt, e) }).toEqual({ id: e.id, valid: true });
      }
    });
  }
  const lcPresent = existsSync(join(BFCL_DIR, "long_context.py"));
  it.skipIf(!lcPresent)(
    "replaying every multi_turn_long_context ground truth passes (needs bfcl/long_context.py)",
    () => {
      const lc = loadLongContext(BFCL_DIR);
      const { entries, answers } = loadCategory(BFCL_DIR, "multi_turn_long_context");
      for (const [i, e] of entries.entries()) {
        const gt = answers![i] as string[][];
        expect({ id: e.id, ...multiTurnChecker(gold(gt), gt, e, lc) }).toEqual({ id: e.id, valid: true });
      }
    },
  );
});

describe("multi-turn checker: each rule", () => {
  const { entries, answers } = loadCategory(BFCL_DIR, "multi_turn_base");
  const e = entries[0]!;
  const gt = answers![0] as string[][];
  // gt[0] = cd(folder='document'), mkdir(dir_name='temp'), mv(source='final_report.pdf', destination='temp')

  it("a turn count that differs from the ground truth is a forced termination", () => {
    expect(multiTurnChecker(gold(gt).slice(0, 2), gt, e).error_type).toBe("multi_turn:force_terminated");
  });
  it("no calls in a turn that has ground truth is an empty turn", () => {
    const model = gold(gt);
    model[1] = [];
    expect(multiTurnChecker(model, gt, e)).toMatchObject({
      valid: false,
      error_type: "multi_turn:empty_turn_model_response",
      error_message: "Model response list is empty for turn 1",
    });
  });
  it("a different backend state after a turn is a state mismatch", () => {
    const model = gold(gt);
    model[0] = [
      ["cd(folder='document')", "mkdir(dir_name='tmp')", "mv(source='final_report.pdf', destination='tmp')"],
    ];
    expect(multiTurnChecker(model, gt, e)).toMatchObject({
      valid: false,
      error_type: "multi_turn:instance_state_mismatch",
      error_message:
        "Model instance for GorillaFileSystem does not match the state with ground truth instance.",
    });
  });
  it("reaching the state without producing the ground truth's results is a response mismatch", () => {
    const model = gold(gt);
    // turn 1 greps; skipping the grep leaves the state unchanged but its result missing
    model[1] = [["cd(folder='temp')"]];
    expect(multiTurnChecker(model, gt, e)).toMatchObject({
      valid: false,
      error_type: "multi_turn:execution_response_mismatch",
    });
  });
  it("extra calls, split steps and any order within a turn are fine", () => {
    const model = gold(gt);
    model[0] = [
      ["ls()"],
      ["cd(folder='document')", "mkdir(dir_name='temp')"],
      ["pwd()", "mv(source='final_report.pdf', destination='temp')"],
    ];
    expect(multiTurnChecker(model, gt, e)).toEqual({ valid: true });
  });
});
