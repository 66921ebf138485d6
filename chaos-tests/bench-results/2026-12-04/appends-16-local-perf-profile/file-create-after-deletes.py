import os, time, shutil
base="/tmp/fsb/inode"; shutil.rmtree(base, ignore_errors=True); os.makedirs(base)
def creates(d, n, hint=False):
    os.makedirs(d, exist_ok=True)
    t=time.perf_counter()
    for i in range(n):
        fd=os.open(f"{d}/f{i}", os.O_CREAT|os.O_EXCL|os.O_WRONLY); os.write(fd, b"x"*3000); os.close(fd)
        if hint:
            p=f"{d}/.hint.tmp"; fd=os.open(p, os.O_CREAT|os.O_TRUNC|os.O_WRONLY); os.write(fd,b'{"version":1}'); os.close(fd); os.rename(p, f"{d}/hint.json")
    return (time.perf_counter()-t)/n*1e6
def cpu(f,*a):
    t0=os.times(); r=f(*a); t1=os.times(); return r,(t1.system-t0.system)
print("fresh: %.0f us/create, sys %.2fs" % cpu(creates, base+"/a", 3000))
print("fresh + hint rename per create: %.0f us/iteration, sys %.2fs" % cpu(creates, base+"/b", 3000, True))
# delete 15000 files, then create right after
creates(base+"/c", 15000); shutil.rmtree(base+"/c")
print("after 15000 deleted: %.0f us/create, sys %.2fs" % cpu(creates, base+"/d", 3000))
time.sleep(40)
print("40 s later: %.0f us/create, sys %.2fs" % cpu(creates, base+"/e", 3000))
print("40 s later + hint per create: %.0f us/iteration, sys %.2fs" % cpu(creates, base+"/f", 3000, True))
print("again + hint per create: %.0f us/iteration, sys %.2fs" % cpu(creates, base+"/g", 3000, True))
shutil.rmtree(base)
