import { describe, expect, it } from "vitest";
import type { Message } from "../../../src/core/messages.js";
import {
  buildRehearsalPrompt,
  readRehearsalCall,
  RELATED_CALLS,
  relatedCalls,
} from "../../../src/rollout/rehearsal-prompt.js";
import { orderTask } from "./fixtures.js";

const asked = (id: string, name: string, args: Record<string, unknown>): Message => ({
  role: "assistant",
  content: "",
  toolCalls: [{ id, name, arguments: args }],
});
const answered = (id: string, name: string, content: string): Message => ({
  role: "tool",
  toolCallId: id,
  name,
  content,
});

// A conversation that looked up A1 twice, then A2, then A1 again, and asked for A1's refund without an answer yet.
const history: Message[] = [
  { role: "user", content: "Cancel A1." },
  asked("c0", "get_order", { order_id: "A1" }), // related, but older than the last RELATED_CALLS
  answered("c0", "get_order", '{"status":"new"}'),
  asked("c1", "get_order", { order_id: "A1" }),
  answered("c1", "get_order", '{"status":"pending"}'),
  asked("c2", "get_order", { order_id: "A2" }),
  answered("c2", "get_order", '{"status":"shipped"}'),
  asked("c3", "get_order", { order_id: "A1", verbose: true }),
  answered("c3", "get_order", '{"status":"shipped","since":"today"}'),
  asked("c4", "refund", { order_id: "A1" }), // no answer: not shown
];
const call = { id: "c5", name: "cancel_order", arguments: { order_id: "A1" } };

describe("the compact-related rehearsal prompt", () => {
  it("shows the earlier answered calls on the same values, the latest RELATED_CALLS, before the call", () => {
    expect(RELATED_CALLS).toBe(2);
    expect(relatedCalls(history, call)).toEqual([
      { name: "get_order", arguments: { order_id: "A1" }, result: '{"status":"pending"}' },
      {
        name: "get_order",
        arguments: { order_id: "A1", verbose: true },
        result: '{"status":"shipped","since":"today"}',
      },
    ]);
    const user = buildRehearsalPrompt({
      task: orderTask(),
      history,
      rawActMessage: "",
      call,
      variant: "compact-related",
    })[1]!.content;
    // no tenant line, no example of this tool: the related calls, then the call
    expect(user.split("\n")).toEqual([
      'get_order {"order_id":"A1"} -> {"status":"pending"}',
      'get_order {"order_id":"A1","verbose":true} -> {"status":"shipped","since":"today"}',
      'cancel_order {"order_id":"A1"} ->',
    ]);
    // stand-in rehearsers still read the call from its last line
    expect(readRehearsalCall(user)).toEqual({ name: "cancel_order", arguments: { order_id: "A1" } });
  });

  it("is the compact prompt when nothing earlier shares a value, and compact shows no conversation", () => {
    const other = { id: "c6", name: "cancel_order", arguments: { order_id: "A9" } };
    const input = { task: orderTask(), history, rawActMessage: "" };
    expect(relatedCalls(history, other)).toEqual([]);
    expect(buildRehearsalPrompt({ ...input, call: other, variant: "compact-related" })).toEqual(
      buildRehearsalPrompt({ ...input, call: other, variant: "compact" }),
    );
    expect(buildRehearsalPrompt({ ...input, call, variant: "compact" })[1]!.content).toBe(
      'cancel_order {"order_id":"A1"} ->',
    );
  });

  it("matches values, not keys: a call on another argument name with the same value is related", () => {
    const moved = [
      asked("m1", "get_event", { event_id: "e7" }),
      answered("m1", "get_event", '{"day":"mon"}'),
    ];
    expect(relatedCalls(moved, { arguments: { id: "e7", day: "tue" } })).toHaveLength(1);
    expect(relatedCalls(moved, { arguments: { id: "e8", day: "tue" } })).toHaveLength(0);
  });
});
