import sys, re, collections
path, prefix = sys.argv[1], sys.argv[2]
top = int(sys.argv[3]) if len(sys.argv) > 3 else 40
samples = []
cur = None
thread = None
for line in open(path, errors='replace'):
    line = line.rstrip('\n')
    if line.startswith('jdk.ExecutionSample'):
        cur = []; thread = None
    elif 'sampledThread = "' in line:
        thread = line.split('"')[1]
    elif line.strip().startswith('stackTrace = ['):
        pass
    elif cur is not None and line.startswith('    ') and 'line:' in line:
        m = line.strip()
        m = re.sub(r'\s+line:.*', '', m)
        cur.append(m)
    elif line.strip() == ']' and cur is not None:
        pass
    elif line.startswith('}') and cur is not None:
        if thread and thread.startswith(prefix):
            samples.append(cur)
        cur = None
n = len(samples)
print("samples", n)
self_c = collections.Counter(s[0] for s in samples if s)
incl = collections.Counter()
for s in samples:
    for m in set(s):
        incl[m] += 1
print("== self")
for m, c in self_c.most_common(top): print(f"{100*c/n:5.1f}% {m}")
print("== inclusive (dev.lancecommit)")
k = 0
for m, c in incl.most_common():
    if 'lancecommit' in m or 'protobuf' in m:
        print(f"{100*c/n:5.1f}% {m}"); k += 1
        if k >= top: break
