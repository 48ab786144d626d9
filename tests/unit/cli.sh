#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cli.sh KTGEN: the CLI's behaviour without a kernel module, on the host
# (sanitized binary): exit codes, help, usage errors. KTAP output.
ktgen=${1:?path to ktgen}
n=0 failed=0
cases=()

t()
{
	# t NAME WANT_EXIT WANT_REGEX ARGS...
	local name=$1 want=$2 re=$3 out rc

	shift 3
	n=$((n + 1))
	out=$("$ktgen" "$@" 2>&1)
	rc=$?
	if [ "$rc" = "$want" ] && echo "$out" | grep -Eq -- "$re"; then
		cases+=("ok $n $name")
	else
		cases+=("not ok $n $name")
		cases+=("# ktgen $*: exit $rc (want $want), output: $out")
		failed=$((failed + 1))
	fi
}

t version 0 '^ktgen [0-9]+\.[0-9]+\.[0-9]+' -V
t help 0 'Usage: ktgen .*OBJECT' help
t help_flag 0 'Exit status: 0 ok, 1 refused' -h
t no_args 2 'Usage:'
t unknown_object 2 "unknown object 'frob'" frob
t unknown_option 2 'Usage:' --frob info
t info_help 0 'Usage: ktgen info' info help
t info_extra 2 "info: unexpected 'now'" info now
t config_help 0 'ktgen config set budget BYTES' config help
t config_unknown 2 "config: unknown command 'get'" config get
t config_set_empty 2 'nothing to set' config set
t config_set_keyword 2 "unknown keyword 'size'" config set size 1M
t config_set_novalue 2 'budget needs a size' config set budget
t config_set_badsize 2 'budget needs a size' config set budget 12Q
t config_show_extra 2 "unexpected 'x'" config show x

echo "KTAP version 1"
echo "1..$n"
printf '%s\n' "${cases[@]}"
[ $failed = 0 ]
