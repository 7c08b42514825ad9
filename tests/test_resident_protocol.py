"""CPU tests of the resident kernel's host protocol (autotune._engine: TraversalEngine._traverse_resident,
release_resident, _ResidentStopper) with a stand-in for the device: a mailbox in plain host memory,
an event and a launch that the test drives. The kernel itself is tested on the GPU
(tests/test_resident_gpu.py)."""
from __future__ import annotations

import numpy as np
import pytest

import autotune._engine as E
from autotune.errors import DeviceTimeoutError


class _Event:
    def __init__(self, done=False):
        self.done = done


class _Stream:
    def __init__(self):
        self.syncs = 0

    def synchronize(self):
        self.syncs += 1


class _Graph:
    name = "stand-in"


def _engine(done=False, answer_on_launch=True):
    """A stand-in engine whose 'kernel' has returned (*done*: its event) or still runs without
    answering; a launch answers the pending request (*answer_on_launch*)."""
    eng = E.TraversalEngine.__new__(E.TraversalEngine)
    mb = np.zeros(3, dtype=np.uint64)
    eng._res = E._ResidentStopper(mb, _Stream())
    eng._res.live = True
    eng._res_event = _Event(done)
    eng._res_last = 1e18  # just answered: no liveness query before the request
    eng.stream = _Stream()
    eng.graph = _Graph()
    eng._last_state = None
    eng.launches = []

    def launch(served):
        eng.launches.append(served)
        eng._res.live = True
        eng._res_event = _Event(False)
        if answer_on_launch:  # the new launch reads the pending request and answers it (3 levels)
            req, copy = int(mb[0]), int(mb[1])
            if req >> 32 != served and copy >> E.RESIDENT_TAG_SHIFT == (req >> 32) & E.RESIDENT_TAG_MASK:
                mb[2] = np.uint64(3 << 32 | req >> 32)

    eng._launch_resident = launch
    return eng, mb


def test_relaunch_for_a_request_read_after_return():
    """The kernel returned (idle) before it read the request: the spin sees its event done and no
    answer, launches it again with the previous request as served, and the new launch answers."""
    eng, mb = _engine(done=True)
    eng._res.seq = 41
    levels = eng._traverse_resident(5, None)
    assert levels == 3
    assert eng.launches == [41]  # served = the request before this one: the new launch answers it
    assert int(mb[0]) == (42 << 32) | 5 and int(mb[2]) == (3 << 32) | 42 and eng._res.seq == 42
    assert int(mb[1]) == 42 << E.RESIDENT_TAG_SHIFT  # no copy, tagged with the request


def test_copy_word_encodes_the_address_and_tag():
    """The caller's array address (16-byte aligned) rides in the copy word beside the request's tag;
    an address the word cannot hold is copied on the stream after the answer instead."""
    eng, mb = _engine(done=True)
    eng._res.seq = (1 << 19) + 6  # the tag wraps at 2**19

    class _Arr:
        class data:
            ptr = 0x7F12_3456_7890

    eng._traverse_resident(9, None, out=_Arr)
    seq = (1 << 19) + 7
    assert int(mb[1]) == (7 << E.RESIDENT_TAG_SHIFT) | (0x7F12_3456_7890 >> 4)
    assert int(mb[0]) == (seq << 32) | 9 and eng.stream.syncs == 0


def test_launch_first_when_not_running():
    """Not running (returned when asked, or never launched): launched before the request is written,
    served = the last request written (a pending return request is not answered)."""
    eng, mb = _engine(done=True)
    eng._res.live = False
    eng._res.seq = 7
    eng._launch_resident = lambda served: (eng.launches.append(served), mb.__setitem__(2, np.uint64(8)),
                                           setattr(eng._res, "live", True))
    eng._traverse_resident(0, None)
    assert eng.launches == [7] and eng._res.seq == 8


def test_before_sync_and_stream_wait():
    """Work behind the traversal (result copies) is enqueued after the answer and waited for."""
    eng, mb = _engine(done=True)
    calls = []
    eng._traverse_resident(1, lambda: calls.append(eng._res.seq))
    assert calls == [1] and eng.stream.syncs == 1


def test_timeout_raises_named_error(monkeypatch):
    """No answer and the kernel still running: DeviceTimeoutError after RESIDENT_TIMEOUT_S, naming the
    graph and the way out; the request stays written (nothing is lost)."""
    monkeypatch.setattr(E, "RESIDENT_TIMEOUT_S", 0.01)
    eng, mb = _engine(done=False, answer_on_launch=False)
    with pytest.raises(DeviceTimeoutError, match="stand-in.*RESIDENT = 'off'"):
        eng._traverse_resident(2, None)
    assert int(mb[0]) >> 32 == 1 and eng.launches == [] and int(mb[2]) == 0


def test_release_resident_asks_each_kernel_to_return(monkeypatch):
    """release_resident writes a return request (source 0xFFFFFFFF, the next sequence number) into
    every live mailbox but *keep*'s and waits for its stream; a stopper not live does nothing."""
    monkeypatch.setattr(E, "_RESIDENTS", {})
    stops = []
    for key in range(3):
        st = E._ResidentStopper(np.zeros(3, dtype=np.uint64), _Stream())
        st.live, st.seq = True, 10 * key
        E._RESIDENTS[key] = st
        stops.append(st)

    class Keep:
        pass

    keep = Keep()
    E._RESIDENTS[id(keep)] = keep_stop = E._ResidentStopper(np.zeros(3, dtype=np.uint64), _Stream())
    keep_stop.live = True
    E.release_resident(keep=keep)
    assert list(E._RESIDENTS) == [id(keep)] and keep_stop.live and keep_stop.stream.syncs == 0
    for key, st in enumerate(stops):
        assert not st.live and st.stream.syncs == 1
        assert int(st.mailbox[0]) == ((10 * key + 1) << 32) | 0xFFFFFFFF
        assert int(st.mailbox[1]) == (10 * key + 1) << E.RESIDENT_TAG_SHIFT
        st()  # not live: nothing more
        assert st.stream.syncs == 1
    E.release_resident()
    assert not E._RESIDENTS and not keep_stop.live


def test_finalizer_drops_only_its_own_entry(monkeypatch):
    monkeypatch.setattr(E, "_RESIDENTS", {})
    a = E._ResidentStopper(np.zeros(3, dtype=np.uint64), _Stream())
    b = E._ResidentStopper(np.zeros(3, dtype=np.uint64), _Stream())
    a.live = b.live = True
    E._RESIDENTS[1] = b  # id 1 reused by a newer engine
    E._drop_resident(1, a)
    assert E._RESIDENTS == {1: b} and not a.live and b.live


def test_public_names():
    import autotune as at

    assert at.release_resident is E.release_resident and at.DeviceTimeoutError is DeviceTimeoutError
    assert issubclass(DeviceTimeoutError, at.AutotuneError) and issubclass(DeviceTimeoutError, TimeoutError)


def test_out_must_fit_the_result_buffer():
    """engine.traverse(out=...) rejects, before anything runs, an array that cannot receive the
    result buffer: a NumPy array, or an engine without one."""
    from autotune.errors import InvalidArgumentError

    eng = E.TraversalEngine.__new__(E.TraversalEngine)
    eng._res, eng.resident = None, False
    with pytest.raises(InvalidArgumentError, match="no result buffer"):
        eng.traverse(0, out=np.zeros((2, 4), dtype=np.int32))

    class _Buf:
        shape, dtype = (2, 4), np.dtype(np.int32)

    eng._result_buffer = lambda: _Buf
    with pytest.raises(InvalidArgumentError, match=r"C-contiguous cupy.ndarray of shape \(2, 4\) and dtype int32; "
                                                   r"got ndarray of shape \(2, 4\)"):
        eng.traverse(0, out=np.zeros((2, 4), dtype=np.int32))


def test_mailbox_constants_match_the_kernels():
    """The copy word's layout the host writes (RESIDENT_TAG_SHIFT, RESIDENT_TAG_MASK) is the one both
    resident kernels read (kernels/block_scan.cuh), and both wait through the same helper."""
    import re

    from autotune._kernels import kernel_dir

    src = (kernel_dir() / "block_scan.cuh").read_text()
    assert int(re.search(r"#define AT_RES_TAG_SHIFT (\d+)", src).group(1)) == E.RESIDENT_TAG_SHIFT
    bits = int(re.search(r"#define AT_RES_TAG_MASK \(\(1u << (\d+)\) - 1u\)", src).group(1))
    assert (1 << bits) - 1 == E.RESIDENT_TAG_MASK
    for f in ("whole_graph.cu", "cluster_graph.cu"):
        body = (kernel_dir() / f).read_text()
        assert "at_res_wait(" in body and "at_res_answer(" in body


class _Kernel:
    def __init__(self):
        self.calls = []

    def __call__(self, grid, block, args, shared_mem=0):
        self.calls.append((grid, block, shared_mem))


class _LaunchStream(_Stream):
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _RecEvent:
    def record(self, stream):
        self.stream = stream


def _launchable(cluster_size, grid):
    eng = E.TraversalEngine.__new__(E.TraversalEngine)
    eng._res = E._ResidentStopper(np.zeros(3, dtype=np.uint64), _LaunchStream())
    eng._res_kernel, eng._res_event = _Kernel(), _RecEvent()
    eng._res_head, eng._res_tail = (), ()
    eng.cluster_size, eng._wg_grid, eng._wg_smem = cluster_size, grid, 1234
    return eng


@pytest.mark.parametrize("cluster", [False, True])
def test_cluster_launch_releases_other_residents(cluster, monkeypatch):
    """A resident cluster kernel (16 SMs of one GPC) asks every other resident kernel to return before
    its launch, with its grid of blocks; a one-block resident kernel's launch leaves the others running
    (up to RESIDENT_MAX)."""
    monkeypatch.setattr(E, "_RESIDENTS", {})
    other = E._ResidentStopper(np.zeros(3, dtype=np.uint64), _Stream())
    other.live = True
    E._RESIDENTS[1] = other
    eng = _launchable(16 if cluster else 0, 16 if cluster else 1)
    eng._launch_resident(5)
    assert eng._res_kernel.calls == [((16 if cluster else 1,), (E.WHOLE_GRAPH_THREADS,), 1234)]
    assert eng._res.live and E._RESIDENTS[id(eng)] is eng._res
    assert other.live is not cluster and (1 in E._RESIDENTS) is not cluster


@pytest.mark.parametrize("cluster_wins", [False, True])
def test_cluster_calibration_times_the_resident_form(cluster_wins, monkeypatch):
    """The cluster calibration times the cluster's resident form (``resident`` on while it runs) against
    the launch rounds; when the rounds win, the resident kernel returns and the engine forgets it."""
    import sys
    import types

    fake = types.ModuleType("cupy")
    fake.cuda = types.SimpleNamespace(Event=lambda *a, **k: object())
    monkeypatch.setitem(sys.modules, "cupy", fake)
    monkeypatch.setattr(E, "_RESIDENTS", {})
    eng = E.TraversalEngine.__new__(E.TraversalEngine)
    stop = E._ResidentStopper(np.zeros(3, dtype=np.uint64), _Stream())
    eng._res, eng.resident, eng.whole_graph, eng.cluster_size = stop, False, False, 16
    eng.whole_graph_staged = eng.whole_graph_pull = True
    eng._cluster_pending = True
    eng._calibration_sources = lambda: [3, 4]
    seen = []

    def traverse(s, before_sync=None, out=None):
        seen.append((eng.whole_graph, eng.resident))
        if eng.resident:
            stop.live = True
            E._RESIDENTS[id(eng)] = stop
        return 2

    def timed(s, after=None, events=None):
        traverse(s)
        return 2, (1.0 if eng.whole_graph == cluster_wins else 2.0)

    eng.traverse, eng.timed_traverse = traverse, timed
    eng._calibrate_cluster()
    assert set(seen) == {(False, False), (True, True)}
    assert eng.cluster_calibration["chosen"] is cluster_wins and eng.whole_graph is cluster_wins
    assert eng.resident is cluster_wins and (eng._res is stop) is cluster_wins
    assert stop.live is cluster_wins and (id(eng) in E._RESIDENTS) is cluster_wins
    assert eng.cluster_size == (16 if cluster_wins else 0)
