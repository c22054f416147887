import { join } from "node:path";

/** The published MCP servers installed as devDependencies, run with this Node. */
const root = join(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..", "..", "..");
export const FILESYSTEM_SERVER = join(
  root,
  "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
);
export const MEMORY_SERVER = join(root, "node_modules/@modelcontextprotocol/server-memory/dist/index.js");
export const REPO_ROOT = root;
