#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# install.sh VERSION: the top Makefile's install-tools and uninstall-tools
# into a DESTDIR (the CLI built as VERSION, as tools/Makefile has it):
# exactly the CLI, every man page and the bash completion, where PREFIX
# says and with their modes, then none of them; dkms.conf against the
# Makefile and Kbuild; what make dkms-tarball packs. The module's own
# install and a DKMS build need a kernel's headers: tests/unit/dkms.sh.
# KTAP output.
set -euo pipefail

version=${1:?the CLI version}
here=$(dirname "$(readlink -f "$0")")
top=$(dirname "$(dirname "$here")")
# shellcheck source=tests/unit/ktap.sh
. "$here/ktap.sh"

# make TARGET VAR=VALUE... in the top directory; its output, on failure.
mk()
{
	make -s -C "$top" --no-print-directory "$@" KTGEN_VERSION="$version" \
		>"$tmp/make.log" 2>&1 || { echo "make $*: failed"; cat "$tmp/make.log"; }
}

# Every file and link below $1, relative to it.
tree()
{
	(cd "$1" && find . \( -type f -o -type l \) -printf '%P\n' | sort)
}

# The files install-tools puts below PREFIX $1.
expected()
{
	local p

	echo "${1#/}/sbin/ktgen"
	for p in "$top"/tools/man/*.8; do
		echo "${1#/}/share/man/man8/$(basename "$p")"
	done
	echo "${1#/}/share/bash-completion/completions/ktgen"
}

# install_problems DESTDIR PREFIX: how the installed tree differs from
# what it should be.
install_problems()
{
	local d=$1 prefix=$2 f

	diff <(expected "$prefix" | sort) <(tree "$d") | grep '^[<>]' || true
	[ "$(stat -c %a "$d$prefix/sbin/ktgen" 2>/dev/null)" = 755 ] || echo "ktgen is not mode 755"
	for f in "$d$prefix"/share/man/man8/* "$d$prefix/share/bash-completion/completions/ktgen"; do
		[ ! -e "$f" ] || [ "$(stat -c %a "$f")" = 644 ] || echo "$f is not mode 644"
	done
	for f in "$top"/tools/man/*.8; do
		cmp -s "$f" "$d$prefix/share/man/man8/$(basename "$f")" || echo "$(basename "$f") differs"
	done
	cmp -s "$top/tools/completion/ktgen" "$d$prefix/share/bash-completion/completions/ktgen" ||
		echo "the completion differs"
	[ "$("$d$prefix/sbin/ktgen" -V 2>&1)" = "ktgen $version" ] ||
		echo "the installed ktgen -V: $("$d$prefix/sbin/ktgen" -V 2>&1)"
}

d=$(mk install-tools DESTDIR="$tmp/root")
d+=$(install_problems "$tmp/root" /usr/local)
result install_tools_default_prefix "$d"

d=$(mk uninstall-tools DESTDIR="$tmp/root")
d+=$(tree "$tmp/root")
result uninstall_tools_leaves_none "$d"

d=$(mk install-tools DESTDIR="$tmp/usr" PREFIX=/usr)
d+=$(install_problems "$tmp/usr" /usr)
d+=$(mk uninstall-tools DESTDIR="$tmp/usr" PREFIX=/usr)
d+=$(tree "$tmp/usr")
result install_uninstall_tools_prefix_usr "$d"

# dkms.conf: the Makefile's version, the module kbuild builds where dkms
# looks for it, installed where Debian's dkms puts modules.
conf()
{
	sed -n "s/^$1=\"\(.*\)\"$/\1/p" "$top/dkms.conf"
}
d=""
want=$(sed -n 's/^VERSION[[:space:]]*:=[[:space:]]*//p' "$top/Makefile")
[ "$(conf PACKAGE_VERSION)" = "$want" ] ||
	d+="PACKAGE_VERSION $(conf PACKAGE_VERSION), the Makefile's VERSION $want"$'\n'
[ "$(conf PACKAGE_NAME)" = ktgen ] || d+="PACKAGE_NAME $(conf PACKAGE_NAME)"$'\n'
# Every module of kmod/Kbuild, built and installed by DKMS.
read -ra mods <<<"$(sed -n 's/^obj-m[[:space:]]*:=//p' "$top/kmod/Kbuild")"
[ ${#mods[@]} = 2 ] || d+="kmod/Kbuild builds ${#mods[@]} modules: ${mods[*]}"$'\n'
for i in "${!mods[@]}"; do
	[ "$(conf "BUILT_MODULE_NAME\\[$i\\]")" = "${mods[$i]%.o}" ] ||
		d+="BUILT_MODULE_NAME[$i] is '$(conf "BUILT_MODULE_NAME\\[$i\\]")', not ${mods[$i]%.o}"$'\n'
	[ "$(conf "BUILT_MODULE_LOCATION\\[$i\\]")" = kmod/ ] || d+="BUILT_MODULE_LOCATION[$i]"$'\n'
	[ "$(conf "DEST_MODULE_LOCATION\\[$i\\]")" = /updates/dkms ] || d+="DEST_MODULE_LOCATION[$i]"$'\n'
done
[ "$(conf AUTOINSTALL)" = yes ] || d+="AUTOINSTALL is not yes"$'\n'
# shellcheck disable=SC2016 # dkms.conf's own words
grep -q '^MAKE\[0\]="scripts/compat-probe.sh ${kernel_source_dir} kmod && make ' "$top/dkms.conf" ||
	d+="MAKE[0] does not probe \$kernel_source_dir before kbuild"$'\n'
result dkms_conf "$d"

# The tarball: under dkms_source_tree/, what kbuild and the probes need
# (every object of kmod/Kbuild), nothing generated.
d=$(mk dkms-tarball DKMS_TARBALL="$tmp/ktgen.dkms.tar.gz")
list=$(tar -tzf "$tmp/ktgen.dkms.tar.gz" 2>&1 || true)
bad=$(grep -v '^dkms_source_tree/' <<<"$list" || true)
[ -z "$bad" ] || d+="outside dkms_source_tree/: $bad"$'\n'
want="dkms.conf Kbuild scripts/compat-probe.sh include/uapi/linux/ktgen.h"
want+=" include/uapi/linux/ktgen_nic.h kmod/Kbuild kmod/compat.h kmod/nic/policy.h"
read -ra objs <<<"$(sed -n 's/^ktgen\(_nic\)\?-y[[:space:]]*:=//p' "$top/kmod/Kbuild")"
for o in "${objs[@]}"; do
	want+=" kmod/${o%.o}.c"
done
for p in "$top"/kmod/probes/*; do
	want+=" kmod/probes/$(basename "$p")"
done
for f in $want; do
	grep -qx "dkms_source_tree/$f" <<<"$list" || d+="no $f"$'\n'
done
bad=$(grep -E '(compat-gen\.h|\.o|\.ko|\.mod\.c|\.cmd)$' <<<"$list" || true)
[ -z "$bad" ] || d+="generated files packed: $bad"$'\n'
result dkms_tarball_sources "$d"

finish install
