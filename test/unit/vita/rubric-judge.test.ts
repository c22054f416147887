import { describe, expect, it } from "vitest";
import type { ChatModel, ChatRequest } from "../../../src/core/model.js";
import {
  evaluateRubrics,
  formatWindow,
  initialRubricStates,
  parseJudgeReply,
  slidingWindows,
} from "../../../src/bench/vita/rubric-judge.js";
import type { VitaMessage, VitaTask } from "../../../src/bench/vita/types.js";

const task: Pick<VitaTask, "instructions" | "environment_time" | "evaluation_criteria"> = {
  instructions: "Order mild rice noodles to my office.",
  environment_time: "2025-06-21 11:20:00",
  evaluation_criteria: {
    expected_states: [{ state_rubrics: ["noodles are mild", "delivered by noon"] }],
    overall_rubrics: ["noodles are mild", "order is paid"],
  },
};

const conversation = (n: number): VitaMessage[] =>
  Array.from({ length: n }, (_, i) =>
    i % 3 === 2
      ? {
          role: "assistant",
          content: null,
          toolCalls: [{ id: `c${i}`, name: "pay", arguments: { order_id: `O${i}`, n: 2.5 } }],
        }
      : { role: i % 3 === 0 ? "assistant" : "user", content: `m${i}` },
  );

/** A judge that answers each window from a script and records the prompts it saw. */
function scriptedJudge(replies: (string | Error)[]): ChatModel & { seen: ChatRequest[] } {
  const seen: ChatRequest[] = [];
  return {
    name: "scripted-judge",
    seen,
    async chat(req) {
      seen.push(req);
      const r = replies[seen.length - 1] ?? "[]";
      if (r instanceof Error) throw r;
      return { samples: [{ text: r, finishReason: "stop" }] };
    },
  };
}

const update = (idx: number, met: boolean) =>
  JSON.stringify([
    { rubric_idx: `rubric_${idx}`, rubric: "", justification: `w says ${met}`, meetExpectation: met },
  ]);

describe("VitaBench rubric judge", () => {
  it("collects state rubrics then overall rubrics, without duplicates", () => {
    expect(initialRubricStates(task).map((s) => [s.rubric_idx, s.rubric])).toEqual([
      ["rubric_0", "noodles are mild"],
      ["rubric_1", "delivered by noon"],
      ["rubric_2", "order is paid"],
    ]);
  });

  it("cuts windows of 10 overlapping by 2, as upstream", () => {
    const starts = (n: number) =>
      slidingWindows(Array.from({ length: n }, (_, i) => i)).map((w) => [w[0], w.length]);
    expect(starts(10)).toEqual([[0, 10]]);
    expect(starts(11)).toEqual([
      [0, 10],
      [8, 3],
    ]);
    expect(starts(25)).toEqual([
      [0, 10],
      [8, 10],
      [16, 9],
    ]);
    expect(starts(26)).toEqual([
      [0, 10],
      [8, 10],
      [16, 10],
    ]);
  });

  it("numbers window lines globally and writes tool calls with Python reprs", () => {
    const text = formatWindow(conversation(6).slice(2), 2);
    expect(text.split("\n")).toEqual([
      "[3] assistant: pay(order_id='O2', n=2.5)",
      "[4] assistant: m3",
      "[5] user: m4",
      "[6] assistant: pay(order_id='O5', n=2.5)",
    ]);
  });

  it("carries rubric states across windows and scores 1 only when all are met", async () => {
    const judge = scriptedJudge([update(0, true), update(1, true), `\`\`\`json\n${update(2, true)}\n\`\`\``]);
    const ev = await evaluateRubrics(task, conversation(25), { judge, lang: "en" });
    expect(judge.seen).toHaveLength(3);
    expect(ev).toMatchObject({ status: "judged", reward: 1, rubric_score: 1, windows: 3 });
    // the third window sees the states the first two set
    const third = judge.seen[2]!.messages[1]!.content;
    expect(third).toContain(
      '"rubric_idx": "rubric_1",\n    "rubric": "delivered by noon",\n    "justification": "w says true",\n    "meetExpectation": true',
    );
    expect(third).toContain("[17] ");
    expect(judge.seen[0]!.messages[0]!.content).toContain(
      "{'system_time': '2025-06-21 11:20:00 Saturday', 'database': []}",
    );
    expect(judge.seen[0]!.messages[0]!.content).toContain(
      "You are evaluating window 1 (out of 3 windows total)",
    );
  });

  it("a later window can overturn a rubric; the fraction met is reported beside the 0", async () => {
    const judge = scriptedJudge([update(0, true), "no json here", update(0, false)]);
    const ev = await evaluateRubrics(task, conversation(25), { judge, lang: "en" });
    expect(ev).toMatchObject({ status: "judged", reward: 0, rubric_score: 0, unparsed_windows: 1 });
    const partial = await evaluateRubrics(task, conversation(5), {
      judge: scriptedJudge([update(2, true)]),
      lang: "en",
    });
    expect(partial.reward).toBe(0);
    expect(partial.rubric_score).toBeCloseTo(1 / 3);
  });

  it("without a judge the rubrics are not judged, never failed", async () => {
    const ev = await evaluateRubrics(task, conversation(5), { lang: "en" });
    expect(ev.status).toBe("not_judged");
    expect(ev.reward).toBeNull();
    expect(ev.rubrics.every((r) => r.verdict === "not_judged")).toBe(true);
  });

  it("a judge that fails at the API level leaves the task unjudged", async () => {
    const ev = await evaluateRubrics(task, conversation(25), {
      judge: scriptedJudge([update(0, true), new Error("HTTP 500")]),
      lang: "en",
    });
    expect(ev).toMatchObject({ status: "judge_error", reward: null, error: "HTTP 500" });
  });

  it("parses replies with prose or a single object around the JSON", () => {
    expect(parseJudgeReply('Here:\n[{"rubric_idx": "rubric_0", "meetExpectation": true}] done')).toEqual([
      { rubric_idx: "rubric_0", meetExpectation: true },
    ]);
    expect(parseJudgeReply('{"rubric_idx": "rubric_1"}')).toEqual([{ rubric_idx: "rubric_1" }]);
    expect(parseJudgeReply("nothing")).toBeNull();
  });
});
