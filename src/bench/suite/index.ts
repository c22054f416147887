export {
  PAPER_SUITE,
  paperTable,
  paperTableMarkdown,
  partScore,
  runPaperSuite,
  suiteBenchRunner,
} from "./paper-suite.js";
export type { PaperTable, PartResult, SuiteGroup, SuitePart } from "./paper-suite.js";
