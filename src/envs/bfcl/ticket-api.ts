import { Backend, m, type MethodSpec } from "./backend.js";
import { add, compare, deepcopy, dict, truthy } from "./py-ops.js";
import { pyEqual, pyStr, type PyDict, type PyValue, dictEntries, dictKeys, setItem } from "./py-value.js";

/** Port of upstream's `TicketAPI` (`ticket_api.py`). */
const DEFAULT: PyDict = dict([
  ["ticket_queue", []],
  ["ticket_counter", 1],
  ["current_user", null],
]);

const err = (msg: string): PyDict => dict([["error", msg]]);

export class TicketAPI extends Backend {
  readonly className = "TicketAPI";
  ticket_queue: PyValue[] = [];
  ticket_counter: PyValue = 1;
  current_user: PyValue = null;
  private cached?: Record<string, MethodSpec>;

  loadScenario(config: PyDict): void {
    const d = deepcopy(DEFAULT);
    const get = (k: string) => (k in config ? config[k]! : d[k]!);
    this.ticket_queue = get("ticket_queue") as PyValue[];
    this.ticket_counter = get("ticket_counter");
    this.current_user = get("current_user");
  }

  publicState(): Record<string, PyValue> {
    return {
      ticket_queue: this.ticket_queue,
      ticket_counter: this.ticket_counter,
      current_user: this.current_user,
    };
  }

  private find(id: PyValue): PyDict | undefined {
    return this.ticket_queue.find((t) => pyEqual((t as PyDict).id!, id)) as PyDict | undefined;
  }

  methods(): Record<string, MethodSpec> {
    return (this.cached ??= this.build());
  }

  private build(): Record<string, MethodSpec> {
    return {
      create_ticket: m(
        [["title"], ["description", ""], ["priority", 1]],
        ({ title, description, priority }) => {
          if (!truthy(this.current_user))
            return err("User not authenticated. Please log in to create a ticket.");
          if (compare(priority!, 1, "<") || compare(priority!, 5, ">")) {
            return err("Invalid priority. Priority must be between 1 and 5.");
          }
          const ticket = dict([
            ["id", this.ticket_counter],
            ["title", title!],
            ["description", description!],
            ["status", "Open"],
            ["priority", priority!],
            ["created_by", this.current_user],
          ]);
          this.ticket_queue.push(ticket);
          this.ticket_counter = add(this.ticket_counter, 1);
          return ticket;
        },
      ),
      get_ticket: m(
        [["ticket_id"]],
        ({ ticket_id }) => this.find(ticket_id!) ?? err(`Ticket with ID ${pyStr(ticket_id!)} not found.`),
      ),
      close_ticket: m([["ticket_id"]], ({ ticket_id }) => {
        const t = this.find(ticket_id!);
        if (!t) return err(`Ticket with ID ${pyStr(ticket_id!)} not found.`);
        if (t.status === "Closed") return err(`Ticket with ID ${pyStr(ticket_id!)} is already closed.`);
        t.status = "Closed";
        return dict([["status", `Ticket ${pyStr(ticket_id!)} has been closed successfully.`]]);
      }),
      resolve_ticket: m([["ticket_id"], ["resolution"]], ({ ticket_id, resolution }) => {
        const t = this.find(ticket_id!);
        if (!t) return err(`Ticket with ID ${pyStr(ticket_id!)} not found.`);
        if (t.status === "Resolved") return err(`Ticket with ID ${pyStr(ticket_id!)} is already resolved.`);
        t.status = "Resolved";
        t.resolution = resolution!;
        return dict([["status", `Ticket ${pyStr(ticket_id!)} has been resolved successfully.`]]);
      }),
      edit_ticket: m([["ticket_id"], ["updates"]], ({ ticket_id, updates }) => {
        const t = this.find(ticket_id!);
        if (!t) return err(`Ticket with ID ${pyStr(ticket_id!)} not found.`);
        const u = updates as PyDict;
        const valid = ["title", "description", "status", "priority"];
        // A Python set's iteration order is not insertion order; one invalid field (the usual case) prints the same.
        const invalid = dictKeys(u).filter((k) => !valid.includes(k));
        if (invalid.length > 0) return err(`Invalid fields for update: ${invalid.join(", ")}`);
        for (const [k, v] of dictEntries(u)) if (v !== null) setItem(t, k, v);
        return dict([["status", `Ticket ${pyStr(ticket_id!)} has been updated successfully.`]]);
      }),
      ticket_login: m([["username"], ["password"]], ({ username, password }) => {
        if (truthy(username!) && truthy(password!)) {
          this.current_user = username!;
          return dict([["success", true]]);
        }
        return dict([["success", false]]);
      }),
      ticket_get_login_status: m([], () => dict([["login_status", truthy(this.current_user)]])),
      logout: m([], () => {
        if (truthy(this.current_user)) {
          this.current_user = null;
          return dict([["success", true]]);
        }
        return dict([["success", false]]);
      }),
      get_user_tickets: m([["status", null]], ({ status }) => {
        if (!truthy(this.current_user))
          return [err("User not authenticated. Please log in to view tickets.")];
        let mine = this.ticket_queue.filter((t) => pyEqual((t as PyDict).created_by!, this.current_user));
        if (truthy(status!)) {
          const s = pyStr(status!).toLowerCase();
          mine = mine.filter((t) => pyStr((t as PyDict).status!).toLowerCase() === s);
        }
        return mine;
      }),
    };
  }
}
