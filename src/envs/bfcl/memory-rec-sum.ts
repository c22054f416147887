import { Backend, m, type MethodSpec } from "./backend.js";
import { dict, str } from "./py-ops.js";
import type { PyDict, PyValue } from "./py-value.js";

/**
 * Port of upstream's `MemoryAPI_rec_sum` (`memory_rec_sum.py`): one text memory of at most
 * 10,000 characters that the model appends to, rewrites (its "recursive summary") or edits.
 * Like `MemoryKV`, the memory between conversations is a snapshot the caller carries.
 */
const MAX_LEN = 10000;
const err = (msg: string): PyDict => dict([["error", msg]]);
const ok = (msg: string): PyDict => dict([["status", msg]]);
const len = (s: string) => [...s].length;

export class MemoryRecSum extends Backend {
  readonly className = "MemoryAPI_rec_sum";
  memory = "";
  private cached?: Record<string, MethodSpec>;

  loadScenario(config: PyDict): void {
    const snap = config.snapshot as PyDict | undefined;
    if (snap && typeof snap.memory === "string") this.memory = snap.memory;
  }

  snapshot(): PyDict {
    return dict([["memory", this.memory]]);
  }

  coreMemoryForContext(): string {
    return this.memory === "" ? "There is no content in the memory at this point." : this.memory;
  }

  publicState(): Record<string, PyValue> {
    return { memory: this.memory, snapshot_folder: null };
  }

  methods(): Record<string, MethodSpec> {
    return (this.cached ??= {
      memory_append: m([["text"]], ({ text }) => {
        const t = str(text!);
        if (len(this.memory + t) > MAX_LEN) {
          return err(
            `Entry will be too long after appending. Please shorten the entry to less than ${MAX_LEN} characters.`,
          );
        }
        this.memory += t;
        return ok("Memory appended.");
      }),
      memory_update: m([["text"]], ({ text }) => {
        const t = str(text!);
        if (len(t) > MAX_LEN) {
          return err(
            `Entry will be too long after updating. Please shorten the entry to less than ${MAX_LEN} characters.`,
          );
        }
        this.memory = t;
        return ok("Memory updated.");
      }),
      memory_clear: m([], () => {
        this.memory = "";
        return ok("Short term memory cleared.");
      }),
      memory_replace: m([["old_text"], ["new_text"]], ({ old_text, new_text }) => {
        const o = str(old_text!);
        const n = str(new_text!);
        if (!this.memory.includes(o)) return err(`Text '${o}' not found in memory.`);
        if (len(n) > MAX_LEN) {
          return err(
            `Entry will be too long after replacing. Please shorten the entry to less than ${MAX_LEN} characters.`,
          );
        }
        // str.replace replaces every occurrence (an empty old text lands between every character).
        this.memory = this.memory.replaceAll(o, n);
        return ok("Memory updated.");
      }),
      memory_retrieve: m([], () =>
        this.memory === "" ? err("Memory is empty.") : dict([["memory_content", this.memory]]),
      ),
    });
  }
}
