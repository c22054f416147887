import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WORKER_API_KEY_ENV, WorkerClient } from "../../../src/engines/worker-client.js";

// A stand-in worker that records the Authorization header of every request.
let server: Server | undefined;
const seen: (string | undefined)[] = [];
async function recordingServer(): Promise<string> {
  server = createServer((req, res) => {
    seen.push(req.headers.authorization);
    req.resume();
    req.on("end", () => {
      res.setHeader("content-type", "application/json");
      if (req.url === "/v1/chat/completions") {
        res.end(
          JSON.stringify({
            id: "x",
            object: "chat.completion",
            created: 0,
            model: "m",
            choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }],
          }),
        );
      } else res.end(JSON.stringify({ path: "ck", step: 3, optimizer: true }));
    });
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  seen.length = 0;
  delete process.env[WORKER_API_KEY_ENV];
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = undefined;
});

describe("the worker's bearer token", () => {
  it("goes on every training call and on the chat model", async () => {
    const url = await recordingServer();
    const c = new WorkerClient(url, { apiKey: "tok-1" });
    await c.save("ck");
    await c.chatModel({ maxRetries: 0 }).chat({ messages: [{ role: "user", content: "hi" }] });
    expect(seen).toEqual(["Bearer tok-1", "Bearer tok-1"]);
  });

  it("comes from ENVACE_WORKER_API_KEY for an external worker, and is absent without one", async () => {
    const url = await recordingServer();
    await new WorkerClient(url).load("ck");
    process.env[WORKER_API_KEY_ENV] = "from-env";
    await new WorkerClient(url).load("ck");
    expect(seen).toEqual([undefined, "Bearer from-env"]);
  });
});
