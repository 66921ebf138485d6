import sys, collections
# perf script -F comm,tid,ip,sym,dso output: header "comm tid", then frames "ip sym (dso)", blank line between samples
samples=[]; cur=None
for line in open(sys.argv[1], errors='replace'):
    line=line.rstrip('\n')
    if not line.strip():
        if cur: samples.append(cur); cur=None
        continue
    if not line.startswith((' ','\t')):
        parts=line.split(); cur=(parts[0] if len(parts)>0 else '?', [])
    else:
        p=line.strip().split(None,1)
        sym=p[1] if len(p)>1 else '?'
        if sym.endswith(')') and ' (' in sym: sym=sym[:sym.rindex(' (')]
        cur[1].append(sym)
if cur: samples.append(cur)
prefix=sys.argv[2] if len(sys.argv)>2 else 'lcc-lane'
lane=[s for s in samples if s[0].startswith(prefix)]
print(f"# samples {len(samples)}; {prefix}*: {len(lane)}")
by=collections.Counter(); leaf=collections.Counter(); kleaf=collections.Counter(); kfr=collections.Counter()
for c,st in lane:
    sc='user'
    for f in reversed(st):  # outermost first
        if f.startswith('__x64_sys_') or f.startswith('ksys_') or f=='ext4_sync_file':
            sc=f; break
    by[sc]+=1
    leaf[st[0] if st else '?']+=1
    if sc!='user':
        seen=set()
        for f in st:
            if f not in seen: kfr[(sc,f)]+=1; seen.add(f)
n=len(lane)
print("# by system call"); [print(f"{v:6d} {100*v/n:5.1f}% {k}") for k,v in by.most_common(25)]
print("# leaf"); [print(f"{v:6d} {100*v/n:5.1f}% {k[:150]}") for k,v in leaf.most_common(40)]
print("# kernel frames under each call (inclusive)")
for sc,_ in by.most_common(8):
    if sc=='user': continue
    print("##",sc)
    for (s,f),v in sorted(((k,v) for k,v in kfr.items() if k[0]==sc), key=lambda x:-x[1])[:18]:
        print(f"{v:6d} {100*v/n:5.1f}% {f[:120]}")
