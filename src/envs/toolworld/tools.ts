import type { ToolSchema } from "../../core/tools.js";
import type { DomainSpec } from "./types.js";

/** One required string/number parameter per field; terse descriptions keep prompts short. */
export function objectSchema(properties: Record<string, Record<string, unknown>>): Record<string, unknown> {
  return { type: "object", properties, required: Object.keys(properties), additionalProperties: false };
}

const cache = new Map<string, ToolSchema[]>();

/**
 * The domain's tools in OpenAI function shape, in a fixed order: find, list, get, actions, specials.
 * One shared array per domain (callers must not mutate it): argument validators are compiled once
 * per schema object, so fresh schemas per environment would recompile them on every task.
 */
export function domainTools(d: DomainSpec): ToolSchema[] {
  let tools = cache.get(d.name);
  if (!tools) {
    tools = buildTools(d);
    cache.set(d.name, tools);
  }
  return tools;
}

function buildTools(d: DomainSpec): ToolSchema[] {
  const str = { type: "string" };
  return [
    {
      name: d.owner.findTool,
      description: `find a ${d.owner.noun} id by ${d.owner.keyField}`,
      parameters: objectSchema({ [d.owner.keyField]: str }),
    },
    {
      name: d.item.listTool,
      description: `list a ${d.owner.noun}'s ${d.item.plural}`,
      parameters: objectSchema({ [d.owner.idKey]: str }),
    },
    {
      name: d.item.getTool,
      description: `get a ${d.item.noun}'s status and ${d.item.detailField}`,
      parameters: objectSchema({ [d.item.idKey]: str }),
    },
    ...d.actions.map((a) => ({
      name: a.tool,
      description: `${a.verb} a ${d.item.noun} (only if ${a.from.join(" or ")})`,
      parameters: objectSchema({ [d.item.idKey]: str }),
    })),
    ...d.specials.map((s) => s.tool),
  ];
}

/** Tools that change state: a read-only turn forbids them all. */
export function writeToolNames(d: DomainSpec): string[] {
  return [...d.actions.map((a) => a.tool), ...d.specials.map((s) => s.tool.name)];
}
