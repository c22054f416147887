import type { ToolSchema } from "../core/tools.js";

/** The JSON Schema type of a recorded value. */
function jsonType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

/**
 * Tool schemas guessed from recorded calls, for logs that carry none: every argument seen becomes
 * a property of the type(s) seen, required when every call had it. A stopgap that lets the tasks
 * run; the description says so, and real schemas (`envace mcp tools --json`) should replace them.
 */
export function inferTools(
  calls: ReadonlyArray<{ name: string; arguments: Record<string, unknown> }>,
): ToolSchema[] {
  const byName = new Map<string, Array<Record<string, unknown>>>();
  for (const c of calls) byName.set(c.name, [...(byName.get(c.name) ?? []), c.arguments]);
  return [...byName.entries()].map(([name, argsList]) => {
    const types = new Map<string, Set<string>>();
    for (const args of argsList) {
      for (const [k, v] of Object.entries(args)) {
        const t = types.get(k) ?? new Set<string>();
        t.add(jsonType(v));
        types.set(k, t);
      }
    }
    const properties = Object.fromEntries(
      [...types.entries()].map(([k, ts]) => {
        // An integer seen beside a non-integer number is a number.
        if (ts.has("integer") && ts.has("number")) ts.delete("integer");
        const list = [...ts];
        return [k, { type: list.length === 1 ? list[0] : list }];
      }),
    );
    const required = [...types.keys()].filter((k) => argsList.every((a) => k in a));
    return {
      name,
      description: "(schema inferred from recorded calls)",
      parameters: { type: "object", properties, required },
    };
  });
}
