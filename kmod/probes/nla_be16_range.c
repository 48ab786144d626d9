// SPDX-License-Identifier: GPL-2.0
/* NLA_POLICY_MIN() of a big-endian integer: lib/nlattr.c validates the
 * ranges of NLA_BE16 and NLA_BE32 (6.1; Debian's 5.10 has it backported)
 */
#include <net/netlink.h>

const struct nla_policy ktg_probe_policy[] = {
	[1] = NLA_POLICY_MIN(NLA_BE16, 1),
};
