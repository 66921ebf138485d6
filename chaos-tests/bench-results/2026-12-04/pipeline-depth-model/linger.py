"""sim.py's one-deep lane with a linger (2026-12-04 evening): when the lane is free to build, it waits `linger` ms
for more writers before it closes the group. Writers come back r +/- jit ms after their answer (uniform). A linger
that knew the number of writers would close the group as soon as all are back; the coordinator does not know it, so
the linger here is a fixed time. Run: python3 linger.py
"""
import heapq, random
def sim(depth, N=16, B=2.0, S=5.5, W=2.3, r=2.0, jit=1.0, per=0.1, T=30000.0, linger=0.0):
    random.seed(1)
    ev=[]; seq=0
    def push(t,k,d=None):
        nonlocal seq; seq+=1; heapq.heappush(ev,(t,seq,k,d))
    queue=[]; chain=[]
    st={'writing':None,'building':False,'lingering':False}
    done=0; lat=[]; gs=[]
    for i in range(N): push(i*0.01,'arrive',i*0.01)
    def build(now):
        st['building']=True; g=list(queue); queue.clear(); push(now+B+per*len(g),'built',g)
    def sched(now):
        if st['writing'] is None and chain and chain[0]['staged'] is not None:
            v=chain.pop(0); st['writing']=v; push(max(now,v['staged'])+W,'landed',v)
        if not st['building'] and not st['lingering'] and queue and len(chain) < depth:
            if linger>0: st['lingering']=True; push(now+linger,'linger')
            else: build(now)
    while ev:
        now,_,k,d=heapq.heappop(ev)
        if now>T: break
        if k=='arrive': queue.append(d)
        elif k=='linger':
            st['lingering']=False
            if queue and len(chain)<depth and not st['building']: build(now)
        elif k=='built':
            st['building']=False; v={'m':d,'staged':None}; chain.append(v); push(now+S,'staged',v)
        elif k=='staged': d['staged']=now
        elif k=='landed':
            st['writing']=None
            for s in d['m']:
                if now>T*0.2: done+=1; lat.append(now-s)
                rr=r+random.uniform(-jit,jit)
                push(now+rr,'arrive',now+rr)
            if now>T*0.2: gs.append(len(d['m']))
        sched(now)
    lat.sort(); span=T*0.8
    return done/span*1000, sum(gs)/len(gs), lat[len(lat)//2], lat[int(len(lat)*.99)]
for S,W in ((5.5,2.3),(4.0,2.3)):
  for r,j in ((2.0,1.0),(2.0,2.0),(3.0,2.0)):
    out=["no linger %5.0f/s g%4.1f" % sim(1,S=S,W=W,r=r,jit=j)[:2]]
    for L in (1.0,2.0,3.0,4.0):
        out.append("L%.0f %5.0f/s g%4.1f" % ((L,)+sim(1,S=S,W=W,r=r,jit=j,linger=L)[:2]))
    print(f"S={S} W={W} r={r}+/-{j}: "+" | ".join(out))
