// SPDX-License-Identifier: GPL-2.0
/* proto_ops.sendpage: pages go to the stack through kernel_sendpage() (< 6.5).
 * Probed as a member, not through MSG_SPLICE_PAGES: Debian's 6.1 defines that
 * flag but its TCP ignores it and copies.
 */
#include <linux/net.h>

const struct proto_ops ktg_probe_ops = { .sendpage = NULL };
