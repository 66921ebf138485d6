import os, time, uuid, statistics, sys
mode=sys.argv[2]
d="/work/bench/fs/ch"; os.makedirs(d+"/v", exist_ok=True); os.makedirs(d+"/t", exist_ok=True)
n=int(sys.argv[1]); T=[];V=[]
hfd=None
for i in range(n):
    if mode=="rename":
        tmp=f"{d}/v/.lcc-{uuid.uuid4()}"
        fd=os.open(tmp, os.O_WRONLY|os.O_CREAT|os.O_EXCL, 0o644); os.write(fd,b'{"version":%d}'%i); os.close(fd)
        os.rename(tmp, f"{d}/v/hint.json")
    elif mode=="inplace":
        fd=os.open(f"{d}/v/hint.json", os.O_WRONLY|os.O_CREAT, 0o644); os.pwrite(fd,b'{"version":%d}'%i,0); os.close(fd)
    if i%10==0:
        a=time.perf_counter(); fd=os.open(f"{d}/t/.lcc-{uuid.uuid4()}", os.O_WRONLY|os.O_CREAT|os.O_EXCL, 0o644); T.append(time.perf_counter()-a); os.close(fd)
        a=time.perf_counter(); fd=os.open(f"{d}/v/.lcc-{uuid.uuid4()}", os.O_WRONLY|os.O_CREAT|os.O_EXCL, 0o644); V.append(time.perf_counter()-a); os.close(fd)
def q(a): a=sorted(a); return "p50 %.3f mean %.3f"%(a[len(a)//2]*1e3,statistics.mean(a)*1e3)
print(mode,n,"create in t/ first tenth",q(T[:len(T)//10]),"last tenth",q(T[-len(T)//10:]))
print(mode,n,"create in v/ first tenth",q(V[:len(V)//10]),"last tenth",q(V[-len(V)//10:]))
