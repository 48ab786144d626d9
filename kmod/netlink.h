/* SPDX-License-Identifier: GPL-2.0 */
/* The generic netlink family (netlink.c). */
#ifndef _KTG_NETLINK_H
#define _KTG_NETLINK_H

struct ktg_run;

int ktg_netlink_init(void);
void ktg_netlink_exit(void);

void ktg_nl_notify_run_done(struct ktg_run *run);
void ktg_nl_notify_run_interval(struct ktg_run *run);

#endif /* _KTG_NETLINK_H */
