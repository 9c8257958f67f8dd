"""Dask: connect to (or start) a cluster and run tiedrank's tasks on it.

Dask is an optional extra (``pip install 'tiedrank[dask]'``), imported only when a cluster
is asked for. Addresses:

``local`` / ``local:N``
    Start a ``LocalCluster`` of N worker processes (default 2), one thread each, bound to
    127.0.0.1, for the duration of the call.
``tcp://host:port`` (or ``host:port``)
    Connect to a running scheduler (``dask scheduler`` prints its address). A scheduler
    that cannot be reached ends in :class:`SchedulerUnreachable` after ``timeout`` seconds.

A ``distributed.Client`` can be passed instead; it is used as is and left open.

Tasks are plain functions of this package (:func:`tiedrank.distributed.evaluation.evaluate_bucket`,
:func:`sweep_task`, :func:`stability_task`) calling the public API, so a worker only needs
tiedrank installed. If a worker dies, Dask re-runs its tasks elsewhere; every task is a
deterministic function of its arguments and writes its files atomically, so a retried
task changes nothing.
"""
from __future__ import annotations

import logging
import re
import threading
import uuid
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import CancelledError
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ..core.errors import Remedied, Remedy
from ..core.progress import step

if TYPE_CHECKING:
    import pandas as pd  # imported where used: ``tiedrank`` starts a local cluster before pandas

DEFAULT_LOCAL_WORKERS = 2
CONNECT_TIMEOUT = 5.0
"""Seconds to wait for a scheduler before giving up with one clear message."""
_LOCAL = re.compile(r"^local(?::(\d+))?$")


MAX_CONNECT_TIMEOUT = 86_400.0
_WAIT_LONGER = Remedy("timeout", "SECONDS", "to wait longer", placeholder=True)


class SchedulerUnreachable(Remedied, ConnectionError):
    """The Dask scheduler at the given address did not answer in time, or what answered is
    not a Dask scheduler. The message ends with the remedy (a longer ``timeout=``), kept
    apart so each door words it (:meth:`~tiedrank.core.errors.Remedied.worded_with`)."""

    def __init__(self, before: str) -> None:
        self.remedy, self._around = _WAIT_LONGER, (before, ".")
        super().__init__(self.worded_with(Remedy.python))


class WorkersLost(Remedied, ConnectionError):
    """The cluster had no worker for ``timeout`` seconds while tiedrank's tasks waited (every
    worker died or left, or none ever joined), or a task's workers kept dying under it.
    A wait that ran out ends with its remedy (a longer ``timeout=``), worded by each door."""

    def __init__(self, before: str, remedy: Remedy | None = None, after: str = "") -> None:
        self.remedy, self._around = remedy, (before, after)
        super().__init__(self.worded_with(Remedy.python))


def check_timeout(timeout: Any) -> float:
    """``timeout`` if it is a number of seconds in (0, 1 day], else the one error form."""
    from ..core.validation import Interval, check

    return float(check("timeout", timeout, [Interval(float, 0, MAX_CONNECT_TIMEOUT, "right")]))


def _probe(address: str, timeout: float) -> None:
    """Check within ``timeout`` seconds that a Dask scheduler answers at ``tcp://host:port``.

    A scheduler writes its handshake (a framed msgpack dict with ``pickle-protocol``) as
    soon as it accepts a connection, so this reads it with a deadline before Dask's own
    client, which waits without one for the handshake of a server that accepts and never
    answers, and reads junk as frame lengths.  Connection refused is retried until the
    deadline, as Dask does (a scheduler may be starting).
    """
    import socket
    import struct
    import time

    host, _, port_text = address.split("://", 1)[1].rpartition(":")
    host = host.strip("[]")
    try:
        port = int(port_text)
    except ValueError:
        return  # let Dask word an address it parses differently
    deadline = time.monotonic() + timeout
    error: BaseException | None = None
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise SchedulerUnreachable(
                f"cannot reach the Dask scheduler at {address} within {timeout:g} s "
                f"({type(error).__name__ if error else 'TimeoutError'}). Is it running? Start "
                "one with `dask scheduler` (it prints its tcp:// address) and workers with "
                "`dask worker tcp://HOST:8786`, or use 'local:N' for N worker processes on "
                "this machine; ")
        try:
            sock = socket.create_connection((host, port), timeout=left)
            break
        except OSError as exc:
            error = exc
            time.sleep(min(0.2, max(deadline - time.monotonic(), 0)))

    def not_a_scheduler(what: str) -> SchedulerUnreachable:
        return SchedulerUnreachable(
            f"{address} is not a Dask scheduler: it accepted the connection but {what} "
            f"within {timeout:g} s; check the address (`dask scheduler` prints it), or ")

    def read(n: int) -> bytes:
        data = b""
        while len(data) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise socket.timeout()
            sock.settimeout(left)
            chunk = sock.recv(n - len(data))
            if not chunk:
                raise ConnectionResetError("closed")
            data += chunk
        return data

    with sock:
        try:
            (size,) = struct.unpack("<Q", read(8))
            if not 16 <= size <= 1 << 20:
                raise not_a_scheduler("answered something else than a Dask handshake")
            if b"pickle-protocol" not in read(size):
                raise not_a_scheduler("answered something else than a Dask handshake")
        except socket.timeout:
            raise not_a_scheduler("sent no Dask handshake") from None
        except OSError:
            raise not_a_scheduler("closed it without a Dask handshake") from None


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise ImportError("Dask is not installed; it is an optional extra: "
                          "pip install 'tiedrank[dask]' (or pip install 'dask[distributed]')"
                          ) from None
    return distributed


def _dask_installed() -> bool:
    """Whether ``distributed`` can be imported, without importing it."""
    import importlib.util

    try:
        return importlib.util.find_spec("distributed") is not None
    except (ImportError, ValueError):  # ValueError: blocked in sys.modules (set to None)
        return False


def describe_address(address: Any) -> str:
    """What ``address`` means, for messages (``local:2`` -> "a local cluster of 2 ...")."""
    if not isinstance(address, str):
        return "the given Dask client"
    match = _LOCAL.match(address.strip())
    if match:
        n = int(match.group(1) or DEFAULT_LOCAL_WORKERS)
        return f"a local Dask cluster of {n} worker process{'es' if n != 1 else ''}"
    return f"the Dask scheduler at {address}"


@contextmanager
def connect(address: Any, *, timeout: float = CONNECT_TIMEOUT,
            modules: Sequence[str] = ()) -> Iterator[Any]:
    """A ``distributed.Client`` for ``address`` (see the module docstring), closed on exit
    when it was opened here. ``modules``: what the tasks import besides
    :data:`TASK_MODULES` is left to them; the given ones are imported once per worker (at
    ``local:N``, preloaded by the fork server), default :data:`TASK_MODULES`. A ``local:N``
    cluster this process started ahead (:func:`start_ahead`) is taken as it is.

    Raises
    ------
    ValueError
        An address that is neither ``local[:N]`` nor ``[tcp://]host:port``.
    SchedulerUnreachable
        No scheduler answered at the address within ``timeout`` seconds, or what answered
        is not a Dask scheduler (``tcp://`` addresses are probed with the deadline first).
    ImportError
        Dask is not installed.
    """
    if not isinstance(address, str):  # a Client (or anything with submit/gather)
        if not hasattr(address, "submit"):
            raise TypeError(f"client must be a distributed.Client or an address string, "
                            f"not {type(address).__name__}")
        yield address
        return
    text = address.strip()
    local = _LOCAL.match(text)
    if local is None and not re.match(r"^(tcp|tls|ucx|inproc)://\S+$|^[\w.\-\[\]:]+:\d+$", text):
        raise ValueError(f"cannot use {address!r} as a Dask address; expected 'local', "
                         "'local:N' (N worker processes here) or 'tcp://host:port' (a "
                         "running scheduler)")
    if local is not None:
        n_workers = int(local.group(1) or DEFAULT_LOCAL_WORKERS)
        if n_workers < 1:
            raise ValueError(f"local:N needs N >= 1 worker, got {address!r}")
        modules = tuple(modules) or TASK_MODULES
        with _AHEAD_LOCK:
            ahead = _AHEAD.pop(n_workers, None)
        if ahead is not None:  # started at the command's start, before its own imports
            try:
                client = ahead.ready()
                if not set(modules) <= set(ahead.modules):  # what it did not preload
                    _warm_up(client, modules)
                yield client
            finally:
                ahead.close(wait=False)  # joined by finish_ahead, after the output
            return
        # the fork server imports on the other core while this process imports Dask
        fork_server = _dask_installed() and _start_fork_server(modules)
        distributed = _distributed()
        cluster = _local_cluster(distributed, n_workers, fork_server)
        try:
            with distributed.Client(cluster) as client:
                client.register_plugin(_one_thread_each(distributed), name="tiedrank-threads")
                _warm_up(client, modules)
                yield client
        finally:
            cluster.close()
        return
    timeout = check_timeout(timeout)
    distributed = _distributed()
    if "://" not in text:
        text = f"tcp://{text}"
    if text.startswith("tcp://"):
        _probe(text, timeout)
    try:
        client = distributed.Client(text, timeout=timeout)
    except (OSError, TimeoutError) as exc:
        raise SchedulerUnreachable(
            f"cannot reach the Dask scheduler at {text} within {timeout:g} s ({type(exc).__name__}). "
            "Is it running? Start one with `dask scheduler` (it prints its tcp:// address) and "
            "workers with `dask worker tcp://HOST:8786`, or use 'local:N' for N worker "
            "processes on this machine; ") from None
    try:
        _warm_up(client)
        yield client
    finally:
        client.close()


def _warm_up(client: Any, modules: Sequence[str] = ()) -> None:
    """:func:`warm_up` on every worker; a worker that dies meanwhile is left to the bounded
    waits of :func:`run_all` and :func:`share`, which say so in the words of the options."""
    try:
        client.run(warm_up, tuple(modules) or TASK_MODULES, on_error="ignore")
    except OSError:  # CommClosedError: the broadcast lost a worker
        pass


TASK_MODULES = ("tiedrank.distributed.evaluation", "tiedrank.simulate")
"""What the tasks import: preloaded once by the fork server, or imported by :func:`warm_up`."""
EVALUATION_MODULES = ("tiedrank.distributed.evaluation",)
"""What the evaluation's tasks import (:func:`tiedrank.distributed.evaluate`): the simulator
is 0.25 s more of the fork server's preload, on the way to the first task."""


def _start_fork_server(modules: Sequence[str] = TASK_MODULES) -> bool:
    """Start Python's fork server with ``modules`` preloaded, if this platform has one
    (Linux and macOS do), and say whether it is running.

    Workers are then forked from it instead of each spawned worker importing Dask, pandas,
    pyarrow and tiedrank (about 1.2 s per worker on 2 cores). The server is a fresh,
    single-threaded process, so forking it is safe where forking this process (with Dask's
    threads running) is not; it imports while this process imports Dask, and it stays up,
    so a later cluster of the same process starts in about 0.1 s.
    """
    import multiprocessing
    import multiprocessing.forkserver

    if "forkserver" not in multiprocessing.get_all_start_methods():
        return False
    # only counts before the server starts: a running one keeps the modules it has
    multiprocessing.get_context("forkserver").set_forkserver_preload(
        ["distributed", *modules])
    multiprocessing.forkserver.ensure_running()
    return True


def _local_cluster(distributed: Any, n_workers: int, fork_server: bool) -> Any:
    """A ``LocalCluster`` of ``n_workers`` single-threaded worker processes on 127.0.0.1,
    forked from the fork server when there is one (:func:`_start_fork_server`).

    Dask's ``MALLOC_TRIM_THRESHOLD_=65536`` is not set in the workers: it hands memory back
    to the system early, and every large numpy temporary was then a fresh ``mmap`` to be
    faulted in again (a simulator sweep point took 0.75-0.85 s in a worker against
    0.50-0.60 s without; benchmarks/RESULTS.md). Dask's sampling profiler (a stack walk every 10 ms) is off
    and its event-loop ticks and system monitor are slower (20 ms -> 200 ms, 0.5 -> 2 s): no
    dashboard shows them here, and on two cores they take bits of the cores the tasks use.
    """
    import dask

    settings: dict[str, Any] = {
        "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
        "distributed.worker.profile.enabled": False,
        "distributed.admin.tick.interval": "200ms",
        "distributed.admin.system-monitor.interval": "2s"}
    if fork_server:
        settings["distributed.worker.multiprocessing-method"] = "forkserver"
    with dask.config.set(settings):
        return distributed.LocalCluster(
            n_workers=n_workers, threads_per_worker=1, processes=True, host="127.0.0.1",
            # the scheduler's HTTP server starts even "without" a dashboard (None means port
            # 8787, with a warning on stderr when that is taken): a free local port instead
            dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR)


def _one_thread_each(distributed: Any) -> Any:
    """A worker plugin sizing Arrow's thread pool and tiedrank's numpy helper threads to
    the worker's one thread, so that N workers keep N cores busy, not 2N or 3N threads.

    Dask's OMP_NUM_THREADS=1 (which Arrow reads) is not enough: it is set in the worker
    after the fork, and a pool that already exists in the fork server is inherited at its
    full size (found in CI: 2 threads per worker once other tests had run first). The
    numpy helpers (:func:`tiedrank.io.set_helper_threads`) count the cores once, at import, which is
    in the fork server, unpinned: on two cores each worker ran its duplicate checks and
    score scans on two more threads, four busy threads on two cores (a 1M-line task took
    0.30-0.45 s against 0.24 s in one process). A plugin, not a one-off call, so that a
    worker replacing a dead one gets it too. The workers of a local cluster are this
    command's processes, so they also stop numpy advising huge pages, as the command
    itself does (:func:`~tiedrank.core.machine.without_huge_page_advice`).
    """
    class OneThreadEach(distributed.WorkerPlugin):  # local: distributed is imported late
        def setup(self, worker: Any) -> None:
            import pyarrow

            from ..core.machine import without_huge_page_advice
            from ..io import set_helper_threads

            pyarrow.set_cpu_count(1)
            set_helper_threads(1)
            without_huge_page_advice()

    return OneThreadEach()


def warm_up(modules: Sequence[str] = TASK_MODULES) -> None:
    """Import what the tasks use, once per worker (part of starting a cluster, so that the
    first tasks do not each pay for importing pandas, pyarrow and tiedrank; a no-op on
    workers forked from a fork server that preloaded them)."""
    import importlib

    for module in modules:
        importlib.import_module(module)


# ---- a local cluster started ahead, while the command imports the rest --------------------
class _Ahead:
    """A ``local:N`` cluster starting in a background thread (:func:`start_ahead`): the fork
    server is started and Dask imported by the caller, the cluster and its client built in
    the thread while the caller goes on with its own imports."""

    def __init__(self, n_workers: int, modules: Sequence[str]) -> None:
        self.modules = tuple(modules)
        self.fork_server = _start_fork_server(self.modules)
        self.distributed = _distributed()
        self.cluster = self.client = self.error = None
        self.closer: threading.Thread | None = None
        self.thread = threading.Thread(target=self._start, args=(n_workers,), daemon=True,
                                       name="tiedrank-local-cluster")
        self.thread.start()

    def _start(self, n_workers: int) -> None:
        try:
            self.cluster = _local_cluster(self.distributed, n_workers, self.fork_server)
            self.client = self.distributed.Client(self.cluster)
            self.client.register_plugin(_one_thread_each(self.distributed),
                                        name="tiedrank-threads")
            _warm_up(self.client, self.modules)
        except BaseException as error:  # raised in the caller by ready()
            self.error = error

    def ready(self) -> Any:
        """The client, once the cluster is up (its start's error, raised here)."""
        self.thread.join()
        if self.error is not None:
            raise self.error
        return self.client

    def close(self, wait: bool = True) -> None:
        """Close the client and the cluster; with ``wait=False`` in a thread of its own,
        which :func:`finish_ahead` joins (the command prints meanwhile)."""
        if self.closer is None:
            self.closer = threading.Thread(target=self._close, daemon=True,
                                           name="tiedrank-local-cluster-close")
            if not wait:
                with _AHEAD_LOCK:
                    _CLOSING.append(self)
            self.closer.start()
        if wait:
            self.closer.join()

    def _close(self) -> None:
        self.thread.join()
        try:
            if self.client is not None:
                self.client.close()
        finally:
            if self.cluster is not None:
                self.cluster.close()


_AHEAD: dict[int, _Ahead] = {}
"""Clusters started ahead, by worker count, until :func:`connect` takes one."""
_CLOSING: list[_Ahead] = []
_AHEAD_LOCK = threading.Lock()


def start_ahead(address: str, modules: Sequence[str] = TASK_MODULES) -> bool:
    """Start the ``local:N`` cluster of ``address`` now, in the background, for the next
    :func:`connect` to it in this process; say whether one was started (not for another
    address, nor without Dask, nor when one of N workers is already waiting).

    The ``tiedrank`` command calls it first thing when given ``--dask local:N``: the fork
    server then preloads the task modules on one core while the command imports pandas and
    tiedrank on the other (0.9 s on two cores, which the cluster's start-up waited for), and
    the cluster is built while the command reads its options. Whoever calls it calls
    :func:`finish_ahead` at the end (it closes a cluster no one took).
    """
    local = _LOCAL.match(address.strip()) if isinstance(address, str) else None
    if local is None or not _dask_installed():
        return False
    n_workers = int(local.group(1) or DEFAULT_LOCAL_WORKERS)
    with _AHEAD_LOCK:
        if n_workers < 1 or n_workers in _AHEAD:
            return False
    ahead = _Ahead(n_workers, modules)
    with _AHEAD_LOCK:
        _AHEAD[n_workers] = ahead
    return True


def finish_ahead() -> None:
    """Close the clusters :func:`start_ahead` started that no :func:`connect` took, and wait
    for those that closed in the background."""
    with _AHEAD_LOCK:
        unused, closing = list(_AHEAD.values()), list(_CLOSING)
        _AHEAD.clear()
        _CLOSING.clear()
    for ahead in unused + closing:
        try:
            ahead.close()
        except Exception:  # closing: nothing left to report
            pass


def _no_workers(client: Any, timeout: float, what: str) -> WorkersLost:
    address = getattr(getattr(client, "scheduler", None), "address", None) or "the scheduler"
    return WorkersLost(
        f"no Dask worker for {timeout:g} s at {address} while {what} (every worker died or "
        "left, or none joined; a worker killed for memory is the usual cause): start workers "
        f"with `dask worker {address}`, or give them more memory; ", _WAIT_LONGER, ".")


def _worker_count(client: Any) -> int:
    """Workers the scheduler has now (asked, not the client's cached view)."""
    try:
        return int(client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.workers)))
    except Exception:  # a client without run_on_scheduler: assume some, as before
        return 1


def share(client: Any, value: Any, *, timeout: float = CONNECT_TIMEOUT) -> Any:
    """``value`` sent to every worker once: a future that tasks take as an argument.

    Under a fresh key at each call (``hash=False``). Dask's default key is a hash of the
    content, so a second evaluation of the same qrels on the same client reused the key
    while the release of the first call's future was still on its way to the scheduler,
    which then dropped the data under the new tasks: "cancelled for reason: lost
    dependencies" in 3 of 10 back-to-back calls (sweeps: 1 in 10). Scattering waits for a
    worker: at most ``timeout`` seconds (:class:`WorkersLost`).
    """
    try:
        return client.scatter(value, broadcast=True, hash=False, timeout=timeout)
    except (TimeoutError, OSError) as error:
        if _worker_count(client):
            raise
        raise _no_workers(client, timeout, "sending the qrels to the workers") from None


POLL_SECONDS = 0.5
"""How often a wait for tasks checks that the cluster still has a worker."""


def run_all(client: Any, function, argument_lists: Sequence[tuple], *, name: str,
            timeout: float = CONNECT_TIMEOUT) -> list[Any]:
    """``[function(*args) for args in argument_lists]`` as Dask tasks, results in order.

    The wait is bounded: tasks may take as long as they take while the cluster has a
    worker, but once it has had none for ``timeout`` seconds (every worker died mid-run,
    or none ever joined: Dask would wait for one forever) the call ends with
    :class:`WorkersLost`; a task whose workers kept dying under it (Dask's
    ``KilledWorker``) too. On any failure the remaining tasks are cancelled before the
    error propagates (so no task keeps running on files the caller is about to delete).
    """
    distributed = _distributed()
    token = uuid.uuid4().hex[:8]
    futures = [client.submit(function, *args, key=f"tiedrank-{name}-{token}-{i}", pure=False)
               for i, args in enumerate(argument_lists)]
    try:
        _wait_while_workers(distributed, client, futures, timeout, name)
        return client.gather(futures)
    except CancelledError as error:  # the scheduler dropped them: their data went with a worker
        raise WorkersLost(
            f"the Dask scheduler cancelled tiedrank's {name} tasks ({error}): the workers "
            "that held their data died or left; run again once the cluster has workers") \
            from None
    except distributed.KilledWorker as error:
        raise WorkersLost(
            f"a {name} task's workers died under it, one after the other ({error}); they "
            "may be running out of memory: give them more, or split the input into more "
            "buckets") from None
    finally:
        client.cancel(futures)


def _wait_while_workers(distributed: Any, client: Any, futures: list, timeout: float,
                        name: str) -> None:
    """Until every future is done or one failed; raise :class:`WorkersLost` once the
    cluster has had no worker for ``timeout`` seconds."""
    import time

    alone_since = None
    while True:
        try:
            distributed.wait(futures, timeout=min(POLL_SECONDS, timeout),
                             return_when="ALL_COMPLETED")
            step(f"{name} tasks on Dask", len(futures), len(futures))
            return
        except TimeoutError:
            step(f"{name} tasks on Dask", sum(f.done() for f in futures), len(futures))
        if any(future.status == "error" for future in futures):
            return
        now = time.monotonic()
        if _worker_count(client):
            alone_since = None
        elif alone_since is None:
            alone_since = now
        elif now - alone_since >= timeout:
            raise _no_workers(client, timeout, f"its {name} tasks waited")


# ---- simulator sweeps and verdict stability as tasks --------------------------------------
def sweep_task(parameter: str, value: Any, seed: int, options: Mapping[str, Any]) -> pd.DataFrame:
    """One point of a sweep: :func:`tiedrank.simulate.sweep` at one value and one seed."""
    from ..simulate import sweep

    frame = sweep(parameter, [value], seed=seed, **options)
    frame.insert(0, "seed", seed)
    return frame


def sweep_batch(points: Sequence[tuple[str, Any, int]], options: Mapping[str, Any]) -> list[pd.DataFrame]:
    """Several points of a sweep in one task (each exactly as :func:`sweep_task`)."""
    return [sweep_task(parameter, value, seed, options) for parameter, value, seed in points]


def _batches(items: Sequence[Any], client: Any, per_worker: int = 4) -> list[Sequence[Any]]:
    """``items`` cut into about ``per_worker`` batches per worker: few enough tasks that the
    per-task cost of Dask (a round trip, the arguments' transfer) stays small beside the
    work, enough that a slow or lost worker leaves the others something to do."""
    try:
        workers = max(len(client.scheduler_info().get("workers", {})), 1)
    except Exception:  # a client without scheduler_info: one point per task
        return [items[i:i + 1] for i in range(len(items))]
    size = max(1, -(-len(items) // (workers * per_worker)))
    return [items[i:i + size] for i in range(0, len(items), size)]


def sweep(parameter: str, values: Sequence[Any], *, seeds: Sequence[int] = (0,),
          client: Any = None, timeout: float = CONNECT_TIMEOUT,
          **options: Any) -> pd.DataFrame:
    """:func:`tiedrank.simulate.sweep` over many seeds, one task per (seed, value).

    Parameters
    ----------
    parameter, values
        As :func:`tiedrank.simulate.sweep`.
    seeds : sequence of int
        One simulated reranker per (seed, value): ``len(seeds) * len(values)`` tasks.
    client : distributed.Client, address string or None
        None runs the tasks one after the other in this process (same result).
    **options
        ``base_spec``, ``qrels``, ``metric``, ``rel_level`` of :func:`tiedrank.simulate.sweep`.

    Returns
    -------
    DataFrame
        The columns of :func:`tiedrank.simulate.sweep`, preceded by ``seed``; rows by seed
        then value, the same as ``sweep(parameter, values, seed=s)`` stacked over ``seeds``.

    Examples
    --------
    >>> from tiedrank.simulate import make_queries
    >>> table = sweep("levels", [3, None], seeds=[0, 1], qrels=make_queries(n_queries=5))
    >>> table[["seed", "value"]].values.tolist()
    [[0, 3], [0, None], [1, 3], [1, None]]
    """
    arguments = [(parameter, value.item() if hasattr(value, "item") else value, int(seed),
                  dict(options)) for seed in seeds for value in values]
    if client is None:
        frames = [sweep_task(*args) for args in arguments]
    else:
        with connect(client, timeout=timeout) as dask_client:
            shared = dict(options)
            if shared.get("qrels") is not None:  # sent to each worker once, not once per task
                shared["qrels"] = share(dask_client, shared["qrels"], timeout=timeout)
            points = [args[:3] for args in arguments]
            batches = run_all(dask_client, sweep_batch,
                              [(batch, shared) for batch in _batches(points, dask_client)],
                              name="sweep", timeout=timeout)
            frames = [frame for batch in batches for frame in batch]
    import pandas as pd

    table = pd.concat(frames, ignore_index=True)
    if any(args[1] is None for args in arguments):
        table["value"] = pd.Series([args[1] for args in arguments], dtype=object)
    return table


def stability_task(baseline: tuple[str, Any], run: tuple[str, Any], qrels: Any,
                   metrics: Sequence[Any], options: Any,
                   stability_options: Mapping[str, Any]) -> pd.DataFrame:
    """Verdict stability of one run against the baseline (evaluates just the pair, with
    the core's ``build_tables`` and ``score_tables``)."""
    from ..evaluation import build_tables, score_tables
    from ..stats import verdict_stability

    ev = score_tables(build_tables(dict([baseline, run]), qrels, options), metrics, options)
    return verdict_stability(ev, baseline[0], runs=[run[0]], **stability_options)


def verdict_stability(runs: Mapping[str, Any], qrels: Any, metrics: Sequence[str], *,
                      baseline: str | None = None, client: Any = None,
                      timeout: float = CONNECT_TIMEOUT, options: Any = None,
                      **stability_options: Any) -> pd.DataFrame:
    """:func:`tiedrank.stats.verdict_stability` with one task per run (against the
    baseline), each evaluating only its pair: the same rows as the one-process call on
    ``evaluate(runs, ...)``, since every row depends on its pair alone.

    Parameters
    ----------
    runs : mapping of name to Run, DataFrame or path
        Paths are read by the tasks (workers need to see them).
    baseline : str, default the first run
    options : EvaluationOptions, optional
        How the runs are evaluated (default ``ties="all"``); see :func:`tiedrank.evaluate`.
    **stability_options
        ``policies``, ``test``, ``alpha``, ``n_draws``, ``seed``, ``n_resamples`` of
        :func:`tiedrank.stats.verdict_stability`.
    """
    import pandas as pd

    from ..evaluation import parse_metrics
    from ..core.options import make_options

    options = make_options("verdict_stability", options) if options is not None else \
        make_options("verdict_stability", ties="all")
    metrics = parse_metrics(metrics)
    names = list(runs)
    if not names:
        raise ValueError("no runs to compare")
    baseline = names[0] if baseline is None else baseline
    if baseline not in runs:
        raise ValueError(f"baseline {baseline!r} not found; runs: {', '.join(names)}")
    stability_options = dict(stability_options, gain=options.gain,
                             metrics=[m.name for m in metrics])
    arguments = [((baseline, runs[baseline]), (name, runs[name]), qrels, metrics,
                  options, stability_options) for name in names if name != baseline]
    if not arguments:
        return pd.DataFrame()
    if client is None:
        frames = [stability_task(*args) for args in arguments]
    else:
        with connect(client, timeout=timeout) as dask_client:
            frames = run_all(dask_client, stability_task, arguments, name="stability",
                             timeout=timeout)
    return pd.concat(frames, ignore_index=True)
