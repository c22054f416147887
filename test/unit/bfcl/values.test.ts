import { describe, expect, it } from "vitest";
import { parseJsonPy } from "../../../src/envs/bfcl/lossless-json.js";
import {
  floatRepr,
  pyEqual,
  pyIn,
  pyRepr,
  pyType,
  PyFloat,
  PyTuple,
  strRepr,
} from "../../../src/envs/bfcl/py-value.js";

describe("lossless JSON", () => {
  it("keeps 5.0 a float and 5 an int, as json.loads does", () => {
    const v = parseJsonPy('{"a": 5.0, "b": 5, "c": 1e3, "d": -0.5, "e": [1, 2.50]}') as Record<
      string,
      unknown
    >;
    expect(pyType(v.a as PyFloat)).toBe("float");
    expect(pyType(v.b as number)).toBe("int");
    expect(pyType(v.c as PyFloat)).toBe("float");
    expect((v.c as PyFloat).value).toBe(1000);
    expect(pyRepr(v as never)).toBe("{'a': 5.0, 'b': 5, 'c': 1000.0, 'd': -0.5, 'e': [1, 2.5]}");
  });
  it("reads escapes, unicode and a __proto__ key as data", () => {
    const v = parseJsonPy('{"__proto__": "x\\n\\u674e", "k": [true, false, null]}') as Record<
      string,
      unknown
    >;
    expect(Object.keys(v)).toEqual(["__proto__", "k"]);
    expect(v.__proto__).toBe("x\n李");
    expect(v.k).toEqual([true, false, null]);
  });
  it("rejects malformed JSON with a typed error", () => {
    expect(() => parseJsonPy('{"a": }')).toThrow(/invalid JSON at offset 6/);
    expect(() => parseJsonPy("[1, 2] x")).toThrow(/trailing/);
  });
});

describe("Python semantics", () => {
  it("== is numeric across bool/int/float, strict across list/tuple", () => {
    expect(pyEqual(5, new PyFloat(5))).toBe(true);
    expect(pyEqual(true, 1)).toBe(true);
    expect(pyEqual(false, new PyFloat(0))).toBe(true);
    expect(pyEqual("1", 1)).toBe(false);
    expect(pyEqual([1, 2], new PyTuple([1, 2]))).toBe(false);
    expect(pyEqual([1, [new PyFloat(2)]], [true, [2]])).toBe(true);
    expect(pyIn(new PyFloat(3), [1, 3])).toBe(true);
  });
  it("repr(float) follows Python's rules", () => {
    expect(floatRepr(5)).toBe("5.0");
    expect(floatRepr(0.1 + 0.2)).toBe("0.30000000000000004");
    expect(floatRepr(1e16)).toBe("1e+16");
    expect(floatRepr(123456789012345.6)).toBe("123456789012345.6");
    expect(floatRepr(0.0001)).toBe("0.0001");
    expect(floatRepr(0.00001)).toBe("1e-05");
    expect(floatRepr(-2.5e-7)).toBe("-2.5e-07");
    expect(floatRepr(1.5e300)).toBe("1.5e+300");
  });
  it("repr(str) picks quotes as Python does", () => {
    expect(strRepr("abc")).toBe("'abc'");
    expect(strRepr("it's")).toBe(`"it's"`);
    expect(strRepr(`it's "x"`)).toBe(`'it\\'s "x"'`);
    expect(strRepr("a\nb\\")).toBe("'a\\nb\\\\'");
    expect(pyRepr(new PyTuple([1]))).toBe("(1,)");
    expect(pyRepr([null, true, new PyFloat(2)])).toBe("[None, True, 2.0]");
  });
});
