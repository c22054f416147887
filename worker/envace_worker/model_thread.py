"""The one thread that runs the model. Serialising all model access here means sampling never sees
half-updated weights.

Sampling is continuous batching: a chat request is admitted into the running decode batch at the
next step boundary (with the ContinuousEngine; the StaticEngine only admits while idle) and leaves
it when its rows finish. When the engine is idle, the first request waits up to `window_s` for
company before decoding starts. A training call (`call`) is a barrier in arrival order: requests
queued after it are not admitted, the running rows finish, the call runs, then sampling resumes;
so no completion ever mixes two versions of the weights.

Threads: decoding a tiny model is a chain of small ops where OpenMP fork/join costs more than it
saves (and is ruinous when other processes share the cores), so sampling runs with
`sample_threads` (default 1) and training calls with `train_threads` (0: leave torch's setting).
"""
from __future__ import annotations

import collections
import queue
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, field

import torch


@dataclass
class SampleJob:
    rows: list                       # sampler.RowSpec, one per choice
    future: Future = field(default_factory=Future)
    results: list = field(default_factory=list)
    left: int = 0


@dataclass
class CallJob:
    fn: object
    future: Future = field(default_factory=Future)


_STOP = object()


class ModelThread:
    def __init__(self, engine, window_s: float = 0.01, max_rows: int = 64, sample_threads: int = 1,
                 train_threads: int = 0):
        if not hasattr(engine, "step"):  # a plain list[RowSpec] -> list[RowResult] function
            from .decode_engine import StaticEngine

            engine = StaticEngine(engine)
        self.engine = engine
        self.window_s = window_s
        self.max_rows = max_rows
        self.sample_threads = sample_threads
        self.train_threads = train_threads or torch.get_num_threads()
        self.q: queue.Queue = queue.Queue()
        self.metrics = {"sample_batches": 0, "sample_requests": 0, "sample_rows": 0,
                        "last_batch_requests": 0, "max_batch_requests": 0, "max_batch_rows": 0,
                        "completion_tokens": 0, "train_calls": 0, "joined_running": 0,
                        "decode_steps": 0, "prefill_tokens": 0, "prefix_hit_tokens": 0,
                        "active_rows": 0}
        self._running_jobs = 0
        self._thread = threading.Thread(target=self._loop, name="envace-model", daemon=True)
        self._thread.start()

    def sample(self, rows: list) -> Future:
        job = SampleJob(rows, results=[None] * len(rows), left=len(rows))
        self.q.put(job)
        return job.future

    def call(self, fn) -> Future:
        job = CallJob(fn)
        self.q.put(job)
        return job.future

    def stop(self, timeout: float = 10.0) -> None:
        self.q.put(_STOP)
        self._thread.join(timeout)

    # ------------------------------------------------------------------ loop
    def _drain(self, pending: collections.deque, block: bool) -> None:
        try:
            pending.append(self.q.get() if block else self.q.get_nowait())
            while True:
                pending.append(self.q.get_nowait())
        except queue.Empty:
            pass

    def _window(self, pending: collections.deque) -> None:
        """Idle engine, a sample request at the head: wait up to window_s for more requests."""
        deadline = time.monotonic() + self.window_s
        while sum(len(j.rows) for j in pending if isinstance(j, SampleJob)) < self.max_rows:
            if any(not isinstance(j, SampleJob) for j in pending):
                return
            left = deadline - time.monotonic()
            if left <= 0:
                return
            try:
                pending.append(self.q.get(timeout=left))
            except queue.Empty:
                return

    def _loop(self) -> None:
        pending: collections.deque = collections.deque()
        eng = self.engine
        while True:
            self._drain(pending, block=eng.active == 0 and not pending)
            if eng.active == 0 and pending and isinstance(pending[0], SampleJob) and self.window_s > 0:
                self._window(pending)
            if any(j is _STOP for j in pending):
                for j in pending:
                    if j is not _STOP:
                        j.future.cancel()
                return
            # admit sample requests up to the first training call (a barrier)
            was_active = eng.active
            admitted = 0
            batch, rows = [], eng.active
            while pending and isinstance(pending[0], SampleJob) and (eng.can_join or was_active == 0):
                job = pending[0]
                if rows > 0 and rows + len(job.rows) > self.max_rows:
                    break
                batch.append(pending.popleft())
                rows += len(job.rows)
            if batch:
                admitted = self._admit(batch, joining=was_active > 0)
            if admitted:
                self._count_batch(was_active, admitted)
            if eng.active > 0:
                self._step()
            elif pending and isinstance(pending[0], CallJob):
                job = pending.popleft()
                self.metrics["train_calls"] += 1
                self._set_threads(self.train_threads)
                self._run(job.future, job.fn)
                self.engine.invalidate()  # optim_step / load change the weights: cached keys are stale

    def _set_threads(self, n: int) -> None:
        if n > 0 and torch.get_num_threads() != n:
            torch.set_num_threads(n)

    def _admit(self, jobs: list, joining: bool) -> int:
        """Admits jobs at one step boundary (their prompts prefilled together where the engine
        can); a refused job gets its error, the others go on. Returns how many were admitted."""
        self._set_threads(self.sample_threads)
        if hasattr(self.engine, "admit_many"):
            try:
                errors = self.engine.admit_many([(job.rows, job) for job in jobs])
            except BaseException as e:  # noqa: BLE001 - reported to the requests; the batch goes on
                errors = [e] * len(jobs)
        else:
            errors = []
            for job in jobs:
                try:
                    self.engine.admit(job.rows, job)
                    errors.append(None)
                except BaseException as e:  # noqa: BLE001
                    errors.append(e)
        m, admitted = self.metrics, 0
        for job, err in zip(jobs, errors):
            if err is not None:
                job.future.set_exception(err)
                continue
            admitted += 1
            self._running_jobs += 1
            m["sample_requests"] += 1
            m["sample_rows"] += len(job.rows)
            if joining:
                m["joined_running"] += 1
        return admitted

    def _count_batch(self, was_active: int, admitted: int) -> None:
        m = self.metrics
        if was_active == 0:
            m["sample_batches"] += 1
        m["last_batch_requests"] = self._running_jobs
        m["max_batch_requests"] = max(m["max_batch_requests"], self._running_jobs)
        m["max_batch_rows"] = max(m["max_batch_rows"], self.engine.active)
        m["active_rows"] = self.engine.active

    def _step(self) -> None:
        self._set_threads(self.sample_threads)
        m = self.metrics
        try:
            finished = self.engine.step()
        except BaseException as e:  # noqa: BLE001 - a broken batch fails every request in it
            self._fail_all(e)
            return
        for job, i, res in finished:
            job.results[i] = res
            job.left -= 1
            m["completion_tokens"] += len(res.token_ids)
            if job.left == 0:
                self._running_jobs -= 1
                job.future.set_result(job.results)
        m["decode_steps"] = self.engine.steps
        m["prefill_tokens"] = self.engine.prefill_tokens
        m["prefix_hit_tokens"] = self.engine.prefix_hit_tokens
        m["active_rows"] = self.engine.active

    def _fail_all(self, e: BaseException) -> None:
        eng = self.engine
        jobs = {id(r.job): r.job for r in getattr(eng, "rows", [])}
        jobs.update({id(j): j for j, _, _ in getattr(eng, "pending", [])})
        for j in jobs.values():
            if not j.future.done():
                j.future.set_exception(e)
        reset = getattr(eng, "reset", None)
        if reset:
            reset()
        self._running_jobs = 0
        self.metrics["active_rows"] = 0

    @staticmethod
    def _run(fut: Future, fn) -> None:
        try:
            fut.set_result(fn())
        except BaseException as e:  # noqa: BLE001
            fut.set_exception(e)
