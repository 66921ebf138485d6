import os, time, statistics, sys
d="/tmp/fsb/dir"  # a directory on the disk under test; os.makedirs(d, exist_ok=True)
data=os.urandom(2_500_000)
def run(mode, n=200):
    ts=[]; tl=[]
    for i in range(n):
        p=f"{d}/tmp-{mode}-{i}"; f=f"{d}/{mode}-{i}.manifest"
        t0=time.perf_counter()
        fd=os.open(p, os.O_CREAT|os.O_EXCL|os.O_WRONLY)
        os.write(fd, data)
        if mode=="fsync": os.fsync(fd)
        elif mode=="fdatasync": os.fdatasync(fd)
        os.close(fd)
        t1=time.perf_counter()
        os.link(p,f); dfd=os.open(d, os.O_RDONLY); os.fsync(dfd); os.close(dfd); os.unlink(p)
        t2=time.perf_counter()
        ts.append((t1-t0)*1000); tl.append((t2-t1)*1000)
    for i in range(n):
        os.unlink(f"{d}/{mode}-{i}.manifest")
    print(mode, "stage p50 %.2f mean %.2f | link+dirsync p50 %.2f mean %.2f" % (statistics.median(ts), statistics.mean(ts), statistics.median(tl), statistics.mean(tl)))
for m in ["fsync","fdatasync","fsync","fdatasync","none"]:
    run(m)
