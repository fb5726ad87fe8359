#!/usr/bin/env bash
# Gradescope runs this once when the autograder image is built (Ubuntu base image, no GPU):
# the CPU backend's and the grader's packages, then the grader, the jail, the lab's checker and
# everything a student's build needs (make grading-setup). No reference solution is shipped:
# the checker computes the reference answer itself, and the lab's own stub (labs/, as
# committed: make gradescope packs the repository's last commit) gives the grader the list of
# checks.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends g++ make perl python3 libboost-context-dev \
  nlohmann-json3-dev libtomlplusplus-dev libcli11-dev libssl-dev
cd /autograder/source
test ! -e solutions || { echo "setup.sh: this autograder must not carry solutions/" >&2; exit 1; }
make BACKEND=cpu grading-setup LAB=@LAB@
# The emulator's build (the race detector's), whose run judges the races check: built once here,
# not at every submission.
make BACKEND=cpu CHECK=race grading-setup LAB=@LAB@
