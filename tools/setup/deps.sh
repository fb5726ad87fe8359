#!/bin/sh
# cudalab's dependencies, checked by trying the thing itself (a tiny program that includes the
# header and links the library), installed when we may (root, or sudo without a password),
# otherwise named in the one command to run. Called by make; each check passes once, then a
# stamp in build/deps/ keeps later runs instant.
#
#   tools/setup/deps.sh WHAT...    WHAT: lab (make labN on the CPU backend), test (make test), grade
#                            (make grade / make test-grading), or single names:
#                            boost-context doctest json toml cli11 openssl jsonschema
#                            chromium copydetect slurm clang-format
#
# Debian/Ubuntu package per name (the README's table lists the same):
#   boost-context  libboost-context-dev    the CPU backend's fibers        make labN (no GPU), make test
#   doctest        doctest-dev             unit and integration tests      make test
#   json           nlohmann-json3-dev      tests, the grader               make test, make grade
#   toml           libtomlplusplus-dev     the grader's rubrics            make test, make grade
#   cli11          libcli11-dev            the grader's command line       make test, make grade
#   openssl        libssl-dev              the grader's secrets            make test, make grade
#   jsonschema     python3-jsonschema      the Gradescope format's test    make test
#   chromium       chromium                the class report's test         make test-class-report, make test
#   copydetect     copydetect (PyPI: pip)  the class report's similarity   make test-class-report, make test
#   clang-format   clang-format            the one code style              make test-format, make test
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
    test) names="$names boost-context doctest json toml cli11 openssl jsonschema chromium copydetect clang-format" ;;
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
    clang-format) echo clang-format ;;
    # Not packaged by Debian: from PyPI, through pip (the install step goes by the prefix).
    copydetect) echo pypi:copydetect ;;
    slurm) echo slurmctld slurmd slurm-client munge ;;
    *) echo "tools/setup/deps.sh: no dependency called '$1'" >&2; exit 2 ;;
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
    # What the emulator uses (harness/runner/emulator/fibers.cpp): the system's, else the unpacked copy.
    boost-context) cat > "$tmp/boost-context.in" <<'EOF'
#include <boost/context/detail/fcontext.hpp>
namespace ctx = boost::context::detail;
static char stack[1 << 16];
static void entry(ctx::transfer_t t) { ctx::jump_fcontext(t.fctx, nullptr); }
int main() { ctx::jump_fcontext(ctx::make_fcontext(stack + sizeof stack, sizeof stack, entry), nullptr); }
EOF
      try_cxx "$1" "-lboost_context" < "$tmp/boost-context.in" ||
        { [ -f "$LOCAL_BOOST/lib/libboost_context.a" ] && try_cxx "$1" "$(local_boost_flags)" < "$tmp/boost-context.in"; }
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
    clang-format) clang-format --version >/dev/null 2>&1 ;;
    copydetect) python3 -c 'import copydetect' >/dev/null 2>&1 ;;
    # The daemons live in sbin, which a user's PATH may lack.
    slurm) PATH="$PATH:/usr/sbin:/sbin" sh -c 'command -v slurmctld && command -v slurmd && command -v sbatch && command -v munged' >/dev/null 2>&1 ;;
  esac
}

# Boost.Context for a user who may not install anything (no root, no sudo without a password):
# Debian's and Ubuntu's own packages, downloaded with `apt-get download` and unpacked with
# `dpkg-deb -x` (never installed), into build/deps/local/boost-context: the static library (so
# nothing is needed at run time) and only the headers the emulator includes (the whole of
# Boost's headers is some 150 MB). mk/cpu.mk uses that copy when it is there.
LOCAL_BOOST=$STAMPS/local/boost-context
local_boost_flags() {  # compile and link flags for the unpacked copy
  echo "-isystem $LOCAL_BOOST/include $LOCAL_BOOST/lib/libboost_context.a"
}
# apt_private TOOL DIR ARGS: apt-get or apt-cache with its package lists and cache in DIR. Reading
# the system's lists needs no root, but a system may have none: then a private update fills DIR.
apt_private() { tool=$1 d=$2; shift 2; "$tool" -q -o Dir::State::Lists="$d/lists" -o Dir::Cache="$d/cache" -o Debug::NoLocking=1 "$@"; }
boost_packages() {  # the versioned -dev package behind libboost-context-dev, and Boost's headers
  dev=$("$@" depends libboost-context-dev 2>/dev/null | sed -n 's/^ *Depends: \(libboost-context[0-9.]*-dev\)$/\1/p' | head -n1)
  [ -n "$dev" ] || return 1
  v=${dev#libboost-context}; echo "$dev libboost${v%-dev}-dev"
}
fetch_boost_context() {
  command -v apt-get >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1 || return 1
  w="$(pwd)/$tmp/boost"; log="$w/fetch.log"
  mkdir -p "$w/debs" "$w/root" "$w/apt/lists/partial" "$w/apt/cache/archives/partial"
  # The system's package lists first; with none (or stale ones), lists of our own.
  { pkgs=$(boost_packages apt-cache) && (cd "$w/debs" && apt-get -q download $pkgs); } >"$log" 2>&1 ||
    { rm -f "$w"/debs/*.deb; apt_private apt-get "$w/apt" update && pkgs=$(boost_packages apt_private apt-cache "$w/apt") &&
      (cd "$w/debs" && apt_private apt-get "$w/apt" download $pkgs); } >>"$log" 2>&1 || return 1
  for deb in "$w"/debs/*.deb; do dpkg-deb -x "$deb" "$w/root" >>"$log" 2>&1 || return 1; done
  lib=$(find "$w/root" -name libboost_context.a | head -n1)
  [ -n "$lib" ] || return 1
  # The headers: those that the emulator's Boost includes pull in, as the preprocessor finds them.
  inc="$w/root/usr/include"
  { grep -h '^#include <boost/' harness/runner/emulator/*.cpp harness/runner/emulator/*.h 2>/dev/null; echo '#include <boost/context/detail/fcontext.hpp>'; } > "$w/uses.cpp"
  (cd "$inc" && $CXX -std=c++20 -M -I. "$w/uses.cpp") 2>>"$log" | tr ' \\' '\n\n' |
    sed -n 's|^\./||; /^boost\//p' | sort -u > "$w/headers"
  [ -s "$w/headers" ] || return 1
  rm -rf "$LOCAL_BOOST"; mkdir -p "$LOCAL_BOOST/lib" "$LOCAL_BOOST/include"
  cp "$lib" "$LOCAL_BOOST/lib/" &&
    (cd "$inc" && tar cf - -T "$w/headers") | (cd "$LOCAL_BOOST/include" && tar xf -)
}

# without_root NAME PACKAGE FETCH WHAT: when NAME is missing and FETCH can provide it without
# root, says so in one line and takes NAME and PACKAGE off the lists of what is missing.
fetch_problem=""
drop_word() { echo " $1 " | sed "s/ $2 / /; s/^ *//; s/ *\$//"; }
without_root() {
  case " $missing_names " in *" $1 "*) ;; *) return 0 ;; esac
  if "$3" && works "$1"; then
    echo "cudalab: $2 is not installed and installing needs root: $4"
    touch "$STAMPS/$1.ok"
    missing_names=$(drop_word "$missing_names" "$1"); missing_names=${missing_names:+ $missing_names}
    missing=$(drop_word "$missing" "$2")
  else
    why=$( { grep '^E:' "$tmp/boost/fetch.log" || cat "$tmp/boost/fetch.log"; } 2>/dev/null | tail -n1)
    fetch_problem="fetching $2 without root did not work either (is the package archive reachable?): ${why:-dpkg-deb is missing}"
  fi
}

# Every check not yet stamped, all at once: they are independent, and on a fresh clone make test
# waits for all of them before anything else starts (one after the other, 9 s on 2 cores).
seen=""
for n in $names; do
  case " $seen " in *" $n "*) continue ;; esac
  seen="$seen $n"
  package "$n" >/dev/null || exit 2
  [ -f "$STAMPS/$n.ok" ] || { works "$n" && : > "$tmp/$n.works"; } &
done
wait

missing=""
missing_pip=""
missing_names=""
for n in $seen; do
  p=$(package "$n")
  [ -f "$STAMPS/$n.ok" ] && continue
  if [ -f "$tmp/$n.works" ]; then touch "$STAMPS/$n.ok"; continue; fi
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
      without_root boost-context libboost-context-dev fetch_boost_context \
        "Debian's package was downloaded and unpacked into $LOCAL_BOOST (nothing installed)"
      if [ -n "$missing" ]; then
        echo "cudalab: needed here and missing:$missing_names. Install once with:"
        echo "    sudo apt-get install $missing"
        [ -n "$fetch_problem" ] && echo "    ($fetch_problem)"
        exit 1
      fi
    fi
  fi
  if [ -n "$missing" ]; then  # (empty when all of it came without root)
    echo "cudalab: installing $missing (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get install -y -q -o DPkg::Lock::Timeout=300 $missing >"$tmp/apt.log" 2>&1 ||
      { $SUDO apt-get update -q >>"$tmp/apt.log" 2>&1 && $SUDO apt-get install -y -q -o DPkg::Lock::Timeout=300 $missing >>"$tmp/apt.log" 2>&1; } ||
      { tail -5 "$tmp/apt.log"; echo "cudalab: apt-get could not install $missing (above). Once a package archive is reachable, run:"
        echo "    ${SUDO:+sudo }apt-get update && ${SUDO:+sudo }apt-get install $missing"; exit 1; }
  fi
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
