#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# docs.sh KTGEN: the manual pages (tools/man) and the bash completion
# (tools/completion/ktgen) held against the CLI itself: every object of
# ktgen.c's dispatch table has a page and is completed; every keyword of
# an object's usage text ('ktgen OBJECT help') is in bold in its page and
# among the words its completion offers (the completion function driven
# through COMP_WORDS and COMP_CWORD, with and without bash-completion);
# mode keywords complete to exactly their modes, devices to
# /sys/class/net, files to files; the exit codes of ktgen.8 and ktgen-ab.8
# are the help texts'; every page carries the Makefile's VERSION, names
# itself for whatis and renders without a groff warning (-ww). The same
# checks run on broken copies of a page and of the completion, which they
# must fail. KTAP output.
set -euo pipefail

ktgen=$(readlink -f "${1:?path to ktgen}")
here=$(dirname "$(readlink -f "$0")")
top=$(dirname "$(dirname "$here")")
man=$top/tools/man
comp=$top/tools/completion/ktgen
bc=/usr/share/bash-completion/bash_completion
# shellcheck source=tests/unit/ktap.sh
. "$here/ktap.sh"

# The objects of ktgen.c's dispatch table.
objects()
{
	sed -n '/} objects\[\] = {/,/^};/s/^[[:space:]]*{ "\([a-z]*\)",.*/\1/p' "$top/tools/ktgen.c"
}

# The keywords of an object's usage text: the lowercase words of its
# grammar (the "Usage:" lines and KNOB:-style definitions, with their
# indented continuations; parentheses are prose) that are in brackets,
# in an alternation, right after "ktgen OBJECT", or before a placeholder
# (an uppercase word), a bracket or an alternation.
usage_keywords()
{
	"$ktgen" "$1" help | awk '
	function kw(t) { return t ~ /^[a-z][a-z0-9_.-]*$/ }
	function ph(t) { return t ~ /^[A-Z][A-Z0-9_]*([^A-Za-z0-9_]|$)/ }
	/^[^ \t]/ {
		g = $0 ~ /^(Usage|[A-Z]+):/
		depth = 0
		if (g)
			sub(/^[A-Za-z]+:/, "")
	}
	g {
		line = $0
		while (gsub(/\([^()]*\)/, "", line))
			;
		gsub(/[][|{}]/, " & ", line)
		gsub(/[,;]/, " ", line)
		nt = split(line, t)
		cmd = 0
		for (k = 1; k <= nt; k++) {
			if (t[k] == "ktgen") {
				cmd = k + 2
				k++
			} else if (t[k] == "[") {
				depth++
			} else if (t[k] == "]") {
				depth--
			} else if (kw(t[k]) && (depth > 0 || k == cmd || t[k - 1] == "|" ||
				   t[k + 1] == "|" || t[k + 1] == "[" || ph(t[k + 1]) ||
				   (kw(t[k + 1]) && t[k + 2] == "|"))) {
				print t[k]
			}
		}
	}' | sort -u
}

# A page as text: one line per output line, no line breaks of groff's
# own (so no hyphenation), bold as overstrikes.
render()
{
	LC_ALL=C groff -man -Tascii -P-c -rLL=1000n "$1" 2>/dev/null || true
}

# The words a page sets in bold.
bold_words()
{
	render "$1" | sed -E $'s/(.)\b\\1/\x01\\1/g; s/_\b(.)/\\1/g' |
		{ grep -o $'\\(\x01[^\x01]\\)\\+' || true; } | tr -d '\001' |
		tr -c 'A-Za-z0-9_.-' '\n' | sed 's/^\.*//; s/\.*$//; /^$/d' | sort -u
}

# man_missing OBJECT PAGE: the usage keywords PAGE does not set in bold.
man_missing()
{
	comm -23 <(usage_keywords "$1") <(bold_words "$2") | tr '\n' ' '
}

# The completion, driven: "bfs OBJECT" prints every word it offers after
# "ktgen OBJECT", exploring each offered word once (and a placeholder
# word, X, where a value nothing completes goes); "line WORD..." prints
# what it offers for the command line "ktgen WORD...". $1 the completion
# file, $2 "bc" to load bash-completion first. In a clean bash, from an
# empty directory but for what a case puts there.
complete_words()
{
	(cd "$tmp/cwd" && PATH="$(dirname "$ktgen"):$PATH" \
		bash --norc --noprofile -s -- "$@" <<'EOF'
file=$1 mode=$2 what=$3
shift 3
[ "$mode" = bc ] && . /usr/share/bash-completion/bash_completion
. "$file"
reply()
{
	COMP_WORDS=(ktgen "$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE="${COMP_WORDS[*]}"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_ktgen ktgen "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
}
if [ "$what" = line ]; then
	reply "$@"
	printf '%s\n' "${COMPREPLY[@]}"
	exit
fi
declare -A seen=([$1]=1)
queue=("$1")
for ((head = 0; head < ${#queue[@]}; head++)); do
	read -ra p <<<"${queue[head]}"
	reply "${p[@]}" ''
	for w in "${COMPREPLY[@]}"; do
		printf '%s\n' "$w"
		[ -n "${seen[$w]}" ] && continue
		seen[$w]=1
		queue+=("${queue[head]} $w")
	done
	[[ ${queue[head]} == *" X X" ]] || queue+=("${queue[head]} X")
done
EOF
	) | sort -u
}

modes=plain
[ -r "$bc" ] && modes="plain bc"

# comp_missing OBJECT FILE: the usage keywords the completion in FILE
# never offers for OBJECT, per mode.
comp_missing()
{
	local m miss

	for m in $modes; do
		miss=$(comm -23 <(usage_keywords "$1") <(complete_words "$2" "$m" bfs "$1") | tr '\n' ' ')
		[ -z "$miss" ] || echo "$m: $miss"
	done
}

# comp_differs WANT FILE WORD...: how what the completion offers for
# "ktgen WORD..." differs from the lines of WANT, per mode.
comp_differs()
{
	local want=$1 file=$2 m d

	shift 2
	for m in $modes; do
		d=$(diff <(sort -u <<<"$want") <(complete_words "$file" "$m" line "$@") | grep '^[<>]' || true)
		[ -z "$d" ] || echo "$m: ktgen $*: $(echo "$d" | tr '\n' ' ')"
	done
}

# The alternation after keyword $2 in object $1's usage ("tx stack|...").
usage_alternation()
{
	"$ktgen" "$1" help | grep -o "\[$2 [a-z_|]*\]" | head -n 1 | sed "s/^\[$2 //; s/\]$//" | tr '|' '\n'
}

# The "N text" items of a help text's exit codes ("Exit status: 0 ok, 1 ...").
help_exit()
{
	"$ktgen" "$@" help | tr '\n' ' ' | sed -n 's/.*Exit\( status\)\?: \([^;]*\)[.;].*/\2/p' |
		sed -E 's/, ([0-9]+ )/\n\1/g' | tr -s ' ' | awk '{ sub(/ +$/, ""); print }'
}

# The "N text" items of a page's EXIT STATUS list.
man_exit()
{
	render "$1" | sed $'s/.\b//g' |
		awk '/^[A-Z]/ { s = $0 == "EXIT STATUS" } s && /^ +[0-9]+ +[^ ]/' |
		sed 's/^ *//; s/ *$//' | tr -s ' '
}

# exit_differs PAGE OBJECT...: the page's exit codes against the help's.
exit_differs()
{
	local page=$1

	shift
	diff <(help_exit "$@") <(man_exit "$page") | grep '^[<>]' || true
}

# What groff -ww says of a page, rendered for a terminal either way.
render_warnings()
{
	local dev

	for dev in utf8 ascii; do
		LC_ALL=C.UTF-8 groff -man -T"$dev" -ww -z "$1" 2>&1 || echo "groff -T$dev failed"
	done
}

# page_problems PAGE: what keeps a page from being installed as it is.
page_problems()
{
	local page=$1 name version th line

	name=$(basename "$page" .8)
	version=$(sed -n 's/^VERSION[[:space:]]*:=[[:space:]]*//p' "$top/Makefile")
	th=$(sed -n 's/^\.TH [^ ]* 8 "[^"]*" "\([^"]*\)".*/\1/p' "$page")
	[ "$th" = "ktgen $version" ] || echo ".TH names '$th', the Makefile's VERSION is $version"
	line=$(sed -n '/^\.SH NAME/{n;p;q}' "$page" | sed 's/\\-/-/g')
	[[ $line == "$name - "* ]] || echo "NAME is not '$name - ...': $line"
	if command -v lexgrog >/dev/null; then
		line=$(lexgrog "$page" 2>&1 || true)
		[[ $line == *"\"$name - "* ]] || echo "lexgrog: $line"
	fi
	render_warnings "$page"
}

mkdir -p "$tmp/cwd"
mapfile -t objs < <(objects)

# The objects: a page each (but help, which is ktgen.8's), no page
# without an object, all of them in the overview and its SEE ALSO.
d=""
[ ${#objs[@]} -ge 9 ] || d="the dispatch table gave ${#objs[@]} objects: ${objs[*]}"
result dispatch_table_read "$d"

d=""
[ -e "$man/ktgen.8" ] || d="no ktgen.8"
for o in "${objs[@]}"; do
	[ "$o" = help ] || [ -e "$man/ktgen-$o.8" ] || d+="no page for object $o"$'\n'
done
for p in "$man"/ktgen-*.8; do
	o=$(basename "$p" .8)
	o=${o#ktgen-}
	[[ " ${objs[*]} " == *" $o "* ]] || d+="$(basename "$p"): no object $o in the dispatch table"$'\n'
done
result pages_for_objects "$d"

d=""
bold=$(bold_words "$man/ktgen.8")
text=$(render "$man/ktgen.8" | sed $'s/.\b//g')
for o in "${objs[@]}"; do
	grep -qx "$o" <<<"$bold" || d+="ktgen.8 does not set object $o in bold"$'\n'
	[ "$o" = help ] || grep -qF "ktgen-$o(8)" <<<"$text" ||
		d+="ktgen.8 does not refer to ktgen-$o(8)"$'\n'
done
result overview_lists_objects "$d"

# The global options: those of the help text and of getopt's table.
d=""
opts=$( { "$ktgen" help | grep -oE '^  -[a-zA-Z], --[a-z]+' | tr -d ' ,' | sed 's/--/\n--/'
	  sed -n '/longopts\[\] = {/,/};/s/.*{ "\([a-z]*\)",.*'"'"'\(.\)'"'"' }.*/--\1\n-\2/p' \
		"$top/tools/ktgen.c"; } | sort -u)
for o in $opts; do
	grep -qx -- "$o" <<<"$bold" || d+="ktgen.8 does not set option $o in bold"$'\n'
done
d+=$(comp_differs "$opts" "$comp" -)
result options_documented_and_completed "$d"

result objects_completed "$(comp_differs "$(printf '%s\n' "${objs[@]}")" "$comp" '')"

# Every keyword of every usage text, in the page and the completion.
for o in "${objs[@]}"; do
	[ "$o" = help ] && continue
	miss=$(man_missing "$o" "$man/ktgen-$o.8")
	result "man_keywords_$o" "${miss:+not in bold in ktgen-$o.8: $miss}"
done
for o in "${objs[@]}"; do
	[ "$o" = help ] && continue
	miss=$(comp_missing "$o" "$comp")
	result "completion_keywords_$o" "${miss:+never completed: $miss}"
done

# Values: the modes exactly, devices, a device's features, files.
result completion_tx_modes \
	"$(comp_differs "$(usage_alternation run tx)" "$comp" run tcp_stream tx '')"
result completion_rx_modes \
	"$(comp_differs "$(usage_alternation sink rx)" "$comp" sink add udp rx '')"
tests=$("$ktgen" run help | sed -n 's/^Usage: ktgen run \([a-z_|]*\) .*/\1/p' | tr '|' '\n')
result completion_tests \
	"$(comp_differs "$(printf '%s\nshow\nstop\ndel\nhelp\n' "$tests")" "$comp" run '')"
devs=$(for d in /sys/class/net/*; do if [ -d "$d" ]; then basename "$d"; fi; done)
d=$(comp_differs "$devs" "$comp" dev show '')
d+=$(comp_differs "$devs" "$comp" run udp_stream dev '')
d+=$(comp_differs "$devs" "$comp" nic del '')
d+=$(comp_differs "$devs" "$comp" run tcp_rr knob '')
result completion_devices "$d"
d=""
if [ -e /sys/class/net/lo ]; then
	feat=$("$ktgen" -j dev show lo | grep -o '"[^"]*":{"active"' | cut -d '"' -f 2 || true)
	[ -n "$feat" ] || d="ktgen dev show lo lists no features"
	d+=$(comp_differs "$feat" "$comp" dev set lo feature '')
fi
result completion_features "$d"
touch "$tmp/cwd/base.json" "$tmp/cwd/new.json"
result completion_files "$(comp_differs "$(printf 'base.json\nnew.json\nhelp\n')" "$comp" diff '')"
rm -f "$tmp/cwd/base.json" "$tmp/cwd/new.json"

result exit_status_ktgen "$(exit_differs "$man/ktgen.8")"
result exit_status_ab "$(exit_differs "$man/ktgen-ab.8" ab)"

for p in "$man"/*.8; do
	result "page_$(basename "$p" .8)" "$(page_problems "$p")"
done

# The checks fail on what they are meant to catch.
sed 's/budget/bud get/g' "$man/ktgen-config.8" >"$tmp/ktgen-config.8"
d=$(man_missing config "$tmp/ktgen-config.8")
[ "$d" = "budget " ] && d="" || d="man_missing config on a page without budget: '$d'"
result catches_keyword_missing_in_page "$d"

sed 's/"budget max-runs/"bud max-runs/' "$comp" >"$tmp/completion"
d=$(comp_missing config "$tmp/completion")
[ -n "$d" ] && ! grep -v 'budget $' <<<"$d" | grep -q . && d="" ||
	d="comp_missing config on a completion without budget: '$d'"
result catches_keyword_missing_in_completion "$d"

sed 's/^\(nocache \)\?touch discard/\1discard/; s/touch discard//' "$comp" >"$tmp/completion"
d=$(comp_differs "$(usage_alternation sink rx)" "$tmp/completion" sink add udp rx '')
[ -n "$d" ] && d="" || d="comp_differs did not see touch missing from the rx modes"
result catches_mode_missing_in_completion "$d"

sed '/^\.B 0$/{n;s/$/ drifted/}' "$man/ktgen.8" >"$tmp/ktgen.8"
d=$(exit_differs "$tmp/ktgen.8")
[ -n "$d" ] && d="" || d="exit_differs did not see exit code 0 changed"
result catches_exit_status_drift "$d"

{ cat "$man/ktgen-info.8"; echo ".XX not a macro"; } >"$tmp/ktgen-info.8"
d=$(page_problems "$tmp/ktgen-info.8")
grep -q "warning: macro 'XX' not defined" <<<"$d" && d="" ||
	d="page_problems did not see an undefined macro: '$d'"
result catches_groff_warning "$d"

finish docs
