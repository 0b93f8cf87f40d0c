#!/usr/bin/env bash
# bench.sh - flux-sched's resource-bench workload through any
# resource-query-compatible binary (ours by default, or a C++ build).
#
# usage: benchmarks/bench.sh [--rq PATH] [--nodes N] [--cores C] [--jobs J]
#                            [--policy P] [--node-exclusive] [--keep]
#                            [--op allocate|allocate_orelse_reserve] [--live L]
#
# It writes a GRUG recipe for one cluster of N nodes x C cores, a jobspec
# (cluster[1]->node[1]->slot[1]->core[1], or with --node-exclusive a whole
# node: node[1] exclusive->slot[1]->core[C]), and a stream of J
# "match allocate" commands; runs `RQ -L graph -P P -e -d` on them under
# /usr/bin/time -v; and prints the graph load time, the per-match ELAPSE
# median / p99 / max (and the median of the first and last 10% of the
# stream), the number of successful matches, the wall time and the peak RSS.
#
# --op picks the match operation (default allocate). --live L (deep
# queues, issue 22) first runs L untimed "match allocate_orelse_reserve"
# commands, so that L jobs are live (on 256x32, 8,192 running and the rest
# reserved in layers), then J timed matches with --op, each followed by
# the cancel of its job, so the statistics are those of one match at L
# live jobs.
#
# Defaults: --nodes 256 --cores 32 --jobs 4096 --policy first; --rq builds
# ./cmd/resource-query into a temporary directory.
set -euo pipefail

nodes=256 cores=32 jobs=4096 policy=first rq= exclusive= keep= op=allocate live=0
while [ $# -gt 0 ]; do
    case $1 in
        --rq) rq=$2; shift 2 ;;
        --nodes) nodes=$2; shift 2 ;;
        --cores) cores=$2; shift 2 ;;
        --jobs) jobs=$2; shift 2 ;;
        --policy) policy=$2; shift 2 ;;
        --node-exclusive) exclusive=1; shift ;;
        --op) op=$2; shift 2 ;;
        --live) live=$2; shift 2 ;;
        --keep) keep=1; shift ;;
        -h|--help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/rq-bench.XXXXXX")
[ -n "$keep" ] || trap 'rm -rf "$work"' EXIT

if [ -z "$rq" ]; then
    (cd "$here/.." && go build -o "$work/resource-query" ./cmd/resource-query)
    rq=$work/resource-query
fi
[ -x "$rq" ] || { echo "bench.sh: not an executable: $rq" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench.sh: needs /usr/bin/time (Debian package 'time')" >&2; exit 2; }

cat > "$work/graph.graphml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key id="root" for="node" attr.name="root" attr.type="int"><default>0</default></key>
  <key id="type" for="node" attr.name="type" attr.type="string"/>
  <key id="basename" for="node" attr.name="basename" attr.type="string"/>
  <key id="size" for="node" attr.name="size" attr.type="long"><default>1</default></key>
  <key id="subsystem" for="node" attr.name="subsystem" attr.type="string"><default>containment</default></key>
  <key id="e_subsystem" for="edge" attr.name="e_subsystem" attr.type="string"><default>containment</default></key>
  <key id="id_scope" for="edge" attr.name="id_scope" attr.type="int"><default>0</default></key>
  <key id="id_start" for="edge" attr.name="id_start" attr.type="int"><default>0</default></key>
  <key id="id_stride" for="edge" attr.name="id_stride" attr.type="int"><default>1</default></key>
  <key id="gen_method" for="edge" attr.name="gen_method" attr.type="string"><default>MULTIPLY</default></key>
  <key id="multi_scale" for="edge" attr.name="multi_scale" attr.type="int"><default>1</default></key>
  <graph id="bench" edgedefault="directed">
    <node id="cluster"><data key="root">1</data><data key="type">cluster</data><data key="basename">bench</data></node>
    <node id="node"><data key="type">node</data><data key="basename">node</data></node>
    <node id="core"><data key="type">core</data><data key="basename">core</data></node>
    <edge id="c2n" source="cluster" target="node"><data key="multi_scale">$nodes</data></edge>
    <edge id="n2c" source="node" target="core"><data key="multi_scale">$cores</data></edge>
  </graph>
</graphml>
EOF

if [ -n "$exclusive" ]; then
    node_excl="
        exclusive: true"
    ncores=$cores
else
    node_excl=
    ncores=1
fi
cat > "$work/job.yaml" <<EOF
version: 1
resources:
  - type: cluster
    count: 1
    with:
      - type: node
        count: 1$node_excl
        with:
          - type: slot
            count: 1
            label: default
            with:
              - type: core
                count: $ncores
attributes:
  system:
    duration: 3600
tasks:
  - command: [ "app" ]
    slot: default
    count:
      per_slot: 1
EOF

case $op in allocate|allocate_orelse_reserve) ;; *) echo "bench.sh: --op must be allocate or allocate_orelse_reserve" >&2; exit 2 ;; esac
awk -v j="$jobs" -v l="$live" -v op="$op" -v f="$work/job.yaml" 'BEGIN {
    for (i = 0; i < l; i++) print "match allocate_orelse_reserve " f
    for (i = 0; i < j; i++) { print "match " op " " f; if (l > 0) print "cancel " l + i + 1 }
    print "quit" }' > "$work/cmds"

/usr/bin/time -v -o "$work/time" "$rq" -L "$work/graph.graphml" -P "$policy" -e -d < "$work/cmds" > "$work/out" 2> "$work/err" || {
    echo "bench.sh: $rq failed:" >&2; tail -5 "$work/err" >&2; exit 1; }

grep '^INFO: ELAPSE=' "$work/out" | sed 's/^INFO: ELAPSE=//' | tail -n +"$((live + 1))" > "$work/elapse"
n=$(wc -l < "$work/elapse")
ok=$(( $(grep -c '^INFO: RESOURCES=' "$work/out" || true) - live ))
load=$(sed -n 's/^INFO: Graph Load Time: //p' "$work/out")
pct() { # file percentile(0-100) -> value, in ms
    sort -g "$1" | awk -v p="$2" '{ v[NR] = $1 } END { if (NR == 0) { print "-"; exit }
        i = int((NR - 1) * p / 100) + 1; printf "%.4f", v[i] * 1000 }'
}
tenth=$(( n / 10 > 0 ? n / 10 : 1 ))
head -n "$tenth" "$work/elapse" > "$work/first"
tail -n "$tenth" "$work/elapse" > "$work/last"
wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time")
rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time")

printf 'binary:        %s\n' "$rq"
printf 'workload:      %dx%d, %d jobs of %s, policy %s, match %s, %d live jobs\n' "$nodes" "$cores" "$jobs" \
    "$([ -n "$exclusive" ] && echo 'node[1] exclusive' || echo 'core[1]')" "$policy" "$op" "$live"
printf 'graph load:    %s s\n' "$load"
printf 'matches:       %d timed, %d allocated or reserved\n' "$n" "$ok"
printf 'per match:     median %s ms, p99 %s ms, max %s ms\n' "$(pct "$work/elapse" 50)" "$(pct "$work/elapse" 99)" "$(pct "$work/elapse" 100)"
printf 'first / last 10%%: median %s ms / %s ms\n' "$(pct "$work/first" 50)" "$(pct "$work/last" 50)"
printf 'wall time:     %s\n' "$wall"
printf 'peak RSS:      %d MiB\n' "$(( rss / 1024 ))"
[ -z "$keep" ] || echo "files kept in $work"
