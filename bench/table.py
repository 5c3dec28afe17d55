# bench/table.py TMP CASE sum|max GPUBLOB_KB OWN_KB TOOL_KB STAGE_KB...
# Appends one row to TMP/table (medians from TMP/h.json, peak MiB, ratios)
# and one to TMP/mem (the memory figures it is made of).  Called by run.sh.
import json, sys

tmp, name, join, gk, own, tool, *stages = sys.argv[1:]
g, p = (r["median"] * 1000 for r in json.load(open(tmp + "/h.json"))["results"])
mib = lambda kb: int(kb) / 1024
st = [mib(s) for s in stages]
pm = sum(st) if join == "sum" else max(st)
gm = mib(own) + mib(tool)
f1 = lambda x: "%.1f" % x


def row(file, *cells):
    with open(tmp + "/" + file, "a") as f:
        f.write("| " + " | ".join(cells) + " |\n")


row("table", name, f1(g), f1(p), "%.2f" % (g / p), f1(gm), f1(pm), "%.2f" % (gm / pm))
parts = ", ".join(map(f1, st)) if join == "max" else " + ".join(map(f1, st))
row("mem", name, "%s + %s" % (f1(mib(own)), f1(mib(tool))), f1(mib(gk)),
    ("max(%s)" if join == "max" else "%s") % parts + " = " + f1(pm))
