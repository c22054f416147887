import { BackendSession } from "../../envs/bfcl/executor.js";
import type { PyDict } from "../../envs/bfcl/py-value.js";
import { dict } from "../../envs/bfcl/py-ops.js";
import type { BfclCategory } from "./categories.js";
import { loadMemoryPrereqs, type BfclEntry } from "./load.js";
import type { BfclModel } from "./model-handler.js";
import type { BackendServices } from "../../envs/bfcl/services.js";
import { converse as converseAgentic } from "./agentic-conversation.js";

/**
 * The memory categories (upstream's agentic `memory_*`): per scenario the model first goes
 * through the prerequisite conversations, filling its memory through the memory tools (each
 * conversation starts from the memory the previous one left, as upstream's snapshot files carry
 * it); then each question starts from the final memory, and its last message that is not a tool
 * call is checked for the answer. FC or prompting mode (`agentic-conversation.ts`).
 */
const SCENARIO_SETTINGS: Record<string, string> = {
  student:
    "You are an academic-support assistant for college student. Remember key personal and academic details discussed across sessions, and draw on them to answer questions or give guidance.",
  customer:
    "You are a general customer support assistant for an e-commerce platform. Your task is to understand and remember information that can be used to provide information about user inquiries, preferences, and offer consistent, helpful assistance over multiple interactions.",
  finance:
    "You are a high-level executive assistant supporting a senior finance professional. Retain and synthesize both personal and professional information including facts, goals, prior decisions, and family life across sessions to provide strategic, context-rich guidance and continuity.",
  healthcare:
    "You are a healthcare assistant supporting a patient across appointments. Retain essential medical history, treatment plans, and personal preferences to offer coherent, context-aware guidance and reminders.",
  notetaker:
    "You are a personal organization assistant. Capture key information from conversations, like tasks, deadlines, and preferences, and use it to give reliable reminders and answers in future sessions.",
};

/** A memory backend as the flow needs it: what the prompt shows, and what the next conversation starts from. */
interface MemoryBackend {
  coreMemoryForContext(): string;
  snapshot(): PyDict;
}
type MemorySnapshot = PyDict;

export function memorySystemPrompt(category: string, scenario: string, coreMemory: string): string {
  if (category.includes("rec_sum")) {
    return `${SCENARIO_SETTINGS[scenario] ?? ""}

You have access to an advanced memory system, which is persistent across multiple conversations with the user, and can be accessed in a later interactions. You should actively manage your memory data to keep track of important information, ensure that it is up-to-date and easy to retrieve to provide personalized responses to the user later.

Here is the content of your memory system from previous interactions:
${coreMemory}
`;
  }
  return `${SCENARIO_SETTINGS[scenario] ?? ""}

You have access to an advanced memory system, consisting of two memory types 'Core Memory' and 'Archival Memory'. Both type of memory is persistent across multiple conversations with the user, and can be accessed in a later interactions. You should actively manage your memory data to keep track of important information, ensure that it is up-to-date and easy to retrieve to provide personalized responses to the user later.

The Core memory is limited in size, but always visible to you in context. The Archival Memory has a much larger capacity, but will be held outside of your immediate context due to its size.

Here is the content of your Core Memory from previous interactions:
${coreMemory}
`;
}

interface Conversation {
  /** Texts of the steps that were not tool calls, in order. */
  texts: string[];
  snapshot: MemorySnapshot;
}

async function converse(
  model: BfclModel,
  entry: BfclEntry,
  scenario: string,
  services: BackendServices,
  start?: MemorySnapshot,
): Promise<Conversation> {
  const backendConfig = start ? dict([["snapshot", start]]) : dict([]);
  const config = dict([[entry.involved_classes![0]!, backendConfig]]);
  const session = new BackendSession(config, entry.involved_classes!, false, undefined, services);
  const memory = session.instances.get(entry.involved_classes![0]!) as unknown as MemoryBackend;
  const system = memorySystemPrompt(entry.category, scenario, memory.coreMemoryForContext());
  const texts = await converseAgentic(model, entry, session, system);
  return { texts, snapshot: memory.snapshot() };
}

/** Runs each scenario's prerequisite conversations once and hands out the memory they leave. */
export class MemoryPrereqs {
  private readonly done = new Map<string, Promise<MemorySnapshot | undefined>>();
  constructor(
    private readonly model: BfclModel,
    private readonly bfclDir: string,
    readonly services: BackendServices = {},
  ) {}

  snapshotFor(category: BfclCategory, scenario: string): Promise<MemorySnapshot | undefined> {
    const key = `${category}/${scenario}`;
    let p = this.done.get(key);
    if (!p) {
      p = (async () => {
        let snap: MemorySnapshot | undefined;
        for (const prereq of loadMemoryPrereqs(this.bfclDir, category, scenario)) {
          snap = (await converse(this.model, prereq, scenario, this.services, snap)).snapshot;
        }
        return snap;
      })();
      this.done.set(key, p);
    }
    return p;
  }
}

/** The last message of the answer that was not a tool call ("" when there was none). */
export async function answerMemoryQuestion(
  model: BfclModel,
  entry: BfclEntry,
  prereqs: MemoryPrereqs,
): Promise<string> {
  const scenario = String(entry.raw.scenario);
  const snap = await prereqs.snapshotFor(entry.category, scenario);
  const { texts } = await converse(model, entry, scenario, prereqs.services, snap);
  return texts[texts.length - 1] ?? "";
}
