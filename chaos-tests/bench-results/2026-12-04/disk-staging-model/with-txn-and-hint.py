import os, time, statistics, threading, queue, sys
d="/tmp/fsb/dir3"; os.makedirs(d, exist_ok=True); td="/tmp/fsb/txn3"; os.makedirs(td, exist_ok=True)
data=os.urandom(2_500_000); small=os.urandom(3000)
def stage(p):
    fd=os.open(p, os.O_CREAT|os.O_EXCL|os.O_WRONLY); os.write(fd,data); os.fsync(fd); os.close(fd)
def link(p,f):
    os.link(p,f); dfd=os.open(d, os.O_RDONLY); os.fsync(dfd); os.close(dfd); os.unlink(p)
def txn(i, tag):
    p=f"{td}/tmp-{tag}-{i}"; fd=os.open(p, os.O_CREAT|os.O_EXCL|os.O_WRONLY); os.write(fd, small); os.close(fd)
    os.link(p, f"{td}/{tag}-{i}.txn"); os.unlink(p)
def hint(i):
    p=f"{d}/.tmp-hint"; fd=os.open(p, os.O_CREAT|os.O_TRUNC|os.O_WRONLY); os.write(fd, b'{"version":%d}'%i); os.close(fd)
    os.rename(p, f"{d}/latest_version_hint.json")
def pipelined(n, tag, with_hint, with_txn):
    q=queue.Queue(maxsize=1); ts=[]; tl=[]
    after=queue.Queue()
    def afterq():
        while True:
            it=after.get()
            if it is None: return
            if with_hint: hint(it)
    def linker():
        while True:
            it=q.get()
            if it is None: return
            t=time.perf_counter(); link(*it[:2]); 
            if with_txn: txn(it[2], tag)
            tl.append((time.perf_counter()-t)*1000); after.put(it[2])
    th=threading.Thread(target=linker); th.start(); ta=threading.Thread(target=afterq); ta.start()
    t0=time.perf_counter()
    for i in range(n):
        p=f"{d}/tmp-{tag}-{i}"; f=f"{d}/{tag}-{i}.m"
        t=time.perf_counter(); stage(p); ts.append((time.perf_counter()-t)*1000)
        q.put((p,f,i))
    q.put(None); th.join(); after.put(None); ta.join()
    el=time.perf_counter()-t0
    for i in range(n): os.unlink(f"{d}/{tag}-{i}.m")
    for x in os.listdir(td): os.unlink(f"{td}/{x}")
    print(tag, "versions/s %.0f stage p50 %.2f mean %.2f link p50 %.2f mean %.2f" % (n/el, statistics.median(ts), statistics.mean(ts), statistics.median(tl), statistics.mean(tl)))
for r in range(3):
    pipelined(300,"plain",False,False); pipelined(300,"txn",False,True); pipelined(300,"txn+hint",True,True)
