# join.py perf-events.txt > events-joined.txt: `perf trace` splits a call that another thread's event interrupted
# into its start ("...") and its end ("... [continued]: call()"); this puts each call back on one line, with its
# arguments, its start time and its duration. timeline.py and creates.py read the joined file.
import re,sys
pat1=re.compile(r'\s*([\d.]+) \(\s*([\d.]*)\s*(?:ms)?\): (\S+)/(\d+) (\w+)\((.*)')
pat2=re.compile(r'\s*([\d.]+) \(\s*([\d.]+) ms\): (\S+)/(\d+)\s+\.\.\. \[continued\]: (\w+)\(')
pending={}
for line in open(sys.argv[1]):
    line=line.rstrip("\n")
    m=pat2.match(line)
    if m:
        rest=pending.pop((m.group(3),m.group(1)),'')
        print("%s (%s ms): %s/%s %s(%s"%(m.group(1),m.group(2),m.group(3),m.group(4),m.group(5),rest)); continue
    m=pat1.match(line)
    if m:
        if not m.group(2): pending[(m.group(3),m.group(1))]=m.group(6); continue
        print(line)
