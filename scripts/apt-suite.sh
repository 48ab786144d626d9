#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# apt-suite.sh SUITE COMMAND [ARGS...]
#
# Run apt-get/apt-cache against one Debian suite with a private option set:
# its own sources list, package lists and archive cache under
# $KTGEN_CACHE/apt/SUITE. /etc/apt is never touched and nothing is installed.
#
#   apt-suite.sh bookworm update
#   apt-suite.sh bookworm version linux-image-amd64
#   apt-suite.sh bookworm download DESTDIR pkg...
set -euo pipefail

CACHE=${KTGEN_CACHE:-$HOME/.cache/ktgen}
MIRROR=${KTGEN_MIRROR:-http://deb.debian.org/debian}
SECMIRROR=${KTGEN_SECMIRROR:-http://deb.debian.org/debian-security}

suite=${1:?suite}
cmd=${2:?command}
shift 2

dir=$CACHE/apt/$suite
mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
touch "$dir/status"

case $suite in
bullseye)	sources="deb $MIRROR $suite main non-free
deb $SECMIRROR $suite-security main" ;;
bookworm)	sources="deb $MIRROR $suite main non-free
deb $MIRROR $suite-updates main
deb $SECMIRROR $suite-security main" ;;
trixie)		sources="deb $MIRROR $suite main non-free
deb $SECMIRROR $suite-security main" ;;
*)		sources="deb $MIRROR $suite main" ;;
esac
printf '%s\n' "$sources" >"$dir/sources.list"

opts=(-o "Dir::Etc::sourcelist=$dir/sources.list"
      -o "Dir::Etc::sourceparts=-"
      -o "Dir::State::Lists=$dir/lists"
      -o "Dir::State::status=$dir/status"
      -o "Dir::Cache=$dir/cache"
      -o "APT::Architecture=amd64"
      -o "APT::Architectures=amd64"
      -o "Debug::NoLocking=1"
      -o "Acquire::Retries=3"
      -o "APT::Sandbox::User=root")

# Refresh the lists at most once a day, or on demand; one caller at a time.
refresh() {
	local stamp=$dir/lists/.stamp

	exec 8>"$dir/.lock"
	flock 8
	if [ "${1:-}" = force ] || [ ! -e "$stamp" ] ||
	   [ -n "$(find "$stamp" -mmin +1440 2>/dev/null)" ]; then
		apt-get "${opts[@]}" -qq update >&2
		touch "$stamp"
	fi
}

case $cmd in
update)
	refresh force
	;;
version)
	# Candidate version of a package, empty if unknown.
	refresh
	apt-cache "${opts[@]}" policy "$1" 2>/dev/null |
		awk '/Candidate:/ { if ($2 != "(none)") print $2 }'
	;;
depends)
	refresh
	apt-cache "${opts[@]}" depends "$1" 2>/dev/null |
		awk '/^  (Pre)?Depends:/ { print $2 }'
	;;
download)
	# Download into DESTDIR, reusing .debs already there.
	refresh
	dest=$1
	shift
	mkdir -p "$dest"
	# Concurrent callers (check.sh builds the debug kernel in the
	# background) take turns per folder.
	exec 9>"$dest/.lock"
	flock 9
	for pkg in "$@"; do
		if compgen -G "$dest/${pkg%%=*}_*.deb" >/dev/null; then
			continue
		fi
		(cd "$dest" && apt-get "${opts[@]}" -qq download "$pkg" >&2)
	done
	;;
*)
	echo "apt-suite.sh: unknown command $cmd" >&2
	exit 2
	;;
esac
