import { describe, expect, it } from "vitest";
import { parsePy, pyJsonDumpsUnicode, pyRepr, PyFloat } from "../../../src/envs/vita/py-value.js";
import { checkTimeFormat, weekday } from "../../../src/envs/vita/py-time.js";

describe("Python values", () => {
  it("keeps JSON floats floats and key order, as json.loads does", () => {
    const v = parsePy('{"b": 12.0, "a": 3, "2": [1e2, "x"]}') as Map<string, unknown>;
    expect([...v.keys()]).toEqual(["b", "a", "2"]);
    expect(v.get("b")).toBeInstanceOf(PyFloat);
    expect(pyRepr(v)).toBe("{'b': 12.0, 'a': 3, '2': [100.0, 'x']}");
  });
  it("writes repr quotes as Python chooses them", () => {
    expect(pyRepr(["it's", 'say "hi"', "both ' \"", null, true])).toBe(
      `["it's", 'say "hi"', 'both \\' "', None, True]`,
    );
  });
  it("dumps JSON with ensure_ascii=False and optional sorted keys", () => {
    expect(
      pyJsonDumpsUnicode(
        new Map<string, unknown>([
          ["z", "中"],
          ["a", new PyFloat(1)],
        ]),
        true,
      ),
    ).toBe('{"a": 1.0, "z": "中"}');
  });
  it("parses datetimes as leniently as strptime and rejects impossible dates", () => {
    expect(checkTimeFormat("2025-6-1 9:5:0")).toBe(true);
    expect(checkTimeFormat("2025-02-30 10:00:00")).toBe(false);
    expect(checkTimeFormat("2025-02-01 10:00:60")).toBe(false);
    expect(checkTimeFormat("2025-02-01T10:00:00")).toBe(false);
    expect(checkTimeFormat("2025-02-01", false)).toBe(true);
    // a Chinese task file separates date and time with a no-break space; strptime accepts it
    expect(checkTimeFormat("2025-09-19\u00a010:49:56")).toBe(true);
    expect(checkTimeFormat("2025-09-19\u200b10:49:56")).toBe(false);
  });
  it("names weekdays like upstream's get_weekday", () => {
    expect(weekday("2025-06-21 11:20:00", "en")).toBe("Saturday");
    expect(weekday("2025-06-21 11:20:00", "zh")).toBe("星期六");
  });
});
