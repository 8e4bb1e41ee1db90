#!/usr/bin/env bash
# Runs one command under a real memory cap: a cgroup v1 memory cgroup, made for the run
# and removed after it. The cap holds the process's anonymous memory and the page cache
# it brings in (mapped segment pages, node blocks read with pread), so a collection
# larger than the cap has to be served from disk, not from cached pages.
#
# Usage: docs/benchmarks/cgroup-cap.sh [--evict PATH]... [--stats FILE] LIMIT -- COMMAND [ARG]...
#
#   LIMIT         bytes, or a number with K, M or G (binary: 256M is 256 MiB)
#   --evict PATH  before the run, drop PATH's pages from the page cache (a file, or every
#                 file under a directory): sync, then posix_fadvise(DONTNEED) through
#                 `dd iflag=nocache count=0`. Pages already cached were charged to the
#                 cgroup of whoever read or wrote them (the uncapped import or optimize),
#                 not to the cap, and the capped run would read them for free.
#   --stats FILE  after the run, write the cgroup's counters to FILE, one key=value a
#                 line: limit_bytes, max_usage_bytes (the peak, page cache included),
#                 failcnt (times the cap was hit and memory reclaimed: 0 means the cap
#                 never bound), oom_kill (processes the cap killed), status (the command's)
#                 and evicted_cached_bytes (what was still cached of the --evict paths
#                 just before the run, from fincore; -1 if fincore is missing).
#
# Exit status: the command's (137 when the cap's OOM killer ended it); 125 when the cgroup
# cannot be set up (not root, no cgroup v1 memory controller at $XVEC_CGROUP_ROOT, by
# default /sys/fs/cgroup/memory).
#
# Example (a query under a 64 MiB cap, its collection evicted first):
#   docs/benchmarks/cgroup-cap.sh --evict words --stats cap.txt 64M -- \
#       xvec --memory-budget 16MiB query words --vector-file q.fvecs --row 3
#
# There is no swap on the benchmark machines; where there is, the cap also needs
# memory.memsw.limit_in_bytes, or anonymous pages go to swap instead of counting.
set -uo pipefail

die() { echo "cgroup-cap: $*" >&2; exit 125; }

evict=()
stats=""
while [ $# -gt 0 ]; do
    case "$1" in
        --evict) [ $# -ge 2 ] || die "--evict needs a path"; evict+=("$2"); shift 2 ;;
        --stats) [ $# -ge 2 ] || die "--stats needs a file"; stats="$2"; shift 2 ;;
        --) die "LIMIT missing before --" ;;
        -*) die "unknown option $1" ;;
        *) break ;;
    esac
done
[ $# -ge 3 ] && [ "$2" = "--" ] || die "usage: cgroup-cap.sh [--evict PATH]... [--stats FILE] LIMIT -- COMMAND [ARG]..."
[[ $1 =~ ^([0-9]+)([KkMmGg]?)$ ]] || die "LIMIT $1 is not a number of bytes (K, M or G allowed)"
case "${BASH_REMATCH[2]}" in
    [Kk]) limit=$(( BASH_REMATCH[1] << 10 )) ;;
    [Mm]) limit=$(( BASH_REMATCH[1] << 20 )) ;;
    [Gg]) limit=$(( BASH_REMATCH[1] << 30 )) ;;
    *) limit=$(( BASH_REMATCH[1] )) ;;
esac
[ "$limit" -gt 0 ] || die "LIMIT $1 is not a positive number of bytes"
shift 2

root=${XVEC_CGROUP_ROOT:-/sys/fs/cgroup/memory}
[ -w "$root" ] && [ -f "$root/cgroup.procs" ] || die "$root is not a writable cgroup v1 memory hierarchy"
cg="$root/xvec-cap-$$"
mkdir "$cg" || die "cannot make $cg"

teardown() {
    # The command has exited: release what it left charged (its page cache), then remove
    # the cgroup. rmdir fails while a straggler (a child it left running) is inside.
    echo 0 > "$cg/memory.force_empty" 2>/dev/null
    rmdir "$cg" 2>/dev/null || echo "cgroup-cap: could not remove $cg (a process left inside?)" >&2
}
trap teardown EXIT
echo "$limit" > "$cg/memory.limit_in_bytes" || die "cannot set $cg/memory.limit_in_bytes to $limit"

files=()
if [ ${#evict[@]} -gt 0 ]; then
    while IFS= read -r -d '' f; do files+=("$f"); done < <(find "${evict[@]}" -type f -print0)
    [ ${#files[@]} -eq 0 ] || sync "${files[@]}"
    for f in "${files[@]}"; do
        dd if="$f" iflag=nocache count=0 status=none || die "cannot evict $f from the page cache"
    done
fi
cached=-1
if command -v fincore >/dev/null 2>&1; then
    cached=0
    if [ ${#files[@]} -gt 0 ]; then
        cached=$(fincore --bytes --noheadings --output RES "${files[@]}" | awk '{ s += $1 } END { print s + 0 }')
    fi
fi

# The child joins the cgroup before it execs the command, so everything the command
# allocates or reads is charged to the cap from its first page.
bash -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' cgroup-cap "$cg" "$@"
status=$?

oom_kill=$(awk '$1 == "oom_kill" { print $2 }' "$cg/memory.oom_control")
report="limit_bytes=$(cat "$cg/memory.limit_in_bytes")
max_usage_bytes=$(cat "$cg/memory.max_usage_in_bytes")
failcnt=$(cat "$cg/memory.failcnt")
oom_kill=${oom_kill:-0}
status=$status
evicted_cached_bytes=$cached"
if [ -n "$stats" ]; then
    echo "$report" > "$stats" || echo "cgroup-cap: cannot write $stats" >&2
else
    echo "$report" | sed 's/^/cgroup-cap: /' >&2
fi
exit "$status"
