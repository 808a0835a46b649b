#!/usr/bin/env bash
# Runs a `vtasim sweep` on a Slurm cluster: a job array of N shards, each
#   vtasim sweep SPEC --shard I/N --db OUT.shards/shard_I.sqlite     (I = SLURM_ARRAY_TASK_ID)
# and a merge job that starts when the whole array succeeded (--dependency=afterok:ARRAY)
#   vtasim sweep merge OUT.sqlite OUT.shards/shard_*.sqlite
# Usage: scripts/sweep-slurm.sh SPEC --db OUT.sqlite --shards N [sbatch options...]
#   e.g. scripts/sweep-slurm.sh configs/sweeps/quick.json --db quick.sqlite --shards 8 \
#          --partition=batch --cpus-per-task=4 --time=02:00:00
# The sbatch options apply to the shard array and the merge job. Each shard runs
# -j $SLURM_CPUS_PER_TASK sweep workers (1 without --cpus-per-task). Paths must be on a file
# system the compute nodes share. $VTASIM picks the vtasim binary (default: build/vtasim of this
# checkout); $VTASIM_SWEEP_ARGS adds options to every shard's `vtasim sweep` (e.g.
# "--retry-failed --timeout-per-point 600").
#
# Prints the two job ids. Watch:   squeue -j ARRAY,MERGE   (sacct -j ARRAY with accounting);
#                                  logs in OUT.shards/shard_<I>.log and OUT.shards/merge.log
# Resume:  run the same command again. Every shard database keeps its finished rows, so the new
# array skips them and runs only what is missing (also after scancel, a node failure or a time
# limit); the merge job then merges again (rows already in OUT.sqlite are identical, not
# duplicates). A shard whose points failed (status failed/timeout, exit status 3) counts as done:
# its rows are recorded and merged; VTASIM_SWEEP_ARGS=--retry-failed on a re-submit redoes them.
set -euo pipefail

die() {
  echo "sweep-slurm: error: $*" >&2
  exit 2
}
usage="usage: scripts/sweep-slurm.sh SPEC --db OUT.sqlite --shards N [sbatch options...]"

spec="" db="" shards=""
sbatch_opts=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h | --help) echo "$usage"; exit 0 ;;
    --db) [ $# -ge 2 ] || die "--db needs a file"; db=$2; shift 2 ;;
    --db=*) db=${1#--db=}; shift ;;
    --shards) [ $# -ge 2 ] || die "--shards needs a number"; shards=$2; shift 2 ;;
    --shards=*) shards=${1#--shards=}; shift ;;
    -*) sbatch_opts+=("$1"); shift ;;
    *)
      if [ -z "$spec" ]; then
        spec=$1
      else
        sbatch_opts+=("$1")  # the value of a preceding sbatch option
      fi
      shift ;;
  esac
done
[ -n "$spec" ] || die "no sweep spec given ($usage)"
[ -f "$spec" ] || die "sweep spec '$spec' does not exist"
[ -n "$db" ] || die "--db OUT.sqlite is required ($usage)"
[ -n "$shards" ] || die "--shards N is required ($usage)"
[[ "$shards" =~ ^[0-9]+$ ]] && [ "$shards" -ge 1 ] && [ "$shards" -le 100000 ] ||
  die "--shards '$shards' must be a whole number in 1..100000"

here=$(cd "$(dirname "$0")/.." && pwd)
vtasim=${VTASIM:-$here/build/vtasim}
[ -x "$vtasim" ] || die "vtasim '$vtasim' is not an executable (build it, or set VTASIM)"
vtasim=$(realpath "$vtasim")
"$vtasim" sweep --help >/dev/null 2>&1 || die "'$vtasim' has no working 'sweep' command"
command -v sbatch >/dev/null || die "sbatch not found: this script submits to Slurm"

spec=$(realpath "$spec")
db=$(realpath -m "$db")
shard_dir=$db.shards
mkdir -p "$shard_dir"
# The two batch scripts, kept next to the shards (they can be read and re-submitted by hand).
cat >"$shard_dir/shard.sbatch" <<SBATCH
#!/usr/bin/env bash
# One shard of the sweep: I = SLURM_ARRAY_TASK_ID (1..$shards). Exit 3 (some points failed, their
# rows recorded) counts as done so that the merge still runs.
set -u
i=\${SLURM_ARRAY_TASK_ID:?not running as a Slurm array task}
rc=0
'$vtasim' sweep '$spec' --shard "\$i/$shards" --db '$shard_dir/shard_'"\$i"'.sqlite' \\
  -j "\${SLURM_CPUS_PER_TASK:-1}" --quiet ${VTASIM_SWEEP_ARGS:-} || rc=\$?
if [ "\$rc" -eq 3 ]; then
  echo "shard \$i: some points failed; their rows are recorded"
  rc=0
fi
exit "\$rc"
SBATCH
cat >"$shard_dir/merge.sbatch" <<SBATCH
#!/usr/bin/env bash
# Merges the shard databases into $db.
set -eu
'$vtasim' sweep merge '$db' '$shard_dir'/shard_*.sqlite
SBATCH

submit() {
  local out
  out=$(sbatch --parsable "$@") || die "sbatch failed: sbatch $*"
  echo "${out%%;*}"  # "id" or "id;cluster"
}
array_id=$(submit --job-name=vtasim-sweep --array="1-$shards" \
  --output="$shard_dir/shard_%a.log" "${sbatch_opts[@]}" "$shard_dir/shard.sbatch")
merge_id=$(submit --job-name=vtasim-sweep-merge --dependency="afterok:$array_id" \
  --kill-on-invalid-dep=yes --output="$shard_dir/merge.log" "${sbatch_opts[@]}" \
  "$shard_dir/merge.sbatch")

echo "shard array job: $array_id ($shards tasks, databases in $shard_dir)"
echo "merge job: $merge_id (after the array succeeds, into $db)"
echo "watch: squeue -j $array_id,$merge_id; logs: $shard_dir/shard_<I>.log, $shard_dir/merge.log"
echo "resume: run the same command again (finished rows are skipped)"
