export { defaultDataDir, loadTau2Domain } from "./data.js";
export type { Tau2Domain } from "./data.js";
export { resultToString } from "./environment.js";
export type {
  Requestor,
  Tau2DomainName,
  Tau2EnvFunctionCall,
  Tau2Environment,
  Tau2FunctionResult,
} from "./environment.js";
export { canonicalJson, pyJsonDumps, PyFloat } from "./py-json.js";
export { pyRound } from "./py-round.js";
export {
  Tau2ActionSchema,
  Tau2EnvAssertionSchema,
  Tau2EvaluationCriteriaSchema,
  Tau2InitialStateSchema,
  Tau2TaskSchema,
} from "./task.js";
export type {
  Tau2Action,
  Tau2EnvAssertion,
  Tau2EvaluationCriteria,
  Tau2InitialState,
  Tau2RewardType,
  Tau2Task,
} from "./task.js";
