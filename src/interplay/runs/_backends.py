"""Where chunks are computed: in this process, in local worker processes (joblib's loky), or on Ray.

Every backend receives the explainer once as pickled bytes (cloudpickle), unpickles it once per worker and keeps
it for all the chunks that worker computes (loky: a worker initializer; Ray: long-lived actors fed from one
``ray.put``). At most ``2 * n_workers`` chunks are in flight, so memory stays bounded however many rows there are.
Results come back in completion order; the caller writes them (chunks are identified by their first row).

Local workers die with the driver: each one watches its parent process (a daemon thread polling ``os.getppid()``)
and exits as soon as the process that started it is gone, even when the driver was killed with SIGKILL and no
cleanup of its own could run. Loky's resource trackers then see their last writer go and exit too.
"""

from __future__ import annotations

import os
import threading
import time
import warnings
from collections import deque
from typing import Any, Iterable, Iterator

from ._compute import Task, explain_chunk
from ._sources import Chunk

BACKENDS = ("local", "ray")
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
               "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")

_WORKER: dict = {}
WATCH_INTERVAL = 0.2  # seconds between two checks that the driver is still alive


def exit_with_parent(parent: int, interval: float = WATCH_INTERVAL) -> None:
    """Exit this process (``os._exit``) as soon as its parent is no longer ``parent``: the driver died (even by
    SIGKILL) and this process was handed to init. Checked by a daemon thread every ``interval`` seconds."""
    if os.getppid() != parent:
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval)
        os._exit(1)

    threading.Thread(target=watch, name="interplay-parent-watchdog", daemon=True).start()


def _init_worker(payload: bytes, task: Task, parent: int | None = None) -> None:
    from ._params import cloudpickle

    if parent is not None:
        exit_with_parent(parent)

    _WORKER["explainer"] = cloudpickle().loads(payload)
    _WORKER["task"] = task


def _work(chunk: Chunk) -> dict:
    return explain_chunk(_WORKER["explainer"], _WORKER["task"], chunk)


class WorkersDied(RuntimeError):
    """Workers (local processes or Ray actors) kept dying: the chunks in flight could not be computed."""


def _rows_of(chunks) -> str:
    spans = sorted((c.start, c.start + len(c.rows) - 1) for c in chunks)
    return ", ".join(f"rows {a}..{b}" for a, b in spans[:4]) + (" ..." if len(spans) > 4 else "")


def resolve_n_jobs(n_jobs: int | None) -> int:
    """``None`` or ``-1``: all CPUs; ``-k``: all but ``k - 1``."""
    cpus = os.cpu_count() or 1
    if n_jobs is None:
        return cpus
    return max(1, cpus + 1 + n_jobs) if n_jobs < 0 else n_jobs


class InlineBackend:
    """Compute chunks one after another in this process (``n_jobs=1``)."""

    def __init__(self, explainer: Any, task: Task) -> None:
        self.explainer, self.task = explainer, task

    def map_unordered(self, chunks: Iterable[Chunk]) -> Iterator[tuple[Chunk, dict]]:
        for chunk in chunks:
            yield chunk, explain_chunk(self.explainer, self.task, chunk)

    def close(self) -> None:
        pass


class LocalBackend:
    """``n_jobs`` loky worker processes (no cluster needed). If a worker dies (killed, out of memory), the pool is
    restarted and the chunks in flight are computed again (at most 3 times)."""

    def __init__(self, payload: bytes, task: Task, n_jobs: int) -> None:
        self.n_jobs, self.payload, self.task = n_jobs, payload, task
        self.restarts_left = 3
        self.executor = self._start()

    def _start(self):
        from joblib.externals.loky import ProcessPoolExecutor

        # like joblib: cap the BLAS/OpenMP threads of each worker so that n_jobs workers do not oversubscribe
        threads = str(max(1, (os.cpu_count() or 1) // self.n_jobs))
        env = {var: os.environ.get(var, threads) for var in THREAD_VARS}
        return ProcessPoolExecutor(max_workers=self.n_jobs, initializer=_init_worker,
                                   initargs=(self.payload, self.task, os.getpid()), env=env)

    def map_unordered(self, chunks: Iterable[Chunk]) -> Iterator[tuple[Chunk, dict]]:
        from concurrent.futures import FIRST_COMPLETED, wait
        from concurrent.futures.process import BrokenProcessPool

        chunks = iter(chunks)
        running: dict = {}
        self._running = running  # close() stops what is still queued or computing (a model error, Ctrl-C)
        retry: deque = deque()
        while True:
            results: list = []
            try:
                while len(running) < 2 * self.n_jobs:
                    chunk = retry.popleft() if retry else next(chunks, None)
                    if chunk is None:
                        break
                    try:
                        running[self.executor.submit(_work, chunk)] = chunk
                    except BrokenProcessPool:  # a worker died before this submit (seen here, not in a future)
                        retry.appendleft(chunk)
                        raise
                if not running:
                    return
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                failed = None
                for future in done:
                    try:
                        results.append((running[future], future.result()))  # BrokenProcessPool: a worker died
                    except BrokenProcessPool:
                        raise
                    except Exception as exc:  # noqa: BLE001  (the model's error: raised once the others are kept)
                        failed = failed or exc
                    del running[future]
            except BrokenProcessPool:
                if self.restarts_left <= 0:
                    lost = [*(chunk for chunk, _ in results), *running.values(), *retry]
                    raise WorkersDied(
                        f"backend='local': worker processes died 4 times while computing {_rows_of(lost)} "
                        "(killed, out of memory, or the model crashes its process); gave up") from None
                self.restarts_left -= 1
                # every chunk in flight is computed again (also those finished in this round: simpler than
                # telling apart which of the round's futures broke)
                retry.extend([*(chunk for chunk, _ in results), *running.values()])
                running.clear()
                self.executor.shutdown(wait=False, kill_workers=True)
                self.executor = self._start()
                continue
            yield from results  # chunks finished beside a failed one are written before its error is raised
            if failed is not None:
                raise failed

    def close(self) -> None:
        running = [future for future in getattr(self, "_running", {}) if not future.done()]
        if running:  # stopped early (a model error, Ctrl-C): chunks still queued or computing
            # loky's shutdown(kill_workers=True) with chunks still queued fails in its manager thread (cancelled
            # futures: InvalidStateError, so the workers lived on and Python hung at exit joining them; else a
            # KeyError printed as 'Exception in thread ExecutorManagerThread'). Instead: queued chunks cancelled,
            # the workers killed (their chunks are lost anyway), and loky's own broken-pool path cleans up
            for future in running:
                future.cancel()
            from joblib.externals.loky.backend.utils import kill_process_tree

            processes = list(getattr(self.executor, "_processes", {}).values())
            for process in processes:
                kill_process_tree(process)  # SIGKILL, as loky's kill_workers (a Popen of loky has no kill())
            for process in processes:
                process.join(timeout=10)
            self.executor.shutdown(wait=True)
        else:
            self.executor.shutdown(wait=True, kill_workers=True)


class _RayWorker:
    """A long-lived Ray actor holding the unpickled explainer."""

    def __init__(self, payload: bytes, task: Task) -> None:
        _init_worker(payload, task)

    def explain(self, chunk: Chunk) -> dict:
        return _work(chunk)


def _import_ray():
    try:
        import ray
    except ImportError:
        raise ImportError("backend='ray' needs Ray: pip install 'ray>=2.9' (or 'interplay[ray]')") from None
    return ray


class RayBackend:
    """Long-lived actors on an existing Ray cluster: the one ``ray.init`` already connected to, or ``ray_address``.

    The library never starts Ray with settings of its own: without ``ray.init`` and without ``ray_address`` it
    raises an error saying how to connect. ``n_jobs``: number of actors (default: the cluster's CPUs).
    """

    def __init__(self, payload: bytes, task: Task, n_jobs: int | None, ray_address: str | None) -> None:
        ray = _import_ray()
        self.ray = ray
        self._connected_here = False
        if not ray.is_initialized():
            if ray_address is None:
                raise RuntimeError(
                    "backend='ray': Ray is not initialised. Connect first with ray.init() (a local instance) or "
                    "ray.init(address='auto' | 'ray://<head>:10001') (a cluster), or pass "
                    "ray_address='auto' | 'ray://<head>:10001' to ip.run"
                )
            try:
                ray.init(address=ray_address)
            except Exception as exc:  # ConnectionError (no cluster), ValueError (bad address), RuntimeError...
                raise ValueError(
                    f"ray_address: could not connect to a Ray cluster at {ray_address!r} "
                    f"({type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else 'no detail'}). "
                    "Start one first (`ray start --head` on this machine for 'auto') or give the address of a "
                    "running cluster (ray://HEAD:10001)"
                ) from None
            self._connected_here = True
        cpus = int(ray.cluster_resources().get("CPU", 0))
        if n_jobs is None or n_jobs < 0:
            n_jobs = max(1, cpus)
        elif n_jobs > cpus >= 1:  # an actor that cannot be placed would hold its queued chunks for ever
            warnings.warn(f"n_jobs={n_jobs} actors need {n_jobs} CPUs, the Ray cluster has {cpus}: {cpus} actors are "
                          "used (chunks queued on an actor that cannot be placed never ran: the run hung)",
                          RuntimeWarning, stacklevel=4)
            n_jobs = cpus
        self.n_jobs = n_jobs
        self.payload_ref = ray.put(payload)  # the model and background go to the object store once
        self.task = task
        self.actor_class = ray.remote(num_cpus=1)(_RayWorker)
        self.actors = [self._new_actor() for _ in range(n_jobs)]
        self.replacements_left = 3 * n_jobs

    def _new_actor(self):
        return self.actor_class.remote(self.payload_ref, self.task)

    def map_unordered(self, chunks: Iterable[Chunk]) -> Iterator[tuple[Chunk, dict]]:
        """Chunks go to idle actors; a chunk whose actor died (preempted node) is resubmitted to a new actor."""
        ray = self.ray
        chunks = iter(chunks)
        idle = deque(self.actors * 2)  # two chunks queued per actor keeps every actor busy
        running: dict = {}
        retry: deque = deque()
        replaced: dict = {}
        while True:
            while idle:
                chunk = retry.popleft() if retry else next(chunks, None)
                if chunk is None:
                    break
                actor = idle.popleft()
                running[actor.explain.remote(chunk)] = (actor, chunk)
            if not running:
                return
            done, _ = ray.wait(list(running), num_returns=1)
            for ref in done:
                actor, chunk = running.pop(ref)
                try:
                    result = ray.get(ref)
                except ray.exceptions.RayActorError as exc:
                    if actor not in replaced:
                        if self.replacements_left <= 0:
                            first = (str(exc).strip().splitlines() or ["no detail"])[0]
                            raise WorkersDied(
                                f"backend='ray': Ray actors died {3 * self.n_jobs + 1} times, the last while "
                                f"computing {_rows_of([chunk])} (preempted nodes, out of memory, or the model "
                                f"crashes its process: {type(exc).__name__}: {first[:300]}); gave up") from None
                        self.replacements_left -= 1
                        replaced[actor] = self._new_actor()
                        self.actors = [replaced.get(a, a) for a in self.actors]
                        idle = deque(replaced.get(a, a) for a in idle)
                    idle.append(replaced[actor])
                    retry.append(chunk)
                    continue
                except ray.exceptions.RayTaskError as exc:  # the model's own error, raised in the actor
                    cause = getattr(exc, "cause", None)  # as raised there ('X: row 37: model call ... failed');
                    if isinstance(cause, Exception):     # the RayTaskError's text was the remote traceback, to
                        raise cause from exc             # which no 'rows kept, how to finish' could be added
                    raise
                idle.append(actor)
                yield chunk, result

    def close(self) -> None:
        for actor in getattr(self, "actors", []):
            self.ray.kill(actor)
        self.actors = []
        if self._connected_here:
            self.ray.shutdown()


INLINE_SECONDS = 2.0  # n_jobs=None: chunks computed in this process until they have taken this long


class StartInlineBackend:
    """``n_jobs=None`` locally: chunks computed in this process until they have taken :data:`INLINE_SECONDS`,
    the rest by ``n_jobs`` worker processes. Starting the workers costs about a second or more; a short run (2,000
    rows of exact tree values: 0.5 s) was 2-4x slower with them. Results do not depend on where a chunk ran."""

    def __init__(self, explainer: Any, payload: bytes, task: Task, n_jobs: int) -> None:
        self.inline = InlineBackend(explainer, task)
        self.payload, self.task, self.n_jobs = payload, task, n_jobs
        self.pool: LocalBackend | None = None

    def map_unordered(self, chunks: Iterable[Chunk]) -> Iterator[tuple[Chunk, dict]]:
        chunks = iter(chunks)
        start = time.perf_counter()
        for chunk in chunks:
            yield next(self.inline.map_unordered([chunk]))
            if time.perf_counter() - start > INLINE_SECONDS:
                break
        else:
            return
        self.pool = LocalBackend(self.payload, self.task, self.n_jobs)
        yield from self.pool.map_unordered(chunks)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()


def make_backend(backend: str, *, explainer: Any, payload: bytes, task: Task, n_jobs: int | None,
                 ray_address: str | None):
    """The backend object for ``backend`` (``"local"`` or ``"ray"``; locally, ``n_jobs=None`` starts in this
    process, :class:`StartInlineBackend`)."""
    if backend == "ray":
        return RayBackend(payload, task, n_jobs, ray_address)
    n = resolve_n_jobs(n_jobs)
    if n == 1:
        return InlineBackend(explainer, task)
    return StartInlineBackend(explainer, payload, task, n) if n_jobs is None else LocalBackend(payload, task, n)
