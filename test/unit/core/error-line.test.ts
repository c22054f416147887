import { describe, expect, it } from "vitest";
import { EnvaceError, errorLine } from "../../../src/core/errors.js";

describe("errorLine", () => {
  it("puts an envace error's code before its message, and leaves other errors and values as they are", () => {
    expect(errorLine(new EnvaceError("WORKER_UNAVAILABLE", "worker gone"))).toBe(
      "[WORKER_UNAVAILABLE] worker gone",
    );
    expect(errorLine(new Error("plain"))).toBe("plain");
    expect(errorLine("a string")).toBe("a string");
    expect(errorLine(null)).toBe("null");
  });
});
