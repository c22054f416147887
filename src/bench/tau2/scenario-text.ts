/** Python's `textwrap.indent(text, prefix)`: prefixes every line that is not whitespace only. */
function indent(text: string, prefix: string): string {
  return text
    .split(/(?<=\n)/)
    .map((line) => (line.trim().length > 0 ? prefix + line : line))
    .join("");
}

interface StructuredInstructions {
  domain: string;
  reason_for_call: string;
  known_info?: string | null;
  unknown_info?: string | null;
  task_instructions: string;
}

function instructionsText(i: unknown): string {
  if (typeof i === "string") return i;
  const s = i as StructuredInstructions;
  const lines = [`Domain: ${s.domain}`, `Reason for call:\n${indent(s.reason_for_call, "\t")}`];
  if (s.known_info != null) lines.push(`Known info:\n${indent(s.known_info, "\t")}`);
  if (s.unknown_info != null) lines.push(`Unknown info:\n${indent(s.unknown_info, "\t")}`);
  lines.push(`Task instructions:\n${indent(s.task_instructions, "\t")}`);
  return lines.join("\n");
}

/** Upstream `str(UserScenario)`: what the user simulator is told inside `<scenario>`. */
export function scenarioText(scenario: unknown): string {
  const s = (scenario ?? {}) as { persona?: string | null; instructions?: unknown };
  const lines: string[] = [];
  if (s.persona != null) lines.push("Persona:", indent(s.persona, "\t"));
  lines.push("Instructions:", indent(instructionsText(s.instructions ?? ""), "\t"));
  return lines.join("\n");
}

/** A first user message taken from the scenario (for the scripted user of oracle runs). */
export function scenarioOpening(scenario: unknown): string {
  const s = (scenario ?? {}) as { instructions?: unknown };
  const i = s.instructions;
  if (typeof i === "string") return i;
  const r = (i as Partial<StructuredInstructions> | undefined)?.reason_for_call;
  return typeof r === "string" && r.length > 0 ? r : "Hello, I need help.";
}
