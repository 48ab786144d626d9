// SPDX-License-Identifier: GPL-2.0
/*
 * ktgen dev: the copy-path settings of a network device.
 *
 *   ktgen dev show IFNAME [netns NS]
 *   ktgen dev set IFNAME [netns NS] KNOB...
 *
 * Each knob is read, set when it differs, and read back: a device that
 * refuses a value, or takes it and keeps its own (a fixed feature), is an
 * error that names the knob. ethtool netlink carries what it has a
 * message for, the ETHTOOL_[GS]TUNABLE ioctl the copybreaks, sysfs XPS
 * and RPS, sysctl busy polling. A device in another namespace is reached
 * by entering it (setns) with a sysfs of that namespace mounted over /sys
 * in a mount namespace of this process's own.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/sockios.h>

#include "counters.h"
#include "dev.h"
#include "ktgen.h"
#include "nl.h"
#include "print.h"

/* The device's view of a knob: read into @val, or set from @val. Both
 * print their own error and return -1.
 */
struct knob_type {
	const char	*kw;		/* the knob's keyword */
	bool		named;		/* takes a NAME: feature, flag, parameter */
	bool		resets;		/* the device goes down and up */
	int		(*get)(const struct knob *k, char *val, size_t len);
	int		(*set)(const struct knob *k, const char *val);
	/* The value the device reports for a word of the command line. */
	int		(*want)(struct knob *k, const char *arg);
};

/* --- namespaces ------------------------------------------------------- */

static int home_ns = -1;
static char cur_ns[64];
static bool own_mounts;		/* in a mount namespace of our own */
static bool own_sysfs;		/* /sys is our mount of cur_ns's sysfs */

/* Enter network namespace @name ("" for this process's own), with /sys
 * showing its devices. 0 or -1 after a message.
 */
static int ns_enter(const char *name)
{
	char path[128];
	int fd, err;

	if (!strcmp(cur_ns, name))
		return 0;
	if (home_ns < 0) {
		home_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		if (home_ns < 0) {
			fprintf(stderr, "ktgen: /proc/self/ns/net: %s\n", strerror(errno));
			return -1;
		}
	}
	if (*name) {
		snprintf(path, sizeof(path), "/run/netns/%s", name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, "ktgen: network namespace '%s': %s\n", name,
				strerror(errno));
			return -1;
		}
	} else {
		fd = home_ns;
	}
	err = setns(fd, CLONE_NEWNET);
	if (fd != home_ns)
		close(fd);
	if (err) {
		fprintf(stderr, "ktgen: entering network namespace '%s': %s\n",
			*name ? name : "(own)", strerror(errno));
		return -1;
	}
	snprintf(cur_ns, sizeof(cur_ns), "%s", name);
	/* sysfs shows the devices of the namespace it was mounted in: in a
	 * mount namespace of our own (its mounts go with the process) a
	 * fresh one covers /sys while we are away from home, and is taken
	 * off again when we return.
	 */
	if (own_sysfs) {
		umount2("/sys", MNT_DETACH);
		own_sysfs = false;
	}
	if (!*name)
		return 0;
	if (!own_mounts) {
		if (unshare(CLONE_NEWNS) ||
		    mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL)) {
			fprintf(stderr, "ktgen: a mount namespace for sysfs: %s\n",
				strerror(errno));
			return -1;
		}
		own_mounts = true;
	}
	if (mount("sysfs", "/sys", "sysfs", 0, NULL)) {
		fprintf(stderr, "ktgen: mounting sysfs: %s\n", strerror(errno));
		return -1;
	}
	own_sysfs = true;
	return 0;
}

/* Run @fn of @k inside its namespace, and come back. */
static int in_ns(const struct knob *k)
{
	return ns_enter(k->netns);
}

static void ns_home(void)
{
	ns_enter("");
}

/* --- ethtool netlink -------------------------------------------------- */

struct eth_req {
	struct nl_ctx		ctx;
	struct nlmsghdr		*nlh;
	char			what[96];
};

/* A request of @cmd for @k's device (the current namespace's socket). */
static int eth_start(struct eth_req *r, const struct knob *k, uint8_t cmd)
{
	struct nlattr *hdr;

	if (nl_open_family(&r->ctx, ETHTOOL_GENL_NAME, ETHTOOL_GENL_VERSION)) {
		fprintf(stderr, "ktgen: no ethtool netlink in this kernel\n");
		return -1;
	}
	if (!k->type)
		snprintf(r->what, sizeof(r->what), "%s", k->ifname);
	else if (*k->name)
		snprintf(r->what, sizeof(r->what), "%s: %s %s", k->ifname, k->type->kw, k->name);
	else
		snprintf(r->what, sizeof(r->what), "%s: %s", k->ifname, k->type->kw);
	r->ctx.what = r->what;
	r->nlh = nl_msg_start(&r->ctx, cmd, 0);
	/* Every ethtool message has its header nest at type 1. */
	hdr = mnl_attr_nest_start(r->nlh, ETHTOOL_A_FEATURES_HEADER);
	mnl_attr_put_strz(r->nlh, ETHTOOL_A_HEADER_DEV_NAME, k->ifname);
	mnl_attr_nest_end(r->nlh, hdr);
	return 0;
}

static int eth_finish(struct eth_req *r, mnl_cb_t cb, void *data)
{
	int err = nl_request(&r->ctx, r->nlh, NULL, cb, data);

	nl_close(&r->ctx);
	return err ? -1 : 0;
}

/* One attribute of a GET reply, copied out. */
struct eth_attr {
	unsigned int	type;
	bool		found;
	uint32_t	val;	/* u8 and u32 */
	const char	*kw;
};

static int eth_attr_cb(const struct nlmsghdr *nlh, void *data)
{
	struct eth_attr *a = data;
	const struct nlattr *attr;

	mnl_attr_for_each(attr, nlh, GENL_HDRLEN) {
		if (mnl_attr_get_type(attr) != a->type)
			continue;
		if (mnl_attr_get_payload_len(attr) == 1)
			a->val = mnl_attr_get_u8(attr);
		else if (mnl_attr_get_payload_len(attr) == 4)
			a->val = mnl_attr_get_u32(attr);
		else
			continue;
		a->found = true;
	}
	return MNL_CB_OK;
}

static int eth_get_attr(const struct knob *k, uint8_t cmd, unsigned int type,
			uint32_t *val)
{
	struct eth_attr a = { .type = type };
	struct eth_req r;

	if (eth_start(&r, k, cmd) || eth_finish(&r, eth_attr_cb, &a))
		return -1;
	if (!a.found) {
		fprintf(stderr, "Error: %s: %s%s%s: the device does not report it\n",
			k->ifname, k->type->kw, *k->name ? " " : "", k->name);
		return -1;
	}
	*val = a.val;
	return 0;
}

static int eth_set_attr(const struct knob *k, uint8_t cmd, unsigned int type,
			uint32_t val, bool u8)
{
	struct eth_req r;

	if (eth_start(&r, k, cmd))
		return -1;
	if (u8)
		mnl_attr_put_u8(r.nlh, type, val);
	else
		mnl_attr_put_u32(r.nlh, type, val);
	return eth_finish(&r, NULL, NULL);
}

/* --- bitsets: features and private flags, by name ---------------------- */

/* Walk a verbose bitset: @fn(name, value, data) for each bit listed. In
 * a list (NOMASK) every listed bit is set; otherwise the VALUE flag says.
 */
static void bitset_walk(const struct nlattr *set,
			void (*fn)(const char *name, bool on, void *data), void *data)
{
	const struct nlattr *a, *bit, *b;
	bool list = false;

	mnl_attr_for_each_nested(a, set)
		if (mnl_attr_get_type(a) == ETHTOOL_A_BITSET_NOMASK)
			list = true;
	mnl_attr_for_each_nested(a, set) {
		if (mnl_attr_get_type(a) != ETHTOOL_A_BITSET_BITS)
			continue;
		mnl_attr_for_each_nested(bit, a) {
			const char *name = NULL;
			bool on = list;

			mnl_attr_for_each_nested(b, bit) {
				if (mnl_attr_get_type(b) == ETHTOOL_A_BITSET_BIT_NAME &&
				    mnl_attr_validate(b, MNL_TYPE_NUL_STRING) >= 0)
					name = mnl_attr_get_str(b);
				else if (mnl_attr_get_type(b) == ETHTOOL_A_BITSET_BIT_VALUE)
					on = true;
			}
			if (name)
				fn(name, on, data);
		}
	}
}

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

static int bits_find(struct bits *b, const char *name, bool add)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		if (!strcmp(b->name[i], name))
			return i;
	if (!add)
		return -1;
	b->name = realloc(b->name, (b->n + 1) * sizeof(*b->name));
	b->flags = realloc(b->flags, b->n + 1);
	if (!b->name || !b->flags) {
		fprintf(stderr, "ktgen: out of memory\n");
		exit(EXIT_FAIL);
	}
	snprintf(b->name[b->n], KNOB_NAME_LEN, "%s", name);
	b->flags[b->n] = 0;
	return b->n++;
}

static void bits_free(struct bits *b)
{
	free(b->name);
	free(b->flags);
	memset(b, 0, sizeof(*b));
}

struct bits_walk {
	struct bits	*b;
	uint8_t		flag;
};

static void bits_add(const char *name, bool on, void *data)
{
	struct bits_walk *w = data;
	int i;

	/* Kernels leave unused feature bits unnamed. */
	if (!*name)
		return;
	i = bits_find(w->b, name, true);
	if (on)
		w->b->flags[i] |= w->flag;
}

static int features_cb(const struct nlmsghdr *nlh, void *data)
{
	static const struct { unsigned int type; uint8_t flag; } sets[] = {
		{ ETHTOOL_A_FEATURES_ACTIVE,	BIT_ON },
		{ ETHTOOL_A_FEATURES_HW,	BIT_HW },
		{ ETHTOOL_A_FEATURES_NOCHANGE,	BIT_NOCHANGE },
		{ ETHTOOL_A_FEATURES_WANTED,	BIT_WANTED },
	};
	const struct nlattr *a;
	size_t i;

	mnl_attr_for_each(a, nlh, GENL_HDRLEN)
		for (i = 0; i < ARRAY_SIZE(sets); i++)
			if (mnl_attr_get_type(a) == sets[i].type)
				bitset_walk(a, bits_add, &(struct bits_walk){ data, sets[i].flag });
	return MNL_CB_OK;
}

static int privflags_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, GENL_HDRLEN)
		if (mnl_attr_get_type(a) == ETHTOOL_A_PRIVFLAGS_FLAGS)
			bitset_walk(a, bits_add, &(struct bits_walk){ data, BIT_ON });
	return MNL_CB_OK;
}

static int bits_get(const struct knob *k, bool features, bool quiet, struct bits *b)
{
	struct eth_req r;
	int err;

	memset(b, 0, sizeof(*b));
	if (eth_start(&r, k, features ? ETHTOOL_MSG_FEATURES_GET : ETHTOOL_MSG_PRIVFLAGS_GET))
		return -1;
	if (quiet) {
		err = nl_request_quiet(&r.ctx, r.nlh, features ? features_cb : privflags_cb, b);
		nl_close(&r.ctx);
	} else {
		err = eth_finish(&r, features ? features_cb : privflags_cb, b);
	}
	if (err) {
		bits_free(b);
		return -1;
	}
	return 0;
}

/* The error for a feature or private flag @k's device does not have. */
static void bit_missing(const struct knob *k, bool features, const struct bits *b)
{
	size_t i;

	if (features) {
		fprintf(stderr, "Error: %s: no feature '%s' (ktgen dev show %s lists them)\n",
			k->ifname, k->name, k->ifname);
		return;
	}
	fprintf(stderr, "Error: %s: no private flag '%s'; the device has:", k->ifname, k->name);
	for (i = 0; i < b->n; i++)
		fprintf(stderr, " %s", b->name[i]);
	fprintf(stderr, "%s\n", b->n ? "" : " none");
}

/* Features: a full name ("tx-nocache-copy") as ethtool -k lists it. */
static int bit_get(const struct knob *k, bool features, char *val, size_t len)
{
	struct bits b;
	int at;

	if (bits_get(k, features, false, &b))
		return -1;
	at = bits_find(&b, k->name, false);
	if (at < 0) {
		bit_missing(k, features, &b);
		bits_free(&b);
		return -1;
	}
	snprintf(val, len, "%s", b.flags[at] & BIT_ON ? "on" : "off");
	bits_free(&b);
	return 0;
}

static int bit_set(const struct knob *k, bool features, const char *val)
{
	struct nlattr *set, *bits, *bit;
	struct eth_req r;

	if (eth_start(&r, k, features ? ETHTOOL_MSG_FEATURES_SET : ETHTOOL_MSG_PRIVFLAGS_SET))
		return -1;
	set = mnl_attr_nest_start(r.nlh, features ? ETHTOOL_A_FEATURES_WANTED :
				  ETHTOOL_A_PRIVFLAGS_FLAGS);
	bits = mnl_attr_nest_start(r.nlh, ETHTOOL_A_BITSET_BITS);
	bit = mnl_attr_nest_start(r.nlh, ETHTOOL_A_BITSET_BITS_BIT);
	mnl_attr_put_strz(r.nlh, ETHTOOL_A_BITSET_BIT_NAME, k->name);
	if (!strcmp(val, "on"))
		mnl_attr_put(r.nlh, ETHTOOL_A_BITSET_BIT_VALUE, 0, NULL);
	mnl_attr_nest_end(r.nlh, bit);
	mnl_attr_nest_end(r.nlh, bits);
	mnl_attr_nest_end(r.nlh, set);
	return eth_finish(&r, NULL, NULL);
}

static int feature_get(const struct knob *k, char *val, size_t len)
{
	return bit_get(k, true, val, len);
}

static int feature_set(const struct knob *k, const char *val)
{
	return bit_set(k, true, val);
}

static int flag_get(const struct knob *k, char *val, size_t len)
{
	return bit_get(k, false, val, len);
}

static int flag_set(const struct knob *k, const char *val)
{
	return bit_set(k, false, val);
}

static int want_onoff(struct knob *k, const char *arg)
{
	if (strcmp(arg, "on") && strcmp(arg, "off")) {
		usage_error("%s %s: on or off, not '%s'", k->type->kw, k->name, arg);
		return -1;
	}
	snprintf(k->want, sizeof(k->want), "%s", arg);
	return 0;
}

static int want_u32(struct knob *k, const char *arg)
{
	uint32_t v;

	if (parse_u32(arg, &v)) {
		usage_error("%s%s%s: a number, not '%s'", k->type->kw, *k->name ? " " : "",
			    k->name, arg);
		return -1;
	}
	snprintf(k->want, sizeof(k->want), "%u", v);
	return 0;
}

/* --- tunables: the ETHTOOL_[GS]TUNABLE ioctl --------------------------- */

static const struct {
	const char	*name;
	uint32_t	id;
} tunables[] = {
	{ "rx-copybreak",	ETHTOOL_RX_COPYBREAK },
	{ "tx-copybreak",	ETHTOOL_TX_COPYBREAK },
};

static int tunable_ioctl(const struct knob *k, uint32_t cmd, uint32_t *v)
{
	struct {
		struct ethtool_tunable	t;
		uint32_t		v;
	} req = { .t = { .cmd = cmd, .type_id = ETHTOOL_TUNABLE_U32,
			 .len = sizeof(uint32_t) }, .v = *v };
	struct ifreq ifr = { };
	size_t i;
	int fd, err;

	for (i = 0; i < ARRAY_SIZE(tunables); i++)
		if (!strcmp(tunables[i].name, k->name))
			req.t.id = tunables[i].id;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", k->ifname);
	ifr.ifr_data = (void *)&req;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	err = ioctl(fd, SIOCETHTOOL, &ifr);
	if (err) {
		fprintf(stderr, "Error: %s: tunable %s: %s\n", k->ifname, k->name,
			errno == EOPNOTSUPP ? "the driver has no such tunable" :
			strerror(errno));
	}
	close(fd);
	*v = req.v;
	return err ? -1 : 0;
}

static int tunable_get(const struct knob *k, char *val, size_t len)
{
	uint32_t v = 0;

	if (tunable_ioctl(k, ETHTOOL_GTUNABLE, &v))
		return -1;
	snprintf(val, len, "%u", v);
	return 0;
}

static int tunable_set(const struct knob *k, const char *val)
{
	uint32_t v = strtoul(val, NULL, 10);

	return tunable_ioctl(k, ETHTOOL_STUNABLE, &v);
}

/* --- rings, channels, coalescing: single attributes ------------------- */

struct attr_knob {
	const char	*kw;
	uint8_t		get, set;
	unsigned int	type;
	bool		u8;
};

static const struct attr_knob attr_knobs[] = {
	{ "rings-rx",	ETHTOOL_MSG_RINGS_GET, ETHTOOL_MSG_RINGS_SET, ETHTOOL_A_RINGS_RX },
	{ "rings-tx",	ETHTOOL_MSG_RINGS_GET, ETHTOOL_MSG_RINGS_SET, ETHTOOL_A_RINGS_TX },
	{ "tcp-data-split", ETHTOOL_MSG_RINGS_GET, ETHTOOL_MSG_RINGS_SET,
			ETHTOOL_A_RINGS_TCP_DATA_SPLIT, true },
	{ "rx-usecs",	ETHTOOL_MSG_COALESCE_GET, ETHTOOL_MSG_COALESCE_SET,
			ETHTOOL_A_COALESCE_RX_USECS },
	{ "rx-frames",	ETHTOOL_MSG_COALESCE_GET, ETHTOOL_MSG_COALESCE_SET,
			ETHTOOL_A_COALESCE_RX_MAX_FRAMES },
	{ "tx-usecs",	ETHTOOL_MSG_COALESCE_GET, ETHTOOL_MSG_COALESCE_SET,
			ETHTOOL_A_COALESCE_TX_USECS },
	{ "tx-frames",	ETHTOOL_MSG_COALESCE_GET, ETHTOOL_MSG_COALESCE_SET,
			ETHTOOL_A_COALESCE_TX_MAX_FRAMES },
	{ "adaptive-rx", ETHTOOL_MSG_COALESCE_GET, ETHTOOL_MSG_COALESCE_SET,
			ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX, true },
	{ "adaptive-tx", ETHTOOL_MSG_COALESCE_GET, ETHTOOL_MSG_COALESCE_SET,
			ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX, true },
};

static const struct attr_knob *attr_knob(const struct knob *k)
{
	const char *kw = *k->name ? k->name : k->type->kw;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(attr_knobs); i++)
		if (!strcmp(attr_knobs[i].kw, kw))
			return &attr_knobs[i];
	return NULL;
}

/* tcp-data-split and the adaptive switches are on/off words; the rest
 * numbers.
 */
static const char * const split_names[] = {
	[ETHTOOL_TCP_DATA_SPLIT_UNKNOWN]	= "unknown",
	[ETHTOOL_TCP_DATA_SPLIT_DISABLED]	= "off",
	[ETHTOOL_TCP_DATA_SPLIT_ENABLED]	= "on",
};

static int attr_get(const struct knob *k, char *val, size_t len)
{
	const struct attr_knob *ak = attr_knob(k);
	uint32_t v;

	if (eth_get_attr(k, ak->get, ak->type, &v))
		return -1;
	if (ak->type == ETHTOOL_A_RINGS_TCP_DATA_SPLIT)
		snprintf(val, len, "%s", v < ARRAY_SIZE(split_names) ? split_names[v] : "?");
	else if (ak->u8)
		snprintf(val, len, "%s", v ? "on" : "off");
	else
		snprintf(val, len, "%u", v);
	return 0;
}

static int attr_set(const struct knob *k, const char *val)
{
	const struct attr_knob *ak = attr_knob(k);
	uint32_t v;

	if (ak->type == ETHTOOL_A_RINGS_TCP_DATA_SPLIT)
		v = !strcmp(val, "on") ? ETHTOOL_TCP_DATA_SPLIT_ENABLED :
		    !strcmp(val, "off") ? ETHTOOL_TCP_DATA_SPLIT_DISABLED :
		    ETHTOOL_TCP_DATA_SPLIT_UNKNOWN;	/* the driver's choice */
	else if (ak->u8)
		v = !strcmp(val, "on");
	else
		v = strtoul(val, NULL, 10);
	return eth_set_attr(k, ak->set, ak->type, v, ak->u8);
}

static int want_coalesce(struct knob *k, const char *arg)
{
	const struct attr_knob *ak = attr_knob(k);

	if (!ak || ak->get != ETHTOOL_MSG_COALESCE_GET) {
		usage_error("coalesce: rx-usecs, rx-frames, tx-usecs, tx-frames, adaptive-rx or adaptive-tx, not '%s'",
			    k->name);
		return -1;
	}
	return ak->u8 ? want_onoff(k, arg) : want_u32(k, arg);
}

/* Channels: combined ones where the device has them (most NICs), else as
 * many receive and transmit ones (veth).
 */
struct chan_reply {
	uint32_t	v[ETHTOOL_A_CHANNELS_MAX + 1];
};

static int chan_cb(const struct nlmsghdr *nlh, void *data)
{
	struct chan_reply *c = data;
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, GENL_HDRLEN)
		if (mnl_attr_get_type(a) <= ETHTOOL_A_CHANNELS_MAX &&
		    mnl_attr_get_payload_len(a) == 4)
			c->v[mnl_attr_get_type(a)] = mnl_attr_get_u32(a);
	return MNL_CB_OK;
}

static int chan_read(const struct knob *k, struct chan_reply *c)
{
	struct eth_req r;

	memset(c, 0, sizeof(*c));
	return eth_start(&r, k, ETHTOOL_MSG_CHANNELS_GET) || eth_finish(&r, chan_cb, c) ?
	       -1 : 0;
}

/* "N" when the device has N combined channels and nothing else, or
 * (without combined ones) N receive and N transmit channels; otherwise all
 * three counts, "combined C rx R tx T", so that restoring gets them all.
 */
static int chan_get(const struct knob *k, char *val, size_t len)
{
	struct chan_reply c;
	uint32_t *v = c.v, comb, rx, tx;

	if (chan_read(k, &c))
		return -1;
	comb = v[ETHTOOL_A_CHANNELS_COMBINED_COUNT];
	rx = v[ETHTOOL_A_CHANNELS_RX_COUNT];
	tx = v[ETHTOOL_A_CHANNELS_TX_COUNT];
	if (v[ETHTOOL_A_CHANNELS_COMBINED_MAX] && !rx && !tx)
		snprintf(val, len, "%u", comb);
	else if (!v[ETHTOOL_A_CHANNELS_COMBINED_MAX] && rx == tx)
		snprintf(val, len, "%u", rx);
	else
		snprintf(val, len, "combined %u rx %u tx %u", comb, rx, tx);
	return 0;
}

static int chan_set(const struct knob *k, const char *val)
{
	uint32_t comb = 0, rx = 0, tx = 0, n;
	struct chan_reply c;
	struct eth_req r;
	bool all;

	all = sscanf(val, "combined %u rx %u tx %u", &comb, &rx, &tx) == 3;
	n = strtoul(val, NULL, 10);
	if (chan_read(k, &c) || eth_start(&r, k, ETHTOOL_MSG_CHANNELS_SET))
		return -1;
	if (all) {
		if (c.v[ETHTOOL_A_CHANNELS_COMBINED_MAX])
			mnl_attr_put_u32(r.nlh, ETHTOOL_A_CHANNELS_COMBINED_COUNT, comb);
		if (c.v[ETHTOOL_A_CHANNELS_RX_MAX])
			mnl_attr_put_u32(r.nlh, ETHTOOL_A_CHANNELS_RX_COUNT, rx);
		if (c.v[ETHTOOL_A_CHANNELS_TX_MAX])
			mnl_attr_put_u32(r.nlh, ETHTOOL_A_CHANNELS_TX_COUNT, tx);
	} else if (c.v[ETHTOOL_A_CHANNELS_COMBINED_MAX]) {
		mnl_attr_put_u32(r.nlh, ETHTOOL_A_CHANNELS_COMBINED_COUNT, n);
	} else {
		mnl_attr_put_u32(r.nlh, ETHTOOL_A_CHANNELS_RX_COUNT, n);
		mnl_attr_put_u32(r.nlh, ETHTOOL_A_CHANNELS_TX_COUNT, n);
	}
	return eth_finish(&r, NULL, NULL);
}

/* N, or the three counts as chan_get() records them. */
static int want_chan(struct knob *k, const char *arg)
{
	uint32_t c, r, t;
	char end;

	if (sscanf(arg, "combined %u rx %u tx %u%c", &c, &r, &t, &end) == 3) {
		snprintf(k->want, sizeof(k->want), "combined %u rx %u tx %u", c, r, t);
		return 0;
	}
	return want_u32(k, arg);
}

/* --- XPS and RPS: per-queue CPU masks in sysfs ------------------------- */

/* The queues of a kind ("tx", "rx") the device has in sysfs; @say: why
 * there are none. A kernel without RPS (CONFIG_RPS needs SMP: User-Mode
 * Linux, say) has no rx queues there.
 */
static int queue_count(const struct knob *k, const char *kind, bool say)
{
	char path[128];
	int n;

	for (n = 0; n < 4096; n++) {
		snprintf(path, sizeof(path), "/sys/class/net/%s/queues/%s-%d", k->ifname, kind, n);
		if (access(path, F_OK))
			break;
	}
	snprintf(path, sizeof(path), "/sys/class/net/%s/queues", k->ifname);
	if (!n && say && access(path, F_OK))
		fprintf(stderr, "Error: %s: no %s queues in /sys/class/net (no such device?)\n",
			k->ifname, kind);
	else if (!n && say)
		fprintf(stderr, "Error: %s: no %s queues in /sys/class/net: %s\n", k->ifname, kind,
			strcmp(kind, "rx") ? "none in sysfs" : "this kernel has no RPS (CONFIG_RPS)");
	return n;
}

static const char *queue_file(const struct knob *k)
{
	return !strcmp(k->type->kw, "xps") ? "tx-%d/xps_cpus" : "rx-%d/rps_cpus";
}

/* A sysfs CPU mask ("00000000,00000003") into a CPU bitmap. */
static int mask_parse(const char *s, uint8_t *mask, size_t size)
{
	size_t nd = 0, bit;
	const char *p;

	memset(mask, 0, size);
	for (p = s + strlen(s); p-- > s; ) {
		int d;

		if (*p == ',' || *p == '\n')
			continue;
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else
			return -1;
		for (bit = 0; bit < 4; bit++)
			if (d & (1 << bit) && (nd * 4 + bit) / 8 < size)
				mask[(nd * 4 + bit) / 8] |= 1 << ((nd * 4 + bit) % 8);
		nd++;
	}
	return 0;
}

/* A CPU bitmap as the kernel parses masks: 32-bit words, commas. */
static void mask_format(const uint8_t *mask, size_t size, char *buf, size_t len)
{
	size_t words = 1, w, n = 0;

	for (w = 0; w * 4 < size; w++)
		if (mask[w * 4] | mask[w * 4 + 1] | mask[w * 4 + 2] | mask[w * 4 + 3])
			words = w + 1;
	for (w = words; w-- > 0; )
		n += snprintf(buf + n, len > n ? len - n : 0, "%s%02x%02x%02x%02x",
			      w + 1 < words ? "," : "", mask[w * 4 + 3], mask[w * 4 + 2],
			      mask[w * 4 + 1], mask[w * 4]);
}

/* The CPUs in the file @path: a sysfs mask (@hex) or a CPU list. */
static int read_cpus(const struct knob *k, const char *path, bool hex, uint8_t *mask,
		     size_t size)
{
	char buf[KTG_CPULIST_LEN];
	FILE *f = host_fopen(path);
	size_t len;
	int err;

	buf[0] = 0;
	if (f && fgets(buf, sizeof(buf), f))
		buf[strcspn(buf, "\n")] = 0;
	err = !f || (hex ? mask_parse(buf, mask, size) : parse_cpulist(buf, mask, size, &len));
	if (err)
		fprintf(stderr, "Error: %s: %s: %s: %s\n", k->ifname, k->type->kw, path,
			f ? "unreadable" : strerror(errno));
	if (f)
		fclose(f);
	return err ? -1 : 0;
}

/* "q0=0-1 q1=2 q2=none": each queue's CPUs. */
static int queues_get(const struct knob *k, char *val, size_t len)
{
	int q, nq = queue_count(k, !strcmp(k->type->kw, "xps") ? "tx" : "rx", true);
	uint8_t mask[KTG_CPUMASK_BYTES];
	char path[160], fmt[64], list[KTG_CPULIST_LEN];
	size_t n = 0;

	if (!nq)
		return -1;
	for (q = 0; q < nq; q++) {
		snprintf(fmt, sizeof(fmt), "/sys/class/net/%%s/queues/%s", queue_file(k));
		snprintf(path, sizeof(path), fmt, k->ifname, q);
		if (read_cpus(k, path, true, mask, sizeof(mask)))
			return -1;
		format_cpulist(mask, sizeof(mask), list, sizeof(list));
		n += snprintf(val + n, len > n ? len - n : 0, "%sq%d=%s", q ? " " : "", q,
			      *list ? list : "none");
	}
	if (n >= len) {
		fprintf(stderr, "Error: %s: %s: %d queues, too many to record\n", k->ifname,
			k->type->kw, nq);
		return -1;
	}
	return 0;
}

static int queues_set(const struct knob *k, const char *val)
{
	uint8_t mask[KTG_CPUMASK_BYTES];
	char path[160], fmt[64], hex[KTG_CPUMASK_BYTES * 3];
	const char *p = val;
	size_t mlen;
	int q, fd;

	snprintf(fmt, sizeof(fmt), "/sys/class/net/%%s/queues/%s", queue_file(k));
	while (sscanf(p, "q%d=", &q) == 1) {
		char list[KTG_CPULIST_LEN];
		const char *end = strchr(p, ' ');
		size_t l = end ? (size_t)(end - p) : strlen(p);
		const char *eq = strchr(p, '=') + 1;

		snprintf(list, sizeof(list), "%.*s", (int)(l - (eq - p)), eq);
		memset(mask, 0, sizeof(mask));
		if (strcmp(list, "none") && parse_cpulist(list, mask, sizeof(mask), &mlen))
			return -1;
		mask_format(mask, sizeof(mask), hex, sizeof(hex));
		snprintf(path, sizeof(path), fmt, k->ifname, q);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, hex, strlen(hex)) < 0) {
			fprintf(stderr, "Error: %s: %s %s: writing %s to %s: %s\n", k->ifname,
				k->type->kw, list, hex, path, strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
		close(fd);
		p += l;
		while (*p == ' ')
			p++;
	}
	return 0;
}

/* The online CPUs, from sysfs, into @mask; the count. */
static int online_cpus(uint8_t *mask, size_t size)
{
	char buf[KTG_CPULIST_LEN];
	size_t len, i;
	int n = 0;
	FILE *f;

	f = fopen("/sys/devices/system/cpu/online", "r");
	if (!f || !fgets(buf, sizeof(buf), f)) {
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	if (parse_cpulist(buf, mask, size, &len))
		return -1;
	for (i = 0; i < size * 8; i++)
		n += !!(mask[i / 8] & (1 << (i % 8)));
	return n;
}

/*
 * xps off: no queue has CPUs. xps CPULIST: the listed CPUs dealt to the
 * transmit queues in turn (queue q gets the q-th, q+N-th, ...), as drivers
 * map them at open; xps default: that with every online CPU. rps off or
 * rps CPULIST: every receive queue steers to all the CPUs listed. Queue
 * counts come from the device when the knob is applied.
 */
static int want_queues(struct knob *k, const char *arg)
{
	if (arg[0] == 'q' && strchr(arg, '=')) {
		/* Per queue, as dev set and a run's knobs record them. */
	} else if (strcmp(arg, "off") && strcmp(arg, "default")) {
		uint8_t mask[KTG_CPUMASK_BYTES];
		size_t len;

		if (parse_cpulist(arg, mask, sizeof(mask), &len)) {
			usage_error("%s: off%s or a CPU list, not '%s'", k->type->kw,
				    !strcmp(k->type->kw, "xps") ? ", default" : "", arg);
			return -1;
		}
	} else if (!strcmp(arg, "default") && strcmp(k->type->kw, "xps")) {
		usage_error("rps: off or a CPU list, not '%s'", arg);
		return -1;
	}
	/* Resolved per queue by queues_resolve() once the device is known. */
	snprintf(k->want, sizeof(k->want), "%s", arg);
	return 0;
}

static int queues_resolve(struct knob *k)
{
	uint8_t cpus[KTG_CPUMASK_BYTES], q_mask[KTG_CPUMASK_BYTES];
	char list[KTG_CPULIST_LEN], out[KNOB_VAL_LEN];
	bool xps = !strcmp(k->type->kw, "xps");
	int q, nq, c, i;
	size_t len, n = 0;

	if (!strcmp(k->want, "off") || !strcmp(k->want, "none")) {
		memset(cpus, 0, sizeof(cpus));
	} else if (!strcmp(k->want, "default")) {
		if (online_cpus(cpus, sizeof(cpus)) < 0)
			return -1;
	} else if (k->want[0] != 'q') {
		parse_cpulist(k->want, cpus, sizeof(cpus), &len);
	} else {
		return 0;	/* already per queue */
	}
	nq = queue_count(k, xps ? "tx" : "rx", true);
	if (!nq)
		return -1;
	for (q = 0; q < nq; q++) {
		memset(q_mask, 0, sizeof(q_mask));
		for (c = 0, i = 0; c < KTG_CPUS_MAX; c++) {
			if (!(cpus[c / 8] & (1 << (c % 8))))
				continue;
			if (!xps || i++ % nq == q)
				q_mask[c / 8] |= 1 << (c % 8);
		}
		format_cpulist(q_mask, sizeof(q_mask), list, sizeof(list));
		n += snprintf(out + n, sizeof(out) > n ? sizeof(out) - n : 0, "%sq%d=%s",
			      q ? " " : "", q, *list ? list : "none");
	}
	if (n >= sizeof(out)) {
		fprintf(stderr, "Error: %s: %s: %d queues, too many to record\n", k->ifname,
			k->type->kw, nq);
		return -1;
	}
	snprintf(k->want, sizeof(k->want), "%s", out);
	return 0;
}

/* --- IRQ affinity: /proc/irq/N/smp_affinity_list --------------------- */

#define KNOB_IRQS_MAX	512

static int irq_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/*
 * The device's interrupts, in order: its MSI vectors, or the one legacy
 * line a device without them has. 0 (after a message) when it has none a
 * CPU could be chosen for: a virtual device, a namespace's view.
 */
static int dev_irq_list(const struct knob *k, int *irqs, int max)
{
	char path[160], line[32];
	struct dirent *de;
	int n = 0, irq;
	DIR *dir;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/device/msi_irqs", k->ifname);
	dir = host_opendir(path);
	while (dir && (de = readdir(dir)) && n < max) {
		char *end;
		long v = strtol(de->d_name, &end, 10);

		if (de->d_name[0] >= '0' && de->d_name[0] <= '9' && !*end && v < INT_MAX)
			irqs[n++] = (int)v;
	}
	if (dir)
		closedir(dir);
	if (!n) {
		snprintf(path, sizeof(path), "/sys/class/net/%s/device/irq", k->ifname);
		f = host_fopen(path);
		if (f && fgets(line, sizeof(line), f) && sscanf(line, "%d", &irq) == 1 && irq > 0)
			irqs[n++] = irq;
		if (f)
			fclose(f);
	}
	if (!n)
		fprintf(stderr, "Error: %s: irq-affinity: no interrupts in /sys/class/net/%s/device (a virtual device?)\n",
			k->ifname, k->ifname);
	qsort(irqs, n, sizeof(*irqs), irq_cmp);
	return n;
}

/* "irq45=0-1 irq46=2": each interrupt's CPUs, as the kernel lists them. */
static int irqs_get(const struct knob *k, char *val, size_t len)
{
	uint8_t mask[KTG_CPUMASK_BYTES];
	char path[64], list[KTG_CPULIST_LEN];
	int irqs[KNOB_IRQS_MAX], n, i;
	size_t used = 0;

	n = dev_irq_list(k, irqs, KNOB_IRQS_MAX);
	if (!n)
		return -1;
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/proc/irq/%d/smp_affinity_list", irqs[i]);
		if (read_cpus(k, path, false, mask, sizeof(mask)))
			return -1;
		format_cpulist(mask, sizeof(mask), list, sizeof(list));
		used += snprintf(val + used, len > used ? len - used : 0, "%sirq%d=%s",
				 i ? " " : "", irqs[i], list);
	}
	if (used >= len) {
		fprintf(stderr, "Error: %s: irq-affinity: %d interrupts, too many to record\n",
			k->ifname, n);
		return -1;
	}
	return 0;
}

static int irqs_set(const struct knob *k, const char *val)
{
	const char *p = val;
	char path[64];
	int irq, fd;

	while (sscanf(p, "irq%d=", &irq) == 1) {
		const char *eq = strchr(p, '=') + 1;
		size_t l = strcspn(eq, " ");
		char list[KTG_CPULIST_LEN];

		snprintf(list, sizeof(list), "%.*s", (int)l, eq);
		snprintf(path, sizeof(path), "/proc/irq/%d/smp_affinity_list", irq);
		fd = host_open_write(path);
		if (fd < 0 || write(fd, list, strlen(list)) < 0) {
			int e = errno;

			fprintf(stderr, "Error: %s: irq-affinity: writing %s to %s: %s%s\n",
				k->ifname, list, path, strerror(e),
				e == EIO ? " (a kernel-managed interrupt: it follows its queue's CPUs)" :
				e == EINVAL ? " (none of those CPUs online, or not allowed)" : "");
			if (fd >= 0)
				close(fd);
			return -1;
		}
		close(fd);
		p = eq + l;
		p += strspn(p, " ");
	}
	return 0;
}

/* irq-affinity CPULIST: every interrupt of the device to those CPUs. */
static int want_irqs(struct knob *k, const char *arg)
{
	uint8_t mask[KTG_CPUMASK_BYTES];
	size_t len;

	if (!strncmp(arg, "irq", 3) && strchr(arg, '=')) {
		/* per interrupt, as a run's knobs record them */
	} else if (parse_cpulist(arg, mask, sizeof(mask), &len) || !len) {
		usage_error("irq-affinity: a CPU list, not '%s'", arg);
		return -1;
	}
	snprintf(k->want, sizeof(k->want), "%s", arg);
	return 0;
}

static int irqs_resolve(struct knob *k)
{
	uint8_t mask[KTG_CPUMASK_BYTES];
	char list[KTG_CPULIST_LEN], out[KNOB_VAL_LEN];
	int irqs[KNOB_IRQS_MAX], n, i;
	size_t used = 0, len;

	if (!strncmp(k->want, "irq", 3))
		return 0;
	parse_cpulist(k->want, mask, sizeof(mask), &len);
	format_cpulist(mask, sizeof(mask), list, sizeof(list));
	n = dev_irq_list(k, irqs, KNOB_IRQS_MAX);
	if (!n)
		return -1;
	for (i = 0; i < n; i++)
		used += snprintf(out + used, sizeof(out) > used ? sizeof(out) - used : 0,
				 "%sirq%d=%s", i ? " " : "", irqs[i], list);
	if (used >= sizeof(out)) {
		fprintf(stderr, "Error: %s: irq-affinity: %d interrupts, too many to record\n",
			k->ifname, n);
		return -1;
	}
	snprintf(k->want, sizeof(k->want), "%s", out);
	return 0;
}

/* --- busy polling: global sysctls --------------------------------------- */

static int sysctl_path(const struct knob *k, char *path, size_t len)
{
	return snprintf(path, len, "/proc/sys/net/core/%s",
			!strcmp(k->type->kw, "busy-poll") ? "busy_poll" : "busy_read");
}

static int sysctl_get(const struct knob *k, char *val, size_t len)
{
	char path[64];
	FILE *f;

	sysctl_path(k, path, sizeof(path));
	f = fopen(path, "r");
	if (!f || !fgets(val, len, f)) {
		fprintf(stderr, "Error: %s: %s%s\n", k->type->kw, path,
			errno == ENOENT ? ": global, only in the initial network namespace" : "");
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	val[strcspn(val, "\n")] = 0;
	return 0;
}

static int sysctl_set(const struct knob *k, const char *val)
{
	char path[64];
	int fd, err = 0;

	sysctl_path(k, path, sizeof(path));
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, val, strlen(val)) < 0)
		err = -1;
	if (err)
		fprintf(stderr, "Error: %s: writing %s to %s: %s\n", k->type->kw, val, path,
			strerror(errno));
	if (fd >= 0)
		close(fd);
	return err;
}

/* --- the knobs --------------------------------------------------------- */

static const struct knob_type knob_types[] = {
	{ "feature",	true,	false,	feature_get,	feature_set,	want_onoff },
	{ "priv-flag",	true,	false,	flag_get,	flag_set,	want_onoff },
	{ "tunable",	true,	false,	tunable_get,	tunable_set,	want_u32 },
	{ "xps",	false,	false,	queues_get,	queues_set,	want_queues },
	{ "rps",	false,	false,	queues_get,	queues_set,	want_queues },
	{ "rings-rx",	false,	true,	attr_get,	attr_set,	want_u32 },
	{ "rings-tx",	false,	true,	attr_get,	attr_set,	want_u32 },
	{ "channels",	false,	true,	chan_get,	chan_set,	want_chan },
	{ "tcp-data-split", false, true, attr_get,	attr_set,	want_onoff },
	{ "coalesce",	true,	false,	attr_get,	attr_set,	want_coalesce },
	{ "busy-poll",	false,	false,	sysctl_get,	sysctl_set,	want_u32 },
	{ "busy-read",	false,	false,	sysctl_get,	sysctl_set,	want_u32 },
	{ "irq-affinity", false, false,	irqs_get,	irqs_set,	want_irqs },
};

static const struct knob_type *knob_type(const char *kw)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(knob_types); i++)
		if (!strcmp(knob_types[i].kw, kw))
			return &knob_types[i];
	return NULL;
}

const char knob_usage[] =
	"KNOB: feature NAME on|off      an ethtool -k feature (tx-nocache-copy, rx-gro, ...)\n"
	"      priv-flag NAME on|off    a private flag (legacy-rx, ...)\n"
	"      tunable rx-copybreak|tx-copybreak BYTES\n"
	"      gro on|off, gro-hw on|off (the rx-gro and rx-gro-hw features)\n"
	"      xps off|default|CPULIST  CPUs dealt to the transmit queues in turn\n"
	"      rps off|CPULIST          every receive queue steers to these CPUs\n"
	"      rings [rx N] [tx N]      channels N (combined; rx and tx without)\n"
	"      coalesce [rx-usecs N] [rx-frames N] [tx-usecs N] [tx-frames N]\n"
	"               [adaptive-rx on|off] [adaptive-tx on|off]\n"
	"      tcp-data-split on|off    busy-poll USECS (net.core.busy_poll, busy_read)\n"
	"      irq-affinity CPULIST     every interrupt of the device to these CPUs\n";

static struct knob *knob_add(struct knob_list *l, const char *ifname, const char *netns,
			     const char *kw, const char *name)
{
	struct knob *k;

	k = realloc(l->k, (l->n + 1) * sizeof(*k));
	if (!k) {
		fprintf(stderr, "ktgen: out of memory\n");
		exit(EXIT_FAIL);
	}
	l->k = k;
	k = &l->k[l->n++];
	memset(k, 0, sizeof(*k));
	snprintf(k->ifname, sizeof(k->ifname), "%s", ifname);
	snprintf(k->netns, sizeof(k->netns), "%s", netns ? netns : "");
	snprintf(k->name, sizeof(k->name), "%s", name ? name : "");
	k->type = knob_type(kw);
	return k;
}

/* Keyword-value pairs of rings and coalesce, as many as follow. */
static int knob_parse_pairs(struct knob_list *l, const char *ifname, const char *netns,
			    const char *kw, int argc, char **argv)
{
	static const char * const ring_kw[] = { "rx", "tx" };
	bool rings = !strcmp(kw, "rings");
	int i = 1, j;

	while (i + 1 < argc) {
		struct knob *k;
		char full[16];

		for (j = 0; rings && j < 2 && strcmp(argv[i], ring_kw[j]); j++)
			;
		if (rings && j == 2)
			break;
		if (!rings && !knob_type("coalesce"))
			break;
		if (!rings) {
			struct knob probe = { .type = knob_type("coalesce") };

			snprintf(probe.name, sizeof(probe.name), "%s", argv[i]);
			if (!attr_knob(&probe) || attr_knob(&probe)->get != ETHTOOL_MSG_COALESCE_GET)
				break;
			k = knob_add(l, ifname, netns, "coalesce", argv[i]);
		} else {
			snprintf(full, sizeof(full), "rings-%s", argv[i]);
			k = knob_add(l, ifname, netns, full, NULL);
		}
		if (k->type->want(k, argv[i + 1]))
			return -1;
		i += 2;
	}
	if (i == 1) {
		usage_error("%s: %s", kw, rings ? "rx N and/or tx N" :
			    "rx-usecs, rx-frames, tx-usecs, tx-frames, adaptive-rx or adaptive-tx, and a value");
		return -1;
	}
	return i;
}

int knob_parse(struct knob_list *l, const char *ifname, const char *netns,
	       int argc, char **argv)
{
	const struct knob_type *t;
	const char *kw = argv[0], *name = NULL;
	struct knob *k;
	int n;

	if (!strcmp(kw, "rings") || !strcmp(kw, "coalesce"))
		return knob_parse_pairs(l, ifname, netns, kw, argc, argv);
	if (!strcmp(kw, "gro") || !strcmp(kw, "gro-hw")) {
		name = !strcmp(kw, "gro") ? "rx-gro" : "rx-gro-hw";
		kw = "feature";
	}
	t = knob_type(kw);
	if (!t || !strcmp(kw, "busy-read") || !strncmp(kw, "rings-", 6))
		return 0;
	n = t->named && !name ? 3 : 2;
	if (argc < n) {
		usage_error("%s: needs %s", argv[0], t->named && !name ? "a name and a value" : "a value");
		return -1;
	}
	if (t->named && !name)
		name = argv[1];
	if (!strcmp(kw, "tunable") && strcmp(name, "rx-copybreak") && strcmp(name, "tx-copybreak")) {
		usage_error("tunable: rx-copybreak or tx-copybreak, not '%s'", name);
		return -1;
	}
	k = knob_add(l, ifname, netns, kw, name);
	if (t->want(k, argv[n - 1]))
		return -1;
	if (!strcmp(kw, "busy-poll")) {
		/* Both sysctls: polling in poll() and in reads. */
		k = knob_add(l, ifname, netns, "busy-read", NULL);
		snprintf(k->want, sizeof(k->want), "%s", l->k[l->n - 2].want);
	}
	return n;
}

int knob_parse_dev(struct knob_list *l, int argc, char **argv)
{
	char ifname[IF_NAMESIZE + 64], *at;
	int n;

	if (argc < 3) {
		usage_error("knob: IFNAME[@NETNS] and a knob");
		return -1;
	}
	snprintf(ifname, sizeof(ifname), "%s", argv[0]);
	at = strchr(ifname, '@');
	if (at)
		*at++ = 0;
	if (!*ifname || strlen(ifname) >= IF_NAMESIZE ||
	    (at && (!*at || strchr(at, '/') || strlen(at) >= 64))) {
		usage_error("knob: IFNAME[@NETNS], not '%s'", argv[0]);
		return -1;
	}
	n = knob_parse(l, ifname, at, argc - 1, argv + 1);
	if (n == 0)
		usage_error("knob: unknown knob '%s'", argv[1]);
	return n > 0 ? n + 1 : -1;
}

/* --- apply, verify, restore ------------------------------------------- */

static int knob_read(struct knob *k, char *val, size_t len)
{
	int err;

	if (in_ns(k))
		return -1;
	err = k->type->get(k, val, len);
	ns_home();
	return err;
}

static bool carrier_up(const struct knob *k)
{
	char path[96];
	FILE *f;
	int c;

	snprintf(path, sizeof(path), "/sys/class/net/%s/carrier", k->ifname);
	f = host_fopen(path);
	if (!f)
		return false;
	c = fgetc(f);
	fclose(f);
	return c == '1';
}

/* The device's carrier transitions so far; -1 when it does not say. */
static long carrier_changes(const struct knob *k)
{
	char path[96], buf[32];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/carrier_changes", k->ifname);
	f = host_fopen(path);
	if (f && fgets(buf, sizeof(buf), f))
		v = strtol(buf, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

/*
 * After a reset: the carrier back, then no carrier transition and no reset
 * counted for KNOB_SETTLE_MS (a link that comes back bouncing, a driver
 * that resets twice); at most KNOB_RESET_MS in all.
 */
static int reset_settle(const struct knob *k)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	long long last_resets = -2;
	long last = -2;
	int quiet = 0, i;

	for (i = 0; i < KNOB_RESET_MS / 10; i++) {
		long long resets = ethtool_resets(k->ifname);
		long now = carrier_changes(k);

		if (!carrier_up(k) || now != last || resets != last_resets)
			quiet = 0;
		else if (++quiet >= KNOB_SETTLE_MS / 10)
			return 0;
		last = now;
		last_resets = resets;
		nanosleep(&ts, NULL);
	}
	fprintf(stderr, "Error: %s: %s%s%s: the carrier %s %d s after the reset it caused\n",
		k->ifname, k->type->kw, *k->name ? " " : "", k->name,
		carrier_up(k) ? "was still changing" : "had not come back", KNOB_RESET_MS / 1000);
	return -1;
}

/* Whether the device has @want: per-queue values only for the queues
 * @want names (a reset since may have added queues, with their own).
 */
static bool knob_same(const struct knob *k, const char *want, const char *got)
{
	const char *p = want;

	if (!((k->type->want == want_queues && *want == 'q') ||
	      (k->type->want == want_irqs && !strncmp(want, "irq", 3))))
		return !strcmp(want, got);
	while (*p) {
		size_t n = strcspn(p, " ");
		char tok[KTG_CPULIST_LEN + 16];
		const char *at;

		snprintf(tok, sizeof(tok), "%.*s", (int)n, p);
		for (at = strstr(got, tok); at; at = strstr(at + 1, tok))
			if ((at == got || at[-1] == ' ') && (at[n] == ' ' || !at[n]))
				break;
		if (!at)
			return false;
		p += n;
		p += strspn(p, " ");
	}
	return true;
}

/*
 * Set @val on @k and check the device took it; @after gets what it has.
 * Whether the write reset the device is observed, not assumed from the
 * knob's kind: its carrier dropped or changed (ixgbe resets for legacy-rx,
 * a private flag like any other) or its reset counters moved (mlx5 reopens
 * its channels with the carrier up), then it is waited out (reset_settle).
 */
static int knob_write(struct knob *k, const char *val, char *after, size_t len)
{
	long long resets;
	long before;
	bool up;
	int err;

	if (in_ns(k))
		return -1;
	up = carrier_up(k);
	before = carrier_changes(k);
	resets = ethtool_resets(k->ifname);
	err = k->type->set(k, val);
	if (!err) {
		long now = carrier_changes(k);

		k->reset = (k->type->resets && up) || (before >= 0 && now != before) ||
			   (up && !carrier_up(k)) ||
			   (resets >= 0 && ethtool_resets(k->ifname) != resets);
		if (k->reset && up)
			err = reset_settle(k);
	}
	if (!err)
		err = k->type->get(k, after, len);
	ns_home();
	if (err)
		return -1;
	if (!knob_same(k, val, after)) {
		fprintf(stderr, "Error: %s: %s%s%s: set to %s, the device kept %s%s\n",
			k->ifname, k->type->kw, *k->name ? " " : "", k->name, val, after,
			!strcmp(k->type->kw, "feature") ? " (a fixed feature)" : "");
		return -1;
	}
	return 0;
}

/* A feature the device has and can change (among its hw features, not
 * fixed by the kernel) unless it is already as wanted; one read.
 */
static int feature_changeable(struct knob *k)
{
	struct bits b;
	int at, err = 0;

	if (bits_get(k, true, false, &b))
		return -1;
	at = bits_find(&b, k->name, false);
	if (at < 0) {
		bit_missing(k, true, &b);
		err = -1;
	} else if (!!(b.flags[at] & BIT_ON) != !strcmp(k->want, "on") &&
		   (!(b.flags[at] & BIT_HW) || (b.flags[at] & BIT_NOCHANGE))) {
		fprintf(stderr, "Error: %s: feature %s is fixed %s: the device cannot change it\n",
			k->ifname, k->name, b.flags[at] & BIT_ON ? "on" : "off");
		err = -1;
	}
	bits_free(&b);
	return err;
}

int knobs_check(struct knob_list *l)
{
	static char val[KNOB_VAL_LEN];
	size_t i;

	for (i = 0; i < l->n; i++) {
		struct knob *k = &l->k[i];
		int err;

		if (!strcmp(k->type->kw, "feature")) {
			err = in_ns(k);
			if (!err)
				err = feature_changeable(k);
			ns_home();
		} else {
			err = knob_read(k, val, sizeof(val));
		}
		if (err) {
			usage_error("run: knob %s%s%s %s%s%s cannot act here (the error above)",
				    k->ifname, *k->netns ? "@" : "", k->netns, k->type->kw,
				    *k->name ? " " : "", k->name);
			return -1;
		}
	}
	return 0;
}

/* Knobs that reset a device first, in their order, then the others: a
 * reset must not undo what was set before it.
 */
static void knobs_order(struct knob_list *l)
{
	size_t i, k = 0;

	for (i = 0; i < l->n; i++) {
		if (l->k[i].type->resets) {
			struct knob t = l->k[i];

			memmove(&l->k[k + 1], &l->k[k], (i - k) * sizeof(t));
			l->k[k++] = t;
		}
	}
}

int knobs_apply(struct knob_list *l)
{
	size_t i;

	knobs_order(l);
	for (i = 0; i < l->n; i++) {
		struct knob *k = &l->k[i];
		int err;

		k->changed = false;
		if (k->type->want == want_queues || k->type->want == want_irqs) {
			if (in_ns(k))
				goto err_restore;
			err = k->type->want == want_queues ? queues_resolve(k) : irqs_resolve(k);
			ns_home();
			if (err)
				goto err_restore;
		}
		if (knob_read(k, k->before, sizeof(k->before)))
			goto err_restore;
		if (!strcmp(k->before, k->want)) {
			snprintf(k->after, sizeof(k->after), "%s", k->before);
			continue;
		}
		/* Marked first: a value half taken is put back too. */
		k->changed = true;
		if (knob_write(k, k->want, k->after, sizeof(k->after)))
			goto err_restore;
		l->resets |= k->reset;
	}
	return 0;

err_restore:
	knobs_restore(l);
	return -1;
}

int knobs_restore(struct knob_list *l)
{
	static char now[KNOB_VAL_LEN];
	int err = 0;
	size_t i;

	/* Devices reset first (a reset may redo what they map, XPS), then
	 * the rest over them: each group newest first.
	 */
	for (i = 2 * l->n; i-- > 0; ) {
		struct knob *k = &l->k[i % l->n];

		if (!k->changed || k->type->resets != (i >= l->n))
			continue;
		now[0] = 0;
		if (knob_write(k, k->before, now, sizeof(now))) {
			fprintf(stderr, "ktgen: %s: %s%s%s not put back to %s (now %s)\n",
				k->ifname, k->type->kw, *k->name ? " " : "", k->name, k->before,
				*now ? now : "unknown");
			err = -1;
		}
		k->changed = false;
	}
	return err;
}

void knobs_print(const struct knob_list *l, const char *key)
{
	size_t i;

	if (!l->n)
		return;
	print_open_array(key);
	print_text("%s:", key);
	for (i = 0; i < l->n; i++) {
		const struct knob *k = &l->k[i];
		bool changed = strcmp(k->before, k->after);

		print_open_object(NULL);
		print_string(PRINT_ANY, "dev", " %s", k->ifname);
		if (*k->netns)
			print_string(PRINT_ANY, "netns", "@%s", k->netns);
		print_string(PRINT_ANY, "knob", " %s", k->type->kw);
		if (*k->name)
			print_string(PRINT_ANY, "name", " %s", k->name);
		print_string(PRINT_ANY, "before", " %s", k->before);
		print_string(PRINT_ANY, "after", changed ? " -> %s" : "", k->after);
		print_bool(PRINT_JSON, "changed", NULL, changed);
		print_bool(PRINT_JSON, "reset", NULL, k->reset);
		print_text("%s", changed ? (k->reset ? " (reset)" : "") : " (unchanged)");
		print_text("%s", i + 1 < l->n ? ";" : "\n");
		print_close_object();
	}
	print_close_array();
}

void knobs_free(struct knob_list *l)
{
	free(l->k);
	memset(l, 0, sizeof(*l));
}

/* --- ktgen dev show --------------------------------------------------- */

/* --- a device's settings at once: dev show, and the run's environment -- */

/* The numbers of one GET reply, shown under their ethtool names. */
struct show_attr {
	unsigned int	type;
	const char	*key;
	bool		u8;
};

struct show_group {
	const char		*key;
	uint8_t			cmd;
	const struct show_attr	*attrs;
	size_t			n;
};

#define SHOW_ATTRS_MAX	6

static const struct show_attr rings_attrs[] = {
	{ ETHTOOL_A_RINGS_RX,		"rx" },
	{ ETHTOOL_A_RINGS_RX_MAX,	"rx_max" },
	{ ETHTOOL_A_RINGS_TX,		"tx" },
	{ ETHTOOL_A_RINGS_TX_MAX,	"tx_max" },
	{ ETHTOOL_A_RINGS_RX_BUF_LEN,	"rx_buf_len" },
	{ ETHTOOL_A_RINGS_TCP_DATA_SPLIT, "tcp_data_split", true },
};

static const struct show_attr channels_attrs[] = {
	{ ETHTOOL_A_CHANNELS_COMBINED_COUNT,	"combined" },
	{ ETHTOOL_A_CHANNELS_COMBINED_MAX,	"combined_max" },
	{ ETHTOOL_A_CHANNELS_RX_COUNT,		"rx" },
	{ ETHTOOL_A_CHANNELS_RX_MAX,		"rx_max" },
	{ ETHTOOL_A_CHANNELS_TX_COUNT,		"tx" },
	{ ETHTOOL_A_CHANNELS_TX_MAX,		"tx_max" },
};

static const struct show_attr coalesce_attrs[] = {
	{ ETHTOOL_A_COALESCE_RX_USECS,		"rx_usecs" },
	{ ETHTOOL_A_COALESCE_RX_MAX_FRAMES,	"rx_frames" },
	{ ETHTOOL_A_COALESCE_TX_USECS,		"tx_usecs" },
	{ ETHTOOL_A_COALESCE_TX_MAX_FRAMES,	"tx_frames" },
	{ ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX,	"adaptive_rx", true },
	{ ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX,	"adaptive_tx", true },
};

/* The snapshot keeps up to SHOW_ATTRS_MAX values of each group. */
_Static_assert(ARRAY_SIZE(rings_attrs) <= SHOW_ATTRS_MAX &&
	       ARRAY_SIZE(channels_attrs) <= SHOW_ATTRS_MAX &&
	       ARRAY_SIZE(coalesce_attrs) <= SHOW_ATTRS_MAX, "SHOW_ATTRS_MAX too small");

static const struct show_group show_groups[] = {
	{ "rings",	ETHTOOL_MSG_RINGS_GET,	rings_attrs,	ARRAY_SIZE(rings_attrs) },
	{ "channels",	ETHTOOL_MSG_CHANNELS_GET, channels_attrs, ARRAY_SIZE(channels_attrs) },
	{ "coalesce",	ETHTOOL_MSG_COALESCE_GET, coalesce_attrs, ARRAY_SIZE(coalesce_attrs) },
};

/* The single-valued knobs shown: a tunable, XPS, RPS, busy polling. */
static const struct show_knob {
	const char	*kw;
	const char	*name;
	const char	*key;
} show_knobs[] = {
	{ "tunable",	"rx-copybreak",	"rx-copybreak" },
	{ "tunable",	"tx-copybreak",	"tx-copybreak" },
	{ "xps",	NULL,		"xps" },
	{ "rps",	NULL,		"rps" },
	{ "busy-poll",	NULL,		"busy-poll" },
	{ "busy-read",	NULL,		"busy-read" },
};

/* What a device does not have is absent: a GET it refuses, a knob it
 * lacks.
 */
struct dev_snap {
	char			ifname[IF_NAMESIZE];
	char			netns[64];
	bool			has_drv;
	struct ethtool_drvinfo	drv;
	bool			carrier;
	int			tx_queues, rx_queues;
	bool			has_bits[2];	/* features, private flags */
	struct bits		bits[2];
	struct {
		bool		have[SHOW_ATTRS_MAX];
		uint32_t	val[SHOW_ATTRS_MAX];
	}			group[ARRAY_SIZE(show_groups)];
	struct {
		bool		have;
		char		val[KNOB_VAL_LEN];
	}			knob[ARRAY_SIZE(show_knobs)];
};

/* The driver, by the ETHTOOL_GDRVINFO ioctl (ethtool netlink has none). */
static void snap_driver(struct dev_snap *s)
{
	struct ifreq ifr = { };
	int fd;

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", s->ifname);
	s->drv.cmd = ETHTOOL_GDRVINFO;
	ifr.ifr_data = (void *)&s->drv;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	s->has_drv = fd >= 0 && !ioctl(fd, SIOCETHTOOL, &ifr);
	if (fd >= 0)
		close(fd);
}

struct group_reply {
	const struct show_group	*g;
	bool			*have;
	uint32_t		*val;
};

static int group_cb(const struct nlmsghdr *nlh, void *data)
{
	struct group_reply *r = data;
	const struct nlattr *a;
	size_t i;

	for (i = 0; i < r->g->n; i++) {
		const struct show_attr *sa = &r->g->attrs[i];

		mnl_attr_for_each(a, nlh, GENL_HDRLEN) {
			if (mnl_attr_get_type(a) != sa->type)
				continue;
			if (sa->u8 && mnl_attr_get_payload_len(a) == 1)
				r->val[i] = mnl_attr_get_u8(a);
			else if (!sa->u8 && mnl_attr_get_payload_len(a) == 4)
				r->val[i] = mnl_attr_get_u32(a);
			else
				continue;
			r->have[i] = true;
		}
	}
	return MNL_CB_OK;
}

static void snap_group(struct dev_snap *s, const struct knob *k, size_t g)
{
	struct group_reply r = { &show_groups[g], s->group[g].have, s->group[g].val };
	struct eth_req req;

	if (eth_start(&req, k, show_groups[g].cmd))
		return;
	/* A device without the operation has none of it. */
	req.ctx.what = NULL;
	if (nl_request_quiet(&req.ctx, req.nlh, group_cb, &r))
		memset(s->group[g].have, 0, sizeof(s->group[g].have));
	nl_close(&req.ctx);
}

/* One knob's value, quietly: a device without it has none. */
static void snap_knob(struct dev_snap *s, struct knob *k, size_t i)
{
	int saved = dup(STDERR_FILENO), null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	k->type = knob_type(show_knobs[i].kw);
	snprintf(k->name, sizeof(k->name), "%s", show_knobs[i].name ? show_knobs[i].name : "");
	fflush(stderr);
	if (null >= 0)
		dup2(null, STDERR_FILENO);
	s->knob[i].have = !k->type->get(k, s->knob[i].val, sizeof(s->knob[i].val));
	fflush(stderr);
	if (saved >= 0) {
		dup2(saved, STDERR_FILENO);
		close(saved);
	}
	if (null >= 0)
		close(null);
	k->type = NULL;
}

struct dev_snap *dev_snap_read(const char *ifname, const char *netns)
{
	struct dev_snap *s = calloc(1, sizeof(*s));
	struct knob *k = calloc(1, sizeof(*k));
	size_t i;

	if (!s || !k) {
		fprintf(stderr, "ktgen: out of memory\n");
		exit(EXIT_FAIL);
	}
	snprintf(k->ifname, sizeof(k->ifname), "%s", ifname);
	snprintf(k->netns, sizeof(k->netns), "%s", netns ? netns : "");
	snprintf(s->ifname, sizeof(s->ifname), "%s", k->ifname);
	snprintf(s->netns, sizeof(s->netns), "%s", k->netns);
	if (in_ns(k) || !(s->tx_queues = queue_count(k, "tx", true))) {
		ns_home();
		free(k);
		free(s);
		return NULL;
	}
	s->rx_queues = queue_count(k, "rx", false);
	snap_driver(s);
	s->carrier = carrier_up(k);
	for (i = 0; i < 2; i++)
		s->has_bits[i] = !bits_get(k, i == 0, true, &s->bits[i]);
	for (i = 0; i < ARRAY_SIZE(show_groups); i++)
		snap_group(s, k, i);
	for (i = 0; i < ARRAY_SIZE(show_knobs); i++)
		snap_knob(s, k, i);
	ns_home();
	free(k);
	return s;
}

void dev_snap_free(struct dev_snap *s)
{
	if (!s)
		return;
	bits_free(&s->bits[0]);
	bits_free(&s->bits[1]);
	free(s);
}

static void print_bits(const struct dev_snap *s, bool features)
{
	const struct bits *b = &s->bits[!features];
	size_t i;

	if (!s->has_bits[!features])
		return;
	print_open_object(features ? "features" : "priv_flags");
	print_text(features ? "features:" : "priv-flags:");
	for (i = 0; i < b->n; i++) {
		bool fixed = !(b->flags[i] & BIT_HW) || (b->flags[i] & BIT_NOCHANGE);

		if (!features) {
			print_bool(PRINT_JSON, b->name[i], NULL, b->flags[i] & BIT_ON);
			print_text(" %s %s", b->name[i], b->flags[i] & BIT_ON ? "on" : "off");
			continue;
		}
		/* ethtool --json -k's shape. */
		print_open_object(b->name[i]);
		print_bool(PRINT_JSON, "active", NULL, b->flags[i] & BIT_ON);
		print_bool(PRINT_JSON, "fixed", NULL, fixed);
		print_bool(PRINT_JSON, "requested", NULL, b->flags[i] & BIT_WANTED);
		print_close_object();
		print_text("%s %s %s%s", i % 3 ? "," : "\n ", b->name[i],
			   b->flags[i] & BIT_ON ? "on" : "off", fixed ? " [fixed]" : "");
	}
	print_text("%s\n", b->n ? "" : " none");
	print_close_object();
}

static void print_group(const struct dev_snap *s, size_t g)
{
	const struct show_group *sg = &show_groups[g];
	bool any = false;
	size_t i;

	for (i = 0; i < sg->n; i++) {
		const struct show_attr *sa = &sg->attrs[i];
		uint32_t v = s->group[g].val[i];

		if (!s->group[g].have[i])
			continue;
		if (!any)
			print_open_object(sg->key);
		print_text(any ? "," : "%s:", sg->key);
		any = true;
		if (sa->type == ETHTOOL_A_RINGS_TCP_DATA_SPLIT)
			print_string(PRINT_ANY, sa->key, " tcp-data-split %s",
				     v < ARRAY_SIZE(split_names) ? split_names[v] : "?");
		else if (sa->u8)
			print_bool(PRINT_JSON, sa->key, NULL, v);
		else
			print_u64(PRINT_JSON, sa->key, NULL, v);
		if (!sa->u8)
			print_text(" %s %u", sa->key, v);
		else if (sa->type != ETHTOOL_A_RINGS_TCP_DATA_SPLIT)
			print_text(" %s %s", sa->key, v ? "on" : "off");
	}
	if (any) {
		print_text("\n");
		print_close_object();
	}
}

void dev_snap_print(const struct dev_snap *s)
{
	size_t i;

	print_string(PRINT_ANY, "ifname", "%s:", s->ifname);
	if (*s->netns)
		print_string(PRINT_ANY, "netns", " netns %s", s->netns);
	if (s->has_drv) {
		print_string(PRINT_ANY, "driver", " driver %s", s->drv.driver);
		if (*s->drv.version)
			print_string(PRINT_ANY, "driver_version", " %s", s->drv.version);
		if (*s->drv.fw_version)
			print_string(PRINT_ANY, "firmware", " firmware %s", s->drv.fw_version);
		if (*s->drv.bus_info)
			print_string(PRINT_ANY, "bus_info", " bus %s", s->drv.bus_info);
	}
	print_u64(PRINT_ANY, "carrier", " carrier %llu", s->carrier);
	print_u64(PRINT_ANY, "tx_queues", " tx-queues %llu", s->tx_queues);
	print_u64(PRINT_ANY, "rx_queues", " rx-queues %llu\n", s->rx_queues);
	print_bits(s, true);
	print_bits(s, false);
	for (i = 0; i < ARRAY_SIZE(show_groups); i++)
		print_group(s, i);
	for (i = 0; i < ARRAY_SIZE(show_knobs); i++) {
		const struct show_knob *sk = &show_knobs[i];

		if (!s->knob[i].have)
			continue;
		if (knob_type(sk->kw)->want == want_u32)
			print_u64(PRINT_JSON, sk->key, NULL, strtoull(s->knob[i].val, NULL, 10));
		else
			print_string(PRINT_JSON, sk->key, NULL, s->knob[i].val);
		print_text("%s %s\n", sk->key, s->knob[i].val);
	}
}

static int dev_show(struct knob *k)
{
	struct dev_snap *s = dev_snap_read(k->ifname, k->netns);

	if (!s)
		return EXIT_FAIL;
	print_open_object(NULL);
	dev_snap_print(s);
	print_close_object();
	dev_snap_free(s);
	return EXIT_OK;
}

static void dev_usage(FILE *f)
{
	fputs("Usage: ktgen dev show IFNAME [netns NS]\n"
	      "       ktgen dev set IFNAME [netns NS] KNOB...\n", f);
	fputs(knob_usage, f);
	fputs("set reads each knob, sets it when it differs and reads it back: a value\n"
	      "the device refuses or does not keep is an error naming the knob, and what\n"
	      "was set before it is put back. It prints each knob's value before and\n"
	      "after. Rings, channels and tcp-data-split reset the device: set waits for\n"
	      "its carrier. A run takes the same knobs (knob IFNAME[@NS] KNOB...) and\n"
	      "puts them back when it ends.\n", f);
}

/* IFNAME [netns NS]: the device's words; returns how many. */
static int dev_parse_name(const char *cmd, int argc, char **argv, struct knob *dev)
{
	memset(dev, 0, sizeof(*dev));
	if (argc < 1 || !*argv[0] || strlen(argv[0]) >= IF_NAMESIZE || strchr(argv[0], '/')) {
		usage_error("dev %s: which device?%s%s", cmd, argc ? " not " : "",
			    argc ? argv[0] : "");
		return -1;
	}
	snprintf(dev->ifname, sizeof(dev->ifname), "%s", argv[0]);
	if (argc >= 2 && !strcmp(argv[1], "netns")) {
		if (argc < 3 || !*argv[2] || strchr(argv[2], '/')) {
			usage_error("dev %s: netns: a name under /run/netns", cmd);
			return -1;
		}
		snprintf(dev->netns, sizeof(dev->netns), "%s", argv[2]);
		return 3;
	}
	return 1;
}

static int dev_set(struct knob *dev, int argc, char **argv)
{
	struct knob_list l = { };
	int n, ret = EXIT_OK;

	if (!argc) {
		usage_error("dev set: which knob?");
		return EXIT_USAGE;
	}
	while (argc > 0) {
		n = knob_parse(&l, dev->ifname, dev->netns, argc, argv);
		if (n == 0)
			usage_error("dev set: unknown knob '%s'", argv[0]);
		if (n <= 0) {
			knobs_free(&l);
			return EXIT_USAGE;
		}
		argc -= n;
		argv += n;
	}
	if (knobs_apply(&l)) {
		ret = EXIT_FAIL;
	} else {
		print_open_object(NULL);
		knobs_print(&l, "knobs");
		print_close_object();
	}
	knobs_free(&l);
	return ret;
}

int do_dev(int argc, char **argv)
{
	struct knob dev;
	int n;

	if (argc < 1 || is_help(argv[0])) {
		dev_usage(argc ? stdout : stderr);
		return argc ? EXIT_OK : EXIT_USAGE;
	}
	if (strcmp(argv[0], "show") && strcmp(argv[0], "set")) {
		usage_error("dev: show or set, not '%s'", argv[0]);
		return EXIT_USAGE;
	}
	n = dev_parse_name(argv[0], argc - 1, argv + 1, &dev);
	if (n < 0)
		return EXIT_USAGE;
	if (!strcmp(argv[0], "set"))
		return dev_set(&dev, argc - 1 - n, argv + 1 + n);
	if (argc - 1 != n) {
		usage_error("dev show: unexpected '%s'", argv[1 + n]);
		return EXIT_USAGE;
	}
	return dev_show(&dev);
}
