"""A discrete-event model of one table's commit lane with 16 closed-loop writers (BENCHMARK.md, 2026-12-04 05:35).

Each version: a build on the lane (B ms plus `per` ms per member, serial: it needs the version before it built),
then its manifest staged (written and flushed, S ms, on a thread of its own), then its put-if-absent (W ms, serial,
after the version before it landed and its own staging). A writer comes back r ms after its answer. `depth` is how
many built versions may wait for their write: 1 is the lane as built (the next build starts when the version before
it starts its write). Stagings never contend here; on one disk they do, so the gains of depth > 1 are upper bounds.
Run: python3 sim.py (prints commits/s, mean group size and p50 latency per depth).
"""
import heapq
def sim(depth, N=16, B=2.0, S=5.5, W=2.3, r=2.0, per=0.1, T=30000.0):
    ev=[]; seq=0
    def push(t,k,d=None):
        nonlocal seq; seq+=1; heapq.heappush(ev,(t,seq,k,d))
    queue=[]; chain=[]  # built versions not yet writing: dict(members, staged_at)
    writing=None; building=False; done=0; lat=[]; versions=0; gs=[]
    for i in range(N): push(i*0.01,'arrive',i*0.01)
    def sched(now):
        nonlocal writing, building
        if writing is None and chain and chain[0]['staged'] is not None:
            v=chain.pop(0); writing=v; push(max(now,v['staged'])+W,'landed',v)
        inflight = len(chain)
        if not building and queue and inflight < depth:
            building=True; g=list(queue); queue.clear(); push(now+B+per*len(g),'built',g)
    while ev:
        now,_,k,d=heapq.heappop(ev)
        if now>T: break
        if k=='arrive': queue.append(d)
        elif k=='built':
            building=False; v={'m':d,'staged':None}; chain.append(v); push(now+S,'staged',v)
        elif k=='staged': d['staged']=now
        elif k=='landed':
            writing=None; versions+=1
            for s in d['m']:
                if now>T*0.2: done+=1; lat.append(now-s)
                push(now+r,'arrive',now+r)
            if now>T*0.2: gs.append(len(d['m']))
        sched(now)
    lat.sort(); span=T*0.8
    return done/span*1000, sum(gs)/len(gs), lat[len(lat)//2], lat[int(len(lat)*.99)]
for S in (3.0,5.5,8.0):
  for W in (1.5,2.3,4.0):
    row=[]
    for d in (1,2,3):
        tp,g,p50,p99=sim(d,S=S,W=W); row.append(f"d{d}: {tp:6.0f}/s g{g:4.1f} p50 {p50:4.1f}")
    print(f"S={S} W={W}  "+" | ".join(row))
