#!/usr/bin/env bash
# Gradescope runs this once when the autograder image is built (Ubuntu base image, no GPU):
# the CPU backend's and the grader's packages, then the grader and the lab's harness.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends g++ make perl python3 libboost-context-dev \
  nlohmann-json3-dev libtomlplusplus-dev libcli11-dev libssl-dev
cd /autograder/source
make BACKEND=cpu build/grading/cudalab-grade
# Build the harness and the reference solution once, so that each submission only compiles its file.
make BACKEND=cpu lab-binary LAB=@LAB@ SRC=solutions/$(cd solutions && ls lab@LAB@_*.cu) OUT=build/grading/lab@LAB@/_reference/lab
