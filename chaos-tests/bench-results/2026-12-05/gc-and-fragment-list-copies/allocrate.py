import sys, re, datetime
# allocrate.py DIR COMMITS_PER_S : MB allocated in the 30 s window (heap before each pause minus heap after the previous)
d = sys.argv[1]; rate = float(sys.argv[2])
w = [l.split()[1] for l in open(d + "/times.txt") if l.startswith("window")][0]
day = None; prev_after = None; alloc = 0.0; n = 0
events = []
for line in open(d + "/gc.log"):
    m = re.match(r"\[(\S+?)\+0000\].*Pause Young.* (\d+)M->(\d+)M\((\d+)M\) ([\d.]+)ms", line)
    if not m: continue
    t = datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%f")
    events.append((t, int(m.group(2)), int(m.group(3))))
s = datetime.datetime.strptime(events[0][0].strftime("%Y-%m-%d") + " " + w, "%Y-%m-%d %H:%M:%S")
e = s + datetime.timedelta(seconds=30)
for i in range(1, len(events)):
    t, before, after = events[i]
    if s <= t < e:
        alloc += before - events[i-1][2]; n += 1
print("%s: %d young pauses, %.0f MB allocated in the window, %.0f MB/s, %.1f KB per commit" % (d, n, alloc, alloc/30, alloc*1024/(rate*30)))
