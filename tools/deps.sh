#!/bin/sh
# cudalab's dependencies, checked by trying the thing itself (a tiny program that includes the
# header and links the library), installed when we may (root, or sudo without a password),
# otherwise named in the one command to run. Called by make; each check passes once, then a
# stamp in build/deps/ keeps later runs instant.
#
#   tools/deps.sh WHAT...    WHAT: lab (make labN on the CPU backend), test (make test), grade
#                            (make grade / make test-grading), or single names:
#                            boost-context doctest json toml cli11 openssl jsonschema
#                            chromium copydetect slurm
#
# Debian/Ubuntu package per name (the README's table lists the same):
#   boost-context  libboost-context-dev    the CPU backend's fibers        make labN (no GPU), make test
#   doctest        doctest-dev             unit and integration tests      make test
#   json           nlohmann-json3-dev      tests, the grader               make test, make grade
#   toml           libtomlplusplus-dev     the grader's rubrics            make test, make grade
#   cli11          libcli11-dev            the grader's command line       make test, make grade
#   openssl        libssl-dev              the grader's secrets            make test, make grade
#   jsonschema     python3-jsonschema      the Gradescope format's test    make test
#   chromium       chromium                the class report's test         make test-report, make test
#   copydetect     copydetect (PyPI: pip)  the class report's similarity   make test-report, make test
#   slurm          slurmctld slurmd        a one-node Slurm: the test of   make test-slurm (as root; it
#                  slurm-client munge      make grade-slurm                asks for them itself)
set -u
CXX=${CXX_FOR_DEPS:-g++}
STAMPS=build/deps
mkdir -p "$STAMPS"

names=""
for w in "$@"; do
  case "$w" in
    lab) names="$names boost-context" ;;
    test) names="$names boost-context doctest json toml cli11 openssl jsonschema chromium copydetect" ;;
    grade) names="$names json toml cli11 openssl boost-context" ;;
    *) names="$names $w" ;;
  esac
done

# Everything already known to work: nothing to do (no scratch files, no compiler,
# no lock: Slurm tasks run make at once on a shared file system).
all_ok=yes
for n in $names; do [ -f "$STAMPS/$n.ok" ] || all_ok=no; done
[ $all_ok = yes ] && exit 0

# make -j runs several of these at once (test-deps, grade-deps, ...): one at a time, so two
# apt-gets never race for dpkg's lock, and the second finds the first one's stamps.
if [ -z "${CUDALAB_DEPS_LOCKED:-}" ] && command -v flock >/dev/null 2>&1; then
  CUDALAB_DEPS_LOCKED=1 exec flock "$STAMPS/.lock" "$0" "$@"
fi

package() {
  case "$1" in
    boost-context) echo libboost-context-dev ;;
    doctest) echo doctest-dev ;;
    json) echo nlohmann-json3-dev ;;
    toml) echo libtomlplusplus-dev ;;
    cli11) echo libcli11-dev ;;
    openssl) echo libssl-dev ;;
    jsonschema) echo python3-jsonschema ;;
    chromium) echo chromium ;;
    # Not packaged by Debian: from PyPI, through pip (the install step goes by the prefix).
    copydetect) echo pypi:copydetect ;;
    slurm) echo slurmctld slurmd slurm-client munge ;;
    *) echo "tools/deps.sh: no dependency called '$1'" >&2; exit 2 ;;
  esac
}

# Scratch space beside the stamps (a build jail may have no writable /tmp).
tmp="$STAMPS/tmp.$$"
mkdir -p "$tmp" || exit 1
trap 'rm -rf "$tmp"' EXIT

# Builds (and for libraries links) a program that uses the thing; 0 when it works.
try_cxx() {  # $1 name, $2 link flags; the program on stdin
  cat > "$tmp/$1.cpp"
  $CXX -std=c++20 "$tmp/$1.cpp" $2 -o "$tmp/$1" >"$tmp/$1.log" 2>&1
}
works() {
  case "$1" in
    boost-context) try_cxx "$1" "-lboost_context" <<'EOF'
#include <boost/context/fiber.hpp>
int main() { return boost::context::stack_traits::page_size() > 0 ? 0 : 1; }
EOF
      ;;
    doctest) try_cxx "$1" "" <<'EOF'
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
EOF
      ;;
    json) try_cxx "$1" "" <<'EOF'
#include <nlohmann/json.hpp>
int main() { return nlohmann::json::parse("{\"a\":1}")["a"] == 1 ? 0 : 1; }
EOF
      ;;
    toml) try_cxx "$1" "" <<'EOF'
#include <toml++/toml.h>
int main() { return toml::parse("a = 1")["a"].value_or(0) == 1 ? 0 : 1; }
EOF
      ;;
    cli11) try_cxx "$1" "" <<'EOF'
#include <CLI/CLI.hpp>
int main(int argc, char** argv) { CLI::App app; CLI11_PARSE(app, argc, argv); return 0; }
EOF
      ;;
    openssl) try_cxx "$1" "-lcrypto" <<'EOF'
#include <openssl/evp.h>
int main() { EVP_MD_CTX* c = EVP_MD_CTX_new(); EVP_MD_CTX_free(c); return 0; }
EOF
      ;;
    jsonschema) python3 -c 'import jsonschema' >/dev/null 2>&1 ;;
    chromium) chromium --version >/dev/null 2>&1 ;;
    copydetect) python3 -c 'import copydetect' >/dev/null 2>&1 ;;
    # The daemons live in sbin, which a user's PATH may lack.
    slurm) PATH="$PATH:/usr/sbin:/sbin" sh -c 'command -v slurmctld && command -v slurmd && command -v sbatch && command -v munged' >/dev/null 2>&1 ;;
  esac
}

missing=""
missing_pip=""
missing_names=""
seen=""
for n in $names; do
  case " $seen " in *" $n "*) continue ;; esac
  seen="$seen $n"
  p=$(package "$n") || exit 2
  [ -f "$STAMPS/$n.ok" ] && continue
  if works "$n"; then touch "$STAMPS/$n.ok"; continue; fi
  case "$p" in pypi:*) missing_pip="$missing_pip ${p#pypi:}" ;; *) missing="$missing $p" ;; esac
  missing_names="$missing_names $n"
done
[ -z "$missing$missing_pip" ] && exit 0

# pip itself, for a package from PyPI, is a Debian package (python3-pip).
if [ -n "$missing_pip" ] && ! python3 -m pip --version >/dev/null 2>&1; then missing="$missing python3-pip"; fi
missing=${missing# }
if [ -z "$missing" ]; then
  :  # nothing from Debian: PyPI's packages follow
elif command -v apt-get >/dev/null 2>&1; then
  SUDO=""
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo"; else
      echo "cudalab: needed here and missing:$missing_names. Install once with:"
      echo "    sudo apt-get install $missing"
      exit 1
    fi
  fi
  echo "cudalab: installing $missing (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get install -y -q -o DPkg::Lock::Timeout=300 $missing >"$tmp/apt.log" 2>&1 ||
    { $SUDO apt-get update -q >>"$tmp/apt.log" 2>&1 && $SUDO apt-get install -y -q -o DPkg::Lock::Timeout=300 $missing >>"$tmp/apt.log" 2>&1; } ||
    { tail -5 "$tmp/apt.log"; echo "cudalab: apt-get could not install $missing (above). Once a package archive is reachable, run:"
      echo "    ${SUDO:+sudo }apt-get update && ${SUDO:+sudo }apt-get install $missing"; exit 1; }
else
  echo "cudalab: missing:$missing_names (Debian/Ubuntu packages: $missing); install them with your package manager"
  exit 1
fi

# From PyPI, into the python3 that runs the tests: as root only (sudo's python3 may not be the
# user's). Debian 12's own python3 refuses pip outside a virtual environment (PEP 668); as root,
# where apt-get installs system-wide anyway, pip is told to go ahead.
if [ -n "$missing_pip" ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "cudalab: needed here and missing:$missing_pip (from PyPI). Install once with:"
    echo "    python3 -m pip install$missing_pip"
    exit 1
  fi
  echo "cudalab: installing$missing_pip (pip)"
  python3 -m pip install -q $missing_pip >"$tmp/pip.log" 2>&1 ||
    { grep -q externally-managed-environment "$tmp/pip.log" &&
      python3 -m pip install -q --break-system-packages $missing_pip >>"$tmp/pip.log" 2>&1; } ||
    { tail -5 "$tmp/pip.log"; echo "cudalab: pip could not install$missing_pip (above). Once PyPI is reachable, run:"
      echo "    python3 -m pip install$missing_pip"; exit 1; }
fi

# Installed: they must work now, or say which does not.
for n in $missing_names; do
  if works "$n"; then touch "$STAMPS/$n.ok"; else
    echo "cudalab: $(package "$n") is installed but a program using it still does not work:"
    sed 's/^/    /' "$tmp/$n.log" 2>/dev/null | tail -5
    exit 1
  fi
done
