export { meanCI, formatPercent, tQuantile975 } from "./stats.js";
export type { MeanCI } from "./stats.js";
export { DemoResultsZ, ArmResultZ, TestTimeRowZ, ArmNameZ } from "./results.js";
export type { DemoResults, ArmResult, TestTimeRow, MeanCIJson } from "./results.js";
export { resultsMarkdown } from "./markdown.js";
export {
  buildReportHtml,
  writeReport,
  readResults,
  readStepPoints,
  readCurves,
  readNetShares,
} from "./html.js";
export type { CurveRow } from "./html.js";
export { isTrainRunDir, readTrainSteps, trainMarkdown, trainCharts } from "./train.js";
export type { TrainStep, TrainRoleStep } from "./train.js";
