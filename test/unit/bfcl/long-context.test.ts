import { describe, expect, it } from "vitest";
import { parseLongContext } from "../../../src/envs/bfcl/long-context.js";
import { pyRepr } from "../../../src/envs/bfcl/py-value.js";

describe("long-context data (upstream's long_context.py read as literals)", () => {
  it("reads each NAME = literal, keeping Python's Ellipsis and string forms, executing nothing", () => {
    const src = [
      "WATCH_LIST_EXTENSION = ['A',  'B',  ...]",
      "# a comment",
      'ORDER_DETAIL_EXTENSION = {"company_overview": "\\n    {symbol} is one"',
      '    " of many"}',
      'FILE_CONTENT_EXTENSION = """first',
      'second"""',
      "FILES_TAIL_USED = ['log.txt', 'report.txt']",
    ].join("\n");
    const data = parseLongContext(src);
    expect(Object.keys(data)).toEqual([
      "WATCH_LIST_EXTENSION",
      "ORDER_DETAIL_EXTENSION",
      "FILE_CONTENT_EXTENSION",
      "FILES_TAIL_USED",
    ]);
    expect(pyRepr(data.WATCH_LIST_EXTENSION!)).toBe("['A', 'B', Ellipsis]");
    expect(pyRepr(data.ORDER_DETAIL_EXTENSION!)).toBe(
      "{'company_overview': '\\n    {symbol} is one of many'}",
    );
    expect(data.FILE_CONTENT_EXTENSION).toBe("first\nsecond");
  });
  it("refuses code with a clear error naming the constant", () => {
    expect(() => parseLongContext("X = __import__('os').system('true')")).toThrow(
      /long_context.py: X: invalid syntax/,
    );
  });
});
