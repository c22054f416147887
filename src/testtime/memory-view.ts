import type { Message } from "../core/messages.js";

/** What stands between the system message's own text and the note `withMemory` appends. */
const NOTE_SEPARATOR = "\n\n";

/**
 * Where the rehearsal memory goes in the committed run: appended to the actor's system message (a
 * system message is created when the conversation has none). The system message is the one place
 * every chat template accepts extra instructions, and the note stays out of the recorded
 * conversation, out of what the user sees and out of the rehearsal prompt's history.
 */
export function withMemory(messages: readonly Message[], note: string | undefined): Message[] {
  if (!note) return messages.slice();
  const first = messages[0];
  if (first?.role === "system") {
    const content = first.content ? `${first.content}${NOTE_SEPARATOR}${note}` : note;
    return [{ ...first, content }, ...messages.slice(1)];
  }
  return [{ role: "system", content: note }, ...messages];
}

/** Whether `withMemory` put `note` into these messages. */
export function hasMemory(messages: readonly Message[], note: string | undefined): note is string {
  const first = messages[0];
  if (!note || first?.role !== "system" || !first.content) return false;
  return first.content === note || first.content.endsWith(`${NOTE_SEPARATOR}${note}`);
}

/** The messages as they were before `withMemory(messages, note)` (unchanged where the note is not there). */
export function withoutMemory(messages: readonly Message[], note: string | undefined): Message[] {
  if (!hasMemory(messages, note)) return messages.slice();
  const first = messages[0]!;
  if (first.content === note) return messages.slice(1);
  const content = first.content.slice(0, -(NOTE_SEPARATOR.length + note.length));
  return [{ ...first, content }, ...messages.slice(1)];
}

export const MEMORY_HEADER = "# Private rehearsal notes";

/** The note's fixed warning (exported so that tests can check renamed SFT logs leave it whole). */
export const IMAGINED_NOTICE =
  "Every tool result below was imagined by you, not returned by a real tool; nothing in it has happened.";

/** The note as the actor reads it: what it is, then the memory itself. */
export function memoryNote(memory: string, attempts: number): string {
  return [
    MEMORY_HEADER,
    `Before acting you rehearsed this step privately ${attempts} time(s). ${IMAGINED_NOTICE} Use it to act correctly now, with real tool calls.`,
    memory,
  ].join("\n");
}

/** What a sequential attempt is shown about its predecessors. */
export function revisionNote(previous: string, attempt: number, of: number): string {
  return [
    MEMORY_HEADER,
    `This is private rehearsal attempt ${attempt} of ${of}; tool results are imagined. Your earlier attempts went as follows. Revise: keep what worked, fix what failed.`,
    previous,
  ].join("\n");
}
