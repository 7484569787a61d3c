#!/usr/bin/env bash
# Installs llama-server (llama.cpp's HTTP server, from Debian sid's llama.cpp-tools) into a
# private prefix, without root, a chroot or debootstrap, and without touching the system's
# apt sources or dpkg state.
#
#   scripts/llama_server.sh install   # make the prefix (does nothing if it already works)
#   scripts/llama_server.sh path      # print PREFIX/bin/llama-server; exit 1 if not installed
#
# Why: only Debian sid packages llama.cpp (0.7.0), and its binaries need a newer C library
# than Debian 12's (libc6 >= 2.43), so they cannot be installed into the system. Instead this
# reads sid's package lists into the prefix (apt-get update with its own sources.list, lists
# and cache directories), resolves the Depends/Pre-Depends closure of llama.cpp-tools with
# apt-cache (libc6 included), fetches those .debs with `apt-get download` (checked against the
# signed lists) and unpacks them with `dpkg -x`. Packages that only maintainer scripts or
# helper scripts use (debconf, wget | curl, dpkg, perl-base, base-files) are left out.
# PREFIX/bin/llama-server is a small wrapper that runs PREFIX/usr/bin/llama-server through
# the prefix's own dynamic loader with --library-path pointing into the prefix; the prefix
# can be moved (the wrapper finds it from its own location). Measured 2026-12-07 (0.7.0):
# 13 .debs, 14 MB downloaded, prefix 82 MB (59 MB unpacked + 23 MB package lists), 24-31 s
# from scratch on a busy 2-core host, versus 4-6 minutes for a debootstrap chroot.
#
# ggml's CPU backend is a dlopen()ed module (ggml/backends0/libggml-cpu-<cpu>.so, the best
# one for the CPU is picked at run time). ggml looks for it in the compiled-in directory
# /usr/lib/x86_64-linux-gnu/ggml/backends0 (absent on the host), then in the directory of
# /proc/self/exe, then in the current directory. Run through the loader, /proc/self/exe is
# the loader itself, so the install links the libggml-cpu-*.so modules next to the
# prefix's loader: the best CPU variant is then found from any working directory. (A host
# that has its own /usr/lib/x86_64-linux-gnu/ggml/backends0 would be searched first; the
# wrapper warns about that.)
#
# Environment: ADARL_LLAMA_PREFIX (default $HOME/.cache/adarl/llama-server),
# ADARL_LLAMA_SUITE (default sid), ADARL_LLAMA_MIRROR (default: the first URIs: of
# /etc/apt/sources.list.d/debian.sources, else http://deb.debian.org/debian).
# The install is built in a temporary directory next to the prefix (PREFIX.lock serialises
# concurrent installs where flock exists) and renamed into place
# only once it has been checked (every library resolves inside the prefix, --version runs),
# so a half-done install never looks complete. Exit status: 0 ok, 1 failure / not
# installed, 2 usage or a missing tool.
set -euo pipefail

prefix=${ADARL_LLAMA_PREFIX:-$HOME/.cache/adarl/llama-server}
suite=${ADARL_LLAMA_SUITE:-sid}
root_package=llama.cpp-tools
# Only needed by maintainer scripts or helper scripts, never by the binaries.
exclude=" debconf debconf-2.0 cdebconf wget curl dpkg perl-base base-files "
arch=x86_64-linux-gnu

die() { echo "llama_server.sh: $*" >&2; exit 1; }

usage() {
  sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# True when DIR/bin/llama-server exists and runs.
works() {
  [ -x "$1/bin/llama-server" ] && "$1/bin/llama-server" --version >/dev/null 2>&1
}

cmd_path() {
  if [ -x "$prefix/bin/llama-server" ]; then
    echo "$prefix/bin/llama-server"
  else
    echo "llama_server.sh: not installed in $prefix (run: $0 install)" >&2
    exit 1
  fi
}

# Writes the Depends/Pre-Depends closure of the named packages, one package a line.
# apt-cache depends --important prints, per package, lines "  Depends: NAME",
# " |Depends: NAME" (an OR-group that goes on with the next line) and, for a virtual
# package "<NAME>", its providers indented by four spaces. An OR-group that an excluded
# package could satisfy is dropped; otherwise its first real package (or the first provider
# of a virtual one) is taken.
resolve() {
  local -A seen=()
  local frontier=("$@") next p
  for p in "$@"; do seen[$p]=1; done
  while [ ${#frontier[@]} -gt 0 ]; do
    next=()
    while IFS= read -r p; do
      [ -n "$p" ] || continue
      if [ -z "${seen[$p]:-}" ]; then seen[$p]=1; next+=("$p"); fi
    done < <(apt_cache depends --important "${frontier[@]}" | awk -v excl="$exclude" '
      function flush() {
        if (ngroup > 0 && !skip && pick != "") print pick
        ngroup = 0; skip = 0; pick = ""; invirt = 0
      }
      function alt(name) {
        sub(/:.*/, "", name)
        if (index(excl, " " name " ")) skip = 1
        return name
      }
      /^[^ ]/ { flush(); more = 0; next }
      /^ [ |](Pre)?Depends: / {
        if (!more) flush()
        more = (substr($0, 2, 1) == "|")
        name = $0; sub(/^ [ |](Pre)?Depends: /, "", name)
        ngroup++
        if (name ~ /^</) { gsub(/[<>]/, "", name); alt(name); invirt = 1 }
        else { invirt = 0; name = alt(name); if (pick == "") pick = name }
        next
      }
      /^    [^ ]/ {
        name = $1; name = alt(name)
        if (invirt && pick == "") pick = name
        next
      }
      END { flush() }')
    frontier=("${next[@]+"${next[@]}"}")
  done
  printf '%s\n' "${!seen[@]}" | sort
}

cmd_install() {
  if works "$prefix"; then
    echo "llama_server.sh: $prefix/bin/llama-server already works ($("$prefix/bin/llama-server" --version 2>&1 | head -n 1)); nothing to do"
    return 0
  fi
  local t; for t in apt-get apt-cache dpkg dpkg-deb awk sort du find paste realpath readlink mktemp; do
    command -v "$t" >/dev/null || { echo "llama_server.sh: needs $t" >&2; exit 2; }
  done
  case "$prefix" in *:*) die "the prefix path must not contain ':' ($prefix)";; esac

  local parent; parent=$(dirname "$prefix")
  mkdir -p "$parent"
  local base; base=$(basename "$prefix")
  # One install at a time per prefix (CI jobs sharing a cache); the lock holder may clear
  # what an interrupted earlier install of this prefix left behind.
  if command -v flock >/dev/null; then
    exec 9>"$prefix.lock"
    flock 9
    if works "$prefix"; then
      echo "llama_server.sh: $prefix/bin/llama-server was installed meanwhile; nothing to do"
      return 0
    fi
    rm -rf "$parent/.$base.tmp."* "$parent/.$base.old."*
  fi

  local start=$SECONDS
  stage=$(mktemp -d "$parent/.$base.tmp.XXXXXX")
  trap 'rm -rf "$stage"' EXIT
  stage=$(cd "$stage" && pwd -P)

  # --- sid package lists, private to the prefix ---
  local mirror=${ADARL_LLAMA_MIRROR:-}
  if [ -z "$mirror" ] && [ -r /etc/apt/sources.list.d/debian.sources ]; then
    mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)
  fi
  if [ -z "$mirror" ] && [ -r /etc/apt/sources.list ]; then  # a system with the old format
    mirror=$(awk '/^deb / {for (i = 2; i <= NF; i++) if ($i ~ /^(https?|file):/) {print $i; exit}}' \
      /etc/apt/sources.list)
  fi
  mirror=${mirror:-http://deb.debian.org/debian}
  local aptdir=$stage/apt
  mkdir -p "$aptdir/lists/partial" "$aptdir/cache/archives/partial" "$stage/debs"
  : > "$aptdir/status"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main" \
    > "$aptdir/sources.list"
  # Keep the host's apt.conf.d hooks (PackageKit, AppStream refreshes) out of this.
  cat > "$aptdir/apt.conf" <<'EOF'
#clear APT::Update::Pre-Invoke;
#clear APT::Update::Post-Invoke;
#clear APT::Update::Post-Invoke-Success;
#clear DPkg::Pre-Invoke;
#clear DPkg::Post-Invoke;
EOF
  apt_opts=(-c "$aptdir/apt.conf"
    -o "Dir::Etc::SourceList=$aptdir/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$aptdir/lists" -o "Dir::Cache=$aptdir/cache"
    -o Dir::Cache::pkgcache=pkgcache.bin -o Dir::Cache::srcpkgcache=srcpkgcache.bin
    -o "Dir::State::status=$aptdir/status"
    -o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null
    -o Acquire::Check-Valid-Until=false -o Acquire::Languages=none
    -o APT::Architecture=amd64 -o APT::Architectures=amd64
    -o "APT::Sandbox::User=$(id -un)" -o Debug::NoLocking=true)
  apt_cache() { apt-cache "${apt_opts[@]}" "$@"; }

  echo "llama_server.sh: reading $suite package lists from $mirror"
  apt-get "${apt_opts[@]}" -q --error-on=any update > "$aptdir/update.log" 2>&1 \
    || { cat "$aptdir/update.log" >&2; die "apt-get update failed"; }
  apt_cache show --no-all-versions "$root_package" > /dev/null \
    || die "no $root_package in $suite at $mirror"

  local pkgs; pkgs=$(resolve "$root_package")
  [ -n "$pkgs" ] || die "could not resolve $root_package"
  echo "llama_server.sh: [$((SECONDS - start)) s] packages: $(echo "$pkgs" | paste -sd " ")"

  # --- download and unpack ---
  # shellcheck disable=SC2086
  (cd "$stage/debs" && apt-get "${apt_opts[@]}" -q download $pkgs >/dev/null) \
    || die "apt-get download failed"
  local deb ndebs=0 debbytes=0 size
  for deb in "$stage"/debs/*.deb; do
    dpkg -x "$deb" "$stage"
    size=$(stat -c %s "$deb"); debbytes=$((debbytes + size)); ndebs=$((ndebs + 1))
    # shellcheck disable=SC2016 # dpkg-deb's own ${...} fields
    dpkg-deb -W --showformat='${Package} ${Version}\n' "$deb" >> "$stage/PACKAGES"
  done

  echo "llama_server.sh: [$((SECONDS - start)) s] downloaded and unpacked $ndebs .debs"
  [ -x "$stage/usr/bin/llama-server" ] || die "no usr/bin/llama-server in the unpacked packages"
  local loader="" l
  for l in lib64 usr/lib64 usr/lib/$arch lib/$arch; do
    if [ -e "$stage/$l/ld-linux-x86-64.so.2" ]; then loader=$l/ld-linux-x86-64.so.2; break; fi
  done
  [ -n "$loader" ] || die "no ld-linux-x86-64.so.2 in the unpacked libc6"

  # Library directories: the multiarch dirs, llama's private dir (llama-server's RUNPATH
  # is the absolute /usr/lib/$arch/llama) and the ggml backend dirs.
  local libdirs=() d
  for d in usr/lib/$arch usr/lib/$arch/llama lib/$arch; do
    [ -d "$stage/$d" ] && libdirs+=("$d")
  done
  while IFS= read -r d; do
    libdirs+=("${d#"$stage"/}")
  done < <(find "$stage/usr/lib" -type f -name 'libggml-cpu*.so' -printf '%h\n' | sort -u)

  # The CPU backend modules, next to the loader's real file (see the header).
  local loaderdir; loaderdir=$(dirname "$(readlink -f "$stage/$loader")")
  local mod mods
  mapfile -t mods < <(find "$stage/usr/lib" -type f -name 'libggml-cpu*.so')
  for mod in "${mods[@]+"${mods[@]}"}"; do
    [ "$(dirname "$mod")" = "$loaderdir" ] && continue
    ln -sfn "$(realpath --relative-to="$loaderdir" "$mod")" "$loaderdir/$(basename "$mod")"
  done

  # --- the wrapper ---
  [ ! -L "$stage/bin" ] || die "the packages ship /bin as a link; cannot place the wrapper"
  mkdir -p "$stage/bin"
  local lp=""
  for d in "${libdirs[@]}"; do lp="$lp${lp:+:}\$p/$d"; done
  cat > "$stage/bin/llama-server" <<EOF
#!/bin/sh
# Runs Debian $suite's llama-server with this prefix's own C library and loader
# (written by scripts/llama_server.sh; see its header). The prefix is this file's ../
p=\$(dirname "\$(dirname "\$(readlink -f "\$0")")")
if [ -d /usr/lib/$arch/ggml/backends0 ]; then
  echo "llama-server wrapper: warning: /usr/lib/$arch/ggml/backends0 exists on this host; ggml may load its CPU backend from there instead of \$p" >&2
fi
exec "\$p/$loader" --library-path "$lp" --argv0 "\$0" "\$p/usr/bin/llama-server" "\$@"
EOF
  chmod 755 "$stage/bin/llama-server"

  # --- checks: every library resolves inside the prefix; the binary runs ---
  local lpabs="" bad=""
  for d in "${libdirs[@]}"; do lpabs="$lpabs${lpabs:+:}$stage/$d"; done
  for f in "$stage/usr/bin/llama-server" "$stage/usr/lib/$arch"/ggml/*/libggml-cpu*.so; do
    [ -e "$f" ] || continue
    bad+=$("$stage/$loader" --library-path "$lpabs" --list "$f" 2>&1 | awk -v s="$stage/" '
      /not found/ { print "  " $0; next }
      / => / { path = $3; if (index(path, s) != 1) print "  " $0 }')
  done
  [ -z "$bad" ] || die "libraries resolved outside the prefix:
$bad"
  local version
  version=$("$stage/bin/llama-server" --version 2>&1 | head -n 1) \
    || die "the unpacked llama-server does not run: $version"

  rm -rf "$stage/debs" "$aptdir/cache"   # keep apt/lists, apt/sources.list for reference
  {
    echo "suite=$suite mirror=$mirror"
    echo "debs=$ndebs bytes=$debbytes"
    echo "loader=$loader"
    echo "library_path=${libdirs[*]}"
    echo "version=$version"
  } > "$stage/INSTALL-INFO"

  # --- into place ---
  chmod 755 "$stage"
  if [ -e "$prefix" ] || [ -L "$prefix" ]; then
    local old; old=$(mktemp -d "$parent/.$base.old.XXXXXX")
    mv -T "$prefix" "$old/prefix"
    mv -T "$stage" "$prefix"
    rm -rf "$old"
  else
    mv -T "$stage" "$prefix"
  fi
  trap - EXIT
  works "$prefix" || die "$prefix/bin/llama-server does not run after the move"

  local psize; psize=$(du -sh "$prefix" | cut -f1)
  echo "llama_server.sh: installed $version"
  echo "llama_server.sh: $ndebs .debs, $((debbytes / 1024)) KiB downloaded; prefix $psize; $((SECONDS - start)) s"
  echo "$prefix/bin/llama-server"
}

case "${1:-}" in
  install) cmd_install ;;
  path) cmd_path ;;
  -h|--help|help) usage ;;
  *) usage ;;
esac
