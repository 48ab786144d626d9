// SPDX-License-Identifier: GPL-2.0
/*
 * ktgen nic: the virtual NIC pair (rtnetlink link kind "ktgen-nic").
 *
 *   ktgen nic add NAME [peer PEER] [netns NS] [peer-netns NS] [dma-cpu CPU]
 *                 [irq-cpus CPU,...]
 *   ktgen nic set NAME [dma-cpu CPU] [irq-cpus CPU,...]
 *   ktgen nic del NAME
 *   ktgen nic show [NAME]
 *
 * iproute2 creates one too (ip link add NAME type ktgen-nic), but cannot
 * name its peer: it parses "peer" only for the kinds it knows.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <linux/ktgen_nic.h>
#include <linux/rtnetlink.h>

#include "ktgen.h"
#include "nl.h"
#include "print.h"

/* The link kind the module registers (kmod/nic/link.c). */
#define KTG_NIC_KIND	KTGEN_NIC_KIND

static const char * const rx_style_names[] = {
	[KTGEN_NIC_RX_STYLE_BUILD]	= "build",
	[KTGEN_NIC_RX_STYLE_LEGACY]	= "legacy",
	[KTGEN_NIC_RX_STYLE_FRAGS]	= "frags",
};

static void nic_usage(FILE *f)
{
	fputs("Usage: ktgen nic add NAME [peer PEER] [netns NS] [peer-netns NS] [dma-cpu CPU]\n"
	      "                     [irq-cpus CPU,...]\n"
	      "       ktgen nic set NAME [dma-cpu CPU] [irq-cpus CPU,...]\n"
	      "       ktgen nic del NAME\n"
	      "       ktgen nic show [NAME]\n"
	      "A virtual NIC pair whose receive path works as drivers' do: build_skb\n"
	      "(default), legacy-rx copy or page frags (ethtool --set-priv-flags NAME\n"
	      "legacy-rx|rx-frags on), rx-copybreak (ethtool --set-tunable), rings,\n"
	      "channels, tx-nocache-copy and counters (ethtool -S) as a real NIC.\n"
	      "peer: the other end's name (default ktgnN); netns, peer-netns: named\n"
	      "network namespaces (ip netns) to put each end in; dma-cpu: bind the\n"
	      "device's DMA engine, whose time is never a sender's or receiver's\n"
	      "(both devices at add, one at set); irq-cpus: the CPU each receive\n"
	      "queue interrupts, queue q the (q mod N)-th of the list (default: the\n"
	      "q-th online CPU).\n", f);
}

struct rtnl {
	struct mnl_socket	*sock;
	char			buf[16384];	/* a page or more */
	uint32_t		seq;
};

static int rtnl_open(struct rtnl *r)
{
	int one = 1;

	r->sock = mnl_socket_open(NETLINK_ROUTE);
	if (!r->sock || mnl_socket_bind(r->sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		fprintf(stderr, "ktgen: rtnetlink: %s\n", strerror(errno));
		if (r->sock)
			mnl_socket_close(r->sock);
		return -1;
	}
	mnl_socket_setsockopt(r->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(r->sock, NETLINK_CAP_ACK, &one, sizeof(one));
	r->seq = time(NULL);
	return 0;
}

static struct nlmsghdr *rtnl_msg(struct rtnl *r, uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(r->buf);
	struct ifinfomsg *ifi;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++r->seq;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	return nlh;
}

static int rtnl_error_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	char msg[512];

	(void)data;
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*e))
		return MNL_CB_ERROR;
	if (!e->error)
		return MNL_CB_STOP;
	/* The kernel's own words (extack) when it gave some. */
	nl_format_error(nlh, NULL, NULL, msg, sizeof(msg));
	fprintf(stderr, "Error: %s\n", msg);
	errno = -e->error;
	return MNL_CB_ERROR;
}

static int rtnl_done_cb(const struct nlmsghdr *nlh, void *data)
{
	(void)nlh;
	(void)data;
	return MNL_CB_STOP;
}

/* With a control array, libmnl leaves every type it lacks to it. */
static mnl_cb_t rtnl_ctl_cb[NLMSG_MIN_TYPE] = {
	[NLMSG_ERROR]	= rtnl_error_cb,
	[NLMSG_DONE]	= rtnl_done_cb,
};

/* Send @nlh and read replies up to the ack or the end of a dump. */
static int rtnl_talk(struct rtnl *r, struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	unsigned int portid = mnl_socket_get_portid(r->sock), seq = nlh->nlmsg_seq;
	int ret;

	nlh->nlmsg_flags |= NLM_F_ACK;
	if (mnl_socket_sendto(r->sock, nlh, nlh->nlmsg_len) < 0) {
		fprintf(stderr, "ktgen: rtnetlink: %s\n", strerror(errno));
		return -1;
	}
	do {
		ret = mnl_socket_recvfrom(r->sock, r->buf, sizeof(r->buf));
		if (ret < 0)
			fprintf(stderr, "ktgen: rtnetlink: %s\n", strerror(errno));
		if (ret <= 0)
			break;
		ret = mnl_cb_run2(r->buf, ret, seq, portid, cb, data, rtnl_ctl_cb,
				  MNL_ARRAY_SIZE(rtnl_ctl_cb));
	} while (ret > 0);
	return ret < 0 ? -1 : 0;
}

/* An open fd of the named network namespace (ip netns), or -1. */
static int netns_fd(const char *name)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fprintf(stderr, "ktgen: network namespace '%s': %s\n", name, strerror(errno));
	return fd;
}

static bool valid_ifname(const char *s)
{
	return *s && strlen(s) < IFNAMSIZ && !strpbrk(s, "/: \t\n");
}

#define NIC_MAX_QUEUES	8	/* the module's channel limit */

/* What add and set both take: the device's CPUs. */
struct nic_cpus {
	bool		have_dma;
	uint32_t	dma_cpu;
	unsigned int	n_irq;
	uint32_t	irq_cpus[NIC_MAX_QUEUES];
};

/* "1,0,1": one CPU per queue. */
static int parse_irq_cpus(const char *s, struct nic_cpus *c)
{
	char buf[128], *tok, *save = NULL;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	c->n_irq = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (c->n_irq == NIC_MAX_QUEUES || parse_u32(tok, &c->irq_cpus[c->n_irq]))
			return -1;
		c->n_irq++;
	}
	return c->n_irq ? 0 : -1;
}

/* dma-cpu or irq-cpus at @argv: 1 when taken, 0 not ours, -1 bad value. */
static int parse_nic_cpus(char **argv, struct nic_cpus *c)
{
	if (!strcmp(argv[0], "dma-cpu")) {
		c->have_dma = true;
		return parse_u32(argv[1], &c->dma_cpu) ? -1 : 1;
	}
	if (!strcmp(argv[0], "irq-cpus"))
		return parse_irq_cpus(argv[1], c) ? -1 : 1;
	return 0;
}

static void put_nic_cpus(struct nlmsghdr *nlh, const struct nic_cpus *c)
{
	if (c->have_dma)
		mnl_attr_put_u32(nlh, KTGEN_A_NIC_DMA_CPU, c->dma_cpu);
	if (c->n_irq)
		mnl_attr_put(nlh, KTGEN_A_NIC_IRQ_CPUS, c->n_irq * sizeof(uint32_t), c->irq_cpus);
}

struct nic_add_args {
	const char	*name;
	const char	*peer;		/* NULL: the kernel names it */
	const char	*ns, *peer_ns;	/* NULL: this namespace */
	struct nic_cpus	cpus;
};

/* NAME [peer NAME] [netns NS] [peer-netns NS] [dma-cpu CPU] [irq-cpus LIST];
 * -1 after a usage message.
 */
static int nic_add_parse(int argc, char **argv, struct nic_add_args *a)
{
	int taken;

	if (argc < 1 || !valid_ifname(argv[0])) {
		usage_error("nic add: NAME (a device name) first");
		return -1;
	}
	a->name = argv[0];
	for (argc--, argv++; argc > 0; argc -= 2, argv += 2) {
		if (argc < 2) {
			usage_error("nic add: '%s' needs a value", argv[0]);
			return -1;
		}
		taken = parse_nic_cpus(argv, &a->cpus);
		if (taken > 0) {
			continue;
		} else if (!taken && !strcmp(argv[0], "peer") && valid_ifname(argv[1])) {
			a->peer = argv[1];
		} else if (!taken && (!strcmp(argv[0], "netns") ||
				      !strcmp(argv[0], "peer-netns"))) {
			if (!*argv[1] || strchr(argv[1], '/')) {
				usage_error("%s: a name under /run/netns, not '%s'", argv[0], argv[1]);
				return -1;
			}
			*(argv[0][0] == 'n' ? &a->ns : &a->peer_ns) = argv[1];
		} else {
			usage_error("nic add: bad '%s %s'", argv[0], argv[1]);
			return -1;
		}
	}
	return 0;
}

/* The pair's RTM_NEWLINK: the device (into @fd's namespace, when not -1)
 * and, as veth's peer, an ifinfomsg then the peer's own attributes.
 */
static struct nlmsghdr *nic_add_msg(struct rtnl *r, const struct nic_add_args *a,
				    int fd, int peer_fd)
{
	struct nlattr *linkinfo, *data, *pa;
	struct nlmsghdr *nlh;
	struct ifinfomsg *pifi;

	nlh = rtnl_msg(r, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL);
	mnl_attr_put_strz(nlh, IFLA_IFNAME, a->name);
	if (fd >= 0)
		mnl_attr_put_u32(nlh, IFLA_NET_NS_FD, fd);
	linkinfo = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, KTG_NIC_KIND);
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	put_nic_cpus(nlh, &a->cpus);
	if (a->peer || peer_fd >= 0) {
		pa = mnl_attr_nest_start(nlh, KTGEN_A_NIC_PEER);
		pifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*pifi));
		memset(pifi, 0, sizeof(*pifi));
		pifi->ifi_family = AF_UNSPEC;
		if (a->peer)
			mnl_attr_put_strz(nlh, IFLA_IFNAME, a->peer);
		if (peer_fd >= 0)
			mnl_attr_put_u32(nlh, IFLA_NET_NS_FD, peer_fd);
		mnl_attr_nest_end(nlh, pa);
	}
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, linkinfo);
	return nlh;
}

static int nic_add(int argc, char **argv)
{
	int fd = -1, peer_fd = -1, ret = EXIT_FAIL;
	struct nic_add_args a = {};
	struct rtnl r;

	if (nic_add_parse(argc, argv, &a))
		return EXIT_USAGE;
	if ((a.ns && (fd = netns_fd(a.ns)) < 0) ||
	    (a.peer_ns && (peer_fd = netns_fd(a.peer_ns)) < 0))
		goto out;
	if (rtnl_open(&r))
		goto out;
	if (!rtnl_talk(&r, nic_add_msg(&r, &a, fd, peer_fd), NULL, NULL))
		ret = EXIT_OK;
	else if (errno == EOPNOTSUPP)
		fprintf(stderr, "ktgen: is the ktgen_nic module loaded? (link kind %s: "
			"modprobe ktgen_nic, or insmod kmod/ktgen_nic.ko)\n", KTG_NIC_KIND);
	mnl_socket_close(r.sock);
out:
	if (fd >= 0)
		close(fd);
	if (peer_fd >= 0)
		close(peer_fd);
	return ret;
}

struct link_info {
	const char	*name;		/* NULL: every ktgen-nic */
	bool		print;
	bool		found;
	bool		is_nic;
	int		ifindex;
};

/* Links' attributes, and those of their nests (IFLA_INFO_*, KTGEN_A_NIC_*,
 * all below IFLA_MAX): one table size serves all three levels.
 */
static int link_attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	unsigned int type = mnl_attr_get_type(a);

	if (type <= IFLA_MAX)
		tb[type] = a;
	return MNL_CB_OK;
}

_Static_assert(IFLA_INFO_MAX <= IFLA_MAX && KTGEN_A_NIC_MAX <= IFLA_MAX,
	       "link_attr_cb's table holds the nests' attributes");

/* One pair's device, as nic show prints it: its name, peer, state and
 * channels from @tb, its link data from @nd.
 */
static void link_print(const struct ifinfomsg *ifi, const char *name,
		       const struct nlattr **tb, const struct nlattr **nd)
{
	char peer[IF_NAMESIZE];
	uint32_t v;

	print_open_object(NULL);
	print_string(PRINT_ANY, "ifname", "%s", name);
	if (tb[IFLA_LINK] && !mnl_attr_validate(tb[IFLA_LINK], MNL_TYPE_U32)) {
		v = mnl_attr_get_u32(tb[IFLA_LINK]);
		print_u64(PRINT_JSON, "peer_ifindex", NULL, v);
		/* The peer's name where it is in this namespace. */
		if (!tb[IFLA_LINK_NETNSID] && if_indextoname(v, peer))
			print_string(PRINT_ANY, "peer", " peer %s", peer);
		else
			print_u64(PRINT_TEXT, NULL, " peer ifindex %llu (another namespace)", v);
	}
	print_string(PRINT_ANY, "state", " %s",
		     (ifi->ifi_flags & IFF_UP) ?
		     ((ifi->ifi_flags & IFF_RUNNING) ? "up" : "up, no carrier") : "down");
	if (tb[IFLA_NUM_TX_QUEUES] && !mnl_attr_validate(tb[IFLA_NUM_TX_QUEUES], MNL_TYPE_U32))
		print_u64(PRINT_ANY, "max_channels", " max-channels %llu",
			  mnl_attr_get_u32(tb[IFLA_NUM_TX_QUEUES]));
	if (nd[KTGEN_A_NIC_RX_STYLE] &&
	    !mnl_attr_validate(nd[KTGEN_A_NIC_RX_STYLE], MNL_TYPE_U32)) {
		v = mnl_attr_get_u32(nd[KTGEN_A_NIC_RX_STYLE]);
		print_string(PRINT_ANY, "rx_style", " rx-style %s",
			     v < ARRAY_SIZE(rx_style_names) ? rx_style_names[v] : "?");
	}
	if (nd[KTGEN_A_NIC_DMA_CPU] && !mnl_attr_validate(nd[KTGEN_A_NIC_DMA_CPU], MNL_TYPE_U32))
		print_u64(PRINT_ANY, "dma_cpu", " dma-cpu %llu",
			  mnl_attr_get_u32(nd[KTGEN_A_NIC_DMA_CPU]));
	if (nd[KTGEN_A_NIC_IRQ_CPUS]) {
		const uint32_t *c = mnl_attr_get_payload(nd[KTGEN_A_NIC_IRQ_CPUS]);
		unsigned int i, n = mnl_attr_get_payload_len(nd[KTGEN_A_NIC_IRQ_CPUS]) / 4;

		print_open_array("irq_cpus");
		print_text(" irq-cpus ");
		for (i = 0; i < n; i++) {
			print_u64(PRINT_JSON, NULL, NULL, c[i]);
			print_text("%s%u", i ? "," : "", c[i]);
		}
		print_close_array();
	}
	print_text("\n");
	print_close_object();
}

/* A link of the dump: is it the one asked for, a ktgen-nic, printed? */
static int link_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[IFLA_MAX + 1] = {}, *li[IFLA_MAX + 1] = {};
	const struct nlattr *nd[IFLA_MAX + 1] = {};
	struct link_info *want = data;
	const char *name;

	mnl_attr_parse(nlh, sizeof(*ifi), link_attr_cb, tb);
	if (!tb[IFLA_IFNAME] || mnl_attr_validate(tb[IFLA_IFNAME], MNL_TYPE_STRING) < 0)
		return MNL_CB_OK;
	name = mnl_attr_get_str(tb[IFLA_IFNAME]);
	if (want->name && strcmp(want->name, name))
		return MNL_CB_OK;
	if (tb[IFLA_LINKINFO])
		mnl_attr_parse_nested(tb[IFLA_LINKINFO], link_attr_cb, li);
	want->found = true;
	want->ifindex = ifi->ifi_index;
	want->is_nic = li[IFLA_INFO_KIND] &&
		       !mnl_attr_validate(li[IFLA_INFO_KIND], MNL_TYPE_STRING) &&
		       !strcmp(mnl_attr_get_str(li[IFLA_INFO_KIND]), KTG_NIC_KIND);
	if (!want->is_nic || !want->print)
		return MNL_CB_OK;
	if (li[IFLA_INFO_DATA])
		mnl_attr_parse_nested(li[IFLA_INFO_DATA], link_attr_cb, nd);
	link_print(ifi, name, tb, nd);
	return MNL_CB_OK;
}

static int nic_show(int argc, char **argv)
{
	struct link_info want = { .name = argc ? argv[0] : NULL, .print = true };
	struct nlmsghdr *nlh;
	struct rtnl r;
	int ret;

	if (argc > 1) {
		usage_error("nic show: unexpected '%s'", argv[1]);
		return EXIT_USAGE;
	}
	if (rtnl_open(&r))
		return EXIT_FAIL;
	nlh = rtnl_msg(&r, RTM_GETLINK, NLM_F_DUMP);
	print_open_array(NULL);
	ret = rtnl_talk(&r, nlh, link_cb, &want);
	print_close_array();
	mnl_socket_close(r.sock);
	if (ret)
		return EXIT_FAIL;
	if (want.name && !want.is_nic) {
		fprintf(stderr, "ktgen: %s: %s\n", want.name,
			want.found ? "not a " KTG_NIC_KIND " device" : "no such device");
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

static int find_nic(struct rtnl *r, struct link_info *want);

static int nic_del(int argc, char **argv)
{
	struct link_info want = {};
	struct nlmsghdr *nlh;
	struct rtnl r;
	int ret = EXIT_FAIL;

	if (argc != 1 || !valid_ifname(argv[0])) {
		usage_error("nic del: one device NAME");
		return EXIT_USAGE;
	}
	want.name = argv[0];
	if (rtnl_open(&r))
		return EXIT_FAIL;
	/* Only ever a ktgen-nic: look before deleting. */
	if (find_nic(&r, &want))
		goto out;
	nlh = rtnl_msg(&r, RTM_DELLINK, 0);
	((struct ifinfomsg *)mnl_nlmsg_get_payload(nlh))->ifi_index = want.ifindex;
	if (!rtnl_talk(&r, nlh, NULL, NULL))
		ret = EXIT_OK;
out:
	mnl_socket_close(r.sock);
	return ret;
}

/* Look @want->name up: 0 when it is a ktgen-nic, else a message and -1. */
static int find_nic(struct rtnl *r, struct link_info *want)
{
	struct nlmsghdr *nlh = rtnl_msg(r, RTM_GETLINK, NLM_F_DUMP);

	if (rtnl_talk(r, nlh, link_cb, want))
		return -1;
	if (want->is_nic)
		return 0;
	fprintf(stderr, "ktgen: %s: %s\n", want->name,
		want->found ? "not a " KTG_NIC_KIND " device" : "no such device");
	return -1;
}

static int nic_set(int argc, char **argv)
{
	struct link_info want = {};
	struct nic_cpus cpus = {};
	struct nlattr *li, *data;
	struct nlmsghdr *nlh;
	int ret = EXIT_FAIL;
	struct rtnl r;

	if (argc < 1 || !valid_ifname(argv[0])) {
		usage_error("nic set: NAME (a device name) first");
		return EXIT_USAGE;
	}
	want.name = argv[0];
	for (argc--, argv++; argc > 0; argc -= 2, argv += 2) {
		if (argc < 2 || parse_nic_cpus(argv, &cpus) <= 0) {
			usage_error("nic set: bad '%s%s%s'", argv[0], argc < 2 ? "" : " ",
				    argc < 2 ? "" : argv[1]);
			return EXIT_USAGE;
		}
	}
	if (!cpus.have_dma && !cpus.n_irq) {
		usage_error("nic set: nothing to set (dma-cpu, irq-cpus)");
		return EXIT_USAGE;
	}
	if (rtnl_open(&r))
		return EXIT_FAIL;
	if (find_nic(&r, &want))
		goto out;
	nlh = rtnl_msg(&r, RTM_NEWLINK, 0);
	((struct ifinfomsg *)mnl_nlmsg_get_payload(nlh))->ifi_index = want.ifindex;
	li = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, KTG_NIC_KIND);
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	put_nic_cpus(nlh, &cpus);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, li);
	if (!rtnl_talk(&r, nlh, NULL, NULL))
		ret = EXIT_OK;
out:
	mnl_socket_close(r.sock);
	return ret;
}

int do_nic(int argc, char **argv)
{
	if (argc < 1 || is_help(argv[0])) {
		nic_usage(argc < 1 ? stderr : stdout);
		return argc < 1 ? EXIT_USAGE : EXIT_OK;
	}
	if (!strcmp(argv[0], "add"))
		return nic_add(argc - 1, argv + 1);
	if (!strcmp(argv[0], "del"))
		return nic_del(argc - 1, argv + 1);
	if (!strcmp(argv[0], "set"))
		return nic_set(argc - 1, argv + 1);
	if (!strcmp(argv[0], "show"))
		return nic_show(argc - 1, argv + 1);
	usage_error("nic: unknown command '%s'", argv[0]);
	return EXIT_USAGE;
}
