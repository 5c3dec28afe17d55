# bench/iso.py FILE: the cost of isolation (--isolate against --no-isolate, timed in
# turns by bench/pair.py), as a Markdown table: A is in-process, B isolated.  The
# CLI isolates by default only if the single saxpy compile costs under 3% more.
import json, sys

rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print("| case | jobs | in-process ms | isolated ms | cost ms | cost per job ms | cost | bar | met |")
print("|---|---|---|---|---|---|---|---|---|")
for r in rows:
    a, b = r["a_ms"], r["b_ms"]
    jobs = int(r["case"].split("jobs=")[1]) if "jobs=" in r["case"] else 1
    case = r["case"].split(" jobs=")[0]
    bar = "under 3%, for the CLI to isolate by default" if case.startswith("saxpy_nvptx") else "-"
    met = ("yes" if (b - a) / a < 0.03 else "NO") if bar != "-" else "-"
    print("| %s | %d | %.1f | %.1f | %.2f | %.2f | %.1f%% | %s | %s |" % (
        case, jobs, a, b, b - a, (b - a) / jobs, (b - a) / a * 100, bar, met))
