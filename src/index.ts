export { EnvaceError, isEnvaceError } from "./core/errors.js";
export type { ErrorCode } from "./core/errors.js";
export type { Message, Role, ToolCall, PolicyRole } from "./core/messages.js";
export type { ToolSchema, ToolResult, JSONSchema } from "./core/tools.js";
export type { Environment } from "./envs/env.js";
