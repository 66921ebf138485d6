import os, time, uuid, statistics, sys
d="/work/bench/fs/ch"; os.makedirs(d+"/t", exist_ok=True)
n=int(sys.argv[1]); every=int(sys.argv[2]); T=[]
dfd=os.open(d+"/t", os.O_RDONLY)
for i in range(n):
    a=time.perf_counter(); fd=os.open(f"{d}/t/.lcc-{uuid.uuid4()}", os.O_WRONLY|os.O_CREAT|os.O_EXCL, 0o644); T.append(time.perf_counter()-a); os.close(fd)
    if every and i%every==0: os.fsync(dfd)
    time.sleep(0.002)
def q(a): a=sorted(a); return "p50 %.3f mean %.3f"%(a[len(a)//2]*1e3,statistics.mean(a)*1e3)
print(sys.argv[1:], " ".join(q(T[k*len(T)//5:(k+1)*len(T)//5]) for k in range(5)))
