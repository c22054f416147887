import { Backend, m, type MethodSpec } from "./backend.js";
import { add, deepcopy, dict, truthy } from "./py-ops.js";
import { PyRandom } from "./py-random.js";
import {
  pyEqual,
  pyIn,
  pyStr,
  type PyDict,
  type PyValue,
  dictEntries,
  dictKeys,
  dictValues,
  setItem,
} from "./py-value.js";

/**
 * Port of upstream's `MessageAPI` (`message_api.py`). Message ids come from CPython's
 * `random.Random(random_seed)` (default 200191), drawn as upstream draws them, so they match.
 */
const DEFAULT: PyDict = dict([
  ["generated_ids", []],
  ["user_count", 4],
  [
    "user_map",
    dict([
      ["Alice", "USR001"],
      ["Bob", "USR002"],
      ["Catherine", "USR003"],
      ["Daniel", "USR004"],
    ]),
  ],
  [
    "inbox",
    [
      dict([["USR002", "My name is Alice. I want to connect."]]),
      dict([["USR003", "Could you upload the file?"]]),
      dict([["USR004", "Could you upload the file?"]]),
    ],
  ],
  ["message_count", 3],
  ["current_user", null],
]);

const err = (msg: string): PyDict => dict([["error", msg]]);
const first = (d: PyValue): [string, PyValue] => dictEntries(d as PyDict)[0]!;

export class MessageAPI extends Backend {
  readonly className = "MessageAPI";
  /** A set upstream; kept in insertion order, compared as a set. */
  generated_ids: PyValue[] = [];
  user_count: PyValue = 4;
  user_map: PyDict = {};
  inbox: PyValue[] = [];
  message_count: PyValue = 3;
  current_user: PyValue = null;
  private random = new PyRandom(200191);
  private cached?: Record<string, MethodSpec>;

  loadScenario(config: PyDict): void {
    const d = deepcopy(DEFAULT);
    const get = (k: string) => (k in config ? config[k]! : d[k]!);
    this.random = new PyRandom(Number("random_seed" in config ? config.random_seed : 200191));
    this.generated_ids = [...(get("generated_ids") as PyValue[])];
    this.user_count = get("user_count");
    this.user_map = get("user_map") as PyDict;
    this.inbox = get("inbox") as PyValue[];
    this.message_count = get("message_count");
    this.current_user = get("current_user");
  }

  publicState(): Record<string, PyValue> {
    const ids = [...this.generated_ids].sort((a, b) => Number(a) - Number(b));
    return {
      generated_ids: ids,
      user_count: this.user_count,
      user_map: this.user_map,
      inbox: this.inbox,
      message_count: this.message_count,
      current_user: this.current_user,
    };
  }

  private generateId(): PyDict {
    let id = this.random.randint(10000, 99999);
    while (pyIn(id, this.generated_ids)) id = this.random.randint(10000, 99999);
    this.generated_ids.push(id);
    return dict([["new_id", id]]);
  }

  methods(): Record<string, MethodSpec> {
    return (this.cached ??= this.build());
  }

  private build(): Record<string, MethodSpec> {
    const loggedIn = () => truthy(this.current_user);
    const ids = () => dictValues(this.user_map);
    return {
      list_users: m([], () => dict([["user_list", dictKeys(this.user_map)]])),
      get_user_id: m([["user"]], ({ user }) => {
        const u = user as string;
        if (typeof u !== "string" || !(u in this.user_map))
          return err(`User '${pyStr(user!)}' not found in the workspace.`);
        return dict([["user_id", this.user_map[u]!]]);
      }),
      message_login: m([["user_id"]], ({ user_id }) => {
        if (!pyIn(user_id!, ids())) {
          return dict([
            ["login_status", false],
            ["message", `User ID '${pyStr(user_id!)}' not found.`],
          ]);
        }
        this.current_user = user_id!;
        return dict([
          ["login_status", true],
          ["message", `User '${pyStr(user_id!)}' logged in successfully.`],
        ]);
      }),
      message_get_login_status: m([], () => dict([["login_status", loggedIn()]])),
      send_message: m([["receiver_id"], ["message"]], ({ receiver_id, message }) => {
        if (!loggedIn()) return err("No user is currently logged in.");
        if (!pyIn(receiver_id!, ids())) return err(`Receiver ID '${pyStr(receiver_id!)}' not found.`);
        const id = this.generateId();
        this.inbox.push(dict([[pyStr(receiver_id!), message!]]));
        this.message_count = add(this.message_count, 1);
        return dict([
          ["sent_status", true],
          ["message_id", id],
          ["message", `Message sent to '${pyStr(receiver_id!)}' successfully.`],
        ]);
      }),
      delete_message: m([["receiver_id"]], ({ receiver_id }) => {
        if (!loggedIn()) return err("No user is currently logged in.");
        for (let i = this.inbox.length - 1; i >= 0; i--) {
          const [receiver] = first(this.inbox[i]!);
          if (pyEqual(receiver, receiver_id!)) {
            // list.remove drops the first message equal to this one.
            const target = this.inbox[i]!;
            this.inbox.splice(
              this.inbox.findIndex((x) => pyEqual(x, target)),
              1,
            );
            return dict([
              ["deleted_status", true],
              ["receiver_id", receiver],
              ["message", `Receiver ${pyStr(receiver_id!)}'s latest message deleted successfully.`],
            ]);
          }
        }
        return err(`Receiver ID ${pyStr(receiver_id!)} not found.`);
      }),
      view_messages_sent: m([], () => {
        if (!loggedIn()) return err("No user is currently logged in.");
        const sent: PyDict = {};
        for (const msg of this.inbox) {
          const [receiver, content] = first(msg);
          if (!(receiver in sent)) setItem(sent, receiver, [content]);
          else (sent[receiver] as PyValue[]).push(content);
        }
        return dict([["messages", sent]]);
      }),
      add_contact: m([["user_name"]], ({ user_name }) => {
        const name = pyStr(user_name!);
        if (name in this.user_map) return err(`User name '${name}' already exists.`);
        this.user_count = add(this.user_count, 1);
        const id = `USR${String(this.user_count).padStart(3, "0")}`;
        if (pyIn(id, ids())) return err(`User ID '${id}' already exists.`);
        setItem(this.user_map, name, id);
        return dict([
          ["added_status", true],
          ["user_id", id],
          ["message", `Contact '${name}' added successfully.`],
        ]);
      }),
      search_messages: m([["keyword"]], ({ keyword }) => {
        if (!loggedIn()) return err("No user is currently logged in.");
        const k = pyStr(keyword!).toLowerCase();
        const results: PyValue[] = [];
        for (const msg of this.inbox) {
          const [receiver, content] = first(msg);
          if (pyStr(content).toLowerCase().includes(k)) {
            results.push(
              dict([
                ["receiver_id", receiver],
                ["message", content],
              ]),
            );
          }
        }
        return dict([["results", results]]);
      }),
      get_message_stats: m([], () => {
        if (!loggedIn()) return err("No user is currently logged in.");
        const contacts = new Set(this.inbox.map((x) => first(x)[0]));
        return dict([
          [
            "stats",
            dict([
              ["received_count", this.inbox.length],
              ["total_contacts", contacts.size],
            ]),
          ],
        ]);
      }),
    };
  }
}
