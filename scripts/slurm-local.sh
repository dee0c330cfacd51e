#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for the Slurm tests and for trying sweeps without a
# cluster: `scripts/slurm-local.sh start` writes its config under a temporary folder, starts
# munged (as the munge user: as root it refuses its log file's owner), slurmctld and slurmd, and
# prints the SLURM_CONF the client tools (sbatch, squeue, scontrol, scancel) need;
# `scripts/slurm-local.sh stop` ends the daemons it started. No systemd, no cgroups
# (proctrack/linuxproc, task/none). Needs Debian's slurm-wlm and munge
# (scripts/install-system-deps.sh) and root.
#
# TURNLAB_SLURM_DIR (default /tmp/turnlab-slurm) holds the config, state, logs and pid files.
set -euo pipefail

dir="${TURNLAB_SLURM_DIR:-/tmp/turnlab-slurm}"
conf="$dir/slurm.conf"

die() { echo "slurm-local: $*" >&2; exit 1; }

pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

write_config() {
  local host cpus mem
  host="$(hostname -s)"
  cpus="$(nproc)"
  # Leave a quarter of the memory to the rest of the machine.
  mem="$(awk '/MemTotal/ { printf "%d", $2 / 1024 * 3 / 4 }' /proc/meminfo)"
  mkdir -p "$dir/state" "$dir/spool"
  cat > "$conf" <<CONF
ClusterName=turnlab-local
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=${TURNLAB_SLURMCTLD_PORT:-6817}
SlurmdPort=${TURNLAB_SLURMD_PORT:-6818}
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
# Without a default every task takes the node's whole memory and an array runs one at a time.
DefMemPerCPU=256
# A job starts within a second of sbatch instead of at the next scheduling pass, and a requeued
# one within a second or two of its cred_expire (the passes run every 30 and 60 s by default).
SchedulerParameters=batch_sched_delay=0,bf_interval=1,sched_interval=2
MailProg=/bin/true
ReturnToService=2
# No slurmdbd, so no sacct: one line per ended job here, read when scontrol has forgotten it.
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/jobcomp.txt
KillWait=10
# A requeued job waits cred_expire seconds (120 by default) before it may start again.
AuthInfo=cred_expire=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
}

start_munge() {
  if munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then return; fi
  [ -f /etc/munge/munge.key ] || die "no /etc/munge/munge.key (reinstall munge: apt-get install --reinstall munge)"
  mkdir -p /run/munge
  chown munge:munge /run/munge
  runuser -u munge -- /usr/sbin/munged
  # Ours to stop on `stop` (a munged that ran before is left alone).
  mkdir -p "$dir"
  touch "$dir/munged.ours"
  for _ in $(seq 50); do
    munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && return
    sleep 0.1
  done
  die "munged did not start (see /var/log/munge/munged.log)"
}

start() {
  [ "$(id -u)" = 0 ] || die "run as root (slurmd starts jobs as their user)"
  command -v slurmctld >/dev/null || die "slurm-wlm is not installed (sudo scripts/install-system-deps.sh)"
  start_munge
  if pid_alive "$dir/slurmctld.pid" && pid_alive "$dir/slurmd.pid"; then
    echo "export SLURM_CONF=$conf"
    return
  fi
  stop_daemons
  write_config
  slurmctld -f "$conf" -i
  slurmd -f "$conf"
  export SLURM_CONF="$conf"
  for _ in $(seq 100); do
    if sinfo -h -o '%t' 2>/dev/null | grep -qE '^(idle|mix|alloc)'; then
      echo "export SLURM_CONF=$conf"
      return
    fi
    sleep 0.2
  done
  die "the node did not come up idle within 20 s (see $dir/slurmctld.log and $dir/slurmd.log)"
}

stop_daemons() {
  for daemon in slurmd slurmctld; do
    if pid_alive "$dir/$daemon.pid"; then
      local pid
      pid="$(cat "$dir/$daemon.pid")"
      kill "$pid"
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    fi
    rm -f "$dir/$daemon.pid"
  done
}

case "${1:-}" in
  start) start ;;
  stop)
    stop_daemons
    if [ -f "$dir/munged.ours" ] && pid_alive /run/munge/munged.pid; then kill "$(cat /run/munge/munged.pid)"; fi
    rm -f "$dir/munged.ours"
    ;;
  status)
    if pid_alive "$dir/slurmctld.pid" && pid_alive "$dir/slurmd.pid"; then echo "running: export SLURM_CONF=$conf"; else echo "stopped"; exit 1; fi
    ;;
  *) die "usage: scripts/slurm-local.sh start|stop|status" ;;
esac
