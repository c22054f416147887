/**
 * A fresh real environment for a task, from its `env` field (toolworld, mcp). The factory lives in
 * envs/ so that benches and training share it.
 */
export { environmentForTask } from "../envs/task-environment.js";
