import json, sys, collections
# usage: jfr print --json --events jdk.ObjectAllocationSample F | python3 alloc.py
d = json.load(sys.stdin)
ev = d["recording"]["events"]
by_site = collections.Counter(); by_type = collections.Counter(); by_thread = collections.Counter()
total = 0
for e in ev:
    v = e["values"]; w = v.get("weight", 0); total += w
    t = v["objectClass"]["name"] if v.get("objectClass") else "?"
    th = (v.get("eventThread") or {}).get("javaName", "?")
    import re
    by_thread[re.sub(r"\d+", "N", th)] += w
    frames = (v.get("stackTrace") or {}).get("frames", [])
    names = [f["method"]["type"]["name"].split(".")[-1] + "." + f["method"]["name"] + ":" + str(f.get("lineNumber")) for f in frames]
    # first frame in our code
    ours = [n for f, n in zip(frames, names) if f["method"]["type"]["name"].startswith("dev.lancecommit")]
    site = " < ".join(names[:2]) + (" | " + " < ".join(ours[:3]) if ours else "")
    by_site[site] += w; by_type[t] += w
print("total sampled weight %.1f MB" % (total / 1e6))
print("\nby thread"); [print("%8.1f MB %5.1f%% %s" % (w/1e6, 100*w/total, k)) for k, w in by_thread.most_common(12)]
print("\nby type"); [print("%8.1f MB %5.1f%% %s" % (w/1e6, 100*w/total, k)) for k, w in by_type.most_common(15)]
print("\nby site"); [print("%8.1f MB %5.1f%% %s" % (w/1e6, 100*w/total, k)) for k, w in by_site.most_common(40)]
