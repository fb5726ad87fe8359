#!/bin/sh
# A student without root on a machine without Boost.Context (issue 22): `make lab1` must fetch
# Debian's package itself, say so in one line, and build runners that need nothing at run time.
#
#   sudo tests/deps/without_root.sh [--no-lists] [--deps-only]
#
# Run as root (it makes a user and a private mount namespace), by hand: it needs the package
# archive (network) and a full CPU build (about a minute on 2 cores), so `make test` leaves it
# out. The system's Boost stays installed: inside the namespace only, its headers are hidden
# under an empty folder and its libraries under /dev/null, so nothing else on the machine sees
# a change. --no-lists hides apt's package lists too (the private `apt-get update` route);
# --deps-only stops after tools/setup/deps.sh.
set -u
no_lists=no deps_only=no
for a in "$@"; do
  case "$a" in --no-lists) no_lists=yes ;; --deps-only) deps_only=yes ;; *) echo "usage: $0 [--no-lists] [--deps-only]" >&2; exit 2 ;; esac
done
[ "$(id -u)" = 0 ] || { echo "SKIP  without_root: needs root (a user and a mount namespace)"; exit 0; }
repo=$(git rev-parse --show-toplevel) || exit 2
user=cudalab-noroot
id "$user" >/dev/null 2>&1 || useradd -m -s /bin/sh "$user" || exit 1
home=$(getent passwd "$user" | cut -d: -f6)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/empty" "$scratch/empty-lists"

# The repository's last commit, in the user's home, owned by the user.
rm -rf "$home/cudalab"
git clone -q "$repo" "$home/cudalab" && git -C "$home/cudalab" checkout -q "$(git -C "$repo" rev-parse HEAD)" &&
  chown -R "$user" "$home/cudalab" || exit 1

as_student=$(cat <<EOF
cd ~/cudalab
if [ $deps_only = yes ]; then tools/setup/deps.sh lab; else make lab1 BACKEND=cpu ARGS=--no-timing; fi > ../noroot.log 2>&1
echo "status \$?" >> ../noroot.log
ldd build/cpu/labs/lab1-runner 2>/dev/null | grep -c boost_context >> ../noroot.log
EOF
)
unshare -m sh -c "
  mount --bind '$scratch/empty' /usr/include/boost || exit 1
  for f in /usr/lib/*/libboost_context.*; do [ -L \"\$f\" ] || mount --bind /dev/null \"\$f\" || exit 1; done
  [ $no_lists = no ] || mount --bind '$scratch/empty-lists' /var/lib/apt/lists || exit 1
  su $user -c '$as_student'
  exit 0
" || { echo "FAIL  without_root: could not hide the system's Boost (unshare/mount)"; exit 1; }

log="$home/noroot.log"
fails=0
check() {  # check NAME TEST...: one PASS or FAIL line
  name=$1; shift
  if "$@"; then echo "PASS  $name"; else echo "FAIL  $name"; fails=$((fails + 1)); fi
}
said_once() { [ "$(grep -c 'installing needs root: Debian.s package was downloaded and unpacked' "$log")" = 1 ]; }
no_install_hint() { ! grep -q 'sudo apt-get install' "$log"; }
copy_there() { [ -f "$home/cudalab/build/deps/local/boost-context/lib/libboost_context.a" ]; }
lab_ran() { [ $deps_only = yes ] && grep -q '^status 0$' "$log" || grep -q 'checks passed' "$log"; }
static_only() { [ $deps_only = yes ] || [ "$(tail -n1 "$log")" = 0 ]; }
check "without_root: one line says Boost.Context was fetched without root" said_once
check "without_root: no sudo line" no_install_hint
check "without_root: the unpacked copy is in build/deps/local" copy_there
check "without_root: $([ $deps_only = yes ] && echo 'tools/setup/deps.sh succeeds' || echo 'make lab1 builds and runs the checks')" lab_ran
check "without_root: the runner needs no Boost at run time" static_only
[ $fails = 0 ] || { echo "--- $log"; tail -n 20 "$log"; }
exit $((fails > 0))
