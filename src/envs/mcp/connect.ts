import {
  httpConnector,
  stdioConnector,
  type HttpServerOptions,
  type StdioServerOptions,
} from "./connectors.js";
import { McpEnvironment, type McpEnvironmentOptions } from "./mcp-environment.js";

/** Spawns an MCP server over stdio and opens it as an environment. Call `close()` when done. */
export function connectMcpStdio(
  server: StdioServerOptions,
  opts: McpEnvironmentOptions = {},
): Promise<McpEnvironment> {
  return McpEnvironment.open(stdioConnector(server), opts);
}

/** Connects to an MCP server over streamable HTTP and opens it as an environment. */
export function connectMcpHttp(
  server: HttpServerOptions,
  opts: McpEnvironmentOptions = {},
): Promise<McpEnvironment> {
  return McpEnvironment.open(httpConnector(server), opts);
}
