/**
 * Upstream's `agentic_checker.py`: an answer passes when one of the expected answers appears in
 * the model's last non-call message as a whole word, after both drop `,./-_*^()`, are
 * lower-cased and have `'` turned into `"`.
 */
export interface AgenticVerdict {
  valid: boolean;
  error_type?: string;
  error_message?: string;
}

export function standardizeAgentic(s: string): string {
  return s
    .replace(/[,./\-_*^()]/g, "")
    .toLowerCase()
    .replace(/'/g, '"');
}

export function agenticChecker(response: string, possibleAnswers: string[]): AgenticVerdict {
  const text = standardizeAgentic(response);
  for (const a of possibleAnswers.map(standardizeAgentic)) {
    if (boundarySearch(text, a)) return { valid: true };
  }
  return {
    valid: false,
    error_type: "agentic:answer_not_found",
    error_message: "None of the expected answers were found in the model response.",
  };
}

/** `re.search(rf"\b{re.escape(a)}\b", text)`: `\b` holds where exactly one side is a word character. */
function boundarySearch(text: string, a: string): boolean {
  const isWord = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}_]/u.test(c);
  for (let i = text.indexOf(a); i >= 0; i = text.indexOf(a, i + 1)) {
    const startOk = isWord(text[i - 1]) !== isWord(a[0]);
    const endOk = isWord(text[i + a.length]) !== isWord(a[a.length - 1]);
    if (startOk && endOk) return true;
  }
  return false;
}
