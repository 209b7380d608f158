#!/bin/sh
# ctest compare.sweep_parallel_matches_jobs (docs/compare.md, "Running a sweep on a
# cluster"): a 5-point tls density sweep run in-process with --jobs 2, and the same sweep
# emitted as jobs, run by GNU parallel and merged by `compare collect`, give the same
# sweep.csv byte for byte. The Slurm array script passes `bash -n`, and its body run
# with SLURM_ARRAY_TASK_ID=3 (no cluster here) writes the result of line 3 again.
# Usage: sweep_parallel.sh X86LAB WORKDIR. Exit 77 (skipped) without GNU parallel.
set -eu
x86lab=$1
work=$2
if ! parallel --version 2>/dev/null | grep -q 'GNU parallel'; then
  echo "SKIP: GNU parallel is not installed (Debian package parallel; scripts/install-deps.sh installs it)"
  exit 77
fi
rm -rf "$work"
mkdir -p "$work"
vary="--vary density=5,20,40,70,100"
"$x86lab" compare sweep tls $vary --jobs 2 --out "$work/local"
"$x86lab" compare sweep tls $vary --emit-jobs "$work/jobs"
test "$(wc -l < "$work/jobs/jobs.txt")" -eq 5
"$work/jobs/run-parallel.sh" --jobs 2
"$x86lab" compare collect "$work/jobs"
cmp "$work/local/sweep.csv" "$work/jobs/sweep.csv"
test "$(wc -l < "$work/local/sweep.csv")" -eq 41  # header + 5 points x 8 variants
test -s "$work/jobs/tls-slowdown-vs-density.png"

bash -n "$work/jobs/sweep.sbatch"
grep -q '^#SBATCH --array=1-5$' "$work/jobs/sweep.sbatch"
mv "$work/jobs/results/p00003.txt" "$work/p00003.parallel"
SLURM_ARRAY_TASK_ID=3 bash "$work/jobs/sweep.sbatch"
cmp "$work/p00003.parallel" "$work/jobs/results/p00003.txt"
if SLURM_ARRAY_TASK_ID=6 bash "$work/jobs/sweep.sbatch" 2>/dev/null; then
  echo "FAIL: the Slurm script ran a task beyond jobs.txt"
  exit 1
fi
"$x86lab" compare collect "$work/jobs" --out "$work/collected-again"
cmp "$work/local/sweep.csv" "$work/collected-again/sweep.csv"
echo "sweep.csv identical: --jobs 2, GNU parallel + collect, Slurm task 3 + collect"
