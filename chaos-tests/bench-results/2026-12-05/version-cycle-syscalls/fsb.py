import os, mmap, time, statistics, sys
d = "/work/bench/fs/t"; os.makedirs(d, exist_ok=True)
size = int(sys.argv[1]) if len(sys.argv)>1 else 1400*1024
size = (size + 4095)//4096*4096
buf = mmap.mmap(-1, size); buf.write(os.urandom(size))
dfd = os.open(d, os.O_RDONLY)
W=[];F=[];L=[];D=[]
for i in range(200):
    tmp = f"{d}/tmp{i}"; fin = f"{d}/{i}.manifest"
    t0=time.perf_counter()
    fd = os.open(tmp, os.O_WRONLY|os.O_CREAT|os.O_DIRECT, 0o644)
    os.write(fd, buf)
    t1=time.perf_counter()
    os.fsync(fd); os.close(fd)
    t2=time.perf_counter()
    os.link(tmp, fin); os.unlink(tmp)
    t3=time.perf_counter()
    os.fsync(dfd)
    t4=time.perf_counter()
    W.append(t1-t0);F.append(t2-t1);L.append(t3-t2);D.append(t4-t3)
def q(a):
    a=sorted(a); return "p50 %.2f p99 %.2f mean %.2f" % (a[len(a)//2]*1e3, a[int(len(a)*.99)]*1e3, statistics.mean(a)*1e3)
print("write", q(W)); print("fsync file", q(F)); print("link+unlink", q(L)); print("fsync dir", q(D))
