import { expect, it } from "vitest";
import { startWorker } from "../../../src/engines/index.js";
import { pidsMentioning, waitFor } from "../processes.js";
import { writeTinyCorpus } from "./corpus.js";

it("runs data-parallel under torchrun with nproc 2, and stop() takes every rank down", async () => {
  const { corpus } = writeTinyCorpus();
  const w = await startWorker({ init: { corpus, size: "xs" }, nproc: 2, device: "cpu" });
  const leader = w.pid;
  try {
    expect((await w.client.health()).world_size).toBe(2);
    // torchrun and its 2 ranks
    expect(pidsMentioning(corpus)).toHaveLength(3);
    const tok = await w.client.tokenize({
      messages: [
        { role: "user", content: "cancel order" },
        { role: "assistant", content: "refund email" },
      ],
    });
    const from = tok.spans[1]!.completionStart!;
    const lossMask = tok.tokenIds.map((_, i) => (i >= from ? 1 : 0));
    const seq = { tokenIds: tok.tokenIds, lossMask };
    const fb = await w.client.forwardBackward({ sequences: [seq, seq], loss: { fn: "cross_entropy" } });
    expect(Number.isFinite(fb.loss)).toBe(true);
    const st = await w.client.optimStep({ lr: 1e-3 });
    expect(st.step).toBe(1);
  } finally {
    await w.stop();
  }
  expect(pidsMentioning(corpus)).toEqual([]);
  expect(leader).toBeGreaterThan(0);
});

it("shards training with --parallel fsdp: both ranks train, rank 0 samples from the new weights", async () => {
  const { corpus } = writeTinyCorpus();
  const w = await startWorker({ init: { corpus, size: "xs" }, nproc: 2, parallel: "fsdp", device: "cpu" });
  try {
    expect(await w.client.health()).toMatchObject({ world_size: 2, parallel: "fsdp" });
    const model = w.client.chatModel();
    // the same seeded request: only new weights can change its answer or its log-probabilities
    const ask = async () =>
      (await model.chat({ messages: [{ role: "user", content: "cancel order" }], maxTokens: 4, seed: 1 }))
        .samples[0]!.logprobs;
    const before = await ask();
    const tok = await w.client.tokenize({
      messages: [
        { role: "user", content: "cancel order" },
        { role: "assistant", content: "refund email" },
      ],
    });
    const from = tok.spans[1]!.completionStart!;
    const seq = { tokenIds: tok.tokenIds, lossMask: tok.tokenIds.map((_, i) => (i >= from ? 1 : 0)) };
    for (let step = 1; step <= 3; step++) {
      await w.client.forwardBackward({ sequences: [seq, seq, seq], loss: { fn: "cross_entropy" } });
      expect((await w.client.optimStep({ lr: 1e-2 })).step).toBe(step);
    }
    expect(await ask()).not.toEqual(before);
  } finally {
    await w.stop();
  }
  expect(pidsMentioning(corpus)).toEqual([]);
});

it("takes the ranks down when torchrun itself is killed with SIGKILL", async () => {
  const { corpus } = writeTinyCorpus();
  const w = await startWorker({ init: { corpus, size: "xs" }, nproc: 2, device: "cpu" });
  try {
    expect(pidsMentioning(corpus)).toHaveLength(3);
    process.kill(w.pid, "SIGKILL");
    await waitFor(() => pidsMentioning(corpus).length === 0, "the ranks to die with their launcher", 15_000);
  } finally {
    await w.stop();
  }
});
