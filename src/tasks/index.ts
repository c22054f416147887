export { checkTask, ruleProblems } from "./check.js";
export type { TaskCheck, TaskUses } from "./check.js";
export { importMcpRecording, importOpenAITranscripts, PLACEHOLDER_TURN } from "./import-traces.js";
export type { ImportOptions, ImportResult } from "./import-traces.js";
export { attachChecklists } from "./attach-checklists.js";
export { inferTools } from "./infer-tools.js";
export { taskJsonSchema } from "./schema.js";
export { traceSteps } from "./trace-steps.js";
export type { TraceCall } from "./trace-steps.js";
