# bench/bars.py FILE: the throughput bars as a Markdown table, from bench/pair.py's
# JSON lines (A is gpublob, B its peer; for the cache rows B is gpublob's cold run).
import json, sys

rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print("| case | compared with | gpublob ms | peer ms | measure | bar | met | gpublob peak MiB | peer peak MiB | memory ratio |")
print("|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    a, b, case = r["a_ms"], r["b_ms"], r["case"]
    if case.startswith("cache hit"):
        peer, measure, bar, met = "the same, cold (--no-cache)", "%.1f ms whole process" % a, "at most 10 ms", a <= 10
    elif case.startswith("16 gpu.modules"):
        peer, measure, bar = "mlir-opt-22 --gpu-module-to-binary (serial)", "%.2fx throughput" % (b / a), "at least 1.8x"
        met = b / a >= 1.8
    elif case.startswith("one small"):
        peer, measure, bar, met = "mlir-opt-22 --gpu-module-to-binary", "%.2fx wall" % (a / b), "at most 0.7x", a / b <= 0.7
    elif "asm" in case:
        peer, measure, bar, met = "llc-22 -O3", "%.2fx wall" % (a / b), "(no bar: every function compiled)", None
    else:
        peer, measure, bar, met = "llc-22 -O3 then ptxas", "%.2fx wall" % (a / b), "at most 1.0x", a / b <= 1.0
    verdict = "-" if met is None else "yes" if met else "NO"
    print("| %s | %s | %.1f | %.1f | %s | %s | %s | %.1f | %.1f | %.2f |" % (
        case, peer, a, b, measure, bar, verdict, r["a_mib"], r["b_mib"], r["a_mib"] / r["b_mib"]))
