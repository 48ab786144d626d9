/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Device knobs: one setting of one network device (an ethtool feature, a
 * private flag, a tunable, rings, channels, coalescing, XPS, RPS, busy
 * polling), read, set, read back and restored.
 */
#ifndef KTGEN_DEV_H
#define KTGEN_DEV_H

#include <stdbool.h>
#include <stddef.h>
#include <net/if.h>

#define KNOB_NAME_LEN	32	/* ETH_GSTRING_LEN */
#define KNOB_VAL_LEN	16384	/* per-queue CPU lists of a many-queue device */
#define KNOB_SETTLE_MS	1000	/* a reset device's carrier steady this long */
#define KNOB_RESET_MS	10000	/* at most, for its carrier to come back and settle */

struct knob_type;

struct knob {
	char			ifname[IF_NAMESIZE];
	char			netns[64];	/* "": the current namespace */
	const struct knob_type	*type;
	char			name[KNOB_NAME_LEN];	/* feature, flag, parameter */
	char			want[KNOB_VAL_LEN];	/* as the device reports it */
	char			before[KNOB_VAL_LEN];
	char			after[KNOB_VAL_LEN];
	bool			changed;	/* set by us: restore puts before back */
	bool			reset;		/* setting it reset the device (seen) */
};

struct knob_list {
	struct knob	*k;
	size_t		n;
	bool		resets;		/* applying a knob reset its device */
};

/*
 * Parse one knob's words at @argv ("feature tx-nocache-copy on", "rings rx
 * 512 tx 512", "xps off") for device @ifname in namespace @netns (NULL or
 * "" for the current one). Returns the number of words taken, 0 when
 * argv[0] is no knob keyword, -1 after a usage message.
 */
int knob_parse(struct knob_list *l, const char *ifname, const char *netns,
	       int argc, char **argv);
/* "IFNAME[@NETNS] KNOB..." as a run or variant takes it. */
int knob_parse_dev(struct knob_list *l, int argc, char **argv);
/* The usage text of the knob words. */
extern const char knob_usage[];

/*
 * Apply the knobs in order: read, set when different, read back. A knob
 * the device refuses or silently ignores is an error naming it; what was
 * changed before it is restored. Devices that reset get their carrier
 * back before this returns. 0 or -1 (after a message).
 */
int knobs_apply(struct knob_list *l);
/*
 * Whether each knob can act, changing nothing: its device is there, a
 * feature or private flag is one it has, and a feature it would change is
 * not fixed. 0, or -1 after the device's error and a usage error naming
 * the knob.
 */
int knobs_check(struct knob_list *l);
/* Put every changed knob back, in reverse order; 0 or -1 when one stayed. */
int knobs_restore(struct knob_list *l);
/* "knobs": one entry per knob (dev, netns, knob, before, after, changed). */
void knobs_print(const struct knob_list *l, const char *key);
void knobs_free(struct knob_list *l);

/*
 * Everything `ktgen dev show` reports of device @ifname in namespace
 * @netns (NULL or "" for the current one), read at once: the run's
 * environment takes one of each device when the run starts. NULL after a
 * message when there is no such device.
 */
struct dev_snap *dev_snap_read(const char *ifname, const char *netns);
/* Its members, into the object the caller has open. */
void dev_snap_print(const struct dev_snap *s);
void dev_snap_free(struct dev_snap *s);

#endif /* KTGEN_DEV_H */
