import type { Standard } from "../../core/task.js";
import type { ToolSchema } from "../../core/tools.js";
import type { Rng } from "./rng.js";

/**
 * Every domain has the same shape, so that skills transfer to the held-out domain:
 *   find_<owner>(key) → {<owner>_id}; list_<items>(<owner>_id) → {<items>: [ids]};
 *   get_<item>(<item>_id) → {status, <detail>}; <verb>_<item>(<item>_id, …) acts on one item.
 */
export interface Owner {
  key: string;
  items: string[];
}

export interface Item {
  owner: string;
  status: string;
  detail: string | number;
}

export interface ToolworldState {
  domain: string;
  owners: Record<string, Owner>;
  items: Record<string, Item>;
}

/** A tool's outcome inside the domain logic; the environment wraps it into a `ToolResult`. */
export type Outcome = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

/** A status-changing action: allowed only from `from`, leaves the item in `to`. */
export interface ActionSpec {
  tool: string;
  verb: string;
  from: readonly string[];
  to: string;
}

export interface TurnPlan {
  text: string;
  standards: Standard[];
}

/** What the generator returns for one task before examples are recorded. */
export interface TaskPlan {
  kind: string;
  /** Identifies the task's request (intent and entities) independently of the world: the split key. */
  signature: string;
  turns: TurnPlan[];
}

/** The scripted solver's view of the environment: call a tool, see its outcome. */
export interface SolverContext {
  call(name: string, args: Record<string, unknown>): Outcome;
  /** Statuses of items already read in this conversation (a second turn need not re-check). */
  known: Map<string, string>;
  /** The item id the conversation is about (for "cancel it"). */
  lastId?: string;
}

/** A domain-specific tool with its own intent (bank transfer, calendar move). */
export interface SpecialSpec {
  name: string;
  tool: ToolSchema;
  execute(state: ToolworldState, args: Record<string, unknown>): Outcome;
  /** The word its success response states (`{"result": "sent"}`), a token of the tiny vocabulary. */
  result: string;
  templates: readonly string[];
  /** Picks a request in this world and the standards a correct run meets; undefined if none fits. */
  plan(
    state: ToolworldState,
    rng: Rng,
    domain: DomainSpec,
  ): { slots: Record<string, string>; standards: Standard[] } | undefined;
  solve(slots: Record<string, string>, ctx: SolverContext, domain: DomainSpec): string;
}

export interface DomainSpec {
  name: string;
  role: "train" | "heldout";
  system: string;
  owner: {
    noun: string;
    findTool: string;
    keyField: "email" | "name";
    idKey: string;
    idPrefix: string;
    keys: readonly string[];
  };
  item: {
    noun: string;
    plural: string;
    listTool: string;
    getTool: string;
    idKey: string;
    idPrefix: string;
    statuses: readonly string[];
    initialStatuses: readonly string[];
    detailField: string;
    detailValues: readonly (string | number)[];
    /** Calendar: one owner's items start on distinct days. */
    detailDistinctPerOwner: boolean;
    detailTemplates: readonly string[];
    /** Reply template with {noun} {id} {value}. */
    detailReply: string;
  };
  actions: readonly ActionSpec[];
  specials: readonly SpecialSpec[];
}
