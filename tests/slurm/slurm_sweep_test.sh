#!/usr/bin/env bash
# A real single-node Slurm cluster (munge, slurmctld, slurmd; the recipe of the project's Slurm
# notes) runs a small sweep through scripts/sweep-slurm.sh: 8 design points in 2 shards, then the
# merge job. The merged database must equal the same sweep run locally: the same rows with the
# same values in every column (cycles included) except wall time. Stops exactly the daemons it
# started, by their PIDs. Needs root (or password-less sudo) and installs slurm-wlm and munge if
# missing; without them, or without `vtasim sweep`, it exits 77 (ctest's skip code) saying why.
# Usage: slurm_sweep_test.sh VTASIM SOURCE_DIR
set -euo pipefail
vtasim=$(realpath "$1")
src=$(realpath "$2")
skip() {
  echo "SKIPPED: $*"
  exit 77
}
fail() {
  echo "FAILED: $*" >&2
  exit 1
}

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    exec sudo -n bash "$0" "$@"
  fi
  skip "a Slurm cluster needs root or password-less sudo to start munged, slurmctld and slurmd"
fi
"$vtasim" sweep --help >/dev/null 2>&1 || skip "'$vtasim' has no 'sweep' command"

missing=()
for p in slurm-wlm munge; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" \
    >/dev/null || fail "cannot install ${missing[*]}"
fi

tmp=$(mktemp -d /tmp/vtasim-slurm.XXXXXX)
started_munged=""
cleanup() {
  local rc=$?
  for f in "$tmp/slurmd.pid" "$tmp/slurmctld.pid"; do
    if [ -s "$f" ]; then
      kill "$(cat "$f")" 2>/dev/null || true
    fi
  done
  [ -n "$started_munged" ] && kill "$started_munged" 2>/dev/null || true
  # Wait for the daemons to go (a zombie has gone), so that a next run finds the ports free.
  for _ in $(seq 50); do
    alive=0
    for f in "$tmp/slurmd.pid" "$tmp/slurmctld.pid"; do
      if [ -s "$f" ]; then
        case "$(ps -o stat= -p "$(cat "$f")" 2>/dev/null)" in
          "" | Z*) ;;
          *) alive=1 ;;
        esac
      fi
    done
    [ $alive -eq 0 ] && break
    sleep 0.1
  done
  if [ $rc -eq 0 ]; then
    rm -rf "$tmp"
  else
    echo "state, logs and databases kept in $tmp" >&2
    tail -n 20 "$tmp"/*.log "$tmp"/out/merged.sqlite.shards/*.log 2>/dev/null >&2 || true
  fi
}
trap cleanup EXIT

# munge: use the running munged if there is one (not ours to stop), else start one.
if [ ! -s /etc/munge/munge.key ]; then
  dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
  chown munge:munge /etc/munge/munge.key
  chmod 400 /etc/munge/munge.key
fi
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  mkdir -p /run/munge && chown munge:munge /run/munge
  su -s /bin/sh munge -c /usr/sbin/munged
  for _ in $(seq 50); do
    [ -s /run/munge/munged.pid ] && break
    sleep 0.1
  done
  started_munged=$(cat /run/munge/munged.pid)
  munge -n | unmunge >/dev/null || fail "munged does not answer"
fi

host=$(hostname -s)
mem=$(free -m | awk '/^Mem:/ {print $2}')
[ "$mem" -gt 4000 ] && mem=4000
export SLURM_CONF=$tmp/slurm.conf
cat >"$SLURM_CONF" <<CONF
ClusterName=local
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/out"
slurmctld || fail "slurmctld did not start"
sleep 2
slurmd || fail "slurmd did not start"
for _ in $(seq 240); do  # up to 2 minutes on a loaded machine
  state=$(sinfo -h -o %T 2>/dev/null | head -n 1)
  [ "$state" = "idle" ] && break
  sleep 0.5
done
[ "$state" = "idle" ] || fail "the node is '$state', not idle"

# 2 x 2 x 2 = 8 design points of a small conv2d on the cycle backend.
cat >"$tmp/spec.json" <<SPEC
{"name": "slurm_test", "base": "pynq",
 "axes": {"LOG_BUS_WIDTH": [6, 7], "DRAM_READ_LATENCY_CYCLES": [16, 64], "CLOCK_MHZ": [100, 250]},
 "workloads": ["conv2d:c=32,hw=8,k=32,kernel=3,pad=1", "matmul:16x64x32"],
 "backend": "cycle", "schedule": "auto"}
SPEC
# Submits the sweep through the script and waits until its array and merge job left the queue.
submit_and_wait() {
  out=$(VTASIM=$vtasim bash "$src/scripts/sweep-slurm.sh" "$tmp/spec.json" \
    --db "$tmp/out/merged.sqlite" --shards 2 --time=10) || fail "sweep-slurm.sh failed: $out"
  echo "$out"
  array_id=$(echo "$out" | sed -n 's/^shard array job: \([0-9]*\) .*/\1/p')
  merge_id=$(echo "$out" | sed -n 's/^merge job: \([0-9]*\) .*/\1/p')
  [ -n "$array_id" ] && [ -n "$merge_id" ] || fail "no job ids in the script's output"
  if [ "${1:-}" = "local" ]; then  # the local sweep while Slurm works
    "$vtasim" sweep "$tmp/spec.json" --db "$tmp/local.sqlite" -j 1 --quiet >/dev/null
  fi
  for _ in $(seq 180); do
    [ -z "$(squeue -h -j "$array_id,$merge_id" 2>/dev/null)" ] && break
    sleep 0.5
  done
  [ -z "$(squeue -h -j "$array_id,$merge_id" 2>/dev/null)" ] || fail "jobs still queued: $(squeue)"
  [ -s "$tmp/out/merged.sqlite" ] || fail "the merge job wrote no database"
  grep -q "^merged " "$tmp/out/merged.sqlite.shards/merge.log" || fail "the merge job did not merge"
}

# The merged database against the local one: same rows, same values (wall time aside).
check_merged() {
  /usr/bin/python3 - "$tmp/local.sqlite" "$tmp/out/merged.sqlite" <<'PY'
import sqlite3, sys
def rows(path):
    con = sqlite3.connect(path)
    cur = con.execute("SELECT * FROM results")
    cols = [d[0] for d in cur.description]
    keep = [i for i, c in enumerate(cols) if c != "wall_seconds"]
    return sorted(tuple((cols[i], r[i]) for i in keep) for r in cur.fetchall()), cols
local, lcols = rows(sys.argv[1])
merged, mcols = rows(sys.argv[2])
summaries = [dict(r) for r in local if dict(r)["row_kind"] == "summary"]
points = {r["point_id"] for r in summaries}
if len(points) < 8:
    sys.exit(f"the local sweep has {len(points)} design points, expected 8")
if not all(r["status"] == "ok" and r["cycles"] > 0 for r in summaries):
    sys.exit("a local summary row is not ok with cycles")
if sorted(lcols) != sorted(mcols):
    sys.exit(f"columns differ: {sorted(set(lcols) ^ set(mcols))}")
if local != merged:
    sys.exit(f"the merged database differs from the local sweep ({len(merged)} vs {len(local)} rows)")
print(f"merged database equals the local sweep: {len(local)} rows, {len(points)} design points")
PY
}

submit_and_wait local
check_merged || fail "merged database differs"
# Resubmitted, every shard finds its rows done and runs nothing; the merge leaves the same rows.
submit_and_wait
for i in 1 2; do
  grep -q "ran 0, [0-9]* already done" "$tmp/out/merged.sqlite.shards/shard_$i.log" ||
    fail "resubmitted shard $i ran jobs again: $(cat "$tmp/out/merged.sqlite.shards/shard_$i.log")"
done
check_merged || fail "merged database differs after the resubmission"
echo "slurm: sweep through a shard array and a merge job, resubmission skipped finished rows"
