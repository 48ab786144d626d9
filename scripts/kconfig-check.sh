#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kconfig-check.sh CONFIG FRAGMENT...: every option the fragments ask for
# (CONFIG_X=v, "# CONFIG_X is not set") survived olddefconfig into CONFIG;
# each one that did not is named, and the status is 1. The debug and UML
# kernel builds run it after merging their fragments.
set -euo pipefail

config=${1:?config}
shift
bad=0
while read -r line; do
	case $line in
	CONFIG_*=*)
		grep -qx "$line" "$config" || { echo "missing: $line" >&2; bad=1; } ;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }; opt=${opt%% *}
		! grep -q "^$opt=" "$config" || { echo "still set: $opt" >&2; bad=1; } ;;
	esac
done < <(cat "$@")
exit $bad
