import { describe, expect, it } from "vitest";
import { ToolSchemaZ } from "../../../src/core/task.js";
import { MEMORY_SERVER } from "./servers.js";
import { envaceExec } from "../../cli.js";

const envace = (args: string[]) => envaceExec(args);

describe("envace mcp tools", () => {
  it("--json prints the memory server's tools as envace tool schemas", async () => {
    const { stdout } = await envace(["mcp", "tools", "--json", "--", process.execPath, MEMORY_SERVER]);
    const tools = JSON.parse(stdout) as unknown[];
    expect(tools.map((t) => ToolSchemaZ.parse(t).name)).toEqual(
      expect.arrayContaining(["create_entities", "read_graph", "search_nodes"]),
    );
  });

  it("prints a table by default", async () => {
    const { stdout } = await envace(["mcp", "tools", "--", process.execPath, MEMORY_SERVER]);
    expect(stdout).toMatch(/^TOOL\s+ARGUMENTS\s+DESCRIPTION/);
    expect(stdout).toMatch(/^create_entities\s+entities\*\s+Create multiple new entities/m);
  });

  it("exits 1 with an MCP_ERROR when the server cannot start", async () => {
    await expect(envace(["mcp", "tools", "--", "envace-no-such-server"])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining("[MCP_ERROR]"),
    });
  });
});
