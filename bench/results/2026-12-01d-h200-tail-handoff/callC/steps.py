import gzip,csv,sys
f=sys.argv[1]
op=gzip.open if f.endswith('.gz') else open
rows=[r for r in csv.reader(op(f,'rt'))]
k=[(int(r[1]),int(r[2]),r[4]) for r in rows if r[0]=='kernel']
k.sort()
idx=max(i for i,x in enumerate(k) if x[2]=='proofc_init')
run=k[idx:]
t0=run[0][0]
print(f, 'run span %.1f us' % ((run[-1][1]-t0)/1e3))
pol=None; n=0
for s,e,name in run:
    if name=='proofc_policy':
        if pol is not None and pol[2]=='p': pass
        print('%-22s start %8.1f dur %7.1f' % (name, (s-t0)/1e3, (e-s)/1e3))
    else:
        print('%-22s start %8.1f dur %7.1f' % (name, (s-t0)/1e3, (e-s)/1e3))
