#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kbuild.sh TOP: kmod/Kbuild, read by make as kbuild reads it, refuses a
# 32-bit kernel with one message (what `depends on 64BIT` would say in a
# Kconfig) and a 64-bit one whose compiler has no __int128 for it, takes a
# 64-bit one with it, and lets `make clean` (no config read) through; the
# test hooks (kmod/debug.c) are built only with KTGEN_TEST_HOOKS=1, and no
# test hook is a module parameter. KTAP output.

. "$(dirname "$0")/ktap.sh"

top=${1:?top of the tree}

# kbuild_read VAR=VALUE...: make reads kmod/Kbuild with those variables.
kbuild_read()
{
	make -s --no-print-directory -f "$top/kmod/Kbuild" src="$top/kmod" \
		--eval 'ktg-read: ; @:' ktg-read "$@" 2>&1
	echo "status $?"
}

# kbuild_objs VAR=VALUE...: ktgen.ko's objects and the C flags, as kbuild
# reads them.
kbuild_objs()
{
	make -s --no-print-directory -f "$top/kmod/Kbuild" src="$top/kmod" \
		--eval 'ktg-objs: ; @echo $(ktgen-y) / $(ccflags-y)' ktg-objs \
		CONFIG_MODULES=y CONFIG_64BIT=y CONFIG_CC_HAS_INT128=y "$@" 2>&1
}

d=""
got=$(kbuild_read CONFIG_MODULES=y CONFIG_64BIT=)
[[ $got == *"ktgen: needs a 64-bit kernel (CONFIG_64BIT=y"*"status 2" ]] || d=$got
result refuses_32bit "$d"
d=""
got=$(kbuild_read CONFIG_MODULES=y CONFIG_64BIT=y CONFIG_CC_HAS_INT128=y)
[ "$got" = "status 0" ] || d=$got
result takes_64bit "$d"
# a 64-bit kernel whose compiler has no __int128 for it (the kernel's own
# test, CC_HAS_INT128: some 64-bit arches' compilers lack it)
d=""
got=$(kbuild_read CONFIG_MODULES=y CONFIG_64BIT=y CONFIG_CC_HAS_INT128=)
[[ $got == *"ktgen: needs a compiler with unsigned __int128 for this kernel (CONFIG_CC_HAS_INT128=y"*"status 2" ]] || d=$got
result refuses_64bit_without_int128 "$d"
got=$(kbuild_read CONFIG_MODULES= CONFIG_64BIT=)
d=""
[ "$got" = "status 0" ] || d=$got
result clean_reads_it "$d"

d=""
# (an exported KTGEN_TEST_HOOKS=1 turns nothing on: only make's command line)
got=$(KTGEN_TEST_HOOKS=1 kbuild_objs)
[[ " $got " != *" debug.o "* && $got != *KTGEN_TEST_HOOKS* && $got == *" netlink.o "* ]] || d=$got
result production_has_no_hooks "$d"
d=""
got=$(kbuild_objs KTGEN_TEST_HOOKS=1)
[[ " $got " == *" debug.o "* && $got == *"-DKTGEN_TEST_HOOKS"* ]] || d=$got
result test_build_has_hooks "$d"
# a hook is debug.h's, set under debugfs: never a parameter of the module
d=$(grep -rnE 'module_param[a-z_]*\((test_|[a-z_]*_delay_|flip)' "$top/kmod" || :)
result no_hook_parameters "$d"

finish kbuild
