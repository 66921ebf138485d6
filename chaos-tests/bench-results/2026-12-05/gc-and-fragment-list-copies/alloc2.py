import json, sys, collections
d = json.load(open(sys.argv[1])); ev = d["recording"]["events"]
by = collections.Counter(); total = 0
for e in ev:
    v = e["values"]; w = v.get("weight", 0); total += w
    frames = (v.get("stackTrace") or {}).get("frames", [])
    names = [f["method"]["type"]["name"].split("/")[-1] + "." + f["method"]["name"] + ":" + str(f.get("lineNumber")) for f in frames]
    ours = [n for f, n in zip(frames, names) if "lancecommit" in f["method"]["type"]["name"]]
    if not names: continue
    by[names[0] + " || " + " < ".join(ours[:4])] += w
for k, w in by.most_common(30): print("%5.1f%% %s" % (100*w/total, k))
