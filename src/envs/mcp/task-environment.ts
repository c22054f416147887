import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EnvaceError } from "../../core/errors.js";
import type { McpTaskEnv, Task } from "../../core/task.js";
import type { Environment } from "../env.js";
import { connectMcpHttp, connectMcpStdio } from "./connect.js";
import type { McpEnvironmentOptions } from "./mcp-environment.js";

/** Replaced in an mcp env's args, env values and cwd by a fresh empty directory per episode. */
export const EPISODE_DIR = "${EPISODE_DIR}";

/**
 * A fresh MCP environment for one episode of a task whose `env.kind` is "mcp". Over stdio the
 * server is started anew (its `${EPISODE_DIR}` a new empty directory, removed on close), so one
 * episode never sees another's writes; over HTTP the server is shared and only `setup` (the
 * task's declared reset) runs first. A setup call that fails is a configuration error: an
 * episode that starts from the wrong state would score nonsense.
 */
export async function openMcpTaskEnvironment(
  task: Task,
  opts: McpEnvironmentOptions = {},
): Promise<Environment> {
  const spec = task.env;
  if (spec?.kind !== "mcp") {
    throw new EnvaceError("INVALID_TASK_FILE", `task ${task.id}: env.kind is not "mcp"`);
  }
  const usesDir = spec.command !== undefined && JSON.stringify(spec).includes(EPISODE_DIR);
  const dir = usesDir ? await mkdtemp(join(tmpdir(), "envace-episode-")) : undefined;
  const removeDir = async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  };
  let env;
  try {
    env = await connect(spec, dir, opts);
  } catch (e) {
    await removeDir();
    throw e;
  }
  try {
    for (const [i, call] of (spec.setup ?? []).entries()) {
      const res = await env.call({ id: `setup-${i}`, name: call.name, arguments: call.arguments });
      if (!res.ok) {
        throw new EnvaceError(
          "INVALID_TASK_FILE",
          `task ${task.id}: env.setup.${i} (${call.name}) failed: ${res.error.message}`,
        );
      }
    }
  } catch (e) {
    await env.close();
    await removeDir();
    throw e;
  }
  return {
    tools: () => env.tools(),
    call: (c) => env.call(c),
    snapshot: () => env.snapshot(),
    hash: () => env.hash(),
    async close() {
      await env.close();
      await removeDir();
    },
  };
}

function connect(spec: McpTaskEnv, dir: string | undefined, opts: McpEnvironmentOptions) {
  if (spec.url !== undefined) {
    return connectMcpHttp({ url: spec.url, ...(spec.headers ? { headers: spec.headers } : {}) }, opts);
  }
  const sub = (s: string) => (dir ? s.split(EPISODE_DIR).join(dir) : s);
  return connectMcpStdio(
    {
      command: spec.command!,
      args: (spec.args ?? []).map(sub),
      ...(spec.env ? { env: Object.fromEntries(Object.entries(spec.env).map(([k, v]) => [k, sub(v)])) } : {}),
      ...(spec.cwd !== undefined ? { cwd: sub(spec.cwd) } : {}),
    },
    opts,
  );
}
