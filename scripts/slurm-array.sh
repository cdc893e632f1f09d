#!/usr/bin/env bash
# Runs facecrop over a photo library on N Slurm nodes, then merges.
# Submit with:  sbatch --array=0-7 scripts/slurm-array.sh /shared/photos /shared/dataset 8
# (array indices must run from 0 to N-1; --shard auto/N reads SLURM_ARRAY_TASK_ID)
# and, when all tasks are done:
#   sbatch --dependency=afterok:<jobid> --wrap "facecrop merge /shared/dataset /shared/dataset"
#SBATCH --job-name=facecrop
#SBATCH --cpus-per-task=4
#SBATCH --mem=2G
set -euo pipefail
photos=${1:?photo folder}
dataset=${2:?shared output folder}
shards=${3:?number of shards}
# Every task writes into the same shared folder; their files never collide.
exec facecrop "$photos" -o "$dataset" --shard "auto/$shards" --jobs "${SLURM_CPUS_PER_TASK:-4}" --quiet
