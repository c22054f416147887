"""The one thread that runs the model. Sampling requests arriving within a short window are merged
into one decode batch; training jobs run in arrival order between batches. Serialising all model
access here means sampling never sees half-updated weights."""
from __future__ import annotations

import queue
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, field


@dataclass
class SampleJob:
    rows: list                       # sampler.RowSpec, one per choice
    future: Future = field(default_factory=Future)


@dataclass
class CallJob:
    fn: object
    future: Future = field(default_factory=Future)


_STOP = object()


class ModelThread:
    def __init__(self, run_batch, window_s: float = 0.01, max_rows: int = 64):
        self.run_batch = run_batch   # list[RowSpec] -> list[RowResult]
        self.window_s = window_s
        self.max_rows = max_rows
        self.q: queue.Queue = queue.Queue()
        self.metrics = {"sample_batches": 0, "sample_requests": 0, "sample_rows": 0,
                        "last_batch_requests": 0, "max_batch_requests": 0, "max_batch_rows": 0,
                        "completion_tokens": 0, "train_calls": 0}
        self._thread = threading.Thread(target=self._loop, name="envace-model", daemon=True)
        self._thread.start()

    def sample(self, rows: list) -> Future:
        job = SampleJob(rows)
        self.q.put(job)
        return job.future

    def call(self, fn) -> Future:
        job = CallJob(fn)
        self.q.put(job)
        return job.future

    def stop(self, timeout: float = 10.0) -> None:
        self.q.put(_STOP)
        self._thread.join(timeout)

    def _collect(self, first: SampleJob, held: list) -> list:
        batch, rows = [first], len(first.rows)
        deadline = time.monotonic() + self.window_s
        while rows < self.max_rows:
            left = deadline - time.monotonic()
            try:
                nxt = self.q.get(timeout=left) if left > 0 else self.q.get_nowait()
            except queue.Empty:
                break
            if isinstance(nxt, SampleJob) and rows + len(nxt.rows) <= self.max_rows:
                batch.append(nxt)
                rows += len(nxt.rows)
            else:
                held.append(nxt)  # a training job (or an overflow) runs after this batch, in order
                break
        return batch

    def _loop(self) -> None:
        held: list = []
        while True:
            job = held.pop(0) if held else self.q.get()
            if job is _STOP:
                for j in held:
                    if j is not _STOP:
                        j.future.cancel()
                return
            if isinstance(job, CallJob):
                self.metrics["train_calls"] += 1
                self._run(job.future, job.fn)
                continue
            batch = self._collect(job, held)
            rows = [r for j in batch for r in j.rows]
            m = self.metrics
            m["sample_batches"] += 1
            m["sample_requests"] += len(batch)
            m["sample_rows"] += len(rows)
            m["last_batch_requests"] = len(batch)
            m["max_batch_requests"] = max(m["max_batch_requests"], len(batch))
            m["max_batch_rows"] = max(m["max_batch_rows"], len(rows))
            try:
                results = self.run_batch(rows)
            except BaseException as e:  # noqa: BLE001 - reported to every waiting request
                for j in batch:
                    j.future.set_exception(e)
                continue
            m["completion_tokens"] += sum(len(r.token_ids) for r in results)
            off = 0
            for j in batch:
                j.future.set_result(results[off:off + len(j.rows)])
                off += len(j.rows)

    @staticmethod
    def _run(fut: Future, fn) -> None:
        try:
            fut.set_result(fn())
        except BaseException as e:  # noqa: BLE001
            fut.set_exception(e)
