#!/usr/bin/env python3
"""The device under a path and its 4 KiB random-read latency, for the rows of the capped
benchmarks (docs/benchmarks/disk.csv): what a disk index's hop costs when its block is
not cached.

Usage: docs/benchmarks/read-latency.py FILE [--reads N] [--seed S]

Reads N (default 2000) random 4 KiB-aligned blocks of FILE, one at a time (queue depth
1), with O_DIRECT so the page cache neither serves nor keeps them; FILE should be large
(the collection's segment or index file, 100 MB or more) so the device's own cache
rarely holds the block. Prints one JSON object: the device (name, model or driver,
rotational or not), the filesystem, the file's size, and the latency's mean, p50, p90,
p99 and max in microseconds. fio would measure the same (`fio --rw=randread --bs=4k
--direct=1 --iodepth=1`); this needs only Python.
"""
import json
import mmap
import os
import random
import subprocess
import sys
import time

BLOCK = 4096


def device_of(path):
    """The block device, its driver and the filesystem holding `path`."""
    src, fstype = "?", "?"
    try:
        out = subprocess.run(["findmnt", "-no", "SOURCE,FSTYPE", "-T", path], capture_output=True, text=True)
        src, fstype = out.stdout.split()[:2]
    except (OSError, ValueError):
        pass
    name = os.path.basename(src)
    sys_dir = f"/sys/class/block/{name}"
    info = {"device": src, "filesystem": fstype}
    # A partition's queue settings and driver are its disk's (the parent directory).
    parent = os.path.basename(os.path.dirname(os.path.realpath(sys_dir)))
    disk = parent if os.path.exists(f"{sys_dir}/partition") else name
    base = f"/sys/block/{disk}"
    for key, rel in [("model", "device/model"), ("rotational", "queue/rotational"),
                     ("read_ahead_kb", "queue/read_ahead_kb"), ("scheduler", "queue/scheduler")]:
        try:
            with open(f"{base}/{rel}") as f:
                info[key] = f.read().strip()
        except OSError:
            pass
    try:
        info["driver"] = os.path.basename(os.path.realpath(f"{base}/device/driver"))
    except OSError:
        pass
    return info


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        sys.exit(__doc__)
    path, reads, seed = args[0], 2000, 1
    rest = args[1:]
    while rest:
        if rest[0] == "--reads" and len(rest) > 1:
            reads = int(rest[1])
        elif rest[0] == "--seed" and len(rest) > 1:
            seed = int(rest[1])
        else:
            sys.exit(f"read-latency.py: unknown argument {rest[0]}\n{__doc__}")
        rest = rest[2:]
    size = os.path.getsize(path)
    blocks = size // BLOCK
    if blocks < 1:
        sys.exit(f"read-latency.py: {path} is smaller than one block")
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, BLOCK)  # page aligned, as O_DIRECT needs
    rng = random.Random(seed)
    lat = []
    for _ in range(reads):
        at = rng.randrange(blocks) * BLOCK
        t = time.perf_counter_ns()
        n = os.preadv(fd, [buf], at)
        lat.append((time.perf_counter_ns() - t) / 1000.0)
        if n != BLOCK:
            sys.exit(f"read-latency.py: short read of {n} bytes at {at} in {path}")
    os.close(fd)
    lat.sort()
    q = lambda p: round(lat[min(len(lat) - 1, int(p * len(lat)))], 1)
    out = device_of(path)
    out.update({"file": path, "file_bytes": size, "reads": reads, "queue_depth": 1, "direct": True,
                "mean_us": round(sum(lat) / len(lat), 1), "p50_us": q(0.5), "p90_us": q(0.9),
                "p99_us": q(0.99), "max_us": round(lat[-1], 1)})
    print(json.dumps(out))


if __name__ == "__main__":
    main()
