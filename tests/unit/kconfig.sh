#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kconfig.sh SCRIPT: scripts/kconfig-check.sh, which the debug and UML
# kernel builds trust to say their fragments were honoured, on hand-made
# configs: an honoured set passes, a dropped option and an option still
# set are each named and fail, across several fragments.

. "$(dirname "$0")/ktap.sh"

check=${1:?kconfig-check.sh}

cat >"$tmp/config" <<'EOC'
CONFIG_A=y
CONFIG_B="x y"
CONFIG_N=16000
# CONFIG_OFF is not set
CONFIG_SET=y
EOC
printf 'CONFIG_A=y\nCONFIG_N=16000\n# a comment\n\n# CONFIG_OFF is not set\n' >"$tmp/f1"
printf 'CONFIG_B="x y"\n# CONFIG_GONE is not set\n' >"$tmp/f2"
printf 'CONFIG_A=m\nCONFIG_MISSING=y\n' >"$tmp/bad1"
printf '# CONFIG_SET is not set\n' >"$tmp/bad2"

run()
{
	"$check" "$tmp/config" "$@" 2>"$tmp/err"
	echo "status $?: $(tr '\n' ';' <"$tmp/err")"
}

got=$(run "$tmp/f1" "$tmp/f2")
result honoured "$([ "$got" = "status 0: " ] || echo "$got")"
got=$(run "$tmp/f1" "$tmp/bad1")
result dropped_named "$([ "$got" = "status 1: missing: CONFIG_A=m;missing: CONFIG_MISSING=y;" ] || echo "$got")"
got=$(run "$tmp/bad2")
result still_set_named "$([ "$got" = "status 1: still set: CONFIG_SET;" ] || echo "$got")"
got=$(run "$tmp/f2" "$tmp/bad2" "$tmp/f1")
result any_fragment_fails "$([ "$got" = "status 1: still set: CONFIG_SET;" ] || echo "$got")"

finish kconfig
