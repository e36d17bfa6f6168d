# slurm_cluster.sh - a real single-host Slurm cluster for a test script, from
# Debian's packages (munge, slurmctld, slurmd: scripts/deps.sh test installs
# them).  Sourced by tests that drive Slurm (test_slurm.sh; bisect --slurm
# next); see /work/shared/slurm-local.md for what was checked by hand.
#
#   slurm_cluster_start       config, state and logs in a new directory,
#                             $slurm_dir (under /tmp: munged must reach it as
#                             its own user, which a test's 0700 $TMP does
#                             not let it); exports SLURM_CONF and
#                             SLURM_PARTITION (the cluster's one, named
#                             $slurm_partition_name if set, else bvtest); returns
#                             non-zero with the reason in $slurm_why when
#                             the cluster cannot start here (not root,
#                             packages missing, a daemon that will not come up)
#   slurm_cluster_stop        stops the daemons it started, by their PIDs,
#                             and removes $slurm_dir
#
# Everything is the cluster's own: its munged on its own socket and key (so
# a munged the machine already runs is neither needed nor disturbed), its
# own ports (found free at start), its own state and spool directories.
# The daemons run in the foreground (-D, -F) as background jobs of the test,
# and are stopped by the PIDs this shell got for them, never by name; the
# caller sets a trap so that happens on failure too (lib.sh's EXIT trap
# removes $TMP: call slurm_cluster_stop from yours first).

slurm_pids=()
slurm_why=
slurm_dir=

# _slurm_free_port_pair: prints P such that P and P+1 are free TCP ports,
# from a range well away from Slurm's defaults (6817-6819) and from common
# services; a different start per process, so parallel tests do not race.
_slurm_free_port_pair() {
	local used p tries
	used=$(awk 'NR > 1 { split($2, a, ":"); print strtonum("0x" a[2]) }' /proc/net/tcp /proc/net/tcp6 2>/dev/null | sort -u)
	p=$((21000 + ($$ * 7 + RANDOM) % 8000 * 2))
	for tries in $(seq 1 200); do
		if ! grep -qx "$p" <<< "$used" && ! grep -qx "$((p + 1))" <<< "$used"; then
			echo "$p"
			return 0
		fi
		p=$((p + 2))
		[ $p -ge 37000 ] && p=21000
	done
	return 1
}

# _slurm_wait SECONDS CMD...: until CMD succeeds, at most SECONDS.
_slurm_wait() {
	local limit=$1 t=0
	shift
	until "$@" > /dev/null 2>&1; do
		sleep 0.2
		t=$((t + 1))
		[ $t -ge $((limit * 5)) ] && return 1
	done
	return 0
}

slurm_cluster_start() {
	local dir cmd host port
	if [ "$(id -u)" != 0 ]; then
		slurm_why="not root (slurmd must run as root to start jobs as their users)"
		return 1
	fi
	for cmd in munged munge unmunge setpriv slurmctld slurmd sbatch squeue scancel sinfo; do
		if ! command -v "$cmd" > /dev/null 2>&1; then
			slurm_why="$cmd not found (scripts/deps.sh test installs munge, slurmctld, slurmd, slurm-client)"
			return 1
		fi
	done
	if ! id munge > /dev/null 2>&1; then
		slurm_why="no munge user (the munge package makes it)"
		return 1
	fi
	host=$(hostname -s)
	if ! port=$(_slurm_free_port_pair); then
		slurm_why="no two free TCP ports found"
		return 1
	fi
	slurm_dir=$(mktemp -d /tmp/bv-slurm-XXXXXX) || { slurm_why="cannot make a directory in /tmp"; return 1; }
	dir=$slurm_dir
	chmod 0711 "$dir"
	mkdir -p "$dir"/{munge,state,spool,log,run}
	# munged checks its directories: owned by its user, not writable by others.
	dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
	chown -R munge:munge "$dir/munge"
	chmod 0711 "$dir/munge" # the socket's directory: every client must reach it
	chmod 0400 "$dir/munge/munge.key"
	cat > "$dir/slurm.conf" <<EOF
# Written by tests/e2e/slurm_cluster.sh: a single-host test cluster.
ClusterName=bvtest$$
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.sock
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=300
KillWait=2
SchedulerParameters=sched_min_interval=0
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=1000 State=UNKNOWN
PartitionName=${slurm_partition_name:-bvtest} Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
	export SLURM_CONF="$dir/slurm.conf" SLURM_PARTITION=${slurm_partition_name:-bvtest}
	# munged as its own user, in the foreground, in our background.
	setpriv --reuid=munge --regid=munge --init-groups \
		munged -F --socket="$dir/munge/munge.sock" --key-file="$dir/munge/munge.key" \
		--pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
		--seed-file="$dir/munge/munged.seed" > "$dir/log/munged.out" 2>&1 &
	slurm_pids+=($!)
	if ! _slurm_wait 10 sh -c "munge -S '$dir/munge/munge.sock' -n | unmunge -S '$dir/munge/munge.sock'"; then
		slurm_why="munged did not start: $(tail -3 "$dir/munge/munged.log" "$dir/log/munged.out" 2>/dev/null | tr '\n' ' ')"
		slurm_cluster_stop
		return 1
	fi
	slurmctld -D -i -f "$SLURM_CONF" > "$dir/log/slurmctld.out" 2>&1 &
	slurm_pids+=($!)
	slurmd -D -f "$SLURM_CONF" > "$dir/log/slurmd.out" 2>&1 &
	slurm_pids+=($!)
	# The node is idle once slurmd has registered with slurmctld.
	if ! _slurm_wait 30 sh -c "sinfo -h -N -o '%T' | grep -qx idle"; then
		slurm_why="the node did not come up: $(tail -3 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" 2>/dev/null | tr '\n' ' ')"
		slurm_cluster_stop
		return 1
	fi
	return 0
}

slurm_cluster_stop() {
	local i pid t
	# A test that failed halfway may leave jobs: cancelled first (on this
	# cluster only: its own SLURM_CONF), or their steps would outlive slurmd.
	if [ -n "$slurm_dir" ] && [ ${#slurm_pids[@]} -eq 3 ]; then
		SLURM_CONF="$slurm_dir/slurm.conf" scancel --quiet --me 2> /dev/null
		for t in $(seq 1 15); do
			[ -z "$(SLURM_CONF="$slurm_dir/slurm.conf" squeue --noheader 2> /dev/null)" ] && break
			sleep 0.2
		done
	fi
	# slurmd, then slurmctld, then munged: the reverse of starting.
	for ((i = ${#slurm_pids[@]} - 1; i >= 0; i--)); do
		pid=${slurm_pids[i]}
		kill -TERM "$pid" 2> /dev/null
	done
	for pid in "${slurm_pids[@]}"; do
		for _ in $(seq 1 25); do
			kill -0 "$pid" 2> /dev/null || break
			sleep 0.2
		done
		kill -KILL "$pid" 2> /dev/null
		wait "$pid" 2> /dev/null
	done
	slurm_pids=()
	[ -n "$slurm_dir" ] && rm -rf "$slurm_dir"
	slurm_dir=
}
