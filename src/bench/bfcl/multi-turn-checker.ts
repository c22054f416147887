import { BackendSession } from "../../envs/bfcl/executor.js";
import type { LongContextData } from "../../envs/bfcl/long-context.js";
import { pyEqual, type PyDict, type PyValue, dictEntries, dictKeys } from "../../envs/bfcl/py-value.js";

/**
 * Upstream's `multi_turn_checker.py`: the model's decoded calls and the ground truth run on two
 * fresh sets of backends, turn by turn; after every turn whose ground truth is not empty, the
 * public state of every backend must equal the ground truth's, and every ground-truth result of
 * that turn must appear among all the model's results so far (as a multiset, any order).
 */
export interface MultiTurnVerdict {
  valid: boolean;
  error_type?: string;
  error_message?: string;
  details?: unknown;
}

export interface MultiTurnEntryLike {
  id: string;
  initial_config?: PyDict;
  involved_classes?: string[];
}

/** `decoded[turn][step]` = the call strings decoded from that step (empty steps already dropped). */
export function multiTurnChecker(
  decoded: string[][][],
  groundTruth: string[][],
  entry: MultiTurnEntryLike,
  longContextData?: LongContextData,
): MultiTurnVerdict {
  if (decoded.length !== groundTruth.length) {
    return {
      valid: false,
      error_type: "multi_turn:force_terminated",
      error_message: `Model was force-terminated during inference phase. The length of the model result turns (${decoded.length}) does not match the length of the ground truth turns (${groundTruth.length}).`,
    };
  }
  const category = entry.id.slice(0, entry.id.lastIndexOf("_"));
  const longContext = category.includes("long_context") || category.includes("composite");
  const config = entry.initial_config ?? ({} as PyDict);
  const classes = entry.involved_classes ?? [];
  const model = new BackendSession(config, classes, longContext, longContextData);
  const truth = new BackendSession(config, classes, longContext, longContextData);
  const allModelResults: string[] = [];
  const executions: Array<{ model: string[][]; ground_truth: string[] }> = [];

  for (let turn = 0; turn < groundTruth.length; turn++) {
    const steps = decoded[turn]!;
    const modelByStep = steps.map((calls) => model.execute(calls));
    const truthResults = truth.execute(groundTruth[turn]!);
    allModelResults.push(...modelByStep.flat());
    executions.push({ model: modelByStep, ground_truth: truthResults });

    if (groundTruth[turn]!.length > 0 && isEmptyExecuteResponse(steps)) {
      return {
        valid: false,
        error_type: "multi_turn:empty_turn_model_response",
        error_message: `Model response list is empty for turn ${turn}`,
        details: { execution_result: executions },
      };
    }
    // An empty ground-truth turn is where the model should fail to act; its calls still ran,
    // so the next turn's state check sees them.
    if (groundTruth[turn]!.length === 0) continue;

    for (const [className, gt] of truth.instances) {
      const gtState = gt.publicState();
      const modelState = model.instances.get(className)!.publicState();
      const differences: Record<string, { model: PyValue; ground_truth: PyValue }> = {};
      for (const [attr, value] of dictEntries(gtState)) {
        if (!pyEqual(modelState[attr] ?? null, value))
          differences[attr] = { model: modelState[attr] ?? null, ground_truth: value };
      }
      if (dictKeys(differences).length > 0) {
        return {
          valid: false,
          error_type: "multi_turn:instance_state_mismatch",
          error_message: `Model instance for ${className} does not match the state with ground truth instance.`,
          details: { differences, execution_result: executions },
        };
      }
    }

    const remaining = [...allModelResults];
    const missing: string[] = [];
    for (const r of truthResults) {
      const i = remaining.indexOf(r);
      if (i < 0) missing.push(r);
      else remaining.splice(i, 1);
    }
    if (missing.length > 0) {
      return {
        valid: false,
        error_type: "multi_turn:execution_response_mismatch",
        error_message: `Model response execution results so far does not contain all the ground truth response execution results for turn ${turn}.`,
        details: { missing_items: missing, execution_result: executions },
      };
    }
  }
  return { valid: true };
}

/** Upstream `is_empty_execute_response`: no steps, or one empty step. */
export function isEmptyExecuteResponse(steps: unknown[][] | unknown[]): boolean {
  if (steps.length === 0) return true;
  return steps.length === 1 && Array.isArray(steps[0]) && steps[0].length === 0;
}
