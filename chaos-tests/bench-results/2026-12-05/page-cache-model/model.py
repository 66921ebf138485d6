# 2.5 MB files on this disk: buffered into new files, buffered over a cached file's pages, O_DIRECT into new files; fsync or not
import os, time, mmap, sys, statistics
d = sys.argv[1]; os.makedirs(d, exist_ok=True)
SIZE = 2_500_000; N = int(sys.argv[2]) if len(sys.argv) > 2 else 200
data = os.urandom(SIZE)
BS = 4096
padded = (SIZE + BS - 1) // BS * BS
abuf = mmap.mmap(-1, padded); abuf[:SIZE] = data
def timed(label, fn):
    ts = []
    for i in range(N):
        t = time.perf_counter(); fn(i); ts.append(time.perf_counter() - t)
    ts.sort()
    print(f"{label:48s} p50 {1000*ts[len(ts)//2]:6.2f} ms  mean {1000*statistics.mean(ts):6.2f} ms  {SIZE*N/sum(ts)/1e6:7.0f} MB/s", flush=True)
def buffered(sync):
    def f(i):
        fd = os.open(f"{d}/b{sync}-{i}", os.O_CREAT | os.O_EXCL | os.O_WRONLY); os.write(fd, data)
        if sync: os.fsync(fd)
        os.close(fd)
    return f
def overwrite(i):
    fd = os.open(f"{d}/over", os.O_CREAT | os.O_WRONLY); os.pwrite(fd, data, 0); os.close(fd)
def direct(sync):
    def f(i):
        fd = os.open(f"{d}/d{sync}-{i}", os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_DIRECT); os.write(fd, abuf); os.ftruncate(fd, SIZE)
        if sync: os.fsync(fd)
        os.close(fd)
    return f
def usercopy(i):
    bytearray(data)
timed("user-space copy of 2.5 MB (fresh bytearray)", usercopy)
timed("buffered write over a cached file (no fsync)", overwrite)
timed("buffered write into a new file (no fsync)", buffered(False))
timed("O_DIRECT write into a new file (no fsync)", direct(False))
timed("buffered write into a new file + fsync", buffered(True))
timed("O_DIRECT write into a new file + fsync", direct(True))
