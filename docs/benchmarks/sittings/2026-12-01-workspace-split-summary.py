import json,glob,statistics as st,collections
rows=collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob('/work/bench-split/r-*.json')):
    _,v,q,i=f.rsplit('/',1)[1][:-5].split('-')
    r=json.load(open(f))
    ph={p['name']:p for p in r['phases']}
    d=rows[(q,v)]
    d['insert rows/s'].append(r['load']['rows_per_second'])
    d['optimize s'].append(ph['optimize']['duration_sec'])
    d['peak RSS MiB'].append(r['peak_rss_mib'])
    d['query RSS MiB'].append(r['query_peak_rss_mib'])
    for s in r['searches']:
        d[f"ef={s['ef']} serial QPS"].append(s['serial']['qps'])
        d[f"ef={s['ef']} recall@10"].append(s['serial']['recall'])
        d[f"ef={s['ef']} p99 ms"].append(s['serial']['latency_p99_ms'])
        d[f"ef={s['ef']} QPS c=1"].append(s['concurrent'][0]['qps'])
print("| config | figure | before (median of 3) | after (median of 3) | after/before | runs before | runs after |")
print("| --- | --- | ---: | ---: | ---: | --- | --- |")
for q in ['none','int8']:
    b,a=rows[(q,'before')],rows[(q,'after')]
    for k in b:
        if k not in a: continue
        mb,ma=st.median(b[k]),st.median(a[k])
        fmt=(lambda x: f"{x:.4f}") if 'recall' in k else ((lambda x: f"{x:.3f}") if 'ms' in k else (lambda x: f"{x:,.1f}"))
        print(f"| hnsw {'fp32' if q=='none' else 'int8'} | {k} | {fmt(mb)} | {fmt(ma)} | {ma/mb:.3f} | {' '.join(fmt(x) for x in b[k])} | {' '.join(fmt(x) for x in a[k])} |")
