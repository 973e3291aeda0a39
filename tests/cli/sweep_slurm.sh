#!/usr/bin/env bash
# `redraw sweep --slurm` on a real one-node Slurm cluster started here on localhost (as root, with
# munge): the grid goes in as one job array and a collect job after it; every task trains its cell
# (redraw sweep --cell K DIR), the collect job writes results.csv and report.html. Installs
# nothing (scripts/install_deps.sh installs slurm-wlm and munge); skips (77) only when the daemons
# cannot start here. A task requeued while it trains (scontrol requeue) resumes its cell from its
# checkpoint. Usage: sweep_slurm.sh path/to/redraw
set -u
redraw="$(realpath "$1")"
. "$(dirname "$0")/../lib.sh"
require_tools slurmctld slurmd sbatch squeue sinfo munged munge unmunge
[ "$(id -u)" = 0 ] || { echo "SKIP: the Slurm daemons need root here (a one-node cluster on localhost)"; exit 77; }
cluster="$work/cluster"
mkdir -p "$cluster/state" "$cluster/spool"
daemons=()
stop_cluster() {
  local p
  for p in "${daemons[@]}"; do kill -TERM "$p" 2>/dev/null; done
  for p in "${daemons[@]}"; do wait_for 10 "! kill -0 $p 2>/dev/null" || kill -9 "$p" 2>/dev/null; done
}
trap 'stop_cluster; cleanup' EXIT
skip_because() { echo "SKIP: $1"; for f in "$cluster"/*.log; do [ -f "$f" ] && { echo "--- $f"; tail -20 "$f"; }; done; exit 77; }

# ---- munge: the key (owned by munge) and the daemon, unless one already answers ----
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  if [ ! -s /etc/munge/munge.key ]; then
    mkdir -p /etc/munge
    mungekey --create --keyfile=/etc/munge/munge.key 2>/dev/null || dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2>/dev/null
  fi
  chown munge:munge /etc/munge/munge.key 2>/dev/null && chmod 0400 /etc/munge/munge.key
  mkdir -p /run/munge /var/lib/munge /var/log/munge && chown munge:munge /run/munge /var/lib/munge /var/log/munge
  runuser -u munge -- munged --pid-file=/run/munge/munged.pid >"$cluster/munged.log" 2>&1 ||
    skip_because "munged does not start"
  wait_for 10 "[ -s /run/munge/munged.pid ]" && daemons+=("$(cat /run/munge/munged.pid)")
  wait_for 10 "munge -n 2>/dev/null | unmunge >/dev/null 2>&1" || skip_because "munge does not answer"
fi

# ---- slurm.conf: one node, this machine's CPUs, a bit less memory than is free ----
cpus=$(nproc)
memory=$(awk '/MemAvailable/ {print int($2 / 1024 * 0.8)}' /proc/meminfo)
port=$((17000 + RANDOM % 2000))
cat >"$cluster/slurm.conf" <<CONF
ClusterName=redrawtest
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
StateSaveLocation=$cluster/state
SlurmdSpoolDir=$cluster/spool
SlurmctldPidFile=$cluster/slurmctld.pid
SlurmdPidFile=$cluster/slurmd.pid
SlurmctldLogFile=$cluster/slurmctld.log
SlurmdLogFile=$cluster/slurmd.log
SlurmctldTimeout=30
SlurmdTimeout=30
MinJobAge=60
KillWait=5
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$cluster/slurm.conf"
slurmctld -D -c -f "$SLURM_CONF" >>"$cluster/slurmctld.log" 2>&1 &
daemons+=($!)
slurmd -D -N localhost -f "$SLURM_CONF" >>"$cluster/slurmd.log" 2>&1 &
daemons+=($!)
wait_for 30 '[ "$(sinfo -h -o %T 2>/dev/null)" = idle ]' || skip_because "the one-node cluster does not come up ($(sinfo -h -o %T 2>&1))"
ok "a one-node cluster: $(sinfo -h -o '%P %D %c %T')"

# ---- an 8-cell sweep as one job array and its collect job ----
make_png "$work/a.png" 24 16
make_png "$work/b.png" 16 16
tiny_config "$work/tiny.json" 1000000 10 adam
# A folder name with a space, an apostrophe and a % (Slurm's file-pattern sign) reaches Slurm as it is.
out="$work/my sweep's 100%"
check_run "submitted" "$redraw" sweep --slurm --images "$work/a.png" "$work/b.png" --presets "$work/tiny.json" \
  --set schedule.lr_max=0.01,0.003 --seeds 2 --steps 200 --out "$out" --time 00:05:00 --sbatch-arg=--mem=100
check '[ -s "$out/sweep.json" ] && [ -s "$out/slurm/cells.sbatch" ] && grep -q "^#SBATCH --array=0-7$" "$out/slurm/cells.sbatch"'
array=$(sed -n 's/^array //p' "$out/slurm/jobs.txt")
collect=$(sed -n 's/^collect //p' "$out/slurm/jobs.txt")
check "[ -n '$array' ] && [ -n '$collect' ]"
check 'wait_for 100 "[ -z \"\$(squeue -h 2>/dev/null)\" ] && squeue >/dev/null 2>&1"  # the array and the collect job ran'
squeue 2>&1 | head -5
check '[ $(grep -c ",done," "$out/results.csv" 2>/dev/null) = 8 ]  # every cell done'
check '[ -s "$out/report.html" ] && [ -s "$out/summary.csv" ]'
check '[ $(ls "$out"/slurm/cell-*.out 2>/dev/null | wc -l) = 8 ] && grep -q "done" "$out/slurm/cell-3.out"'
check 'grep -q "cells" "$out/slurm/collect.out"'

# ---- a requeued task resumes its cell from its checkpoint; the cell that ended is not run again ----
out2="$work/requeue"
check_run "submitted a 2-cell sweep" "$redraw" sweep --slurm --images "$work/a.png" --presets "$work/tiny.json" \
  --set schedule.lr_max=0.01,0.003 --time-limit 8 --checkpoint-every 20 --out "$out2" --time 00:05:00 --sbatch-arg=--mem=100
array2=$(sed -n 's/^array //p' "$out2/slurm/jobs.txt")
check 'wait_for 60 "ls \"$out2\"/cells/000-*/model.redraw >/dev/null 2>&1"  # cell 0 has a checkpoint'
check_run "requeued task 0" scontrol requeue "${array2}_0"
# Slurm holds a requeued job for two minutes (Reason=BeginTime); let it start again now.
check 'wait_for 30 "squeue -h -j ${array2}_0 -o %r 2>/dev/null | grep -q BeginTime"'
check_run "task 0 released" scontrol update JobId="${array2}_0" StartTime=now
check 'wait_for 100 "[ -z \"\$(squeue -h 2>/dev/null)\" ] && squeue >/dev/null 2>&1"'
check '[ $(grep -c ",done," "$out2/results.csv" 2>/dev/null) = 2 ]  # both cells done'
check '[ $(grep -c "^== redraw sweep:" "$out2"/cells/000-*/train.log) = 2 ] && grep -q -- "--resume" "$out2"/cells/000-*/train.log  # cell 0 ran twice, resumed'
check '[ $(grep -c "^== redraw sweep:" "$out2"/cells/001-*/train.log) = 1 ]  # cell 1 once'
check 'python3 -c "import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); sys.exit(not all(float(x[\"seconds\"]) < 9 for x in r))" "$out2/results.csv"  # 8 s each, the resumed one too'
# ---- a newline in a value would end its #SBATCH line and start a command: refused, nothing submitted ----
touch_file="$work/injected"
expect 2 "--partition: the partition holds a control character" -- "$redraw" sweep --slurm --images "$work/a.png" \
  --presets "$work/tiny.json" --steps 10 --out "$work/inj1" --partition $'debug\n#SBATCH --wrap="touch '"$touch_file"'"'
expect 2 "--time: the time limit holds a control character" -- "$redraw" sweep --slurm --images "$work/a.png" \
  --presets "$work/tiny.json" --steps 10 --out "$work/inj2" --time $'00:05:00\ntouch '"$touch_file"
expect 2 "--out: the sweep's folder holds a control character" -- "$redraw" sweep --slurm --images "$work/a.png" \
  --presets "$work/tiny.json" --steps 10 --out "$work/inj3"$'\ntouch '"$touch_file"
check '[ ! -e "$work/inj1" ] && [ ! -e "$work/inj2" ] && [ -z "$(squeue -h 2>/dev/null)" ]  # nothing written or submitted'
sleep 1
check '[ ! -e "$touch_file" ]  # no injected command ran'
if [ "$failures" != 0 ]; then
  for f in "$out"/slurm/*.out "$out2"/slurm/*.out "$cluster"/*.log; do [ -f "$f" ] && { echo "--- $f"; tail -15 "$f"; }; done
fi
finish sweep_slurm
