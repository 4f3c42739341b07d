"""Counting on Dask (``bpe-lab count --engine dask``): the local counter's tasks, on a cluster.

The blocks are the ones :func:`engine.corpus.count_blocks.plan` cuts (no chunk split), each counted on a
worker by :func:`engine.corpus.count_blocks.count_task` and added back here in task order, so the table is
the local one exactly. Workers read the inputs by path: they need the same files (a shared
folder) and bpe-lab installed. No scheduler given: a ``LocalCluster`` of one process per core,
bound to loopback, started and stopped here.
"""

from __future__ import annotations

import os

from engine.corpus.chunk_table import SCALE_HINT
from engine.corpus.count_blocks import Combiner, Plan, count_task
from engine.errors import CountsError, one_line
from engine.text.pretokenize import PreTokenizer

#: Seconds to wait for a scheduler to answer before saying it cannot be reached.
CONNECT_SECONDS = 10


def _distributed():
    try:
        import distributed
    except ImportError:
        raise CountsError(f"--engine dask needs dask[distributed]: {SCALE_HINT}") from None
    return distributed


class Connection:
    """A client of the scheduler at ``scheduler``, or of a ``LocalCluster`` started here (None),
    closed on leaving. A local cluster starts in a thread while the caller plans (hashing the
    inputs: a second on a gigabyte), so its start-up (processes spawned, Dask imported in each)
    is not added to it; :meth:`run` waits for it. ``workers``: how many the plan cuts blocks for
    (a local cluster's, known before it is up; a scheduler's, asked)."""

    def __init__(self, scheduler: str | None) -> None:
        self.distributed = _distributed()
        import logging

        logging.getLogger("distributed").setLevel(logging.ERROR)  # its warnings are not ours to print
        self.scheduler = scheduler
        self.cluster = None
        self.client = None
        self._failed: BaseException | None = None
        self._thread = None
        if scheduler is None:
            import threading

            self.workers = os.cpu_count() or 1
            self._thread = threading.Thread(target=self._start, name="bpe-lab dask start", daemon=True)
            self._thread.start()
        else:
            self._start()
            if self._failed is not None:
                raise self._failed
            assert self.client is not None  # (started, or failed above)
            self.workers = max(len(self.client.scheduler_info().get("workers", {})), 1)

    def _start(self) -> None:
        distributed = self.distributed
        try:
            if self.scheduler is None:
                import dask

                # Dask's nannies set MALLOC_TRIM_THRESHOLD_ in their workers (to give memory back
                # sooner), which turns off glibc's adaptive thresholds: counting's 1 MB reads and
                # short-lived strings then cost a worker 20 % more time than this process.
                with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}):
                    self.cluster = distributed.LocalCluster(n_workers=self.workers, threads_per_worker=1, processes=True,
                                                            host="127.0.0.1", dashboard_address=None)
                self.client = distributed.Client(self.cluster, timeout=CONNECT_SECONDS)
            else:
                self.client = distributed.Client(self.scheduler, timeout=CONNECT_SECONDS)
        except (OSError, TimeoutError, ValueError) as exc:
            if self.scheduler is None:
                self._failed = CountsError(f"could not start a local Dask cluster ({one_line(str(exc)) or type(exc).__name__})")
            else:
                self._failed = CountsError(f"cannot reach the Dask scheduler at {self.scheduler} "
                                           "(is it running, and is the address tcp://HOST:PORT right?)")
        except BaseException as exc:  # noqa: BLE001 - said in the caller's thread, by run
            self._failed = exc

    def _ready(self):
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._failed is not None:
            failed, self._failed = self._failed, None
            raise failed
        return self.client

    def run(self, plan: Plan, pretokenizer: PreTokenizer, base: str, progress=None) -> Combiner:
        """Run the plan's tasks on the cluster, their results added in task order."""
        return _run(self._ready(), self.distributed, plan, pretokenizer, base, progress)

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._thread is not None:
            self._thread.join()
        if self.client is not None:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def run_dask(plan: Plan, pretokenizer: PreTokenizer, base: str, scheduler: str | None, progress=None) -> Combiner:
    """Run the plan's tasks on the cluster at ``scheduler`` (None: a LocalCluster)."""
    with Connection(scheduler) as connection:
        return connection.run(plan, pretokenizer, base, progress)


def _run(client, distributed, plan: Plan, pretokenizer: PreTokenizer, base: str, progress) -> Combiner:
    combiner = Combiner(plan)
    pre = pretokenizer.to_dict()
    futures = [client.submit(count_task, task, pre, base, pure=False) for task in plan.tasks]
    index = {future.key: i for i, future in enumerate(futures)}
    try:
        for future in distributed.as_completed(futures):
            combiner.add(index[future.key], future.result(), progress)
    except BaseException:
        client.cancel(futures)
        raise
    return combiner
