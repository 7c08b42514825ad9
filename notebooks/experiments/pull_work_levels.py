# Per-level work of a BFS from one source, computed on the CPU: frontier size and out-edges (what a push level
# expands), the unvisited vertices and their in-edges, and the in-edges a pull level examines (each unvisited vertex
# scans its in-edges until one comes from the frontier; all of them when none does), beside GAP's alpha test.
#   python notebooks/experiments/pull_work_levels.py SPEC SOURCE
import sys, numpy as np, scipy.sparse as sp
from autotune.sweep import _load
def table(spec, src, directed=None):
    g=_load(spec, False, directed)
    n=g.n_vertices; ro=np.asarray(g.row_offsets,np.int64); ci=np.asarray(g.column_indices)
    a=sp.csr_matrix((np.ones(len(ci),np.int8),ci,ro),shape=(n,n))

    # depths via BFS level sets
    dist=np.full(n,-1,np.int64); dist[src]=0; f=np.array([src]); L=0
    at=a.T.tocsr(); at.sort_indices()
    outdeg=np.diff(ro); indeg=np.diff(at.indptr)
    levels=[]
    while f.size:
        nb=np.unique(a[f].indices) if f.size else np.array([],int)
        nb=nb[dist[nb]<0]; dist[nb]=L+1; levels.append(f); f=nb; L+=1
    rows=[]
    m=len(ci)
    explored=0
    for L,f in enumerate(levels):
        unv=np.where((dist>L)|(dist<0))[0]
        mf=int(outdeg[f].sum())
        mu_out=int(outdeg[unv].sum()); mu_in=int(indeg[unv].sum())
        # pull examined: each unvisited scans in-edges until u with dist==L
        sub=at[unv]; hit=(dist[sub.indices]==L)
        rowid=np.repeat(np.arange(len(unv)), np.diff(sub.indptr))
        pos=np.arange(len(sub.indices))-sub.indptr[rowid]
        first=np.full(len(unv), -1); hp=np.where(hit)[0]
        # first hit per row
        r=rowid[hp]; p=pos[hp]; u,idx=np.unique(r,return_index=True); first[u]=p[idx]
        ind=np.diff(sub.indptr)
        examined=int(np.where(first>=0, first+1, ind).sum())
        rows.append((L,len(f),mf,len(unv),mu_out,mu_in,examined, m-explored-mf))
        explored+=mf
    return n,m,rows
if __name__=="__main__":
    spec=sys.argv[1]; src=int(sys.argv[2])
    n,m,rows=table(spec,src)
    print("n",n,"m",m,"n/18",n/18)
    print("L nf mf n_unv mu_out mu_in pull_examined unexplored(alpha rule)")
    for r in rows: print(*r, f"mf*15/unexpl={r[2]*15/max(r[7],1):.2f}", f"exam/mf={r[6]/max(r[2],1):.2f}")
