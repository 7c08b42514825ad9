# Reach-spread features (README, "Selection methods compared"): per graph, from the sweep sources' edges
# covered, the share under 1 %, the coefficient of variation and the largest share, appended to the
# profile; leave-one-graph-out and leave-one-family-out regret of the model with and without them.
#   python notebooks/experiments/reach_spread_features.py notebooks/figures/corpus_onepass_h200.jsonl.gz
import dataclasses, json, sys
import numpy as np
from autotune.logs import read_log
from autotune.model import build_training_set, evaluate, _buildable_records
logs=sys.argv[1:]
read=read_log(logs); recs=_buildable_records(read)
ts=build_training_set(recs, warn=False)
# per-graph per-source edge shares from any record of the graph (same seeded sources for every config)
shares={}
for r in recs:
    if r.fingerprint in shares or not r.valid: continue
    e=r.measure.get('edges')
    if isinstance(e,str): e=json.loads(e)
    m=r.features.get('n_edges') if isinstance(r.features,dict) else None
    if not e or not m: continue
    shares[r.fingerprint]=np.asarray(e,float)/float(m)
extra=[]
for g in ts.graphs:
    s=shares[g['fingerprint']]
    extra.append([np.mean(s<0.01), np.std(s)/max(np.mean(s),1e-12), np.max(s)])
extra=np.asarray(extra)
def run(X, names, tag):
    cv=evaluate(dataclasses.replace(ts, X=X, feature_names=tuple(names)))
    for sec,s in (('logo',cv['regret']['model']),('lofo',cv['lofo']['regret']['model'])):
        print(tag, sec, 'geo %.3f worst %.3f'%(s['geomean'], s['worst']))
    print(tag,'real', {k:(round(v['model']['geomean'],3),round(v['model']['worst'],3)) for k,v in cv['real'].items() if isinstance(v,dict) and 'model' in v})
    worst=sorted(cv['lofo']['per_graph'], key=lambda r:-r['model']['regret'])[:6]
    print(tag,'lofo worst', [(w['name'][:30], round(w['model']['regret'],3)) for w in worst])
run(ts.X, ts.feature_names, 'base')
for cols,tag in (([0],'low'),([1],'cv'),([0,1,2],'all3')):
    run(np.hstack([ts.X, extra[:,cols]]), list(ts.feature_names)+[f'x{c}' for c in cols], tag)
