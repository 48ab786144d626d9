#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kbuild.sh TOP: kmod/Kbuild, read by make as kbuild reads it, refuses a
# 32-bit kernel with one message (what `depends on 64BIT` would say in a
# Kconfig), takes a 64-bit one, and lets `make clean` (no config read)
# through. KTAP output.

. "$(dirname "$0")/ktap.sh"

top=${1:?top of the tree}

# kbuild_read VAR=VALUE...: make reads kmod/Kbuild with those variables.
kbuild_read()
{
	make -s --no-print-directory -f "$top/kmod/Kbuild" src="$top/kmod" \
		--eval 'ktg-read: ; @:' ktg-read "$@" 2>&1
	echo "status $?"
}

d=""
got=$(kbuild_read CONFIG_MODULES=y CONFIG_64BIT=)
[[ $got == *"ktgen: needs a 64-bit kernel (CONFIG_64BIT=y"*"status 2" ]] || d=$got
result refuses_32bit "$d"
d=""
got=$(kbuild_read CONFIG_MODULES=y CONFIG_64BIT=y)
[ "$got" = "status 0" ] || d=$got
result takes_64bit "$d"
got=$(kbuild_read CONFIG_MODULES= CONFIG_64BIT=)
d=""
[ "$got" = "status 0" ] || d=$got
result clean_reads_it "$d"

finish kbuild
