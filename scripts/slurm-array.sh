#!/usr/bin/env bash
# facecrop over a photo library as a Slurm job array, one shard per task, then
# `facecrop merge` as a job that waits for the array (--dependency=afterok).
#
# Run it on the submit host (not with sbatch):
#   scripts/slurm-array.sh PHOTOS DATASET N [SBATCH_OPTION...]
#   e.g. scripts/slurm-array.sh /shared/photos /shared/dataset 8 --cpus-per-task=4
# It first checks that facecrop runs and that PHOTOS is there, then submits
# the array (indices 0..N-1; --shard auto/N reads SLURM_ARRAY_TASK_ID) and the
# merge, and prints the two job ids. SBATCH_OPTIONs go to both sbatch calls
# (with --wait, each call returns when its job has finished).
#
# facecrop is $FACECROP, else `facecrop` on PATH; the path found here is the
# one the jobs run, so it must be the same on every node (a shared or
# identical install). Each task runs as many workers as CPUs Slurm gave it
# (--cpus-per-task, default 1): the script asks for no fixed number, which on
# a smaller node would leave the job pending forever.
set -euo pipefail

find_facecrop() {
    local found
    found="$(command -v "${FACECROP:-facecrop}" 2>/dev/null)" && "$found" --version >/dev/null 2>&1 && { echo "$found"; return 0; }
    echo "slurm-array.sh: no working facecrop on $(hostname -s): ${FACECROP:+FACECROP=$FACECROP; }PATH=$PATH" >&2
    echo "slurm-array.sh: install it on every node, or name it: FACECROP=/path/to/facecrop scripts/slurm-array.sh ..." >&2
    return 127
}

# One array task (sbatch runs this script with SLURM_ARRAY_TASK_ID set).
if [ -n "${SLURM_ARRAY_TASK_ID:-}" ]; then
    facecrop="$(find_facecrop)" || exit 127
    # SLURM_CPUS_PER_TASK is set only when --cpus-per-task was given;
    # SLURM_JOB_CPUS_PER_NODE (e.g. "2" or "2(x3)") always is.
    cpus="${SLURM_CPUS_PER_TASK:-${SLURM_JOB_CPUS_PER_NODE:-1}}"
    cpus="${cpus%%[^0-9]*}"
    # Every task writes into the same shared folder; their files never collide.
    exec "$facecrop" "$1" -o "$2" --shard "auto/$3" --jobs "${cpus:-1}" --quiet
fi

if [ $# -lt 3 ]; then
    echo "usage: scripts/slurm-array.sh PHOTOS DATASET N [SBATCH_OPTION...]" >&2
    exit 64
fi
photos="$1" dataset="$2" shards="$3"
shift 3
case "$shards" in '' | *[!0-9]* | 0) echo "slurm-array.sh: N must be a positive number, not '$shards'" >&2; exit 64 ;; esac
[ -d "$photos" ] && [ -r "$photos" ] || { echo "slurm-array.sh: cannot read the photo folder '$photos'" >&2; exit 66; }
command -v sbatch >/dev/null || { echo "slurm-array.sh: no sbatch here; run this on a Slurm submit host" >&2; exit 69; }
facecrop="$(find_facecrop)" || exit 127
facecrop="$(realpath "$facecrop")"
photos="$(realpath "$photos")"
dataset="$(realpath -m "$dataset")"
script="$(realpath "$0")"

# With --wait, sbatch prints the id at once and exits with the job's status.
status=0
array="$(FACECROP="$facecrop" sbatch --parsable --export=ALL --array="0-$((shards - 1))" --job-name=facecrop "$@" \
    "$script" "$photos" "$dataset" "$shards")" || status=$?
array="${array%%;*}"
[ -n "$array" ] || exit "$status"
echo "$array"
[ "$status" -eq 0 ] || { echo "slurm-array.sh: array job $array failed (status $status)" >&2; exit "$status"; }
merge="$(sbatch --parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes --job-name=facecrop-merge "$@" \
    --wrap "$(printf '%q ' "$facecrop" merge "$dataset" "$dataset") --quiet")" || status=$?
[ -z "$merge" ] || echo "${merge%%;*}"
exit "$status"
