// SPDX-License-Identifier: GPL-2.0
/*
 * ktgen dev: the copy-path settings of a network device.
 *
 *   ktgen dev show IFNAME [netns NS]
 *   ktgen dev set IFNAME [netns NS] KNOB...
 *
 * The knobs themselves are knobs.c's and their families' (knob.h); this
 * file shows a device's at once (dev show, and the environment a run
 * records) and sets them from the command line.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/sockios.h>

#include "ktgen.h"
#include "knob.h"
#include "nl.h"
#include "print.h"

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
				     tcp_data_split_name(v));
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
		if (knob_type(sk->kw)->numeric)
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
