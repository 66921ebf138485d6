# creates.py events-joined.txt: the lane threads' file creates by kind (a manifest's temporary file, written with
# O_DIRECT; the version hint's, 16 bytes; the .txn's), and their renames, links and unlinks, in ms
import re,collections,sys
ev=[]
for line in open(sys.argv[1]):
    m=re.match(r'\s*([\d.]+) \(\s*([\d.]+) ms\): (\S+)/(\d+) (\w+)\((.*)',line)
    if m: ev.append((float(m.group(1)),float(m.group(2)),m.group(3),m.group(5),m.group(6)))
byth=collections.defaultdict(list)
for e in ev: byth[e[2]].append(e)
cls=collections.defaultdict(list)
for th,es in byth.items():
    if not th.startswith('lcc-lane'): continue
    for i,e in enumerate(es):
        if e[3]=='openat' and 'CREAT' in e[4]:
            nxt=es[i+1] if i+1<len(es) else None
            cnt=re.search(r'count: (\d+)',nxt[4]) if nxt and nxt[3]=='write' else None
            kind='create manifest (direct)' if 'DIRECT' in e[4] else ('create hint' if cnt and cnt.group(1)=='16' else 'create .txn')
            cls[kind].append(e[1])
        if e[3] in ('rename','link','unlink'):
            cls[e[3]].append(e[1])
for k,v in cls.items():
    v=sorted(v); print("%-26s n %4d p50 %.3f p90 %.3f p99 %.3f mean %.3f total %.1f"%(k,len(v),v[len(v)//2],v[int(len(v)*.9)],v[int(len(v)*.99)],sum(v)/len(v),sum(v)))
