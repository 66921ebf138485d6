import sys, re, collections
path, prefix, target = sys.argv[1], sys.argv[2], sys.argv[3]
depth = int(sys.argv[4]) if len(sys.argv) > 4 else 3
samples=[]; cur=None; thread=None
for line in open(path, errors='replace'):
    line=line.rstrip('\n')
    if line.startswith('jdk.ExecutionSample'): cur=[]; thread=None
    elif 'sampledThread = "' in line: thread=line.split('"')[1]
    elif cur is not None and line.startswith('    ') and 'line:' in line:
        cur.append(re.sub(r'\(.*','',line.strip()))
    elif line.startswith('}') and cur is not None:
        if thread and thread.startswith(prefix): samples.append(cur)
        cur=None
n=len(samples); c=collections.Counter()
for s in samples:
    idx=[i for i,m in enumerate(s) if target in m]
    if not idx: continue
    i=max(idx)
    c[' <- '.join(m.split('.')[-2]+'.'+m.split('.')[-1] for m in s[i+1:i+1+depth])]+=1
print(n)
for k,v in c.most_common(15): print(f"{100*v/n:5.1f}% {k}")
