#!/usr/bin/env bash
# Unpacks (never installs) Debian's packages of the grader's libraries and Boost.Context into
# .carry/deps, for a GPU machine that lacks them (the device tool carries the git-ignored .carry/
# folder along: `carry: [".carry"]`). tools/gpu/gpu_grading.sh and tools/gpu/gpu_session.sh use it.
#   tools/setup/carry_deps.sh
set -eu
cd "$(dirname "$0")/../.."
dest=.carry/deps
mkdir -p "$dest" .carry/debs
boost=$(apt-cache depends libboost-context-dev | sed -n 's/.*Depends: \(libboost-context[0-9.]*-dev\)/\1/p' | head -n1)
packages="$boost ${boost%-dev}.0 libtomlplusplus-dev libtomlplusplus3 nlohmann-json3-dev libcli11-dev libssl-dev"
(cd .carry/debs && apt-get download $packages > /dev/null)
for deb in .carry/debs/*.deb; do dpkg -x "$deb" "$dest"; done
# Static Boost.Context only: a runner built here then needs nothing of it where it runs (a jail).
rm -rf .carry/debs "$dest"/usr/lib/x86_64-linux-gnu/libboost_context.so*
echo "carry_deps: $(du -sh "$dest" | cut -f1) in $dest ($packages)"
