import { startMockOpenAIServer, type MockChatBody, type MockReply } from "../../../src/testing/index.js";

/**
 * τ² mock's `create_task_1` played over OpenAI-compatible mock servers: the agent creates the task
 * when the user asks, then confirms; the user asks once, then stops.
 */
export function createTaskAgentReply(b: MockChatBody): MockReply {
  if (b.messages[b.messages.length - 1]!.role === "user")
    return {
      content: null,
      toolCalls: [{ name: "create_task", arguments: { user_id: "user_1", title: "Important Meeting" } }],
    };
  return "Created the task Important Meeting.";
}

export function startCreateTaskUser() {
  return startMockOpenAIServer({
    handler: (_b, { index }) =>
      index === 0 ? "Please create a task called Important Meeting for user_1." : "###STOP###",
  });
}

/** `envace eval` (run with tsx) on that task against the two servers; append more flags. */
export function evalCreateTaskArgs(agentURL: string, userURL: string): string[] {
  return [
    "tsx",
    "src/cli/main.ts",
    "eval",
    "--bench",
    "tau2:mock",
    "--limit",
    "1",
    "--json",
    "--endpoint",
    agentURL,
    "--model",
    "agent",
    "--user-endpoint",
    userURL,
    "--user-model",
    "user",
  ];
}
