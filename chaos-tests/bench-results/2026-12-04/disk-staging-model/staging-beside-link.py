import os, time, statistics, threading, queue
d="/tmp/fsb/dir2"; os.makedirs(d, exist_ok=True)
data=os.urandom(2_500_000)
def stage(p):
    fd=os.open(p, os.O_CREAT|os.O_EXCL|os.O_WRONLY); os.write(fd,data); os.fsync(fd); os.close(fd)
def link(p,f):
    os.link(p,f); dfd=os.open(d, os.O_RDONLY); os.fsync(dfd); os.close(dfd); os.unlink(p)
def pipelined(n, tag):
    q=queue.Queue(maxsize=1); ts=[]; tl=[]
    def linker():
        while True:
            it=q.get()
            if it is None: return
            t=time.perf_counter(); link(*it); tl.append((time.perf_counter()-t)*1000)
    th=threading.Thread(target=linker); th.start()
    t0=time.perf_counter()
    for i in range(n):
        p=f"{d}/tmp-{tag}-{i}"; f=f"{d}/{tag}-{i}.m"
        t=time.perf_counter(); stage(p); ts.append((time.perf_counter()-t)*1000)
        q.put((p,f))
    q.put(None); th.join()
    el=time.perf_counter()-t0
    for i in range(n): os.unlink(f"{d}/{tag}-{i}.m")
    print(tag, "versions/s %.0f stage p50 %.2f mean %.2f link p50 %.2f" % (n/el, statistics.median(ts), statistics.mean(ts), statistics.median(tl)))
def serial(n, tag):
    ts=[]; t0=time.perf_counter()
    for i in range(n):
        p=f"{d}/tmp-{tag}-{i}"; f=f"{d}/{tag}-{i}.m"
        t=time.perf_counter(); stage(p); ts.append((time.perf_counter()-t)*1000); link(p,f)
    el=time.perf_counter()-t0
    for i in range(n): os.unlink(f"{d}/{tag}-{i}.m")
    print(tag, "versions/s %.0f stage p50 %.2f mean %.2f" % (n/el, statistics.median(ts), statistics.mean(ts)))
for r in range(2):
    serial(300,"serial"); pipelined(300,"pipe")
