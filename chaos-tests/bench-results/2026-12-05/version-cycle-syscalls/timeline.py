# timeline.py events-joined.txt (join.py makes it from perf2.sh's perf-events.txt): the lane threads' manifest links
# (each followed by the directory's flush), the stagings of manifests (from the O_DIRECT create to its flush) and the
# cycle between versions, in ms
import re,sys,collections
ev=[]
for line in open(sys.argv[1]):
    m=re.match(r'\s*([\d.]+) \(\s*([\d.]*)\s*(?:ms)?\): (\S+)/(\d+) (\w+)\((.*)',line)
    if not m: continue
    t=float(m.group(1)); d=m.group(2); th=m.group(3); call=m.group(5); rest=m.group(6)
    cont='[continued]' in rest
    ev.append((t,float(d) if d else None,th,call,rest,cont))
# per thread sequences
byth=collections.defaultdict(list)
for e in ev:
    if e[2].startswith('lcc-lane'): byth[e[2]].append(e)
links=[]; stag=[]
for th,es in byth.items():
    es2=[e for e in es if not (e[1] is None and not e[5])]  # completed events (with duration)
    for i,e in enumerate(es2):
        if e[3]=='link':
            # manifest link if followed by openat without CREAT then fsync
            nxt=es2[i+1:i+5]
            if any(x[3]=='fsync' for x in nxt) and not any('CREAT' in x[4] for x in nxt[:3]):
                f=[x for x in nxt if x[3]=='fsync'][0]
                links.append((e[0], f[0]+f[1], th))
        if e[3]=='openat' and 'DIRECT' in e[4]:
            # staging: from this openat to the next fsync on same thread
            j=i+1
            while j<len(es2) and es2[j][3]!='fsync': j+=1
            if j<len(es2):
                w=[x for x in es2[i:j] if x[3]=='write']
                stag.append((e[0], es2[j][0]+es2[j][1], e[1], sum(x[1] for x in w), es2[j][1], th))
links.sort(); stag.sort()
print("manifest links:",len(links),"stagings:",len(stag))
cyc=[b[0]-a[0] for a,b in zip(links,links[1:])]
wr=[l[1]-l[0] for l in links]
def q(a):
    a=sorted(a); return "n %d p50 %.2f p90 %.2f p99 %.2f max %.2f mean %.2f"%(len(a),a[len(a)//2],a[int(len(a)*.9)],a[min(len(a)-1,int(len(a)*.99))],a[-1],sum(a)/len(a))
print("cycle (link to link)", q(cyc))
print("link+dir fsync", q(wr))
print("staging open..fsync end", q([s[1]-s[0] for s in stag]))
print("  openat", q([s[2] for s in stag])); print("  write", q([s[3] for s in stag])); print("  fsync", q([s[4] for s in stag]))
# for each link: how long after its staging finished did it start?  match staging ending just before link
import bisect
ends=sorted(s[1] for s in stag)
gap=[]
for l in links:
    k=bisect.bisect_right(ends,l[0])-1
    if k>=0: gap.append(l[0]-ends[k])
print("link start - last staging end", q(gap))
# previous link's fsync end to this link start
g2=[b[0]-a[1] for a,b in zip(links,links[1:])]
print("prev write end -> next link", q(g2))
# Where each version's steps fall relative to the end of the write before it: its .txn's create (the preparation),
# its manifest's staging (start and end), its link and the end of its directory flush.
txn=[]
for th,es in byth.items():
    es2=sorted(e for e in es if e[1] is not None)
    for i,e in enumerate(es2):
        if e[3]=='openat' and 'CREAT' in e[4] and 'DIRECT' not in e[4]:
            nxt=es2[i+1] if i+1<len(es2) else None
            if nxt and nxt[3]=='write' and 'count: 16)' not in nxt[4]:
                txn.append(e[0])
txn.sort()
rows=[]
stag_end=[s[1] for s in stag]
for k in range(1,len(links)):
    ls=links[k][0]; j=bisect.bisect_right(stag_end, ls)-1
    if j<0: continue
    s=stag[j]; t=bisect.bisect_right(txn, s[0])-1
    if t<0: continue
    pe=links[k-1][1]
    rows.append((txn[t]-pe, s[0]-pe, s[1]-pe, ls-pe, links[k][1]-pe))
for i,n in enumerate([".txn create","staging start","staging end","link start","write end"]):
    a=sorted(r[i] for r in rows)
    print("%-14s relative to the previous write's end: p10 %.2f p50 %.2f p90 %.2f mean %.2f"%(n,a[len(a)//10],a[len(a)//2],a[9*len(a)//10],sum(a)/len(a)))
