import re,collections,sys
def agg(f):
    a=collections.defaultdict(lambda:[0,0])
    for l in open(f):
        n,u,s=l.split(); k=re.sub(r'[-_#]?\d+$','',n)
        a[k][0]+=int(u); a[k][1]+=int(s)
    return a
d=sys.argv[1]
s=agg(d+'/proc-start.txt'); e=agg(d+'/proc-end.txt')
tot=[0,0]
for k in sorted(e, key=lambda k: -(sum(e[k])-sum(s.get(k,[0,0])))):
    du=e[k][0]-s.get(k,[0,0])[0]; ds=e[k][1]-s.get(k,[0,0])[1]; tot[0]+=du; tot[1]+=ds
    if du+ds>5: print(f"{k:20s} user {du/100:6.2f} s  sys {ds/100:6.2f} s")
print(f"{'total':20s} user {tot[0]/100:6.2f} s  sys {tot[1]/100:6.2f} s")
