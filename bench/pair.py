# bench/pair.py RUNS WARMUP NAME -- CMD_A... -- CMD_B...
# Times two commands in turns (A, B, A, B, ...), so that a shared machine's drift
# falls on both alike; prints one JSON line: the median and minimum wall times in
# ms of each, and the largest max RSS (MiB) any one of its processes reached, from
# wait4 (a process and the children it waited for: gpublob and its ptxas or
# ld.lld, mlir-opt and its ptxas).  A command that fails stops the script.
import json, os, statistics, subprocess, sys, time

runs, warmup, name = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rest = sys.argv[4:]
split = [i for i, a in enumerate(rest) if a == "--"]
cmds = [rest[split[0] + 1:split[1]], rest[split[1] + 1:]]


def once(cmd):
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    ms = (time.perf_counter() - t) * 1000
    if status:
        sys.stderr.write("bench: failed (%d): %s\n%s" % (status, " ".join(cmd), err.decode()))
        sys.exit(1)
    return ms, usage.ru_maxrss / 1024


times, rss = [[], []], [0.0, 0.0]
for i in range(warmup + runs):
    for k in (0, 1):
        ms, mib = once(cmds[k])
        if i >= warmup:
            times[k].append(ms)
            rss[k] = max(rss[k], mib)
print(json.dumps({"case": name, "a_ms": statistics.median(times[0]), "b_ms": statistics.median(times[1]),
                  "a_min": min(times[0]), "b_min": min(times[1]), "a_mib": rss[0], "b_mib": rss[1], "runs": runs}))
