#!/bin/sh
# gpublob 1.4.0: the blob tool of /tmp/tmpu6nd9og1/lds.ll for amdgcn:gfx90a, reading the dumped object and writing the blob beside it.
# The blob was made in-process by lld (lld 22.1.8 linked into gpublob, archives cksum 1790133675) with the options: ld.lld -shared --no-undefined --threads=1 {in} -o {out}
# The program's equivalent command line:
exec '/usr/lib/llvm-22/bin/ld.lld' '-shared' '--no-undefined' '/work/wt37h/x/lds.amdgcn.gfx90a.3-object.o' '-o' '/work/wt37h/x/lds.amdgcn.gfx90a.6-blob.hsaco'
