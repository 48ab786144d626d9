// SPDX-License-Identifier: GPL-2.0
/*
 * Knobs ethtool carries: over ethtool netlink, features and private flags
 * (bitsets, by name), rings, channels, coalescing and tcp-data-split
 * (single attributes); over the ETHTOOL_[GS]TUNABLE ioctl, the copybreaks.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/sockios.h>
#include <net/if.h>

#include "ktgen.h"
#include "knob.h"
#include "nl.h"
#include "print.h"

/* --- ethtool netlink -------------------------------------------------- */

/* A request of @cmd for @k's device (the current namespace's socket). */
int eth_start(struct eth_req *r, const struct knob *k, uint8_t cmd)
{
	struct nlattr *hdr;
	int err = nl_open_family(&r->ctx, ETHTOOL_GENL_NAME, ETHTOOL_GENL_VERSION);

	/* Any other failure (out of memory, buffers) said what it was. */
	if (err == -ENOENT)
		fprintf(stderr, "ktgen: no ethtool netlink in this kernel\n");
	if (err)
		return -1;
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
			uint32_t val, bool byte)
{
	struct eth_req r;

	if (eth_start(&r, k, cmd))
		return -1;
	if (byte)
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

void bits_free(struct bits *b)
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

int bits_get(const struct knob *k, bool features, bool quiet, struct bits *b)
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
		char path[128], tmp[PATH_MAX];
		int e = errno;
		bool param;

		/* e1000e and e1000: a module parameter instead */
		snprintf(path, sizeof(path),
			 "/sys/class/net/%s/device/driver/module/parameters/copybreak", k->ifname);
		param = e == EOPNOTSUPP && !strcmp(k->name, "rx-copybreak") &&
			!access(host_path(path, tmp, sizeof(tmp)), F_OK);
		fprintf(stderr, "Error: %s: tunable %s: %s%s\n", k->ifname, k->name,
			e == EOPNOTSUPP ? "the driver has no such tunable" : strerror(e),
			param ? " (its module's parameter is one: the knob param copybreak BYTES)" : "");
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

const char *tcp_data_split_name(uint32_t v)
{
	return v < ARRAY_SIZE(split_names) ? split_names[v] : "?";
}

static int attr_get(const struct knob *k, char *val, size_t len)
{
	const struct attr_knob *ak = attr_knob(k);
	uint32_t v;

	if (eth_get_attr(k, ak->get, ak->type, &v))
		return -1;
	if (ak->type == ETHTOOL_A_RINGS_TCP_DATA_SPLIT)
		snprintf(val, len, "%s", tcp_data_split_name(v));
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

bool knob_coalesce_param(const char *name)
{
	struct knob probe = { .type = knob_type("coalesce") };

	snprintf(probe.name, sizeof(probe.name), "%s", name);
	return attr_knob(&probe) && attr_knob(&probe)->get == ETHTOOL_MSG_COALESCE_GET;
}

const struct knob_type knob_types_ethtool[] = {
	{ "feature",	true,	false,	false,	feature_get,	feature_set,	want_onoff,
	  .check = feature_changeable },
	{ "priv-flag",	true,	false,	false,	flag_get,	flag_set,	want_onoff },
	{ "tunable",	true,	false,	true,	tunable_get,	tunable_set,	want_u32 },
	{ "rings-rx",	false,	true,	true,	attr_get,	attr_set,	want_u32 },
	{ "rings-tx",	false,	true,	true,	attr_get,	attr_set,	want_u32 },
	{ "channels",	false,	true,	false,	chan_get,	chan_set,	want_chan },
	{ "tcp-data-split", false, true, false,	attr_get,	attr_set,	want_onoff },
	{ "coalesce",	true,	false,	false,	attr_get,	attr_set,	want_coalesce },
};

const size_t knob_types_ethtool_n = ARRAY_SIZE(knob_types_ethtool);
