"""The game processes' hub (arbiter.pools.hub): greenlets that wait on pipes, deadlines and
each other in one thread, and the engine client's waits going through it."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import greenlet
import pytest

from arbiter.pools.hub import GreenLock, GreenQueue, Hub
from protocol.client import EngineClient, EngineTimeout
from protocol.codec import Limit
from protocol.waiting import BLOCKING, current_waiter, waiting_with

pytestmark = pytest.mark.build  # the compiled client, transport, referee or hub: CI runs these on both builds

ENGINE = [sys.executable, "-m", "dipole_engine"]


def test_a_greenlet_wakes_when_its_pipe_is_readable_and_another_runs_meanwhile() -> None:
    hub = Hub()
    read_end, write_end = os.pipe()
    events: list[str] = []

    def reader() -> None:
        events.append("waiting")
        assert hub.readable(read_end, 5.0)
        events.append(f"read {os.read(read_end, 10).decode()}")

    def writer() -> None:
        events.append("writing")
        hub.sleep(0.05)
        os.write(write_end, b"ping")

    hub.spawn(reader)
    hub.spawn(writer)
    hub.run()
    assert events == ["waiting", "writing", "read ping"]
    os.close(read_end)
    os.close(write_end)


def test_a_greenlet_whose_answers_are_always_there_does_not_keep_the_others_waiting() -> None:
    """A greenlet that finds its pipe readable goes on without parking (a look instead of two
    switches), but only for a moment after the hub's poll: another greenlet's pipe, readable
    meanwhile, is seen at the hub's next poll, not once the first has nothing left to do."""
    hub = Hub()
    busy_read, busy_write = os.pipe()
    os.write(busy_write, b"x")  # the busy greenlet's answer: always there (each read puts it back)
    late_read, late_write = os.pipe()
    looks = [0]
    late: list[float] = []
    written: list[float] = []

    def busy() -> None:
        stop = time.monotonic() + 2.0
        while not late and time.monotonic() < stop:
            assert hub.readable(busy_read, 5.0)
            os.write(busy_write, os.read(busy_read, 1))
            looks[0] += 1

    def waiting() -> None:
        assert hub.readable(late_read, 5.0)
        late.append(time.monotonic() - written[0])

    def write_late() -> None:
        # The busy greenlet runs alone meanwhile: its first hundred looks (not a fixed time,
        # which a loaded machine may give it no turn in), or 4 s.
        until = time.monotonic() + 4.0
        while looks[0] <= 100 and time.monotonic() < until:
            time.sleep(0.001)
        written.append(time.monotonic())
        os.write(late_write, b"!")

    writer = threading.Thread(target=write_late)
    hub.spawn(busy)
    hub.spawn(waiting)
    writer.start()
    hub.run()
    writer.join()
    assert late and late[0] < 0.5  # (a moment of 0.2 ms; without it, the whole busy loop: 2 s)
    assert looks[0] > 100  # and the busy greenlet went on meanwhile
    for fd in (busy_read, busy_write, late_read, late_write):
        os.close(fd)


def test_a_wait_times_out_at_its_deadline_and_says_so() -> None:
    hub = Hub()
    read_end, write_end = os.pipe()
    outcome: list[tuple[bool, float]] = []

    def reader() -> None:
        started = time.monotonic()
        outcome.append((hub.readable(read_end, 0.1), time.monotonic() - started))

    hub.spawn(reader)
    hub.run()
    ready, waited = outcome[0]
    assert not ready
    assert 0.09 <= waited < 2.0
    os.close(read_end)
    os.close(write_end)


def test_waits_woken_early_leave_no_timers_behind() -> None:
    """Every wait has a deadline far off (an engine's clock) and ends at once: the heap of
    timers must not keep them all."""
    hub = Hub()
    read_end, write_end = os.pipe()

    def ping_pong() -> None:
        for _ in range(2000):
            os.write(write_end, b"x")
            assert hub.readable(read_end, 60.0)
            os.read(read_end, 1)

    hub.spawn(ping_pong)
    hub.run()
    assert len(hub._timers) < 200
    os.close(read_end)
    os.close(write_end)


def test_greenlets_share_a_lock_and_a_queue_without_blocking_the_thread() -> None:
    hub = Hub()
    lock = GreenLock(hub)
    queue: GreenQueue[int | None] = GreenQueue(hub)
    order: list[str] = []

    def holder(name: str) -> None:
        with lock:
            order.append(f"{name} in")
            item = queue.get()  # parks while holding the lock: the other waits for it
            order.append(f"{name} got {item}")

    def feeder() -> None:
        hub.sleep(0.02)
        queue.put(1)
        hub.sleep(0.02)
        queue.put(2)

    hub.spawn(lambda: holder("a"))
    hub.spawn(lambda: holder("b"))
    hub.spawn(feeder)
    hub.run()
    assert order == ["a in", "a got 1", "b in", "b got 2"]


def test_a_deadlock_is_an_error_not_a_hang() -> None:
    hub = Hub()
    queue: GreenQueue[int] = GreenQueue(hub)
    hub.spawn(queue.get)
    with pytest.raises(RuntimeError, match="nothing can wake them"):
        hub.run()


def test_daemons_do_not_keep_the_hub_running() -> None:
    hub = Hub()
    read_end, write_end = os.pipe()
    hub.spawn(lambda: hub.readable(read_end, None), daemon=True)
    done: list[bool] = []
    hub.spawn(lambda: done.append(True))
    hub.run()
    assert done == [True]
    os.close(read_end)
    os.close(write_end)


def test_engine_clients_in_greenlets_search_at_once_and_keep_their_deadlines(tmp_path: Path) -> None:
    """Two real engines, one client each in its own greenlet: their searches overlap (the one
    thread is never blocked by either), a deadline still holds, and the thread's waiter is
    the hub only while it runs them."""
    hub = Hub()
    results: dict[str, object] = {}
    timeline: list[str] = []
    started: GreenQueue[None] = GreenQueue(hub)
    go: GreenQueue[None] = GreenQueue(hub)

    def play(name: str, limit: Limit, timeout: float) -> None:
        client = EngineClient(ENGINE, name=name)
        client.start(timeout=30.0)
        started.put(None)
        go.get()  # every engine is up: the searches start together
        try:
            timeline.append(f"{name} go")
            try:
                results[name] = client.go(limit, timeout=timeout).bestmove
            except EngineTimeout as error:
                results[name] = error
            timeline.append(f"{name} answered")
        finally:
            client.kill()

    hub.spawn(lambda: play("slow", Limit(movetime=400), 10.0))
    hub.spawn(lambda: play("fast", Limit(depth=1), 10.0))
    hub.spawn(lambda: play("late", Limit(infinite=True), 0.3))

    def starter() -> None:
        for _ in range(3):
            started.get()
        for _ in range(3):
            go.put(None)

    hub.spawn(starter)
    assert current_waiter() is BLOCKING
    with waiting_with(hub):
        assert current_waiter() is hub
        hub.run()
    assert current_waiter() is BLOCKING
    assert isinstance(results["slow"], str) and isinstance(results["fast"], str)
    assert isinstance(results["late"], EngineTimeout)
    assert sorted(timeline[:3]) == ["fast go", "late go", "slow go"]  # each waits without holding up the next
    assert timeline.index("fast answered") < timeline.index("slow answered")


def test_the_hub_itself_waits_the_blocking_way() -> None:
    hub = Hub()
    read_end, write_end = os.pipe()
    os.write(write_end, b"x")
    assert greenlet.getcurrent() is not None
    assert hub.readable(read_end, 1.0)  # from the hub's own greenlet: a plain poll
    started = time.monotonic()
    hub.sleep(0.02)
    assert time.monotonic() - started >= 0.015
    os.close(read_end)
    os.close(write_end)
