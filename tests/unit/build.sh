#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build.sh: `make` on a real host builds with what is there and installs
# nothing. In a copy of the sources, with apt, apt-get, dnf, yum and sudo
# on PATH replaced by stubs that record any call: the module for a kernel
# whose build tree is missing, and the CLI without libmnl, each stop with
# one line naming the packages to install (Debian/Ubuntu and Fedora/RHEL);
# `make KDIR=` (bookworm's stock headers, fetched once into the cache)
# builds ktgen.ko for that kernel and the CLI, and no stub was called;
# scripts/sign-module.sh signs it with SIGN_KEY/SIGN_CERT or DKMS's MOK,
# and names the fix when a kernel that forces signatures has no key.
# KTAP output.
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
top=$(dirname "$(dirname "$here")")
# shellcheck source=tests/unit/ktap.sh
. "$here/ktap.sh"

mkdir -p "$tmp/src" "$tmp/bin"
git -C "$top" ls-files -z | (cd "$top" && xargs -0 tar -cf - --no-recursion) |
	tar -C "$tmp/src" -xf -
for t in apt apt-get dnf yum sudo; do
	printf '#!/bin/sh\necho "%s $*" >>"%s/installs"\nexit 1\n' "$t" "$tmp" >"$tmp/bin/$t"
	chmod +x "$tmp/bin/$t"
done
export PATH="$tmp/bin:$PATH"
: >"$tmp/installs"

# one_line LOG PATTERN: the log's only "ktgen:" line matches PATTERN.
one_line()
{
	local lines

	lines=$(grep '^ktgen:' "$1" || :)
	if [ "$(printf '%s' "$lines" | grep -c '^')" != 1 ]; then
		echo "want one ktgen: line, got: $(cat "$1")"
	elif ! [[ $lines =~ $2 ]]; then
		echo "'$lines' does not match /$2/"
	fi
}

d=""
rc=0
make -C "$tmp/src" module KDIR=/nonexistent >"$tmp/kdir.log" 2>&1 || rc=$?
[ "$rc" != 0 ] || d+="make module with no kernel tree exited 0"$'\n'
d+=$(one_line "$tmp/kdir.log" \
	"^ktgen: no kernel build tree at /nonexistent: .*linux-headers-.*kernel-devel-.* KDIR=$")
ls "$tmp/src"/kmod/*.o >/dev/null 2>&1 && d+="objects built without a kernel tree"$'\n'
result module_without_kernel_tree "$d"

if [ -f "/lib/modules/$(uname -r)/build/Makefile" ]; then
	skip module_for_running_kernel "the running kernel has a build tree"
else
	d=""
	rc=0
	make -C "$tmp/src" module >"$tmp/running.log" 2>&1 || rc=$?
	[ "$rc" != 0 ] || d+="make module for a kernel without headers exited 0"$'\n'
	d+=$(one_line "$tmp/running.log" \
		"^ktgen: no kernel build tree at /lib/modules/$(uname -r)/build: .*linux-headers-$(uname -r)")
	result module_for_running_kernel "$d"
fi

d=""
rc=0
make -C "$tmp/src" tools PKG_CONFIG=false >"$tmp/mnl.log" 2>&1 || rc=$?
[ "$rc" != 0 ] || d+="make tools without libmnl exited 0"$'\n'
d+=$(one_line "$tmp/mnl.log" "^ktgen: no libmnl .*libmnl-dev.*libmnl-devel")
[ ! -e "$tmp/src/tools/ktgen" ] || d+="a CLI was built without libmnl"$'\n'
result tools_without_libmnl "$d"

if ! env=$("$top/scripts/fetch-kernel.sh" bookworm 2>"$tmp/fetch.log"); then
	skip make_installs_nothing "no kernel headers: $(tail -n 1 "$tmp/fetch.log")"
else
	# shellcheck disable=SC1090
	. "$env"
	d=""
	make -C "$tmp/src" KDIR="$KDIR" >"$tmp/make.log" 2>&1 ||
		d+="make KDIR=$KDIR failed: $(tail -n 20 "$tmp/make.log")"$'\n'
	[ -f "$tmp/src/kmod/ktgen.ko" ] || d+="no kmod/ktgen.ko"$'\n'
	[ -f "$tmp/src/kmod/ktgen_nic.ko" ] || d+="no kmod/ktgen_nic.ko"$'\n'
	[ -x "$tmp/src/tools/ktgen" ] || d+="no tools/ktgen"$'\n'
	if [ -f "$tmp/src/kmod/ktgen.ko" ] &&
	   ! modinfo -F vermagic "$tmp/src/kmod/ktgen.ko" | grep -q "^$KVER "; then
		d+="ktgen.ko is not for $KVER: $(modinfo -F vermagic "$tmp/src/kmod/ktgen.ko")"$'\n'
	fi
	result make_installs_nothing "$d"

	# signing: with SIGN_KEY/SIGN_CERT, with DKMS's MOK, and a kernel
	# that forces signatures told about it when there is no key
	d=""
	openssl req -new -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=ktgen build.sh" \
		-keyout "$tmp/key.pem" -outform DER -out "$tmp/cert.der" >/dev/null 2>&1 ||
		d+="openssl could not make a key"$'\n'
	cp "$tmp/src/kmod/ktgen.ko" "$tmp/a.ko"
	SIGN_KEY=$tmp/key.pem SIGN_CERT=$tmp/cert.der KTGEN_MOK_DIR=$tmp/nomok \
		"$top/scripts/sign-module.sh" "$KDIR" "$tmp/a.ko" >"$tmp/sign.log" 2>&1 ||
		d+="sign-module with SIGN_KEY failed: $(cat "$tmp/sign.log")"$'\n'
	[ "$(modinfo -F signer "$tmp/a.ko")" = "ktgen build.sh" ] ||
		d+="a.ko's signer: '$(modinfo -F signer "$tmp/a.ko")'"$'\n'
	mkdir -p "$tmp/mok"
	cp "$tmp/key.pem" "$tmp/mok/mok.key"
	cp "$tmp/cert.der" "$tmp/mok/mok.pub"
	cp "$tmp/src/kmod/ktgen.ko" "$tmp/b.ko"
	KTGEN_MOK_DIR=$tmp/mok "$top/scripts/sign-module.sh" "$KDIR" "$tmp/b.ko" >"$tmp/sign.log" 2>&1 ||
		d+="sign-module with a MOK failed: $(cat "$tmp/sign.log")"$'\n'
	grep -q "signed with DKMS's MOK key" "$tmp/sign.log" && [ -n "$(modinfo -F signer "$tmp/b.ko")" ] ||
		d+="b.ko not signed with the MOK: $(cat "$tmp/sign.log")"$'\n'
	mkdir -p "$tmp/forced"
	printf 'CONFIG_MODULE_SIG=y\nCONFIG_MODULE_SIG_FORCE=y\n' >"$tmp/forced/.config"
	cp "$tmp/src/kmod/ktgen.ko" "$tmp/c.ko"
	KTGEN_MOK_DIR=$tmp/nomok "$top/scripts/sign-module.sh" "$tmp/forced" "$tmp/c.ko" >"$tmp/sign.log" 2>&1 ||
		d+="sign-module without a key failed: $(cat "$tmp/sign.log")"$'\n'
	grep -q "not signed and this kernel loads only signed modules (its CONFIG_MODULE_SIG_FORCE): give SIGN_KEY=" \
		"$tmp/sign.log" || d+="no word of the forced kernel: $(cat "$tmp/sign.log")"$'\n'
	cmp -s "$tmp/c.ko" "$tmp/src/kmod/ktgen.ko" || d+="c.ko changed without a key"$'\n'
	result sign_module "$d"
fi
result nothing_installed "$(sed 's/^/called: /' "$tmp/installs")"
finish build
