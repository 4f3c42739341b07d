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


def run_dask(plan: Plan, pretokenizer: PreTokenizer, base: str, scheduler: str | None, progress=None) -> Combiner:
    """Run the plan's tasks on the cluster at ``scheduler`` (None: a LocalCluster)."""
    distributed = _distributed()
    import logging

    logging.getLogger("distributed").setLevel(logging.ERROR)  # its warnings are not ours to print
    cluster = None
    try:
        if scheduler is None:
            cluster = distributed.LocalCluster(n_workers=os.cpu_count() or 1, threads_per_worker=1, processes=True,
                                               host="127.0.0.1", dashboard_address=None)
            client = distributed.Client(cluster, timeout=CONNECT_SECONDS)
        else:
            client = distributed.Client(scheduler, timeout=CONNECT_SECONDS)
    except (OSError, TimeoutError, ValueError) as exc:
        if cluster is not None:
            cluster.close()
        if scheduler is None:
            raise CountsError(f"could not start a local Dask cluster ({one_line(str(exc)) or type(exc).__name__})") from None
        raise CountsError(f"cannot reach the Dask scheduler at {scheduler} "
                          "(is it running, and is the address tcp://HOST:PORT right?)") from None
    try:
        return _run(client, distributed, plan, pretokenizer, base, progress)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


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
