#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# once.sh TOP: a flow's counters that fills read with READ_ONCE while its
# worker runs (bytes, msgs, timeouts, late, acked) have one writer, which stores
# them with WRITE_ONCE: a plain `f->bytes += n` is a data race KCSAN
# reports. A kernel with KCSAN is not one of the test lanes; this reads
# the sources. KTAP output.

. "$(dirname "$0")/ktap.sh"

top=${1:?top of the tree}

plain=$(grep -nE '\bf->(bytes|msgs|timeouts|late|acked)\b[[:space:]]*(\+\+|--|[-+]?=[^=])' \
	"$top"/kmod/*.c | sed "s|^$top/||")
result flow_counters_write_once "${plain:+plain stores:
$plain}"

finish once
