#!/usr/bin/python3
"""tests/test_python.py: the Python binding (python/gpublob.py) against the library.

Run with Debian's /usr/bin/python3:  /usr/bin/python3 tests/test_python.py
The library: $GPUBLOB_LIBRARY if set, else the build tree (build/libgpublob.so.1).
Ends with one line "N passed, N failed, N skipped"; exit status 1 on any failure.
"""

import ctypes
import os
import re
import time
import threading
import signal
import shutil
import json
import subprocess
import sys
import tempfile
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
PYDIR = os.path.join(ROOT, "python")
SAXPY_AMD = os.path.join(ROOT, "examples", "saxpy_amdgcn.ll")
SAXPY_NV = os.path.join(ROOT, "examples", "saxpy_nvptx.ll")
READELF = "/usr/lib/llvm-22/bin/llvm-readelf"
PTXAS = "/usr/local/cuda/bin/ptxas"
# A module without a triple: any target takes it.
PLAIN = b"define void @f(ptr addrspace(1) %p) {\n  store i32 1, ptr addrspace(1) %p\n  ret void\n}\n"

# An AMD kernel with 256 bytes of LDS, needing no device library.
LDS = (b'target triple = "amdgcn-amd-amdhsa"\n@lds = internal addrspace(3) global [64 x i32] poison\n'
       b'define amdgpu_kernel void @uses_lds(ptr addrspace(1) %p, i32 %i) {\n'
       b'  %q = getelementptr [64 x i32], ptr addrspace(3) @lds, i32 0, i32 %i\n'
       b'  store i32 1, ptr addrspace(3) %q\n  %v = load i32, ptr addrspace(3) @lds\n'
       b'  store i32 %v, ptr addrspace(1) %p\n  ret void\n}\n')

sys.dont_write_bytecode = True  # no python/__pycache__ in the tree
sys.path.insert(0, PYDIR)
import gpublob  # noqa: E402

counts = {"passed": 0, "failed": 0, "skipped": 0}


def fail_at(line, what):
    counts["failed"] += 1
    print(f"{os.path.relpath(__file__, ROOT)}:{line}: FAIL: {what}")


def check(cond, what):
    """Count cond; a failure prints this file's line of the check."""
    if cond:
        counts["passed"] += 1
    else:
        fail_at(sys._getframe(1).f_lineno, what)
    return cond


def skip(what):
    counts["skipped"] += 1
    print(f"skipped: {what}")


def raises(fn, *args, **kw):
    """The exception fn(*args, **kw) raises, or None."""
    try:
        fn(*args, **kw)
    except Exception as e:  # noqa: BLE001 - the caller checks its type
        return e
    return None


def readelf_h(data):
    """llvm-readelf -h of bytes, through a temporary file."""
    with tempfile.NamedTemporaryFile(suffix=".hsaco") as f:
        f.write(data)
        f.flush()
        return subprocess.run([READELF, "-h", f.name], capture_output=True, text=True).stdout


def have_ptxas():
    """Whether CUDA's ptxas is there: at /usr/local/cuda, or on PATH."""
    return os.path.exists(PTXAS) or shutil.which("ptxas") is not None


def header_codes():
    """GPUBLOB_ERRORS of gpublob.h: {NAME: value}."""
    with open(os.path.join(ROOT, "gpublob.h")) as f:
        return {m.group(1): int(m.group(2)) for m in re.finditer(r"^\s*X\((\w+), (\d+),", f.read(), re.M)}


def header_version():
    """GPUBLOB_VERSION_STRING of gpublob.h."""
    with open(os.path.join(ROOT, "gpublob.h")) as f:
        return re.search(r'#define GPUBLOB_VERSION_STRING "([^"]*)"', f.read()).group(1)


# ---- the tests ----

def test_library():
    check(gpublob.version() == header_version(), f"version() {gpublob.version()!r}")
    path = gpublob._lib()._name
    want = os.environ.get("GPUBLOB_LIBRARY") or os.path.join(ROOT, "build")
    check(os.path.realpath(path).startswith(os.path.realpath(want)), f"loaded {path}, not from {want}")
    names = {t["name"]: t for t in gpublob.targets()}
    check("amdgcn" in names and "nvptx" in names, f"targets() {list(names)}")
    check("gfx90a" in names.get("amdgcn", {}).get("chips", []), "amdgcn's chips lack gfx90a")
    check(names.get("nvptx", {}).get("triple") == "nvptx64-nvidia-cuda", "nvptx's triple")
    check(gpublob.CODES == header_codes(), f"CODES {gpublob.CODES} is not gpublob.h's GPUBLOB_ERRORS")


def c_layout():
    """Every struct's field offsets and sizes as gpublob.h gives them, via cc; None without cc."""
    cc = shutil.which("cc")
    if not cc:
        return None
    fields = {name: [f for f, _ in cls._fields_] for name, cls in STRUCTS.items()}
    lines = [f'printf("{s} {f} %zu\\n", offsetof({s}, {f}));' for s, fs in fields.items() for f in fs]
    lines += [f'printf("{s} sizeof %zu\\n", sizeof({s}));' for s in fields]
    src = ("#include <stdio.h>\n#include <stddef.h>\n#include \"gpublob.h\"\n"
           "int main(void) {\n" + "\n".join(lines) +
           '\nprintf("version %d\\n", GPUBLOB_OPTIONS_VERSION);\nreturn 0;\n}\n')
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "layout.c"), "w") as f:
            f.write(src)
        exe = os.path.join(d, "layout")
        subprocess.run([cc, "-I", ROOT, "-o", exe, os.path.join(d, "layout.c")], check=True)
        out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    return {tuple(l.split()[:-1]): int(l.split()[-1]) for l in out.splitlines()}


STRUCTS = {"gpublob_options": gpublob._Options, "gpublob_target_choice": gpublob._TargetChoice,
           "gpublob_input": gpublob._Input, "gpublob_blob": gpublob._Blob,
           "gpublob_output": gpublob._Output, "gpublob_result": gpublob._Result,
           "gpublob_kernel_info": gpublob._KernelInfo, "gpublob_target_info": gpublob._TargetInfo,
           "gpublob_param_info": gpublob._ParamInfo}
GROWING = ("gpublob_options", "gpublob_kernel_info", "gpublob_target_info", "gpublob_param_info")


def test_layout():
    c = c_layout()
    if c is None:
        skip("struct layout against gpublob.h (no cc)")
        return
    check(c[("version",)] >= gpublob.OPTIONS_VERSION, "the binding's options version is newer than gpublob.h's")
    for s, cls in STRUCTS.items():
        for f, _ in cls._fields_:
            check(getattr(cls, f).offset == c[(s, f)], f"{s}.{f}: offset {getattr(cls, f).offset}, C {c[(s, f)]}")
        size, csize = ctypes.sizeof(cls), c[(s, "sizeof")]
        check(size <= csize if s in GROWING else size == csize, f"sizeof {s}: {size}, C {csize}")


def test_amd_bin():
    outs = gpublob.compile(SAXPY_AMD, targets=["amdgcn:gfx90a"], format="bin")
    if not check(len(outs) == 1, f"{len(outs)} outputs"):
        return
    o = outs[0]
    check((o.target, o.chip) == ("amdgcn", "gfx90a"), f"output {o.target} {o.chip}")
    check(o.data[:4] == b"\x7fELF", f"not ELF: {o.data[:4]!r}")
    check(o.tool != "", "no tool named")
    check(isinstance(outs.warnings, list), "warnings is not a list")
    header = readelf_h(o.data)
    check("gfx90a" in header, f"llvm-readelf -h does not name gfx90a:\n{header}")
    check(re.search(r"ABI Version:\s+3\b", header) is not None, "default ABI is not code object v5")
    check(len(o.kernels) == 1, f"kernels {o.kernels}")
    k = o.kernels[0] if o.kernels else {}
    check(k.get("name") == "saxpy" and k.get("chip") == "gfx90a", f"kernel {k}")
    check(0 < k.get("registers", 0) <= 512 and 0 < k.get("sgprs", 0) <= 112, f"registers {k}")
    check(k.get("spills") == 0 and k.get("shared_bytes") == 0 and k.get("local_bytes") == 0, f"spills {k}")
    check(k.get("wave_size") == 64 and k.get("max_threads") == 1024, f"wave or threads {k}")
    check(k.get("params_bytes", 0) >= 24 and k.get("reqd_threads") == [0, 0, 0], f"params {k}")
    # since 1.7: the parameters, as the CLI's --metadata has them ("" where its JSON has no key)
    cli = os.path.join(ROOT, "build", "gpublob")
    with tempfile.TemporaryDirectory() as d:
        r = subprocess.run([cli, "--no-cache", "-t", "amdgcn:gfx90a", SAXPY_AMD, "-o", os.path.join(d, "s.hsaco"),
                            "--metadata", os.path.join(d, "m.json")], capture_output=True, text=True)
        meta = json.load(open(os.path.join(d, "m.json"))) if r.returncode == 0 else {}
    want = [dict({"address_space": "", "name": ""}, **p) for p in
            meta.get("outputs", [{}])[0].get("kernels", [{}])[0].get("params", [])]
    check(k.get("params") == want and len(want) == 4, f"params {k.get('params')}, the CLI's {want}")
    with open(SAXPY_AMD, "rb") as f:
        text = f.read()
    same = gpublob.compile(text, targets=["amdgcn:gfx90a"])
    check(len(same) == 1 and same[0].data == o.data, "bytes input differs from the path's")
    same = gpublob.compile(bytearray(text), "amdgcn:gfx90a", kind="llvm", name="k.ll")
    check(len(same) == 1 and same[0].data == o.data, "bytearray input differs from the path's")


def test_amd_formats():
    asm = gpublob.compile(SAXPY_AMD, targets=["amdgcn:gfx90a"], format="asm")
    check(len(asm) == 1 and b"s_endpgm" in asm[0].data, "asm lacks s_endpgm")
    check(len(asm) == 1 and asm[0].kernels == [], "asm has kernels")
    ll = gpublob.compile(SAXPY_AMD, targets=["amdgcn:gfx90a"], format="ll")
    check(len(ll) == 1 and b"amdgpu_kernel" in ll[0].data, "ll lacks amdgpu_kernel")
    bc = gpublob.compile(SAXPY_AMD, targets=["amdgcn:gfx90a"], format="llvm")
    check(len(bc) == 1 and bc[0].data[:4] == b"BC\xc0\xde", "llvm is not bitcode")


def test_offload():
    """format="offload": one LLVM OffloadBinary of every chip's hsaco; its kernels are each
    entry's, with their chips, as the hsacos' own (since 1.7)."""
    bins = gpublob.compile(SAXPY_AMD, targets=["amdgcn:gfx90a,gfx942:xnack+"])
    off = gpublob.compile(SAXPY_AMD, targets=["amdgcn:gfx90a,gfx942:xnack+"], format="offload")
    check(len(off) == 1 and off[0].data[:4] == b"\x10\xff\x10\xad" and off[0].suffix == ".offload",
          f"offload: one container {off}")
    check(len(off) == 1 and all(o.data in off[0].data for o in bins), "offload: each hsaco is in the container")
    check(len(off) == 1 and off[0].kernels == [k for o in bins for k in o.kernels],
          "offload: its kernels are the hsacos' own, in order")


def objdump_kernel(data, name):
    """llvm-objdump-22 -d's instructions of kernel name of an hsaco (bytes) over its symbol's
    range (llvm-nm-22 -S), a line each, comments and repeated blanks dropped."""
    with tempfile.NamedTemporaryFile(suffix=".hsaco") as f:
        f.write(data)
        f.flush()
        nm = subprocess.run([READELF.replace("readelf", "nm"), "-S", f.name], capture_output=True, text=True).stdout
        m = re.search(r"^([0-9a-f]+) ([0-9a-f]+) \S+ " + re.escape(name) + "$", nm, re.M)
        if not m:
            return None
        start, size = int(m.group(1), 16), int(m.group(2), 16)
        out = subprocess.run([READELF.replace("readelf", "objdump"), "-d", "--no-show-raw-insn", "--no-leading-addr",
                              f"--start-address={start:#x}", f"--stop-address={start + size:#x}", f.name],
                             capture_output=True, text=True).stdout
    body = out.split(f"<{name}>:\n", 1)[1] if f"<{name}>:\n" in out else ""
    return insns(body)


def insns(text):
    """Instruction lines of a listing: up to the first blank line, without "//" comments,
    blanks squeezed."""
    lines = []
    for line in text.split("\n"):
        line = " ".join(line.split("//", 1)[0].split())
        if not line:
            break
        lines.append(line)
    return lines


def test_inspect():
    """inspect(): an Output per entry of any blob file, with compile()'s kernel dicts
    (params included); an OffloadBinary's entries are the hsacos byte for byte; disasm()
    of an entry's kernel is llvm-objdump-22 -d's; an older library says MISUSE (since 1.7)."""
    bins = gpublob.compile(SAXPY_AMD, targets=["amdgcn:gfx90a,gfx942:xnack+"])
    off = gpublob.compile(SAXPY_AMD, targets=["amdgcn:gfx90a,gfx942:xnack+"], format="offload")
    if not check(len(bins) == 2 and len(off) == 1, f"compile: {bins} {off}"):
        return
    entries = gpublob.inspect(off[0].data)
    check([(o.target, o.chip, o.suffix) for o in entries] ==
          [("amdgcn", "gfx90a", ".hsaco"), ("amdgcn", "gfx942:xnack+", ".hsaco")], f"inspect: {entries}")
    check([o.data for o in entries] == [o.data for o in bins], "inspect: each entry is its chip's hsaco")
    check([o.kernels for o in entries] == [o.kernels for o in bins] and "params" in bins[0].kernels[0],
          "inspect: each entry's kernels are compile()'s dicts, params included")
    check(isinstance(entries.warnings, list), "inspect: warnings is a list")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "k.offload")
        with open(path, "wb") as f:
            f.write(off[0].data)
        check([o.data for o in gpublob.inspect(path)] == [o.data for o in bins], "inspect(path) = inspect(bytes)")
    one = gpublob.inspect(bins[1])
    check(len(one) == 1 and one[0].chip == "gfx942:xnack+" and one[0].kernels == bins[1].kernels,
          f"inspect(Output): {one}")
    e = raises(gpublob.inspect, b"not a blob at all")
    check(isinstance(e, gpublob.Error) and e.name == "FORMAT", f"inspect(garbage): {e!r}")
    e = raises(gpublob.inspect, off[0].data[:100])
    check(isinstance(e, gpublob.Error) and e.name == "TOOL", f"inspect(a container cut short): {e!r}")
    text = gpublob.disasm(off[0].data, 1, "saxpy")
    want = objdump_kernel(bins[1].data, "saxpy")
    check(want and insns(text) == want, f"disasm = llvm-objdump-22 -d:\n{text}\nobjdump: {want}")
    check(gpublob.disasm(bins[1], 0, 0) == text, "disasm(Output, 0, 0) = disasm(container, 1, 'saxpy')")
    for args, code in (((5, 0), "MISUSE"), ((0, 3), "MISUSE"), ((0, "nosuch"), "MISUSE"), ((-1, 0), "MISUSE")):
        e = raises(gpublob.disasm, off[0].data, *args)
        check(isinstance(e, gpublob.Error) and e.name == code, f"disasm{args}: {e!r}")
    spv = gpublob.compile(os.path.join(ROOT, "examples", "saxpy_spirv.ll"), targets=["spirv"])
    e = raises(gpublob.disasm, spv[0], 0, 0)
    check(isinstance(e, gpublob.Error) and e.name == "FORMAT", f"disasm(SPIR-V): {e!r}")
    older = _Older(gpublob._lib(), ("gpublob_inspect", "gpublob_disasm"))
    saved, gpublob._lib_cache = gpublob._lib_cache, older
    try:
        for fn in (gpublob.inspect, gpublob.disasm):
            e = raises(fn, bins[0])
            check(isinstance(e, gpublob.Error) and e.name == "MISUSE" and "since 1.7" in e.message,
                  f"{fn.__name__} on a library without it: {e!r}")
    finally:
        gpublob._lib_cache = saved


class _Older:
    """A loaded library as an older one looks: without the calls named."""

    def __init__(self, lib, missing):
        self._lib, self._missing = lib, missing

    def __getattr__(self, name):
        if name in self._missing:
            raise AttributeError(name)
        return getattr(self._lib, name)


def test_compile_inputs():
    """compile_inputs (since 1.7): two inputs, each for the targets its triple allows;
    format="offload" holds both inputs' blobs in order; an input no target takes is
    Error TARGET."""
    spv = os.path.join(ROOT, "examples", "saxpy_spirv.ll")
    outs = gpublob.compile_inputs([SAXPY_AMD, spv], targets=["amdgcn:gfx90a", "spirv"])
    check([(o.input, o.target) for o in outs] == [(0, "amdgcn"), (1, "spirv")], f"compile_inputs: {outs}")
    off = gpublob.compile_inputs([SAXPY_AMD, spv], targets=["amdgcn:gfx90a", "spirv"], format="offload")
    check(len(off) == 1 and all(o.data in off[0].data for o in outs), "compile_inputs offload: both blobs in it")
    try:
        gpublob.compile_inputs([SAXPY_AMD, spv], targets=["amdgcn:gfx90a"])
        check(False, "compile_inputs: an input no target takes raised nothing")
    except gpublob.Error as e:
        check(e.name == "TARGET" and "saxpy_spirv.ll" in e.message, f"compile_inputs: {e}")


def test_chips_in_order():
    two = gpublob.compile(SAXPY_AMD, targets=["amdgcn:gfx90a,gfx908"])
    check([o.chip for o in two] == ["gfx90a", "gfx908"], f"chips {[o.chip for o in two]}")
    check(all(o.data[:4] == b"\x7fELF" and o.kernels and o.kernels[0]["chip"] == o.chip for o in two),
          "a chip's blob or kernels")
    back = gpublob.compile(SAXPY_AMD, targets=["amdgcn:gfx908", ("amdgcn", "gfx90a")])
    check([o.chip for o in back] == ["gfx908", "gfx90a"], f"chips {[o.chip for o in back]}")
    check(len(back) == 2 and back[1].data == two[0].data, "gfx90a differs between the two calls")
    mixed = gpublob.compile(PLAIN, targets=["nvptx:sm_90", "amdgcn:gfx90a"], format="asm")
    check([(o.target, o.chip) for o in mixed] == [("nvptx", "sm_90"), ("amdgcn", "gfx90a")],
          f"mixed {[(o.target, o.chip) for o in mixed]}")
    pack = gpublob.compile(SAXPY_AMD, targets=["amdgcn:gfx90a,gfx908"], format="pack")
    check(len(pack) == 1 and pack[0].chip == "gfx90a,gfx908", f"pack {pack}")
    check(len(pack) == 1 and [k["chip"] for k in pack[0].kernels] == ["gfx90a", "gfx908"],
          f"pack kernels {pack[0].kernels if pack else None}")


def test_options():
    """Fields of each options version reach the library where the header puts them."""
    v4 = gpublob.compile(SAXPY_AMD, targets=["amdgcn:gfx90a"], abi=400, opt=2, fast_math=True, jobs=1)
    check(len(v4) == 1 and re.search(r"ABI Version:\s+2\b", readelf_h(v4[0].data)) is not None,
          "abi=400 is not code object v4")
    e = raises(gpublob.compile, SAXPY_AMD, targets=["amdgcn:gfx90a"], max_input=10)
    check(isinstance(e, gpublob.Error) and e.name == "IO", f"max_input=10: {e!r}")
    e = raises(gpublob.compile, SAXPY_AMD, targets=["nvptx:sm_90"], abi=400)
    check(isinstance(e, gpublob.Error) and e.name == "OPTION", f"abi for nvptx: {e!r}")
    with tempfile.TemporaryDirectory() as d:
        cache, dump = os.path.join(d, "cache"), os.path.join(d, "dump")
        first = gpublob.compile(SAXPY_AMD, targets=["amdgcn:gfx90a"], cache_dir=cache, dump_dir=dump,
                                remote_cache="redis://127.0.0.1:1", remote_timeout_ms=100)
        check(os.path.isdir(cache) and os.listdir(cache), "cache_dir not used")
        check(os.path.isdir(dump) and os.listdir(dump), "dump_dir not used")
        check(any("redis://127.0.0.1:1" in w for w in first.warnings),
              f"no warning for a remote cache that is down: {first.warnings}")
        again = gpublob.compile(SAXPY_AMD, targets=["amdgcn:gfx90a"], cache_dir=cache)
        check(len(again) == 1 and again[0].data == first[0].data, "a cache hit differs")
        check(again.warnings == [], f"warnings on a plain hit: {again.warnings}")
    # version 8: fp_contract changes the code (v_fma where the IR's fmul feeds an fadd), job_timeout
    # is read (a second is plenty for saxpy)
    plain = (b'target triple = "amdgcn-amd-amdhsa"\n'
             b'define amdgpu_kernel void @k(ptr addrspace(1) %p, float %a, float %b, float %c) {\n'
             b'  %m = fmul float %a, %b\n  %s = fadd float %m, %c\n'
             b'  store float %s, ptr addrspace(1) %p\n  ret void\n}\n')
    on = gpublob.compile(plain, targets=["amdgcn:gfx90a"], format="asm", fp_contract="on", job_timeout=60)
    fast = gpublob.compile(plain, targets=["amdgcn:gfx90a"], format="asm", fp_contract="fast")
    check(b"v_fma" not in on[0].data and b"v_fma" in fast[0].data,
          "fp_contract='fast' does not fuse the multiply into the add (or 'on' does)")
    check(isinstance(raises(gpublob.compile, plain, fp_contract="sometimes"), ValueError), "fp_contract='sometimes'")
    # version 10: as_ ("as" is Python's keyword): clang's assembly carries clang -S's comments
    clang = gpublob.compile(plain, targets=["amdgcn:gfx90a"], format="asm", as_="clang")
    mlir = gpublob.compile(plain, targets=["amdgcn:gfx90a"], format="asm", **{"as": "mlir"})
    check(b"-- Begin function" in clang[0].data and b"-- Begin function" not in mlir[0].data,
          "as_='clang' does not write clang -S's comments (or as='mlir' does)")
    # version 11: debug keeps (lines) or strips (none) a module's line table
    dbg = (b'target triple = "amdgcn-amd-amdhsa"\n'
           b'define amdgpu_kernel void @k(ptr addrspace(1) %p) !dbg !5 {\n'
           b'  store float 1.0, ptr addrspace(1) %p, !dbg !8\n  ret void, !dbg !8\n}\n'
           b'!llvm.dbg.cu = !{!0}\n!llvm.module.flags = !{!3, !4}\n'
           b'!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, emissionKind: FullDebug)\n'
           b'!1 = !DIFile(filename: "k.c", directory: "/src")\n'
           b'!3 = !{i32 2, !"Debug Info Version", i32 3}\n!4 = !{i32 7, !"Dwarf Version", i32 5}\n'
           b'!5 = distinct !DISubprogram(name: "k", scope: !1, file: !1, line: 1, type: !6, unit: !0, '
           b'spFlags: DISPFlagDefinition)\n!6 = !DISubroutineType(types: !7)\n!7 = !{null}\n'
           b'!8 = !DILocation(line: 2, column: 3, scope: !5)\n')
    lines = gpublob.compile(dbg, targets=["amdgcn:gfx90a"], debug="lines")
    none = gpublob.compile(dbg, targets=["amdgcn:gfx90a"], debug="none")
    check(b".debug_line" in lines[0].data and b".debug_line" not in none[0].data,
          "debug='lines' keeps no .debug_line (or debug='none' keeps one)")
    check(isinstance(raises(gpublob.compile, plain, debug="some"), ValueError), "debug='some'")
    check(mlir[0].data == on[0].data, "as='mlir' is not the default's assembly")
    check(isinstance(raises(gpublob.compile, plain, as_="gcc"), ValueError), "as_='gcc'")


def test_nvptx():
    ptx = gpublob.compile(SAXPY_NV, targets=["nvptx:sm_90"], format="asm")
    check(len(ptx) == 1 and b".entry saxpy" in ptx[0].data, "PTX lacks .entry saxpy")
    if not have_ptxas():
        skip(f"NVIDIA bin ({PTXAS} absent, no ptxas on PATH)")
        return
    cubin = gpublob.compile(SAXPY_NV, targets=["nvptx:sm_80,sm_90"], tool_mode="program")
    check([o.chip for o in cubin] == ["sm_80", "sm_90"], f"chips {[o.chip for o in cubin]}")
    for o in cubin:
        check(o.data[:4] == b"\x7fELF" and o.tool == "ptxas", f"{o.chip}: {o.data[:4]!r} by {o.tool}")
        k = o.kernels[0] if len(o.kernels) == 1 else {}
        check(k.get("name") == "saxpy" and k.get("chip") == o.chip, f"{o.chip} kernels {o.kernels}")
        check(0 < k.get("registers", 0) <= 255 and k.get("params_bytes", 0) >= 24, f"figures {k}")
        check(k.get("spills") == -1 and k.get("sgprs") == -1, f"NVIDIA's unrecorded figures {k}")
        # 1.4: ptxas -v's report and the occupancy
        check(k.get("spill_store_bytes") == 0 and k.get("spill_load_bytes") == 0 and k.get("barriers") == 0,
              f"{o.chip}: ptxas's report {k}")
        check(0 < k.get("occupancy", -1) <= 1 and k.get("occupancy_limiter") in LIMITERS, f"{o.chip}: occupancy {k}")
        check(k.get("blocks_per_sm", 0) > 0 and k.get("waves_per_simd") == -1, f"{o.chip}: blocks_per_sm {k}")
    nolimit = gpublob.compile(SAXPY_NV, targets=["nvptx:sm_90"], max_spills=0, block_size=256)
    k = nolimit[0].kernels[0] if len(nolimit) == 1 and nolimit[0].kernels else {}
    check(k.get("occupancy_block_size") == 256, f"max_spills=0 passes, block_size=256 is read: {k}")


LIMITERS = ("warps", "registers", "shared", "blocks")


def test_amd_occupancy():
    """1.4's fields of an AMD kernel: the occupancy, and no report (that is NVIDIA's)."""
    outs = gpublob.compile(SAXPY_AMD, targets=["amdgcn:gfx90a"])
    k = outs[0].kernels[0] if len(outs) == 1 and outs[0].kernels else {}
    check(0 < k.get("occupancy", -1) <= 1, f"occupancy {k}")
    check(k.get("occupancy_limiter") in LIMITERS, f"occupancy_limiter {k}")
    check(k.get("waves_per_simd", 0) > 0 and k.get("blocks_per_sm") == -1, f"waves_per_simd {k}")
    check(k.get("occupancy_block_size") == k.get("max_threads") == 1024, f"occupancy_block_size {k}")
    check((k.get("spill_store_bytes"), k.get("spill_load_bytes"), k.get("barriers")) == (-1, -1, -1),
          f"AMD has no tool report {k}")
    small = gpublob.compile(SAXPY_AMD, targets=["amdgcn:gfx90a"], block_size=64)
    check(small[0].kernels[0]["occupancy_block_size"] == 64, f"block_size=64: {small[0].kernels}")


def test_limits():
    """A limit the kernel is over fails with LIMIT, naming it; one at the kernel's figure passes."""
    regs = gpublob.compile(SAXPY_AMD, targets=["amdgcn:gfx90a"])[0].kernels[0]["registers"]
    e = raises(gpublob.compile, SAXPY_AMD, targets=["amdgcn:gfx90a"], max_registers=1)
    check(isinstance(e, gpublob.Error) and e.code == 22 == gpublob.CODES["LIMIT"] and e.name == "LIMIT",
          f"max_registers=1: {e!r}")
    check(isinstance(e, gpublob.Error) and "saxpy" in e.message, f"the message names no kernel: {e!r}")
    at = gpublob.compile(SAXPY_AMD, targets=["amdgcn:gfx90a"], max_registers=regs)
    check(len(at) == 1 and at[0].kernels[0]["registers"] == regs, f"max_registers={regs} (the kernel's) fails")
    zero = gpublob.compile(SAXPY_AMD, targets=["amdgcn:gfx90a"], max_spills=0, max_shared=0, max_stack=0)
    check(len(zero) == 1, "0 for spills, shared and stack (saxpy's own) fails")
    occ = zero[0].kernels[0]["occupancy"] if zero and zero[0].kernels else -1
    e = raises(gpublob.compile, SAXPY_AMD, targets=["amdgcn:gfx90a"], min_occupancy=occ)
    check(e is None, f"min_occupancy={occ} (saxpy's own) fails: {e!r}")
    check(gpublob._options("bin", None, {"max_spills": 0, "min_occupancy": 0.5}).limits == 0x12,
          "max_spills=0 and min_occupancy set their bits")
    check(gpublob._options("bin", None, {"max_spills": None}).limits == 0, "None sets a limit")
    check(isinstance(raises(gpublob.compile, SAXPY_AMD, min_occupancy=1.5), ValueError), "min_occupancy=1.5")
    check(isinstance(raises(gpublob.compile, SAXPY_AMD, max_stack=-1), ValueError), "max_stack=-1")
    check(isinstance(raises(gpublob.compile, SAXPY_AMD, max_registers=True), TypeError), "max_registers=True")


def test_limit_zero():
    """max_shared=0 is a limit, not "none": a kernel with 256 bytes of LDS is over it."""
    ok = gpublob.compile(LDS, targets=["amdgcn:gfx90a"], max_shared=256)
    check(len(ok) == 1 and ok[0].kernels[0]["shared_bytes"] == 256, f"max_shared=256: {ok}")
    e = raises(gpublob.compile, LDS, targets=["amdgcn:gfx90a"], max_shared=0)
    check(isinstance(e, gpublob.Error) and e.name == "LIMIT" and "uses_lds" in e.message, f"max_shared=0: {e!r}")


def test_errors():
    e = raises(gpublob.compile, SAXPY_AMD, targets=["nosuch:x"])
    check(isinstance(e, gpublob.Error), f"bad target: {e!r}")
    if isinstance(e, gpublob.Error):
        check(e.code == 7 == gpublob.CODES["TARGET"] and e.name == "TARGET", f"code {e.code} {e.name}")
        check("nosuch" in e.message and "nosuch" in str(e), f"message {e.message!r}")
    e = raises(gpublob.compile, b"define void @f( {", targets=["amdgcn:gfx90a"])
    check(isinstance(e, gpublob.Error) and e.code == 4 and e.name == "PARSE", f"bad bytes: {e!r}")
    e = raises(gpublob.compile, SAXPY_AMD, targets=["amdgcn:gfx9999"])
    check(isinstance(e, gpublob.Error) and e.name == "CHIP" and "gfx9999" in e.message, f"bad chip: {e!r}")
    e = raises(gpublob.compile, os.path.join(ROOT, "no-such-file.ll"))
    check(isinstance(e, gpublob.Error) and e.name == "IO", f"missing file: {e!r}")
    e = raises(gpublob.compile, SAXPY_AMD, targets=["amdgcn:gfx90a"], optimise=3)
    check(isinstance(e, TypeError) and "optimise" in str(e), f"unknown keyword: {e!r}")
    check(isinstance(raises(gpublob.compile, SAXPY_AMD, jobs="2"), TypeError), "jobs='2' is not TypeError")
    check(isinstance(raises(gpublob.compile, 42), TypeError), "an int input is not TypeError")
    check(isinstance(raises(gpublob.compile, SAXPY_AMD, format="elf"), ValueError), "format='elf'")
    check(isinstance(raises(gpublob.compile, SAXPY_AMD, opt=4), ValueError), "opt=4")


def test_toolchain_id():
    """toolchain_id(): the CLI's --toolchain-id for the same flags; a flag that changes an
    output changes it, one that changes none does not; a bad target is Error TARGET."""
    fake = os.path.join(tempfile.mkdtemp(prefix="gpublob-tcid-"), "ptxas")
    with open(fake, "w") as f:
        f.write("#!/bin/sh\n# a fake ptxas: only its bytes are read\nexit 1\n")
    os.chmod(fake, 0o755)
    try:
        _toolchain_id_checks(fake)
    finally:
        shutil.rmtree(os.path.dirname(fake))


def _toolchain_id_checks(fake):
    tid = gpublob.toolchain_id(["nvptx:sm_90"], tool=fake)
    check(re.fullmatch(r"[0-9a-f]{32}", tid or "") is not None, f"toolchain_id: {tid!r}")
    cli = os.path.join(ROOT, "build", "gpublob")
    if os.path.exists(cli):
        r = subprocess.run([cli, "--toolchain-id", "--no-cache", "-t", "nvptx:sm_90", "--tool", fake],
                           capture_output=True, text=True)
        check(r.returncode == 0 and r.stdout.strip() == tid, f"the CLI's: {r}, {tid}")
    else:
        skip("toolchain_id: build/gpublob not built")
    check(gpublob.toolchain_id("nvptx:sm_90", tool=fake) == tid, "one target as a string: the same")
    check(gpublob.toolchain_id(["nvptx:sm_90"], tool=fake, opt=2) != tid, "opt=2: another")
    check(gpublob.toolchain_id(["nvptx:sm_90"], tool=fake, ftz=True) != tid, "ftz: another")
    check(gpublob.toolchain_id(["nvptx:sm_90"], tool=fake, isolate=True) == tid, "isolate: the same")
    e = raises(gpublob.toolchain_id, ["nosuch"])
    check(isinstance(e, gpublob.Error) and e.name == "TARGET", f"bad target: {e!r}")


def test_nul_bytes():
    """A str that goes to C with a NUL byte in it is ValueError, as open() says: C would
    read only up to the NUL (compile('k.ll\\x00junk') compiled k.ll)."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "lds.ll")
        with open(path, "wb") as f:
            f.write(LDS)
        ok = gpublob.compile(path, targets=["amdgcn:gfx90a"])
        check(len(ok) == 1 and ok[0].kernels[0]["name"] == "uses_lds", f"the path without a NUL compiles: {ok}")
        e = raises(open, path + "\x00junk")
        check(isinstance(e, ValueError), f"open() of a path with a NUL: {e!r}")
        import pathlib
        bad = {"path": (path + "\x00junk",), "PathLike path": (pathlib.PurePosixPath(path + "\x00junk"),)}
        for what, args in bad.items():
            e = raises(gpublob.compile, *args, targets=["amdgcn:gfx90a"])
            check(isinstance(e, ValueError) and "null byte" in str(e), f"{what} with a NUL: {e!r}")
        nul = "x\x00y"
        cases = [("targets", {"targets": ["amdgcn:gfx90a\x00junk"]}),
                 ("a target tuple's chip", {"targets": [("amdgcn", "gfx90a\x00", None)]}),
                 ("a target tuple's features", {"targets": [("amdgcn", "gfx90a", "+xnack\x00")]}),
                 ("name", {"name": nul})]
        for key in ("features", "tool", "tool_dirs", "lib_dirs", "pipeline", "cache_dir", "tool_options",
                    "toolkit", "dump_dir", "section", "remote_cache", "link"):
            cases.append((key, {key: nul}))
            if key in ("tool_dirs", "lib_dirs", "link"):
                cases.append((f"{key} as a list", {key: [d, nul]}))
            cases.append((f"{key} as bytes", {key: nul.encode()}))
        for what, kw in cases:
            kw = dict({"targets": ["amdgcn:gfx90a"]}, **kw)
            e = raises(gpublob.compile, path, **kw)
            check(isinstance(e, ValueError) and "null byte" in str(e), f"{what} with a NUL: {e!r}")
        check(os.listdir(d) == ["lds.ll"], f"nothing written beside the input: {os.listdir(d)}")


def test_block_size_bound():
    """block_size is figured up to 16777216 (occupancy 0 there); past it, OPTION naming it."""
    at = gpublob.compile(LDS, targets=["amdgcn:gfx90a"], block_size=1 << 24)
    k = at[0].kernels[0] if len(at) == 1 and at[0].kernels else {}
    check(k.get("occupancy") == 0 and k.get("occupancy_block_size") == 1 << 24, f"block_size=16777216: {k}")
    e = raises(gpublob.compile, LDS, targets=["amdgcn:gfx90a"], block_size=1 << 24, min_occupancy=0.5)
    check(isinstance(e, gpublob.Error) and e.name == "LIMIT", f"block_size=16777216, min_occupancy=0.5: {e!r}")
    for extra in ({}, {"min_occupancy": 0.5}):
        e = raises(gpublob.compile, LDS, targets=["amdgcn:gfx90a"], block_size=(1 << 24) + 1, **extra)
        check(isinstance(e, gpublob.Error) and e.name == "OPTION" and "block_size" in e.message,
              f"block_size=16777217 {extra}: {e!r}")


def run_module(*args, env=None, cwd=PYDIR):
    """python3 -m gpublob ARGS, without bytecode files."""
    env = dict(os.environ if env is None else env, PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([sys.executable, "-m", "gpublob", *args], cwd=cwd, env=env,
                          capture_output=True, text=True)


def test_cli():
    r = run_module("--version")
    check(r.returncode == 0 and r.stdout.strip() == gpublob.version(), f"--version: {r}")
    r = run_module("--targets", env=dict(os.environ, PYTHONPATH=PYDIR), cwd=ROOT)
    check(r.returncode == 0 and re.search(r"^amdgcn\t", r.stdout, re.M), f"--targets: {r}")
    r = run_module(SAXPY_AMD, "-t", "amdgcn:gfx90a")
    check(r.returncode == 0 and "amdgcn gfx90a:" in r.stdout and "saxpy:" in r.stdout, f"compile: {r}")
    check(r.returncode == 0 and "occupancy 1.00 (" in r.stdout, f"compile: no occupancy: {r}")
    r = run_module(SAXPY_AMD, "-t", "amdgcn:gfx90a", "--max-registers", "1")
    check(r.returncode == 1 and "LIMIT" in r.stderr and "saxpy" in r.stderr, f"--max-registers 1: {r}")
    r = run_module("--version", env=dict(os.environ, GPUBLOB_LIBRARY="/nonexistent/libgpublob.so.1"))
    check(r.returncode == 1 and "GPUBLOB_LIBRARY" in r.stderr, f"a missing library: {r}")


# The tests that compile examples/saxpy_amdgcn.ll: its expf needs ROCm's ocml.
NEEDS_ROCM = ("test_offload", "test_inspect", "test_compile_inputs", "test_amd_bin", "test_amd_formats", "test_chips_in_order", "test_options", "test_cli",
              "test_amd_occupancy", "test_limits", "test_guest_signals")


def signal_state():
    """Each signal's disposition as the kernel has it (SigIgn and SigCgt of
    /proc/self/status) and Python's own handlers for the common ones."""
    text = open("/proc/self/status").read()
    masks = {k: v for k, v in re.findall(r"^(SigIgn|SigCgt):\s*(\S+)", text, re.M)}
    py = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGUSR1, signal.SIGHUP)}
    return masks, py


def test_guest_signals():
    """The interpreter's signals stay its own through compiles with the in-process
    tools (lld, auto; nvJitLink, in-process), on 4 threads while SIGUSR1 is raised:
    no disposition changes, SIGINT is still Python's, every SIGUSR1 reaches Python's
    handler, every blob is right."""
    seen = []
    old = signal.signal(signal.SIGUSR1, lambda s, f: seen.append(s))
    before = signal_state()
    jobs = [(SAXPY_AMD, "amdgcn:gfx90a", "auto")]
    if have_ptxas():
        jobs.append((SAXPY_NV, "nvptx:sm_90", "in-process"))
    else:
        skip("guest signals: nvJitLink in-process (no CUDA toolkit)")
    refs = {t: gpublob.compile(src, targets=[t], tool_mode="program" if m == "auto" else m)[0].data
            for src, t, m in jobs}
    wrong, errors, raised = [], [], 0

    def work(i):
        src, t, m = jobs[i % len(jobs)]
        try:
            if gpublob.compile(src, targets=[t], tool_mode=m)[0].data != refs[t]:
                wrong.append(t)
        except gpublob.Error as e:  # noqa: PERF203
            errors.append(str(e))

    threads = [threading.Thread(target=lambda k=k: [work(k * 5 + n) for n in range(5)]) for k in range(4)]
    for th in threads:
        th.start()
    while any(th.is_alive() for th in threads):
        os.kill(os.getpid(), signal.SIGUSR1)
        raised += 1
        time.sleep(0.002)
    for th in threads:
        th.join()
    time.sleep(0.05)
    after = signal_state()
    signal.signal(signal.SIGUSR1, old)
    check(not errors, f"guest signals: compiles failed: {errors[:2]}")
    check(not wrong, f"guest signals: blobs differ from the program mode's: {wrong[:4]}")
    check(after == before, f"guest signals: dispositions changed: {before} -> {after}")
    check(signal.getsignal(signal.SIGINT) is signal.default_int_handler, "guest signals: SIGINT is not Python's")
    check(len(seen) == raised, f"guest signals: raised {raised} SIGUSR1, Python's handler saw {len(seen)}")


def have_rocm():
    """Whether ROCm's device libraries are found (a compile of saxpy is not NOLIB)."""
    try:
        gpublob.compile(SAXPY_AMD, targets=["amdgcn:gfx90a"], format="ll")
    except gpublob.Error as e:
        return e.name != "NOLIB"
    return True


def test_math_modes():
    """The binding's keyword for each math mode is src/math_modes.h's name, '-' as '_',
    and sets that mode's GPUBLOB_FLAG_* bit: the one list of the modes stays the one."""
    with open(os.path.join(ROOT, "src", "math_modes.h")) as f:
        rows = re.findall(r'X\(A, (\w+), "([^"]+)"', f.read())
    with open(os.path.join(ROOT, "gpublob.h")) as f:
        header = f.read()
    bits = dict(re.findall(r"#define GPUBLOB_FLAG_(\w+) (0x[0-9a-fA-F]+)", header))
    for alias, to in re.findall(r"#define GPUBLOB_FLAG_(\w+) GPUBLOB_FLAG_(\w+)\b", header):
        bits.setdefault(alias, bits.get(to))
    check(len(rows) >= 6, f"src/math_modes.h lists the math modes ({len(rows)} read)")
    for ident, name in rows:
        key = name.replace("-", "_")
        check(key in gpublob.FLAGS, f"the binding has a keyword for the math mode {name}")
        check(bits.get(ident) is not None and gpublob.FLAGS.get(key) == int(bits[ident], 16),
              f"{key}= sets GPUBLOB_FLAG_{ident} ({bits.get(ident)}), not {gpublob.FLAGS.get(key)}")


def main():
    rocm = have_rocm()
    for name, fn in list(globals().items()):
        if not name.startswith("test_"):
            continue
        if name in NEEDS_ROCM and not rocm:
            skip(f"{name}: ROCm's device libraries (ocml) not found (apt-get install rocm-device-libs)")
            continue
        try:
            fn()
        except Exception:  # noqa: BLE001 - an unexpected error fails the test, at its line
            tb = [f for f in traceback.extract_tb(sys.exc_info()[2]) if f.filename == __file__]
            fail_at(tb[-1].lineno if tb else 0, f"{name}: {traceback.format_exc().strip()}")
    print(f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped")
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
