#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernkey.sh TOP: the debug, KCSAN and UML kernels' cache keys cover every
# input of their builds: the source's version, the config fragments, the
# build script itself and the compiler. A change to any of them is a new key
# (a rebuild), and nothing else is.

. "$(dirname "$0")/ktap.sh"

top=${1:?top}
t=$tmp/tree
mkdir -p "$t/scripts" "$t/bin"
cp "$top"/scripts/build-debug-kernel.sh "$top"/scripts/build-uml-kernel.sh \
	"$top"/scripts/*.config "$t/scripts/"
# the source: a version and a path, nothing fetched
printf '#!/bin/bash\necho "${STUB_SRCVER:-6.1.1-1}"; echo /nonexistent\n' >"$t/scripts/fetch-linux-source.sh"
# the compiler: its first line
printf '#!/bin/bash\necho "gcc (Debian ${STUB_GCC:-12.2.0-14}) 12.2.0"\n' >"$t/bin/gcc"
chmod +x "$t/scripts/fetch-linux-source.sh" "$t/bin/gcc"

# keys: the four builds' keys, one line: debug, KCSAN, UML, UML debug
keys()
{
	env PATH="$t/bin:$PATH" KTGEN_CACHE="$tmp/cache" "$@" bash -c '
		'"$t"'/scripts/build-debug-kernel.sh --key
		'"$t"'/scripts/build-debug-kernel.sh --key --kcsan
		'"$t"'/scripts/build-uml-kernel.sh --key
		'"$t"'/scripts/build-uml-kernel.sh --key --debug' | tr '\n' ' '
}

base=$(keys)
result keys_printed "$(echo "$base" | grep -qE '^(6\.1\.1-1-[0-9a-f]{12} ){4}$' || echo "keys: '$base'")"
result keys_stable "$([ "$(keys)" = "$base" ] || echo "a second look: $(keys)")"
result keys_differ "$([ "$(echo "$base" | tr ' ' '\n' | sort -u | grep -c .)" = 4 ] || echo "keys: $base")"

# changed: NAME VAR=VALUE: each key differs from the base one
changed()
{
	local now

	now=$(keys "${@:2}")
	paste <(echo "$base" | tr ' ' '\n') <(echo "$now" | tr ' ' '\n') |
		awk -v what="$1" 'NF == 2 && $1 == $2 { print what " kept key " $1 }'
}
result source_version_in_key "$(changed "a new source version" STUB_SRCVER=6.1.2-1)"
result compiler_in_key "$(changed "a new compiler" STUB_GCC=12.2.0-15)"
for f in build-debug-kernel.sh build-uml-kernel.sh debug-kernel.config kcsan-kernel.config \
	uml-kernel.config uml-debug-kernel.config; do
	cp "$t/scripts/$f" "$tmp/$f.orig"
	echo "# touched" >>"$t/scripts/$f"
	now=$(keys)
	cp "$tmp/$f.orig" "$t/scripts/$f"
	# which keys moved, by name
	moved=$(paste <(echo "$base" | tr ' ' '\n') <(echo "$now" | tr ' ' '\n') |
		awk 'BEGIN { split("debug kcsan uml uml-debug", n) }
		     NF == 2 && $1 != $2 { printf "%s%s", s, n[NR]; s = " " }')
	# the debug build's script moves its two keys, each fragment its
	# own kernel's key alone (the debug and KCSAN fragments each other's
	# not); the UML script and base fragment both UML keys
	case $f in
	build-debug-kernel.sh) want="debug kcsan" ;;
	debug-kernel.config) want=debug ;;
	kcsan-kernel.config) want=kcsan ;;
	uml-debug-kernel.config) want=uml-debug ;;
	*) want="uml uml-debug" ;;
	esac
	result "key_covers_${f//[.-]/_}" "$([ "$moved" = "$want" ] || echo "$f changed: keys moved: '$moved', '$want' expected")"
done

finish kernkey
