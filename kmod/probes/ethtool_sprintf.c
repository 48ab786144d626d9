// SPDX-License-Identifier: GPL-2.0
/* ethtool_sprintf(): a string-set entry formatted in place (5.13) */
#include <linux/ethtool.h>

void ktg_probe(u8 **data);
void ktg_probe(u8 **data)
{
	ethtool_sprintf(data, "rx_%d", 0);
}
