import { defineConfig } from "vitest/config";

// `npm run test:vllm`: integration tests against a real vLLM (CPU), kept out of `npm test` and CI
// because a vLLM start takes minutes on 2 cores (README, "Rollouts on vLLM").
export default defineConfig({
  test: {
    include: ["test/vllm/**/*.test.ts"],
    testTimeout: 900_000,
    hookTimeout: 900_000,
    fileParallelism: false,
  },
});
