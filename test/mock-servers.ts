import { afterEach } from "vitest";
import { startMockOpenAIServer, type MockOpenAIServer } from "../src/testing/index.js";

/**
 * `startMockOpenAIServer` for one test file: call at module level; every server the returned
 * function starts is closed after each test.
 */
export function mockServersClosedAfterEach(): (
  ...a: Parameters<typeof startMockOpenAIServer>
) => Promise<MockOpenAIServer> {
  const servers: MockOpenAIServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  return async (...a) => {
    const s = await startMockOpenAIServer(...a);
    servers.push(s);
    return s;
  };
}
