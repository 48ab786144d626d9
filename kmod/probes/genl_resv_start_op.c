// SPDX-License-Identifier: GPL-2.0
/* genl_family.resv_start_op: strict validation of new commands (6.1) */
#include <net/genetlink.h>

struct genl_family ktg_probe_family = { .resv_start_op = 1 };
