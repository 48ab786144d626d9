// SPDX-License-Identifier: GPL-2.0
/* nla_strscpy(), the renamed nla_strlcpy() (5.11) */
#include <net/netlink.h>

ssize_t ktg_probe(char *dst, const struct nlattr *nla);
ssize_t ktg_probe(char *dst, const struct nlattr *nla)
{
	return nla_strscpy(dst, nla, 16);
}
