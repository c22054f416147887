import { describe, expect, it } from "vitest";
import { parseRehearsalSpec, rehearsalFromFlags, withMemory } from "../../../src/testtime/index.js";

describe("rehearsal flags", () => {
  it.each([
    ["none", { mode: "none", n: 0 }],
    ["parallel:4", { mode: "parallel", n: 4 }],
    ["sequential:2", { mode: "sequential", n: 2 }],
    ["parallel", { mode: "parallel", n: 1 }],
  ])("%s", (spec, want) => expect(parseRehearsalSpec(spec)).toEqual(want));

  it.each(["parallel:0", "none:2", "beam:3", "parallel:x", ""])("rejects %j", (spec) => {
    expect(() => parseRehearsalSpec(spec)).toThrow(
      expect.objectContaining({ code: "INVALID_CONFIG" }) as Error,
    );
  });

  it("maps every flag", () => {
    expect(
      rehearsalFromFlags({
        rehearsal: "sequential:3",
        memory: "summary",
        rehearsalScope: "action",
        rehearsalMaxTokens: 99,
        rehearsalBudget: 1000,
        rehearsalPrompt: "compact",
      }),
    ).toEqual({
      mode: "sequential",
      n: 3,
      memory: "summary",
      scope: "action",
      maxTokensPerAttempt: 99,
      tokenBudget: 1000,
      promptVariant: "compact",
    });
    expect(rehearsalFromFlags({})).toEqual({ mode: "none", n: 0, memory: "digest", scope: "turn" });
    expect(rehearsalFromFlags({ rehearsal: "parallel:2", memory: "consensus" }).memory).toBe("consensus");
    expect(() => rehearsalFromFlags({ rehearsal: "parallel:2", memory: "notes" })).toThrow(/--memory/);
    expect(() => rehearsalFromFlags({ rehearsal: "parallel:2", rehearsalScope: "episode" })).toThrow(
      /--rehearsal-scope/,
    );
    expect(() => rehearsalFromFlags({ rehearsal: "parallel:2", rehearsalPrompt: "tiny" })).toThrow(
      '--rehearsal-prompt must be full, compact, compact-related, got "tiny"',
    );
    expect(
      rehearsalFromFlags({ rehearsal: "parallel:2", rehearsalPrompt: "compact-related" }).promptVariant,
    ).toBe("compact-related");
  });

  it("--note-use: act or decide, only with rehearsal", () => {
    expect(rehearsalFromFlags({ rehearsal: "parallel:2", noteUse: "decide" }).noteUse).toBe("decide");
    expect(rehearsalFromFlags({ rehearsal: "parallel:2" })).not.toHaveProperty("noteUse");
    expect(() => rehearsalFromFlags({ rehearsal: "parallel:2", noteUse: "vote" })).toThrow(
      '--note-use must be act or decide, got "vote"',
    );
    expect(() => rehearsalFromFlags({ noteUse: "decide" })).toThrow(/need --rehearsal parallel:N/);
  });

  it("--rehearsal-user-replies: a non-negative integer, only with rehearsal", () => {
    expect(rehearsalFromFlags({ rehearsal: "parallel:2", rehearsalUserReplies: "3" })).toMatchObject({
      userReplies: 3,
    });
    expect(rehearsalFromFlags({ rehearsal: "parallel:2", rehearsalUserReplies: "0" })).toMatchObject({
      userReplies: 0,
    });
    expect(rehearsalFromFlags({ rehearsal: "parallel:2" })).not.toHaveProperty("userReplies");
    for (const bad of ["-1", "1.5", "x", ""])
      expect(() => rehearsalFromFlags({ rehearsal: "parallel:2", rehearsalUserReplies: bad })).toThrow(
        /--rehearsal-user-replies must be a non-negative integer/,
      );
    expect(() => rehearsalFromFlags({ rehearsalUserReplies: 2 })).toThrow(/need --rehearsal/);
  });

  it("--guard-tools: tool names, only with rehearsal", () => {
    expect(rehearsalFromFlags({ rehearsal: "parallel:2", guardTools: "cancel_order, refund" })).toMatchObject(
      {
        guardTools: ["cancel_order", "refund"],
      },
    );
    expect(rehearsalFromFlags({ rehearsal: "parallel:2" })).not.toHaveProperty("guardTools");
    for (const bad of ["", "a,,b", "rm -rf"])
      expect(() => rehearsalFromFlags({ rehearsal: "parallel:2", guardTools: bad })).toThrow(
        /--guard-tools must be a comma-separated list of tool names/,
      );
    expect(() => rehearsalFromFlags({ guardTools: "refund" })).toThrow(/need --rehearsal/);
  });

  it("the memory goes into the system message, or a new one", () => {
    expect(
      withMemory(
        [
          { role: "system", content: "S" },
          { role: "user", content: "U" },
        ],
        "N",
      ),
    ).toEqual([
      { role: "system", content: "S\n\nN" },
      { role: "user", content: "U" },
    ]);
    expect(withMemory([{ role: "user", content: "U" }], "N")).toEqual([
      { role: "system", content: "N" },
      { role: "user", content: "U" },
    ]);
    expect(withMemory([{ role: "user", content: "U" }], undefined)).toEqual([{ role: "user", content: "U" }]);
  });
});
