#!/bin/bash
# A cluster on one machine: N hosts made of Linux namespaces, so that a job
# runs across hosts for real (different host names, network interfaces and
# /dev/shm, one Open MPI daemon and PMIx server per host) and its network
# can be slowed, made lossy or cut.
#
# Each host is a network namespace with one interface, eth0, a veth pair
# whose other end is a port of a bridge in a namespace of its own (the
# switch), with an address of 10.213.0.0/24 that exists only inside these
# namespaces (the machine's own namespace gets no link, address or route).
# One long-lived process per host (the holder) keeps the host's mount and
# UTS namespaces: its host name, its own /dev/shm (a tmpfs) and an
# /etc/hosts naming the hosts.  Everything run on a host enters the
# holder's namespaces with nsenter.  The job's launcher is Open MPI's
# mpirun (scripts/oshrun) started on host 0 from a hostfile, with this
# script as its rsh agent, so each host runs its own orted.
#
#   cluster.sh [-n HOSTS] [-s SLOTS] [--] CMD [ARGS...]
#       makes HOSTS hosts (default 2) with SLOTS slots each (default 2),
#       runs CMD on the machine (not in a host) with CLUSTER_DIR (the state
#       directory), CLUSTER_SELF (this script), CLUSTER_HOSTS, CLUSTER_SLOTS
#       and FABSHMEM_TEST_LAUNCHER (the launch command below) exported,
#       tears the hosts down however CMD ends, and exits with its status.
#   cluster.sh check   exits 0 where hosts can be made here, 77 (with the
#                      reason on stderr) where they cannot
#   cluster.sh clean   removes what runs that were killed left behind
#                      (every run does this first)
#
# Inside CMD (these read CLUSTER_DIR):
#   cluster.sh launch NP PROG [ARGS]  mpirun across the hosts, PEs filling
#                      the hosts in order (SLOTS each, then again: the
#                      form of FABSHMEM_TEST_LAUNCHER, as tests/run.sh uses)
#   cluster.sh uid-launch NP PROG [ARGS]  the same placement without a
#                      launcher: tests/uid_launch.sh's processes, each
#                      entering its host, booting by unique id (the id file
#                      in a directory all hosts see; FABSHMEM_BOOTSTRAP_IFNAME
#                      eth0 unless set)
#   cluster.sh exec HOST CMD [ARGS]   runs CMD on HOST (a number or a name)
#   cluster.sh cut HOST | heal HOST   takes HOST's port off the switch
#                      (every packet to or from it is lost, its link stays
#                      up) or puts it back
#   cluster.sh netem HOST ARGS | netem-off HOST
#                      tc netem ARGS (e.g. "delay 50ms loss 1%") on both
#                      ends of HOST's link; where the kernel has no netem,
#                      tests/cluster/netem.py does the same through a
#                      queue to user space (NFQUEUE, set up with nft or
#                      iptables) in the host
#   cluster.sh kill HOST   SIGKILLs every process of HOST (its daemon and
#                      PEs), as when the host dies
#   cluster.sh shm     lists what is in each host's /dev/shm (nothing
#                      printed: every one is empty)
#   cluster.sh name HOST   prints HOST's host name
#
# It needs root, iproute2 (ip), util-linux (unshare, nsenter) and a kernel
# with network, mount and UTS namespaces, veth and bridges.

set -u
self=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
here=$(dirname "$self")
srcdir=$(cd "$here/../.." && pwd)
prefix_base=fsc
subnet=10.213.0

die() {
    echo "cluster.sh: $*" >&2
    exit 1
}

# The reason hosts cannot be made here, or nothing.
why_not() {
    local t
    [ "$(id -u)" = 0 ] || { echo "not root (network namespaces need root)"; return; }
    for t in ip nsenter unshare; do
        command -v $t >/dev/null 2>&1 || { echo "no $t command (install iproute2 and util-linux)"; return; }
    done
    t=${prefix_base}check$$
    if ! ip netns add "$t" 2>/dev/null; then
        echo "cannot make a network namespace (ip netns add failed)"
        return
    fi
    if ! ip -n "$t" link add br0 type bridge 2>/dev/null; then
        ip netns del "$t"
        echo "cannot make a bridge in a network namespace"
        return
    fi
    if ! ip -n "$t" link add a0 type veth peer name b0 2>/dev/null; then
        ip netns del "$t"
        echo "cannot make a veth pair"
        return
    fi
    ip netns del "$t"
    if ! unshare --mount --uts true 2>/dev/null; then
        echo "cannot make mount and UTS namespaces (unshare failed)"
        return
    fi
}

# Removes a cluster's namespaces and processes, given its prefix: every
# process in one of its hosts first (holders included), then the
# namespaces, then its state directory.
teardown_prefix() {
    local p=$1 ns pids i
    for i in 1 2 3; do
        pids=
        for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$p-"); do
            pids="$pids $(ip netns pids "$ns" 2>/dev/null)"
        done
        pids=$(echo $pids)
        [ -z "$pids" ] && break
        kill -KILL $pids 2>/dev/null
        sleep 0.2
    done
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$p-"); do
        ip netns del "$ns" 2>/dev/null
    done
    rm -rf "${TMPDIR:-/tmp}/fabshmem-cluster.${p#$prefix_base}"
}

# Whether process $1 runs (a zombie, killed but not yet reaped, does not).
alive() {
    local st
    st=$(sed 's/^.*) \(.\).*/\1/' "/proc/$1/stat" 2>/dev/null) || return 1
    [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

# Removes what killed runs left: clusters whose owner process is gone.
clean_stale() {
    local ns p owner
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$prefix_base[0-9][0-9]*-"); do
        p=${ns%%-*}
        owner=${p#$prefix_base}
        alive "$owner" || teardown_prefix "$p"
    done
    for d in "${TMPDIR:-/tmp}"/fabshmem-cluster.*; do
        [ -d "$d" ] || continue
        owner=${d##*.}
        alive "$owner" || rm -rf "$d"
    done
}

# Host number of a host given by number or name.
host_index() {
    local h=$1 i
    case $h in
    '' | *[!0-9]*)
        i=0
        while [ $i -lt "$CLUSTER_HOSTS" ]; do
            [ "$(host_name $i)" = "$h" ] && { echo $i; return 0; }
            i=$((i + 1))
        done
        die "no host '$h' in this cluster" ;;
    *) [ "$h" -lt "$CLUSTER_HOSTS" ] || die "no host $h (the cluster has $CLUSTER_HOSTS)"; echo "$h" ;;
    esac
}
host_name() { echo "node$1"; }

need_dir() {
    [ -n "${CLUSTER_DIR:-}" ] && [ -f "$CLUSTER_DIR/prefix" ] ||
        die "${1}: CLUSTER_DIR does not name a running cluster (run it inside cluster.sh CMD)"
    CLUSTER_HOSTS=$(cat "$CLUSTER_DIR/hosts")
    CLUSTER_SLOTS=$(cat "$CLUSTER_DIR/slots")
    prefix=$(cat "$CLUSTER_DIR/prefix")
}

# Runs a command in host I's namespaces, with its own TMPDIR.
in_host() {
    local i=$1 pid
    shift
    pid=$(cat "$CLUSTER_DIR/h$i.pid") || die "host $i has no holder"
    exec nsenter -t "$pid" --net --mount --uts --wd="$PWD" -- \
        env TMPDIR="$CLUSTER_DIR/tmp/h$i" "$@"
}

up() {
    local n=$1 slots=$2 i ns
    prefix=$prefix_base$$
    CLUSTER_DIR=${TMPDIR:-/tmp}/fabshmem-cluster.$$
    rm -rf "$CLUSTER_DIR"
    mkdir -p "$CLUSTER_DIR/tmp" || die "cannot make $CLUSTER_DIR"
    echo "$prefix" >"$CLUSTER_DIR/prefix"
    echo "$n" >"$CLUSTER_DIR/hosts"
    echo "$slots" >"$CLUSTER_DIR/slots"
    {
        echo "127.0.0.1 localhost"
        i=0
        while [ $i -lt "$n" ]; do
            echo "$subnet.$((i + 1)) $(host_name $i)"
            i=$((i + 1))
        done
    } >"$CLUSTER_DIR/etc_hosts"
    : >"$CLUSTER_DIR/hostfile"
    ip netns add "$prefix-sw" || die "ip netns add $prefix-sw failed"
    ip -n "$prefix-sw" link add br0 type bridge || die "cannot make the bridge"
    ip -n "$prefix-sw" link set br0 up
    i=0
    while [ $i -lt "$n" ]; do
        ns=$prefix-h$i
        ip netns add "$ns" || die "ip netns add $ns failed"
        ip link add eth0 netns "$ns" type veth peer name p$i netns "$prefix-sw" ||
            die "cannot make the veth pair of host $i"
        ip -n "$prefix-sw" link set p$i master br0 up
        ip -n "$ns" addr add "$subnet.$((i + 1))/24" dev eth0
        ip -n "$ns" link set eth0 up
        ip -n "$ns" link set lo up
        mkdir -p "$CLUSTER_DIR/tmp/h$i"
        echo "$(host_name $i) slots=$slots" >>"$CLUSTER_DIR/hostfile"
        # The holder: its own host name, /dev/shm and /etc/hosts.
        setsid ip netns exec "$ns" unshare --mount --uts --propagation private sh -c "
            hostname $(host_name $i) &&
            mount -t tmpfs -o mode=1777,size=50% tmpfs /dev/shm &&
            mount --bind '$CLUSTER_DIR/etc_hosts' /etc/hosts &&
            echo \$\$ >'$CLUSTER_DIR/h$i.pid.new' &&
            exec sleep infinity" </dev/null >"$CLUSTER_DIR/h$i.holder.log" 2>&1 &
        # (Its end, at teardown, is not news.)
        disown $!
        i=$((i + 1))
    done
    # Wait for every holder (a few seconds at most).
    i=0
    while [ $i -lt "$n" ]; do
        local t=0
        while [ ! -s "$CLUSTER_DIR/h$i.pid.new" ]; do
            t=$((t + 1))
            [ $t -gt 100 ] && die "host $i did not start: $(cat "$CLUSTER_DIR/h$i.holder.log")"
            sleep 0.05
        done
        mv "$CLUSTER_DIR/h$i.pid.new" "$CLUSTER_DIR/h$i.pid"
        i=$((i + 1))
    done
    CLUSTER_HOSTS=$n CLUSTER_SLOTS=$slots
}

# The launcher: oshrun (Open MPI's mpirun) on host 0, across the hosts.
# The daemons notice a silent host within about 5 s (TCP keepalives after
# 2 s idle, 3 probes 1 s apart), as a resource manager's heartbeat would;
# with Open MPI's defaults (300 s, 9 probes 20 s apart) a job whose host's
# link is cut would wait 8 minutes.
launch() {
    local np=$1 oshrun
    shift
    oshrun=${CLUSTER_OSHRUN:-}
    if [ -z "$oshrun" ]; then
        if [ -x "$PWD/scripts/oshrun" ]; then oshrun=$PWD/scripts/oshrun; else oshrun=$srcdir/scripts/oshrun; fi
    fi
    unset FABSHMEM_TEST_LAUNCHER
    [ -x "$oshrun" ] || die "launch: no oshrun at $oshrun (build the tree or set CLUSTER_OSHRUN)"
    # The test's PE layout goes with the PEs (tests/cluster/topo checks
    # the library's node map against it).
    export CLUSTER_SLOTS CLUSTER_HOSTS
    in_host 0 "$oshrun" --hostfile "$CLUSTER_DIR/hostfile" \
        --mca plm_rsh_agent "$self agent $CLUSTER_DIR" --mca plm_rsh_no_tree_spawn 1 \
        --mca oob_tcp_if_include eth0 --mca btl_tcp_if_include eth0 \
        --mca oob_tcp_keepalive_time 2 --mca oob_tcp_keepalive_intvl 1 \
        --mca oob_tcp_keepalive_probes 3 \
        -x CLUSTER_SLOTS -x CLUSTER_HOSTS --map-by slot -n "$np" "$@"
}

# Both ends of host I's link: the host's eth0 and the switch's port.
link_ends() {
    echo "$prefix-h$1 eth0"
    echo "$prefix-sw p$1"
}

netem_on() {
    local i=$1 ns dev
    shift
    if ip netns exec "$prefix-h$i" tc qdisc replace dev eth0 root netem "$@" 2>/dev/null; then
        ip netns exec "$prefix-sw" tc qdisc replace dev "p$i" root netem "$@" || exit 1
        echo netem >"$CLUSTER_DIR/netem$i"
        return 0
    fi
    # No netem in this kernel: the same with nftables and a queue to user
    # space (tests/cluster/netem.py), in the host's network namespace.
    command -v python3 >/dev/null 2>&1 || die "netem: the kernel has no netem and there is no python3"
    setsid ip netns exec "$prefix-h$i" python3 "$here/netem.py" "$@" \
        </dev/null >"$CLUSTER_DIR/netem$i.log" 2>&1 &
    echo $! >"$CLUSTER_DIR/netem$i.pid"
    disown $!
    echo nfqueue >"$CLUSTER_DIR/netem$i"
    # It says "ready" once its rules are in place.
    local t=0
    until grep -q ready "$CLUSTER_DIR/netem$i.log" 2>/dev/null; do
        t=$((t + 1))
        if [ $t -gt 100 ] || ! kill -0 "$(cat "$CLUSTER_DIR/netem$i.pid")" 2>/dev/null; then
            cat "$CLUSTER_DIR/netem$i.log" >&2
            die "netem: tests/cluster/netem.py did not start"
        fi
        sleep 0.05
    done
}

netem_off() {
    local i=$1
    case $(cat "$CLUSTER_DIR/netem$i" 2>/dev/null) in
    netem)
        ip netns exec "$prefix-h$i" tc qdisc del dev eth0 root 2>/dev/null
        ip netns exec "$prefix-sw" tc qdisc del dev "p$i" root 2>/dev/null ;;
    nfqueue)
        kill -TERM "$(cat "$CLUSTER_DIR/netem$i.pid")" 2>/dev/null
        local t=0
        while kill -0 "$(cat "$CLUSTER_DIR/netem$i.pid")" 2>/dev/null && [ $t -lt 50 ]; do
            sleep 0.1
            t=$((t + 1))
        done ;;
    esac
    rm -f "$CLUSTER_DIR/netem$i" "$CLUSTER_DIR/netem$i.pid"
}

cmd=${1:-}
case $cmd in
check)
    r=$(why_not)
    if [ -n "$r" ]; then
        echo "cluster.sh: skipped: $r" >&2
        exit 77
    fi
    exit 0 ;;
clean)
    clean_stale
    exit 0 ;;
agent)
    # Open MPI's rsh agent: cluster.sh agent DIR HOST COMMAND..., where
    # COMMAND is one shell command line, as ssh takes it.
    CLUSTER_DIR=$2
    need_dir agent
    i=$(host_index "$3")
    shift 3
    echo "agent: $(host_name "$i"): $*" >>"$CLUSTER_DIR/agent.log"
    PWD=/ in_host "$i" sh -c "cd / && $*" ;;
launch)
    need_dir launch
    [ $# -ge 3 ] || die "usage: cluster.sh launch NP PROG [ARGS...]"
    shift
    launch "$@" ;;
exec)
    need_dir exec
    [ $# -ge 3 ] || die "usage: cluster.sh exec HOST CMD [ARGS...]"
    i=$(host_index "$2")
    shift 2
    in_host "$i" "$@" ;;
uid-launch)
    # The unique-id bootstrap across the hosts, without a launcher:
    # tests/uid_launch.sh's shell loop, each rank entering its host (the
    # same placement as launch) and the id naming host 0's eth0.
    need_dir uid-launch
    [ $# -ge 3 ] || die "usage: cluster.sh uid-launch NP PROG [ARGS...]"
    shift
    np=$1
    shift
    export FABSHMEM_BOOTSTRAP_IFNAME=${FABSHMEM_BOOTSTRAP_IFNAME-eth0}
    export CLUSTER_HOSTS CLUSTER_SLOTS
    unset FABSHMEM_TEST_LAUNCHER
    exec "$here/../uid_launch.sh" "$np" "$self" on-rank "$@" ;;
on-rank)
    # One rank of uid-launch: runs on host (rank / SLOTS) % HOSTS.
    need_dir on-rank
    shift
    r=${FABSHMEM_BOOTSTRAP_RANK:?on-rank: FABSHMEM_BOOTSTRAP_RANK is not set}
    in_host $(((r / CLUSTER_SLOTS) % CLUSTER_HOSTS)) "$@" ;;
name)
    need_dir name
    host_name "$(host_index "$2")" ;;
cut | heal)
    need_dir "$cmd"
    i=$(host_index "$2")
    if [ "$cmd" = cut ]; then
        ip -n "$prefix-sw" link set "p$i" nomaster
    else
        ip -n "$prefix-sw" link set "p$i" master br0
    fi ;;
netem)
    need_dir netem
    i=$(host_index "$2")
    shift 2
    netem_off "$i"
    netem_on "$i" "$@" ;;
netem-off)
    need_dir netem-off
    netem_off "$(host_index "$2")" ;;
kill)
    need_dir kill
    i=$(host_index "$2")
    holder=$(cat "$CLUSTER_DIR/h$i.pid")
    for t in 1 2 3; do
        pids=$(ip netns pids "$prefix-h$i" | grep -vx "$holder")
        netem_pid=$(cat "$CLUSTER_DIR/netem$i.pid" 2>/dev/null)
        [ -n "$netem_pid" ] && pids=$(echo "$pids" | grep -vx "$netem_pid")
        [ -z "$pids" ] && break
        kill -KILL $pids 2>/dev/null
        sleep 0.1
    done ;;
shm)
    need_dir shm
    i=0
    while [ $i -lt "$CLUSTER_HOSTS" ]; do
        left=$(nsenter -t "$(cat "$CLUSTER_DIR/h$i.pid")" --mount ls -A /dev/shm)
        [ -n "$left" ] && echo "$(host_name $i): $(echo $left)"
        i=$((i + 1))
    done
    exit 0 ;;
*)
    hosts=2
    slots=2
    while [ $# -gt 0 ]; do
        case $1 in
        -n) hosts=$2; shift 2 ;;
        -s) slots=$2; shift 2 ;;
        --) shift; break ;;
        -h | --help) sed -n '2,/^$/s/^# \{0,1\}//p' "$self"; exit 0 ;;
        -*) die "unknown option '$1' (see cluster.sh --help)" ;;
        *) break ;;
        esac
    done
    [ $# -ge 1 ] || die "usage: cluster.sh [-n HOSTS] [-s SLOTS] [--] CMD [ARGS...]"
    case $hosts$slots in *[!0-9]*) die "-n and -s take numbers" ;; esac
    [ "$hosts" -ge 1 ] && [ "$hosts" -le 200 ] || die "-n: 1 to 200 hosts"
    r=$(why_not)
    if [ -n "$r" ]; then
        echo "cluster.sh: skipped: $r" >&2
        exit 77
    fi
    clean_stale
    # Torn down whatever happens: on exit, and on the signals that end us
    # (the EXIT trap runs after them).
    # The command runs in the background so that a signal reaches the
    # traps at once; the traps end it too.
    child=
    trap 'teardown_prefix "$prefix"' EXIT
    trap '[ -n "$child" ] && kill -TERM $child 2>/dev/null; exit 130' INT
    trap '[ -n "$child" ] && kill -TERM $child 2>/dev/null; exit 143' TERM
    trap '[ -n "$child" ] && kill -TERM $child 2>/dev/null; exit 129' HUP
    up "$hosts" "$slots"
    export CLUSTER_DIR CLUSTER_HOSTS CLUSTER_SLOTS
    export CLUSTER_SELF=$self
    export FABSHMEM_TEST_LAUNCHER="$self launch"
    "$@" <&0 &
    child=$!
    wait $child
    rc=$?
    child=
    # Netem helpers first (they restore their rules), then the rest.
    i=0
    while [ $i -lt "$hosts" ]; do netem_off $i; i=$((i + 1)); done
    exit $rc ;;
esac
