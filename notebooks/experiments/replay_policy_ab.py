# Replay policy A/B (notebooks/figures/replay_cost_before_after_h200.jsonl): the previous rule (start graph =
# median of the last 16 traversals' rounds + 1, sticky for 8 traversals; primed k0 .. k0-3 and the
# continuations of k0 and 2 k0; continuation = the rounds done, captured if missing) against this release's
# expected-cost plan (autotune/_engine.py, TraversalEngine._update_plan). The old methods are copied below
# and patched onto the engine class for the "old" passes. Same configs and sources, fresh engines,
# old/new/old/new (REPS pairs), the sweep's order (warm-up = first source), the first pass validated on the
# GPU. One JSON line per (graph, config); ratio = median over passes 2.. of the per-pass medians, new / old.
#   [ALG=sssp] REPS=4 python notebooks/experiments/replay_policy_ab.py OUT.jsonl SPEC_OR_FILE [...]
import json, sys, time, warnings
warnings.simplefilter("ignore")
import numpy as np
import autotune as at
import autotune._engine as E
from autotune.config import TraversalConfig
from autotune.measure import GPURunner, measure, select_sources

NEW = {n: getattr(E.TraversalEngine, n) for n in ("_prime_graph", "_start_rounds", "_continuation_rounds", "_note_rounds", "_update_plan")}


def old_prime(self):
    if not self.use_graphs or not self._rounds_needed:
        return
    k0 = min(self._rounds_needed, E.MAX_GRAPH_ROUNDS)
    self._start_k, self._stale = k0, 0
    keys = [(True, k0), (False, k0), (False, min(2 * k0, E.MAX_GRAPH_ROUNDS))]
    keys += [(True, k) for k in range(k0 - 1, max(0, k0 - 1 - 3), -1)]
    for key in dict.fromkeys(keys):
        g = self._graph(*key)
        if g is None:
            return
        try:
            g.upload(self.stream)
        except Exception:
            pass


def old_start(self, need):
    k = min(need, E.MAX_GRAPH_ROUNDS)
    cur = self._start_k
    if not cur or k == cur or (True, k) in self._graphs:
        self._start_k, self._stale = k, 0
        return k
    self._stale = getattr(self, "_stale", 0) + 1
    if self._stale >= 8:
        self._start_k, self._stale = k, 0
        return k
    return cur


def old_note(self, rounds):
    hist = self._round_history
    hist.append(max(1, rounds + 1))
    if len(hist) > 16:
        del hist[0]
    self._rounds_needed = sorted(hist)[(len(hist) - 1) // 2]


OLD = {"_prime_graph": old_prime, "_start_rounds": old_start, "_note_rounds": old_note,
       "_update_plan": lambda self: setattr(self, "_plan_stale", False),
       "_continuation_rounds": lambda self, k: min(k, E.MAX_GRAPH_ROUNDS)}


LOG = []


def _logged(name, f):
    def w(self, k):
        r = f(self, k)
        LOG.append((name[1], r))
        return r
    return w


def use(mode):
    for n, f in (OLD if mode == "old" else NEW).items():
        setattr(E.TraversalEngine, n, _logged(n, f) if n == "_start_rounds" else f)
    E.MAX_GRAPHS = 12 if mode == "old" else 24


REPS = int(__import__("os").environ.get("REPS", "4"))
ALG = __import__("os").environ.get("ALG", "bfs")  # ALG=sssp: the SSSP engine, same replay policy


CFGS = {"sb2048_bs512": TraversalConfig(load_balance="binary_search", block_size=512, small_frontier="single_block", frontier_limit=2048),
        "sb512_bs256": TraversalConfig(load_balance="binary_search", block_size=256, small_frontier="single_block", frontier_limit=512),
        "persist32768_bs128": TraversalConfig(load_balance="binary_search", block_size=128, small_frontier="persistent", frontier_limit=32768),
        "em1024_sb512_hash": TraversalConfig(load_balance="edge_mapped", block_size=1024, duplicate_culling="hash", small_frontier="single_block", frontier_limit=512)}
SPECS = sys.argv[2:]
out = open(sys.argv[1], "a")
for spec in SPECS:
    t0 = time.time()
    g = at.load_graph(spec)
    srcs = select_sources(g, 16, seed=0)
    if ALG == "sssp":  # GAP's integer weights; the SSSP model's pick and two SSSP `train` configs
        from autotune.sweep import attach_weights, sssp_training_set

        g = attach_weights(g, "int:1:255")
        train = sssp_training_set()
        cfgs = {"train0": train[0], "train_mid": train[len(train) // 2]}
    else:
        cfgs = dict(CFGS)
    try:
        cfgs["pick"] = at.tune(g, algorithm=ALG)
    except Exception as exc:
        print("tune failed", spec, exc)
    for name, cfg in cfgs.items():
        t = {"old": [], "new": []}
        firsts = {"old": [], "new": []}
        per = {"old": [], "new": []}
        ok = []
        for rep in range(REPS):
            for mode in ("old", "new"):
                use(mode)
                g._cache.pop("engine", None)
                r = GPURunner(g, cfg, on_device=True)
                LOG.clear()
                m = measure(r, srcs, warmup=1, validate=(rep == 0))
                eng = r.engine
                per[mode].append(dict(times=[round(x, 4) for x in m.times_ms], launches=[list(x) for x in LOG],
                                      hist=list(getattr(eng, "_round_history", [])), graphs=sorted(map(list, getattr(eng, "_graphs", {}))),
                                      costs=[round(getattr(eng, a, 0), 2) for a in ("round_us", "continuation_us", "capture_us")]))
                ok.append(bool(m.valid) or m.error)
                t[mode].append(float(np.median(m.times_ms)) if m.times_ms else None)
                firsts[mode].append(float(np.sum(m.times_ms)) if m.times_ms else None)
                del r
        rest = lambda v: float(np.median(v[1:])) if len(v) > 1 else v[0]
        rec = dict(graph=spec.split("/")[-1][:70], config=name, config_id=cfg.config_id, old=t["old"], new=t["new"],
                   ratio=rest(t["new"]) / rest(t["old"]), per=per, sum_old=firsts["old"], sum_new=firsts["new"],
                   sum_ratio=min(firsts["new"]) / min(firsts["old"]), valid=ok)
        print(json.dumps({k: (round(v, 4) if isinstance(v, float) else v) for k, v in rec.items() if k not in ("old", "new", "sum_old", "sum_new", "per")}), flush=True)
        out.write(json.dumps(rec) + "\n"); out.flush()
    g._cache.pop("engine", None)
    print("#", spec[:50], round(time.time() - t0, 1), "s", flush=True)
