export { startMockOpenAIServer } from "./mock-openai-server.js";
export type {
  MockOpenAIServer,
  MockOpenAIServerOptions,
  MockChatBody,
  MockChoice,
  MockReply,
  MockFailure,
  MockRequestRecord,
} from "./mock-openai-server.js";
export { startMockVllmServer } from "./mock-vllm-server.js";
export type { MockVllmServer, MockVllmServerOptions, MockVllmCall } from "./mock-vllm-server.js";
export { ScriptedPolicy, fakeTokenIds } from "./scripted-policy.js";
export type { ScriptedOutput, ScriptedRule, ScriptedPolicyOptions, ScriptedCall } from "./scripted-policy.js";
export { CountingEnvironment } from "./counting-environment.js";
export { InMemoryTrainEngine } from "../train/in-memory-engine.js";
export { startEmbeddingServer, bagOfWordsEmbedding } from "./embedding-server.js";
export type { EmbeddingServer } from "./embedding-server.js";
export { startSearchServer } from "./search-server.js";
export type { SearchServer, SearchDocument } from "./search-server.js";
