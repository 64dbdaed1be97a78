#!/bin/bash
# A gauntlet as a Slurm job array, one shard per array task: `sbatch deploy/slurm/gauntlet.sh`
# from the folder that holds engines.toml. Every shard gets the same --seed, so the shards are
# disjoint slices of one schedule; a task that is cancelled, preempted or requeued resumes
# its own folder when it runs again (`scancel JOBID_TASK` stops a shard: the games in progress
# are left unplayed, not lost, even where an engine heard the signal first). When all are
# done:
#   blitz-arena merge results/shard-* --out results/all
# Each setting below can be given in the environment instead (sbatch passes it on), e.g.
#   SHARDS=3 ENGINE=minimax VS=greedy sbatch --array=0-2 deploy/slurm/gauntlet.sh
#SBATCH --job-name=blitz-gauntlet
#SBATCH --array=0-7
#SBATCH --cpus-per-task=2
#SBATCH --time=06:00:00
#SBATCH --output=shard-%a.log
#SBATCH --open-mode=append
set -euo pipefail
arena="${BLITZ_ARENA:-blitz-arena}"
engine="${ENGINE:-stockfish}"
vs="${VS:-glaurung,toga2}"
shards="${SHARDS:-8}"   # the number of array tasks: --array=0-(SHARDS-1)
results="${RESULTS:-results}"
# shellcheck disable=SC2206  # EXTRA holds further run options, split on spaces
extra=(${EXTRA:-})
shard=$((SLURM_ARRAY_TASK_ID + 1))
out="$results/shard-$shard"
if [ -f "$out/run.json" ]; then
  exec "$arena" gauntlet "$engine" --vs "$vs" --resume "$out"
fi
mkdir -p "$results"
exec "$arena" gauntlet "$engine" --vs "$vs" --tc "${TC:-5+0}" --games "${GAMES:-400}" \
  --seed "${SEED:-42}" --concurrency "${SLURM_CPUS_PER_TASK:-1}" --shard "$shard/$shards" \
  --out "$out" "${extra[@]}"
