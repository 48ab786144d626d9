/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The knobs' families, each in a file of its own as ethtool's netlink/ has
 * a file per message: knob-ethtool.c (ethtool netlink and its tunable
 * ioctl: features, private flags, tunables, rings, channels, coalescing,
 * tcp-data-split), knob-sysfs.c (files under /sys and /proc: XPS, RPS,
 * interrupt affinity, busy-poll sysctls). knobs.c parses, applies,
 * verifies and restores them; dev.c shows a device's at once. Private to
 * those files: the rest of the CLI sees dev.h.
 */
#ifndef KTGEN_KNOB_H
#define KTGEN_KNOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/netlink.h>

#include "dev.h"
#include "nl.h"

/* What a knob of one kind does; each op prints its own error and returns
 * -1.
 */
struct knob_type {
	const char	*kw;		/* the knob's keyword */
	bool		named;		/* takes a NAME: feature, flag, parameter */
	bool		resets;		/* the device goes down and up */
	bool		numeric;	/* its value is a number */
	/* The device's value, read into @val, or set from @val. */
	int		(*get)(const struct knob *k, char *val, size_t len);
	int		(*set)(const struct knob *k, const char *val);
	/* The value the device reports for a word of the command line. */
	int		(*want)(struct knob *k, const char *arg);
	/* Optional. What @want left to the device (the queues or interrupts
	 * it has now), made exact before the knob is read; inside the
	 * device's namespace.
	 */
	int		(*resolve)(struct knob *k);
	/* Optional. Whether the device can act on it at all, changing
	 * nothing; inside the device's namespace. Without it, a read.
	 */
	int		(*check)(struct knob *k);
	/* Optional. Whether the device's @got is what @want asked; without
	 * it, the same string.
	 */
	bool		(*same)(const char *want, const char *got);
};

/* The families' kinds (knob-ethtool.c, knob-sysfs.c). */
extern const struct knob_type knob_types_ethtool[];
extern const size_t knob_types_ethtool_n;
extern const struct knob_type knob_types_sysfs[];
extern const size_t knob_types_sysfs_n;

/* knobs.c: the kind of a keyword; a knob's namespace entered and left;
 * values of the command line every family takes.
 */
const struct knob_type *knob_type(const char *kw);
int in_ns(const struct knob *k);
void ns_home(void);
bool carrier_up(const struct knob *k);
int want_onoff(struct knob *k, const char *arg);
int want_u32(struct knob *k, const char *arg);
bool knob_entries_same(const char *want, const char *got);

/* knob-ethtool.c: requests, and a device's features or private flags. */
struct eth_req {
	struct nl_ctx		ctx;
	struct nlmsghdr		*nlh;
	char			what[96];
};

int eth_start(struct eth_req *r, const struct knob *k, uint8_t cmd);

/* A device's features or private flags, by name. */
struct bits {
	char	(*name)[KNOB_NAME_LEN];
	uint8_t	*flags;
	size_t	n;
};

enum {
	BIT_ON		= 1,	/* active (features), set (flags) */
	BIT_HW		= 2,	/* the device can change it */
	BIT_NOCHANGE	= 4,	/* fixed by the kernel */
	BIT_WANTED	= 8,	/* requested */
};

int bits_get(const struct knob *k, bool features, bool quiet, struct bits *b);
void bits_free(struct bits *b);
/* Whether NAME is a coalescing parameter (coalesce rx-usecs ...). */
bool knob_coalesce_param(const char *name);
/* A tcp-data-split value in ethtool's words. */
const char *tcp_data_split_name(uint32_t v);

/* knob-sysfs.c: the device's transmit or receive queues, -1 after a
 * message when @say.
 */
int queue_count(const struct knob *k, const char *kind, bool say);

#endif /* KTGEN_KNOB_H */
