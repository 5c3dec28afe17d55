"""gpublob for Python: compile GPU kernel modules into blobs, through ctypes.

A thin binding of libgpublob (gpublob.h is the contract), standard library only,
for quick experiments:

    import gpublob
    outs = gpublob.compile("k.ll", targets=["nvptx:sm_90", "amdgcn:gfx90a"])
    for o in outs:
        print(o.target, o.chip, o.tool, len(o.data), o.kernels)
    print(outs.warnings)
    entries = gpublob.inspect("k.offload")      # any blob file: an Output per entry
    print(gpublob.disasm("k.hsaco", 0, "saxpy"))  # entry 0's kernel saxpy, as objdump -d

The library is found as: $GPUBLOB_LIBRARY (a path) if set; else libgpublob.so.1
or libgpublob.so beside this file, then in ../build/ (the build tree); else the
loader's search path (libgpublob.so.1).  Errors are gpublob.Error.

    python3 -m gpublob --version | --targets | FILE [-t TARGET]... [-f FORMAT]
        [--block-size N] [--max-registers N] [--max-spills N] [--max-shared BYTES]
        [--max-stack BYTES] [--min-occupancy F]
"""

import ctypes
import os
import sys
from dataclasses import dataclass, field

__all__ = ["compile", "compile_inputs", "inspect", "disasm", "version", "targets", "mlir_enabled", "Error", "Output", "Outputs",
           "CODES", "FLAGS", "LIMITS", "OPTIONS_VERSION"]

# ---- the C declarations, as gpublob.h has them ----

# The codes of GPUBLOB_ERRORS, in value order (the values are stable).
_NAMES = ("OK", "MISUSE", "NOMEM", "IO", "PARSE", "BITCODE", "VERIFY", "TARGET", "CHIP",
          "FEATURES", "FORMAT", "NOLIB", "LINK", "BACKEND", "NOTOOL", "TOOL", "OPTION",
          "NOMLIR", "NOGPU", "LOWER", "NOTCACHED", "INTERRUPTED", "LIMIT")
CODES = {name: value for value, name in enumerate(_NAMES)}

_FORMATS = {"bin": 1, "asm": 2, "llvm": 3, "pack": 4, "fatbin": 4, "ll": 5, "offload": 6}
_KINDS = {"auto": 0, "llvm": 1, "mlir": 2}
_ATTACH = {"binary": 1, "legacy": 2}
_TOOL_MODES = {"auto": 0, "program": 1, "in-process": 2, "inprocess": 2}
_FP_CONTRACT = {"on": 1, "fast": 2, "off": 3}
_AS = {"mlir": 1, "clang": 2}
_DEBUG = {"none": 1, "lines": 2, "full": 3}

# GPUBLOB_FLAG_*, by the keyword that sets each (True) in compile().
FLAGS = {"ftz": 0x1, "daz": 0x1, "fast_math": 0x2, "no_default_search": 0x4,
         "mlir_bytecode": 0x8, "retarget": 0x10, "isolate": 0x20, "finite_only": 0x40,
         "unsafe_math": 0x80, "unsafe_sqrt": 0x100, "tool_log": 0x200,
         "remote_read_only": 0x400, "backend_only": 0x800, "no_tool_report": 0x1000,
         "offload_asm": 0x2000}

# GPUBLOB_LIMIT_*, by the keyword whose value (not None) sets each in compile().
LIMITS = {"max_registers": 0x1, "max_spills": 0x2, "max_shared": 0x4, "max_stack": 0x8,
          "min_occupancy": 0x10}

# The gpublob_options version this binding fills: the fields of versions 1 to 11.
OPTIONS_VERSION = 11


class _TargetChoice(ctypes.Structure):
    _fields_ = [("target", ctypes.c_char_p), ("chip", ctypes.c_char_p),
                ("features", ctypes.c_char_p)]


class _Options(ctypes.Structure):
    """gpublob_options, version 10: exactly its fields, in order."""
    _fields_ = [
        ("version", ctypes.c_uint),
        ("target", ctypes.c_char_p), ("chip", ctypes.c_char_p), ("features", ctypes.c_char_p),
        ("format", ctypes.c_int), ("opt", ctypes.c_int), ("flags", ctypes.c_uint),
        ("tool", ctypes.c_char_p), ("tool_dirs", ctypes.c_char_p), ("lib_dirs", ctypes.c_char_p),
        # version 2
        ("targets", ctypes.POINTER(_TargetChoice)), ("ntargets", ctypes.c_size_t),
        ("attach", ctypes.c_int), ("pipeline", ctypes.c_char_p),
        # version 3
        ("jobs", ctypes.c_uint), ("cache_dir", ctypes.c_char_p),
        ("cache_max", ctypes.c_ulonglong), ("tool_mode", ctypes.c_int),
        # version 4
        ("tool_timeout", ctypes.c_uint), ("max_input", ctypes.c_ulonglong),
        # version 5
        ("abi", ctypes.c_uint),
        # version 6
        ("link", ctypes.POINTER(ctypes.c_char_p)), ("nlink", ctypes.c_size_t),
        ("tool_options", ctypes.c_char_p), ("toolkit", ctypes.c_char_p),
        ("dump_dir", ctypes.c_char_p), ("section", ctypes.c_char_p),
        # version 7
        ("remote_cache", ctypes.c_char_p), ("remote_timeout_ms", ctypes.c_uint),
        ("remote_max", ctypes.c_ulonglong),
        # version 8
        ("job_timeout", ctypes.c_uint), ("fp_contract", ctypes.c_int),
        # version 9
        ("block_size", ctypes.c_uint), ("limits", ctypes.c_uint),
        ("max_registers", ctypes.c_ulonglong), ("max_spills", ctypes.c_ulonglong),
        ("max_shared", ctypes.c_ulonglong), ("max_stack", ctypes.c_ulonglong),
        ("min_occupancy", ctypes.c_double),
        # version 10
        ("as", ctypes.c_int),
        ("tool_memory", ctypes.c_uint),
        # version 11 (since 1.7)
        ("debug", ctypes.c_int),
        ("remote_ca", ctypes.c_char_p),
    ]


class _Input(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("data", ctypes.c_void_p), ("size", ctypes.c_size_t),
                ("path", ctypes.c_char_p), ("name", ctypes.c_char_p)]


class _Blob(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("size", ctypes.c_size_t),
                ("suffix", ctypes.c_char_p)]


class _Output(ctypes.Structure):
    _fields_ = [("blob", _Blob), ("target", ctypes.c_char_p), ("chip", ctypes.c_char_p),
                ("tool", ctypes.c_char_p)]


class _OutputInfo(ctypes.Structure):
    """gpublob_output_info as of 1.7 (it grows at the end; filled as far as our size)."""
    _fields_ = [("data", ctypes.c_void_p), ("size", ctypes.c_size_t), ("suffix", ctypes.c_char_p),
                ("target", ctypes.c_char_p), ("chip", ctypes.c_char_p), ("tool", ctypes.c_char_p),
                ("input", ctypes.c_size_t)]


class _Result(ctypes.Structure):
    _fields_ = [("outputs", ctypes.POINTER(_Output)), ("count", ctypes.c_size_t)]


class _KernelInfo(ctypes.Structure):
    """gpublob_kernel_info as of 1.4 (it grows at the end; filled as far as our size)."""
    _fields_ = [("name", ctypes.c_char_p), ("chip", ctypes.c_char_p)] + [
        (f, ctypes.c_longlong) for f in
        ("registers", "sgprs", "agprs", "spills", "vgpr_spills", "sgpr_spills", "shared_bytes",
         "local_bytes", "max_threads", "params_bytes", "wave_size")] + [
        ("reqd_threads", ctypes.c_longlong * 3)] + [
        # since 1.4: the tool's report, then the occupancy
        (f, ctypes.c_longlong) for f in ("spill_store_bytes", "spill_load_bytes", "barriers")] + [
        ("occupancy", ctypes.c_double), ("occupancy_limiter", ctypes.c_char_p)] + [
        (f, ctypes.c_longlong) for f in ("blocks_per_sm", "waves_per_simd", "occupancy_block_size")]


class _ParamInfo(ctypes.Structure):
    """gpublob_param_info as of 1.7 (it grows at the end; filled as far as our size)."""
    _fields_ = [(f, ctypes.c_longlong) for f in ("index", "offset", "size")] + [
        ("kind", ctypes.c_char_p), ("hidden", ctypes.c_int), ("address_space", ctypes.c_char_p),
        ("name", ctypes.c_char_p)]


class _TargetInfo(ctypes.Structure):
    """gpublob_target_info as of 1.0 (it grows at the end; filled as far as our size)."""
    _fields_ = [(f, ctypes.c_char_p) for f in
                ("name", "triple", "chip", "features", "attribute", "suffix_asm", "suffix_bin",
                 "tool_kind", "chips", "mlir_target", "libs")]


def _declare(lib):
    """Give each function of gpublob.h that the binding calls its C signature."""
    h, p = ctypes.c_void_p, ctypes.POINTER
    sigs = {
        "gpublob_open": (ctypes.c_int, [p(h)]),
        "gpublob_close": (None, [h]),
        "gpublob_compile": (ctypes.c_int, [h, p(_Options), p(_Input), p(_Result)]),
        "gpublob_result_free": (None, [p(_Result)]),
        "gpublob_kernel_count": (ctypes.c_int, [h, p(_Result), ctypes.c_size_t, p(ctypes.c_size_t)]),
        "gpublob_kernel_get": (ctypes.c_int, [h, p(_Result), ctypes.c_size_t, ctypes.c_size_t,
                                              p(_KernelInfo), ctypes.c_size_t]),
        "gpublob_warnings": (ctypes.c_char_p, [h]),
        "gpublob_error_code": (ctypes.c_int, [h]),
        "gpublob_error_message": (ctypes.c_char_p, [h]),
        "gpublob_error_string": (ctypes.c_char_p, [ctypes.c_int]),
        "gpublob_target_count": (ctypes.c_int, []),
        "gpublob_target_get": (ctypes.c_int, [ctypes.c_int, p(_TargetInfo), ctypes.c_size_t]),
        "gpublob_version": (ctypes.c_char_p, []),
        "gpublob_mlir_enabled": (ctypes.c_int, []),
        # since 1.6: a library older than the binding lacks it (toolchain_id says so)
        "gpublob_toolchain_id": (ctypes.c_int, [h, p(_Options), ctypes.c_char_p, ctypes.c_size_t]),
        # since 1.7: a library older than the binding lacks them (kernel dicts get no "params")
        "gpublob_param_count": (ctypes.c_int, [h, p(_Result), ctypes.c_size_t, ctypes.c_size_t,
                                               p(ctypes.c_size_t)]),
        "gpublob_param_get": (ctypes.c_int, [h, p(_Result), ctypes.c_size_t, ctypes.c_size_t, ctypes.c_size_t,
                                             p(_ParamInfo), ctypes.c_size_t]),
        # since 1.7: inspect() and disasm() say MISUSE without them
        "gpublob_inspect": (ctypes.c_int, [h, p(_Input), p(_Result)]),
        "gpublob_disasm": (ctypes.c_int, [h, p(_Result), ctypes.c_size_t, ctypes.c_size_t, p(ctypes.c_char_p)]),
        # since 1.7: several inputs in one call (compile_inputs), and which input an output is of
        "gpublob_compile_inputs": (ctypes.c_int, [h, p(_Options), p(_Input), ctypes.c_size_t, p(_Result)]),
        "gpublob_output_get": (ctypes.c_int, [p(_Result), ctypes.c_size_t, p(_OutputInfo), ctypes.c_size_t]),
    }
    optional = ("gpublob_toolchain_id", "gpublob_param_count", "gpublob_param_get", "gpublob_inspect",
                "gpublob_disasm", "gpublob_compile_inputs", "gpublob_output_get")
    for name, (restype, argtypes) in sigs.items():
        fn = getattr(lib, name, None) if name in optional else getattr(lib, name)
        if fn is not None:
            fn.restype, fn.argtypes = restype, argtypes
    return lib


# ---- finding the library ----

def _candidates():
    """The paths tried before the loader's search, in order."""
    here = os.path.dirname(os.path.realpath(__file__))
    names = ("libgpublob.so.1", "libgpublob.so")
    return [os.path.join(d, n) for d in (here, os.path.join(here, "..", "build")) for n in names]


def _load():
    """Load libgpublob: $GPUBLOB_LIBRARY, beside this file, ../build/, then the loader."""
    env = os.environ.get("GPUBLOB_LIBRARY")
    if env:
        try:
            return ctypes.CDLL(env)
        except OSError as e:
            raise OSError(f"gpublob: cannot load GPUBLOB_LIBRARY={env}: {e}") from None
    tried = []
    for path in _candidates():
        if os.path.exists(path):
            try:
                return ctypes.CDLL(path)
            except OSError as e:
                tried.append(f"{path}: {e}")
        else:
            tried.append(f"{os.path.normpath(path)}: no such file")
    try:
        return ctypes.CDLL("libgpublob.so.1")
    except OSError as e:
        tried.append(f"libgpublob.so.1 (the loader's path): {e}")
    raise OSError("gpublob: libgpublob not found; set GPUBLOB_LIBRARY to its path. Tried:\n  "
                  + "\n  ".join(tried))


_lib_cache = None


def _lib():
    """The loaded, declared library (loaded on first use, so import never fails)."""
    global _lib_cache
    if _lib_cache is None:
        _lib_cache = _declare(_load())
    return _lib_cache


def _str(b):
    """A C string (bytes or None) as str; None is ""."""
    return b.decode("utf-8", "replace") if b else ""


# ---- errors ----

class Error(Exception):
    """A gpublob call failed: code (the stable int), name ("NOTOOL"), message, warnings."""

    def __init__(self, code, message, warnings=()):
        self.code = code
        self.name = _NAMES[code] if 0 <= code < len(_NAMES) else f"CODE{code}"
        self.message = message
        self.warnings = list(warnings)
        super().__init__(f"{self.name}: {message}")


class _Handle:
    """A gpublob handle for one call (with ... as g), closed at the end."""

    def __enter__(self):
        self.lib, self.h = _lib(), ctypes.c_void_p()
        rc = self.lib.gpublob_open(ctypes.byref(self.h))
        if rc:
            raise Error(rc, _str(self.lib.gpublob_error_string(rc)))
        return self

    def __exit__(self, *exc):
        self.lib.gpublob_close(self.h)

    def warnings(self):
        """The last call's warnings, a list of lines."""
        return _str(self.lib.gpublob_warnings(self.h)).splitlines()

    def check(self, rc, warnings=()):
        """Raise Error for a failed call's code rc, with the handle's message."""
        if rc:
            raise Error(rc, _str(self.lib.gpublob_error_message(self.h)), warnings)


# ---- options ----

def _cstr(value, key):
    """A text or path option as bytes; None stays None.  A NUL byte in it is ValueError,
    as open() says: C would read the string only up to it (a path cut short)."""
    if value is None:
        return None
    if isinstance(value, (str, bytes, os.PathLike)):
        b = os.fsencode(value)
        if b"\0" in b:
            raise ValueError(f"gpublob: {key}: embedded null byte in {value!r}")
        return b
    raise TypeError(f"gpublob: option {key} takes a str or path, not {type(value).__name__}")


def _dirs(value, key):
    """A colon list: a str, or a list of directories joined with ':'."""
    if isinstance(value, (list, tuple)):
        return b":".join(_cstr(v, key) for v in value)
    return _cstr(value, key)


def _uint(bits):
    """A converter for an unsigned field of that many bits."""
    def convert(value, key):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"gpublob: option {key} takes an int, not {type(value).__name__}")
        if not 0 <= value < 1 << bits:
            raise ValueError(f"gpublob: option {key} out of range: {value}")
        return value
    return convert


def _choice(table, what):
    """A converter for a field that takes one of the names of table."""
    def convert(value, key):
        if value not in table:
            raise ValueError(f"gpublob: {key}={value!r}: not a {what} ({', '.join(table)})")
        return table[value]
    return convert


def _fraction(value, key):
    """A float from 0 to 1 (an occupancy)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"gpublob: option {key} takes a float, not {type(value).__name__}")
    if not 0 <= value <= 1:
        raise ValueError(f"gpublob: option {key} is from 0 to 1, not {value!r}")
    return float(value)


def _opt_level(value, key):
    """opt=0..3 is GPUBLOB_OPT_O0..O3 (1..4)."""
    if isinstance(value, bool) or value not in (0, 1, 2, 3):
        raise ValueError(f"gpublob: option {key} is 0, 1, 2 or 3, not {value!r}")
    return value + 1


# compile()'s keyword -> (gpublob_options field, converter).
_OPTIONS = {
    "features": ("features", _cstr), "opt": ("opt", _opt_level), "flags": ("flags", _uint(32)),
    "tool": ("tool", _cstr), "tool_dirs": ("tool_dirs", _dirs), "lib_dirs": ("lib_dirs", _dirs),
    "attach": ("attach", _choice(_ATTACH, "attach mode")), "pipeline": ("pipeline", _cstr),
    "jobs": ("jobs", _uint(32)), "cache_dir": ("cache_dir", _cstr),
    "cache_max": ("cache_max", _uint(64)),
    "tool_mode": ("tool_mode", _choice(_TOOL_MODES, "tool mode")),
    "tool_timeout": ("tool_timeout", _uint(32)), "tool_memory": ("tool_memory", _uint(32)),
    "max_input": ("max_input", _uint(64)),
    "abi": ("abi", _uint(32)), "tool_options": ("tool_options", _cstr),
    "toolkit": ("toolkit", _cstr), "dump_dir": ("dump_dir", _cstr), "section": ("section", _cstr),
    "remote_cache": ("remote_cache", _cstr), "remote_timeout_ms": ("remote_timeout_ms", _uint(32)),
    "remote_max": ("remote_max", _uint(64)), "remote_ca": ("remote_ca", _cstr),
    "job_timeout": ("job_timeout", _uint(32)),
    "fp_contract": ("fp_contract", _choice(_FP_CONTRACT, "fp contraction")),
    "debug": ("debug", _choice(_DEBUG, "debug (the debug information kept)")),
    # as is Python's keyword: as_="clang" (or **{"as": "clang"})
    "as_": ("as", _choice(_AS, "as (whose defaults)")), "as": ("as", _choice(_AS, "as (whose defaults)")),
    "block_size": ("block_size", _uint(32)),
    # each limit's keyword also sets its LIMITS bit (0 is a limit too: None is none)
    "max_registers": ("max_registers", _uint(64)), "max_spills": ("max_spills", _uint(64)),
    "max_shared": ("max_shared", _uint(64)), "max_stack": ("max_stack", _uint(64)),
    "min_occupancy": ("min_occupancy", _fraction),
}


def _target_choices(targets, features):
    """The targets list as a gpublob_target_choice array (None: the spec's first target).
    Each item is "NAME[:CHIP,...]" or a (target, chip, features) tuple; features= fills
    the features of an item without its own."""
    if targets is None:
        return None
    if isinstance(targets, (str, bytes)):
        targets = [targets]
    arr = (_TargetChoice * len(targets))()
    for c, t in zip(arr, targets):
        t = tuple(t) if isinstance(t, (tuple, list)) else (t,)
        if not 1 <= len(t) <= 3:
            raise ValueError(f"gpublob: a target is NAME[:CHIPS] or (target, chip, features): {t!r}")
        target, chip, feats = (t + (None, None))[:3]
        c.target, c.chip = _cstr(target, "targets"), _cstr(chip, "targets")
        c.features = _cstr(feats, "targets") or features
    return arr


def _options(fmt, targets, options):
    """A gpublob_options of OPTIONS_VERSION from compile()'s arguments."""
    o = _Options(version=OPTIONS_VERSION)
    if fmt not in _FORMATS:
        raise ValueError(f"gpublob: format={fmt!r}: not one of {', '.join(_FORMATS)}")
    o.format = _FORMATS[fmt]
    for key, value in options.items():
        if key not in FLAGS and key not in _OPTIONS and key != "link":
            raise TypeError(f"gpublob.compile() got an unexpected keyword argument '{key}'")
        if value is None:
            continue
        if key in FLAGS:
            o.flags |= FLAGS[key] if value else 0
        elif key == "link":
            paths = [_cstr(p, key) for p in ([value] if isinstance(value, (str, bytes, os.PathLike)) else value)]
            o.link, o.nlink = (ctypes.c_char_p * len(paths))(*paths), len(paths)
        else:
            name, convert = _OPTIONS[key]
            setattr(o, name, convert(value, key))
            o.limits |= LIMITS.get(key, 0)
    arr = _target_choices(targets, o.features)
    if arr is not None:
        o.targets, o.ntargets = arr, len(arr)
    return o


def _input(data_or_path, kind, name):
    """A gpublob_input: bytes-like data in memory, or a str / os.PathLike path."""
    i = _Input(kind=_choice(_KINDS, "input kind")(kind, "kind"), name=_cstr(name, "name"))
    if isinstance(data_or_path, (str, os.PathLike)):
        i.path = _cstr(data_or_path, "path")
    elif isinstance(data_or_path, (bytes, bytearray, memoryview)):
        buf = ctypes.create_string_buffer(bytes(data_or_path))  # a NUL after: never NULL
        i.data, i.size = ctypes.addressof(buf), len(buf) - 1
        i._buf = buf  # kept alive with the struct
    else:
        raise TypeError(f"gpublob: input is bytes or a path, not {type(data_or_path).__name__}")
    return i


# ---- results ----

@dataclass
class Output:
    """One blob of a call: per (target, chip), or per target for format "pack"."""
    data: bytes
    target: str   # the spec target's name; "" for MLIR's whole module
    chip: str     # its chip; a pack's chips comma-separated; "" for MLIR
    tool: str     # what made it: "ptxas", "nvjitlink", "ld.lld", "fatbinary", ... or ""
    suffix: str   # ".cubin", ".hsaco", ".ptx", ...
    kernels: list = field(default_factory=list)  # dicts (compile()); [] when the blob records none
    input: int = 0  # (since 1.7) the index of its input in compile_inputs()'s list; 0 otherwise

    def __repr__(self):
        return (f"Output(target={self.target!r}, chip={self.chip!r}, tool={self.tool!r}, "
                f"{len(self.data)} bytes, {len(self.kernels)} kernels)")


class Outputs(list):
    """The outputs of a call, in order, with the call's warnings (a list of lines)."""
    warnings = ()


def _kernel_dict(ki):
    """A gpublob_kernel_info as a dict of its fields, in order, under their names: the
    figures as they are (-1 where not known, occupancy too), strings as str ("" where
    not known), reqd_threads a list."""
    d = {}
    for f, ctype in _KernelInfo._fields_:
        v = getattr(ki, f)
        d[f] = _str(v) if ctype is ctypes.c_char_p else list(v) if f == "reqd_threads" else v
    return d


def _params(g, result, i, k):
    """Kernel k of output i's parameters as dicts (gpublob_param_info's fields, hidden a
    bool, "" where not recorded), as --metadata's "params" has them."""
    count = ctypes.c_size_t()
    g.check(g.lib.gpublob_param_count(g.h, ctypes.byref(result), i, k, ctypes.byref(count)))
    params = []
    for n in range(count.value):
        pi = _ParamInfo()
        g.check(g.lib.gpublob_param_get(g.h, ctypes.byref(result), i, k, n, ctypes.byref(pi), ctypes.sizeof(pi)))
        params.append({f: _str(getattr(pi, f)) if ctype is ctypes.c_char_p else
                       bool(pi.hidden) if f == "hidden" else getattr(pi, f) for f, ctype in _ParamInfo._fields_})
    return params


def _kernels(g, result, i):
    """The kernels of output i as dicts; [] when its format records none (FORMAT)."""
    count = ctypes.c_size_t()
    rc = g.lib.gpublob_kernel_count(g.h, ctypes.byref(result), i, ctypes.byref(count))
    if rc == CODES["FORMAT"]:
        return []
    g.check(rc)
    kernels = []
    for k in range(count.value):
        ki = _KernelInfo()
        g.check(g.lib.gpublob_kernel_get(g.h, ctypes.byref(result), i, k, ctypes.byref(ki),
                                         ctypes.sizeof(ki)))
        kernels.append(_kernel_dict(ki))
        if hasattr(g.lib, "gpublob_param_count"):  # since 1.7
            kernels[-1]["params"] = _params(g, result, i, k)
    return kernels


def _outputs(g, result):
    """Copy every output of result (and its kernels) into Python objects."""
    outs = []
    for i in range(result.count):
        o = result.outputs[i]
        data = ctypes.string_at(o.blob.data, o.blob.size) if o.blob.size else b""
        outs.append(Output(data, _str(o.target), _str(o.chip), _str(o.tool),
                           _str(o.blob.suffix), _kernels(g, result, i), _input_of(g, result, i)))
    return outs


def _input_of(g, result, i):
    """The index of output i's input (gpublob_output_info's input, since 1.7); 0 before."""
    info = _OutputInfo()
    if not hasattr(g.lib, "gpublob_compile_inputs"):
        return 0
    g.check(g.lib.gpublob_output_get(ctypes.byref(result), i, ctypes.byref(info), ctypes.sizeof(info)))
    return info.input


# ---- the calls ----

def compile(data_or_path, targets=None, format="bin", *, kind="auto", name=None, **options):
    """Compile a kernel module; returns an Outputs list of Output (data, target, chip,
    tool, suffix, kernels), with .warnings.  Raises Error (code, name, message).

    data_or_path: bytes-like (LLVM IR text or bitcode, MLIR text or bytecode) or a path
      (str or os.PathLike; "-" is stdin).  kind: "auto" (by content), "llvm", "mlir".
      name: labels diagnostics.
    targets: a list of "NAME[:CHIP,CHIP...]" ("nvptx:sm_80,sm_90", "amdgcn:gfx90a") or
      (target, chip, features) tuples, a single such string, or None (the spec's first
      target).  Outputs come in this order, each target's chips as given.
    format: "bin" (cubin, hsaco, SPIR-V), "asm" (PTX, AMDGCN, SPIR-V text), "llvm"
      (bitcode), "ll" (LLVM IR text), "pack" (alias "fatbin": every chip of a target in
      one blob), "offload" (since 1.7: one LLVM OffloadBinary holding every (target,
      chip)'s bin blob; its kernels are each entry's, with their chips; docs/offload.md).

    Options (the fields of gpublob_options; None or absent: the library's default):
      features=STR         LLVM features added to the spec's ("+ptx80"), for each target
      opt=0..3             optimisation level (default 3)
      flags=INT            raw GPUBLOB_FLAG_* bits (or'ed with the flag keywords)
      ftz, daz, fast_math, finite_only, unsafe_math, unsafe_sqrt, no_default_search,
      mlir_bytecode, retarget, isolate, tool_log, remote_read_only, backend_only,
      offload_asm = True: those flags
      tool=PATH            the blob tool to run, instead of searching
      tool_dirs, lib_dirs  directories searched first (a ':' list, or a list)
      toolkit=DIR          a CUDA or ROCm root, searched first
      tool_mode            "auto", "program" or "in-process"
      tool_options=STR     words for the blob tool (ptxas), split as a shell does
      tool_timeout=SECONDS kill a blob tool running longer (default 300)
      tool_memory=MIB      a blob tool taking more data fails (default 8192)
      job_timeout=SECONDS  a job's LLVM work longer is BACKEND (default none)
      fp_contract          "on" (default: as the IR says), "fast" or "off"
      debug                (since 1.7) the debug information the blob keeps: "none",
                           "lines" (line tables alone) or "full"; default, the
                           module's, as clang keeps it (nvptx above -O0: lines)
      as_                  whose defaults, whose blob byte for byte: "mlir" (default,
                           mlir-opt's serialisers') or "clang" (clang's CUDA/HIP/OpenCL
                           driver's: its fp contraction and -mllvm options for the
                           module's language, ptxas's options as clang gives them and
                           no report: spill figures -1); explicit options win
      link=[PATH, ...]     bitcode linked into every module before the device libraries
      jobs=N               compile threads (default one per core)
      cache_dir=DIR, cache_max=BYTES   the content-addressed cache (default none)
      remote_cache=URL, remote_timeout_ms=MS, remote_max=BYTES   its remote tier
                           (redis://, or since 1.7 http[s]://HOST/PREFIX[?layout=flat])
      remote_ca=FILE       (since 1.7) a CA bundle for an https:// remote tier
      max_input=BYTES      refuse a larger input (IO; default 1 GiB)
      abi=N                the target's ABI version (amdgcn: 400, 500, 600)
      dump_dir=DIR         each job's intermediates are written there
      attach="binary"|"legacy", pipeline=STR, section=STR   MLIR input only
      block_size=N         the block size each kernel's occupancy is figured for (default:
                           its own limit, else 1024)
    Limits (each sets its LIMITS bit; 0 is a limit, None none): a kernel over one fails
    the call with Error LIMIT, naming the kernel, and nothing is returned:
      max_registers=N      registers a thread (AMD: VGPRs)
      max_spills=N         NVIDIA: spill-store bytes; AMD: spilled VGPRs + SGPRs
      max_shared=BYTES     static shared memory (LDS) a block
      max_stack=BYTES      stack (private segment) a thread
      min_occupancy=F      the least occupancy, 0 to 1
    Each kernel dict has gpublob_kernel_info's fields under its names: name, chip,
    registers, ..., reqd_threads (a list), spill_store_bytes, spill_load_bytes, barriers
    (NVIDIA, from ptxas's report), occupancy (0 to 1), occupancy_limiter ("warps",
    "registers", "shared", "blocks"), blocks_per_sm (NVIDIA), waves_per_simd (AMD),
    occupancy_block_size; a figure not known is -1, a limiter not known "".
    (since 1.7) Its "params" is a list of dicts, one a parameter, as --metadata's: index,
    offset, size, kind ("by_value", "global_buffer", "hidden_...", "pointer"), hidden (a
    bool), address_space and name ("" where the blob records none).
    An unknown keyword is TypeError; a bad value TypeError or ValueError.
    """
    opts = _options(format, targets, options)
    inp = _input(data_or_path, kind, name)
    result = _Result()
    with _Handle() as g:
        rc = g.lib.gpublob_compile(g.h, ctypes.byref(opts), ctypes.byref(inp), ctypes.byref(result))
        warnings = g.warnings()  # before the kernel calls replace them
        g.check(rc, warnings)
        try:
            outs = Outputs(_outputs(g, result))
        finally:
            g.lib.gpublob_result_free(ctypes.byref(result))
    outs.warnings = warnings
    return outs


def compile_inputs(inputs, targets=None, format="bin", *, kind="auto", **options):
    """(since 1.7) Several inputs in one call, gpublob_compile_inputs: each is compiled
    for the targets its triple allows (one without a triple: every target), as
    compile() would compile it with those alone; the outputs come input by input, each
    Output's .input its index in inputs.  format="offload" gives one container of every
    input's blobs, in that order.  inputs: a list of bytes-like data or paths, or of
    (data_or_path, name) pairs; targets, format, kind and options as compile()'s.  An
    input that no target takes is Error TARGET; an MLIR input among several, FORMAT."""
    opts = _options(format, targets, options)
    items = [i if isinstance(i, tuple) else (i, None) for i in inputs]
    if not items:
        raise ValueError("gpublob: compile_inputs wants at least one input")
    ins = (_Input * len(items))()
    held = [_input(d, kind, n) for d, n in items]
    for k, one in enumerate(held):
        ins[k] = one  # a copy: the buffers stay alive in held
    result = _Result()
    with _Handle() as g:
        if not hasattr(g.lib, "gpublob_compile_inputs"):
            raise Error(CODES["MISUSE"], f"this libgpublob ({version()}) has no gpublob_compile_inputs (since 1.7)")
        rc = g.lib.gpublob_compile_inputs(g.h, ctypes.byref(opts), ins, len(items), ctypes.byref(result))
        warnings = g.warnings()
        g.check(rc, warnings)
        try:
            outs = Outputs(_outputs(g, result))
        finally:
            g.lib.gpublob_result_free(ctypes.byref(result))
    outs.warnings = warnings
    return outs


def toolchain_id(targets=None, format="bin", **options):
    """The toolchain identity of these options, gpublob_toolchain_id (since 1.6): 32 hex
    digits of everything but the input that decides a blob (gpublob's and LLVM's
    versions, the spec, the options that change an output, the bytes of the blob tool,
    device libraries, link files and pack tool of each target and chip; never a path),
    the same as `gpublob --toolchain-id` with the same flags.  Key a cache of your own on
    it and your input.  targets, format and options as compile()'s.  Raises Error
    (TARGET, CHIP, NOTOOL, ...) as a compile's plan would."""
    opts = _options(format, targets, options)
    with _Handle() as g:
        _since(g, "gpublob_toolchain_id", "1.6")
        buf = ctypes.create_string_buffer(33)
        g.check(g.lib.gpublob_toolchain_id(g.h, ctypes.byref(opts), buf, ctypes.sizeof(buf)), g.warnings())
        return _str(buf.value)


def _since(g, name, release):
    """Error MISUSE where the loaded library is older than the call name (since release)."""
    if not hasattr(g.lib, name):
        raise Error(CODES["MISUSE"], f"this libgpublob ({version()}) has no {name} (since {release})")


def _inspected(g, data_or_path, name, result):
    """gpublob_inspect of a file's bytes or path (an Output: its data) into result; its warnings."""
    data = data_or_path.data if isinstance(data_or_path, Output) else data_or_path
    _since(g, "gpublob_inspect", "1.7")
    inp = _input(data, "auto", name)
    rc = g.lib.gpublob_inspect(g.h, ctypes.byref(inp), ctypes.byref(result))
    warnings = g.warnings()  # before the kernel calls replace them
    g.check(rc, warnings)
    return warnings


def inspect(data_or_path, *, name=None):
    """The entries of one blob file, gpublob_inspect (since 1.7): an Outputs list of
    Output (data, target, chip, tool, suffix, kernels), one per entry, with .warnings.

    data_or_path: bytes-like, a path (str or os.PathLike), or an Output (its data).  Any
      blob gpublob writes or reads: a cubin, an hsaco, SPIR-V, PTX text (one entry); a
      fatbin (each cubin and its PTX), an offload bundle (each code object), LLVM's
      OffloadBinary (each entry, its arch the chip), MLIR text (each #gpu.object's
      blob).  Target, chip and tool as the file names them ("" where it names none).
    Each entry's kernels are compile()'s kernel dicts, "params" included; [] for an
    entry that records none (PTX, SPIR-V).  No LLVM is needed.  Raises Error: FORMAT
    (bytes gpublob reads not), TOOL (a malformed blob or container), PARSE, IO; MISUSE
    where the library is older than 1.7."""
    result = _Result()
    with _Handle() as g:
        warnings = _inspected(g, data_or_path, name, result)
        try:
            outs = Outputs(_outputs(g, result))
        finally:
            g.lib.gpublob_result_free(ctypes.byref(result))
    outs.warnings = warnings
    return outs


def _index(v):
    """v is an index: an int (not a bool) from 0."""
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _kernel_index(g, result, entry, kernel):
    """Kernel kernel (an index, or a name) of entry's as an index; a name none has is MISUSE."""
    if not isinstance(kernel, str):
        return kernel
    names = [d["name"] for d in _kernels(g, result, entry)] if entry < result.count else []
    if kernel not in names:
        raise Error(CODES["MISUSE"], f"no kernel {kernel!r} in entry {entry} of {result.count} (its kernels: "
                    f"{', '.join(names) or 'none'})")
    return names.index(kernel)


def disasm(data_or_path, entry=0, kernel=0, *, name=None):
    """The machine code of one kernel of one entry of a blob file, gpublob_disasm (since
    1.7), as text: one instruction a line, "\tMNEMONIC OPERANDS", as llvm-objdump -d
    --no-show-raw-insn --no-leading-addr prints them without its comments, by LLVM's
    disassembler in process.

    data_or_path: as inspect()'s (an Output of compile() or inspect() too).  entry: the
      index of the entry, as inspect() lists them.  kernel: the kernel's index in that
      entry, or its name.
    Raises Error: as inspect()'s; FORMAT for an entry without kernels or a target LLVM
    has no disassembler for (NVPTX, SPIR-V: nvdisasm, spirv-dis) or a chip the spec's
    disasm_chips leaves out; TOOL for a kernel without its symbol; MISUSE for an entry
    or kernel out of range, a name no kernel has, or a library older than 1.7."""
    result = _Result()
    with _Handle() as g:
        _since(g, "gpublob_disasm", "1.7")
        _inspected(g, data_or_path, name, result)
        try:
            text = ctypes.c_char_p()
            k = _kernel_index(g, result, entry, kernel) if _index(entry) else None
            if not _index(entry) or not _index(k):
                raise Error(CODES["MISUSE"], f"disasm: entry and kernel are indexes from 0 (a kernel also a "
                            f"name), not {entry!r} and {kernel!r}")
            g.check(g.lib.gpublob_disasm(g.h, ctypes.byref(result), entry, k, ctypes.byref(text)))
            return _str(text.value)
        finally:
            g.lib.gpublob_result_free(ctypes.byref(result))


def version():
    """The library's version string, gpublob_version() ("1.7.0")."""
    return _str(_lib().gpublob_version())


def mlir_enabled():
    """True when the library was built with MLIR."""
    return bool(_lib().gpublob_mlir_enabled())


def targets():
    """The spec's targets as dicts: name, triple, chip (the default), features,
    attribute, suffix_asm, suffix_bin, tool_kind, chips (a list), mlir_target, libs."""
    lib, out = _lib(), []
    for i in range(lib.gpublob_target_count()):
        ti = _TargetInfo()
        rc = lib.gpublob_target_get(i, ctypes.byref(ti), ctypes.sizeof(ti))
        if rc:
            raise Error(rc, _str(lib.gpublob_error_string(rc)))
        d = {f: _str(getattr(ti, f)) for f, _ in _TargetInfo._fields_}
        d["chips"] = d["chips"].split()
        out.append(d)
    return out


# ---- python3 -m gpublob ----

# The CLI's options that are compile()'s keywords (--max-registers: max_registers), as the
# gpublob CLI spells them, with their types.
_CLI_OPTIONS = {"block_size": int, "max_registers": int, "max_spills": int, "max_shared": int,
                "max_stack": int, "min_occupancy": float}


def _kernel_line(k):
    """One kernel's figures, for the CLI."""
    line = (f"  {k['name']}: {k['registers']} registers, "
            f"{k['shared_bytes']} bytes shared, {k['spills']} spills")
    if k["occupancy"] >= 0:
        line += (f", occupancy {k['occupancy']:.2f} ({k['occupancy_limiter']}; "
                 f"{k['occupancy_block_size']} threads a block)")
    return line


def _main(argv=None):
    """A tiny CLI: --version, --targets, or compile FILE and print each output."""
    import argparse
    ap = argparse.ArgumentParser(prog="python3 -m gpublob", description=__doc__.splitlines()[0])
    ap.add_argument("--version", action="store_true", help="print gpublob_version()")
    ap.add_argument("--targets", action="store_true", help="list the spec's targets and chips")
    ap.add_argument("file", nargs="?", help="compile FILE and print its outputs and kernels")
    ap.add_argument("-t", "--target", action="append", help="NAME[:CHIPS] (repeatable)")
    ap.add_argument("-f", "--format", default="bin", choices=sorted(_FORMATS))
    for key, kind in _CLI_OPTIONS.items():
        ap.add_argument("--" + key.replace("_", "-"), dest=key, type=kind, metavar=kind.__name__.upper(),
                        help=f"compile()'s {key}= (a limit fails with LIMIT)"
                        if key in LIMITS else f"compile()'s {key}=")
    args = ap.parse_args(argv)
    options = {key: getattr(args, key) for key in _CLI_OPTIONS}
    try:
        if args.version:
            print(version())
        if args.targets:
            for t in targets():
                print(f"{t['name']}\t{t['triple']}\t{t['chip']}\t{' '.join(t['chips'])}")
        if args.file:
            for o in compile(args.file, args.target, args.format, **options):
                print(f"{o.target} {o.chip}: {len(o.data)} bytes ({o.tool or '-'})")
                for k in o.kernels:
                    print(_kernel_line(k))
        elif not (args.version or args.targets):
            ap.print_usage(sys.stderr)
            return 2
    except (Error, OSError) as e:
        print(f"gpublob: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(_main())
