// SPDX-License-Identifier: GPL-2.0
/*
 * What the stack and the devices counted while a run went: /proc/net/snmp,
 * netstat and snmp6, softnet_stat, and for every device that is up (but
 * lo) its statistics, its ethtool -S, its qdiscs' drops, requeues and
 * overlimits and its page pools' counts, read before and after; the
 * differences go with the run's result.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <libmnl/libmnl.h>
#include <linux/ethtool.h>
#include <linux/gen_stats.h>
#include <linux/genetlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>

#include "counters.h"
#include "env.h"
#include "ktgen.h"
#include "nl.h"
#include "print.h"

void ctr_add(struct ctr_set *s, enum ctr_group g, const char *dev,
	     const char *name, uint64_t val)
{
	struct ctr *c;

	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;

		c = realloc(s->v, cap * sizeof(*c));
		if (!c)
			return;		/* a counter less */
		s->v = c;
		s->cap = cap;
	}
	c = &s->v[s->n++];
	c->group = g;
	snprintf(c->dev, sizeof(c->dev), "%.15s", dev ? dev : "");
	snprintf(c->name, sizeof(c->name), "%.63s", name);
	c->val = val;
}

void counters_free(struct ctr_set *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* "Tcp: RtoAlgorithm RtoMin ..." then "Tcp: 1 200 ...": Tcp.RtoMin = 200. */
static void read_pairs(struct ctr_set *s, enum ctr_group g, const char *path)
{
	char names[8192], vals[8192];
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while (fgets(names, sizeof(names), f) && fgets(vals, sizeof(vals), f)) {
		char *sn, *sv, *n, *v, *pfx;

		pfx = strtok_r(names, " \n", &sn);
		if (!pfx || strncmp(pfx, vals, strlen(pfx)))
			break;
		strtok_r(vals, " \n", &sv);
		pfx[strlen(pfx) - 1] = '\0';	/* the colon */
		while ((n = strtok_r(NULL, " \n", &sn)) && (v = strtok_r(NULL, " \n", &sv))) {
			char name[CTR_NAME_LEN];

			snprintf(name, sizeof(name), "%s.%s", pfx, n);
			ctr_add(s, g, NULL, name, strtoull(v, NULL, 10));
		}
	}
	fclose(f);
}

/* "Ip6InReceives   123" */
static void read_snmp6(struct ctr_set *s)
{
	FILE *f = fopen("/proc/net/snmp6", "r");
	char name[CTR_NAME_LEN];
	unsigned long long v;

	if (!f)
		return;
	while (fscanf(f, "%63s %llu", name, &v) == 2)
		ctr_add(s, CTR_SNMP6, NULL, name, v);
	fclose(f);
}

/* Per-CPU hex columns: processed, dropped, time_squeeze; summed. */
static void read_softnet(struct ctr_set *s)
{
	static const char * const cols[] = { "processed", "dropped", "time_squeeze" };
	uint64_t sum[3] = { 0 };
	FILE *f = fopen("/proc/net/softnet_stat", "r");
	unsigned int v[3];
	char line[512];
	size_t i;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%x %x %x", &v[0], &v[1], &v[2]) == 3)
			for (i = 0; i < 3; i++)
				sum[i] += v[i];
	fclose(f);
	for (i = 0; i < 3; i++)
		ctr_add(s, CTR_SOFTNET, NULL, cols[i], sum[i]);
}

static int read_u64_file(const char *path, uint64_t *v)
{
	char line[32], *end;

	if (read_first_line(path, line, sizeof(line)) || !isdigit((unsigned char)line[0]))
		return -1;
	errno = 0;
	*v = strtoull(line, &end, 10);
	return errno || (*end && !isspace((unsigned char)*end)) ? -1 : 0;
}

static void read_dev_stats(struct ctr_set *s, const char *dev)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics", dev);
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d))) {
		uint64_t v;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/%s", dev, e->d_name);
		if (!read_u64_file(path, &v))
			ctr_add(s, CTR_DEV, dev, e->d_name, v);
	}
	closedir(d);
}

/* One SIOCETHTOOL request @cmd on @dev (shorter than IFNAMSIZ). */
static int ethtool_cmd(int fd, const char *dev, void *cmd)
{
	struct ifreq ifr = { 0 };

	memcpy(ifr.ifr_name, dev, strlen(dev) + 1);
	ifr.ifr_data = cmd;
	return fd < 0 ? -1 : ioctl(fd, SIOCETHTOOL, &ifr);
}

/* The names of string set @set, ETH_GSTRING_LEN bytes each and not always
 * terminated, or NULL; *@n their count.
 */
static char *ethtool_strings(int fd, const char *dev, uint32_t set, uint32_t *n)
{
	struct {
		struct ethtool_sset_info hdr;
		uint32_t len;
	} sset = { .hdr = { .cmd = ETHTOOL_GSSET_INFO, .sset_mask = 1ULL << set } };
	struct ethtool_gstrings *gs;
	char *names;

	if (ethtool_cmd(fd, dev, &sset) || !(sset.hdr.sset_mask & (1ULL << set)) ||
	    !sset.len || sset.len > 65536)
		return NULL;
	gs = calloc(1, sizeof(*gs) + (size_t)sset.len * ETH_GSTRING_LEN);
	if (!gs)
		return NULL;
	gs->cmd = ETHTOOL_GSTRINGS;
	gs->string_set = set;
	gs->len = sset.len;
	if (ethtool_cmd(fd, dev, gs)) {
		free(gs);
		return NULL;
	}
	*n = sset.len;
	names = malloc((size_t)sset.len * ETH_GSTRING_LEN);
	if (names)
		memcpy(names, gs->data, (size_t)sset.len * ETH_GSTRING_LEN);
	free(gs);
	return names;
}

/* ethtool -S of @dev: its values (n_stats of them) and *@names,
 * ETH_GSTRING_LEN bytes each; NULL, with nothing to free, when it has none.
 */
static struct ethtool_stats *ethtool_values(int fd, const char *dev, char **names)
{
	struct ethtool_stats *stats = NULL;
	uint32_t n = 0;

	*names = ethtool_strings(fd, dev, ETH_SS_STATS, &n);
	if (*names)
		stats = calloc(1, sizeof(*stats) + (size_t)n * sizeof(uint64_t));
	if (stats) {
		stats->cmd = ETHTOOL_GSTATS;
		stats->n_stats = n;
		if (!ethtool_cmd(fd, dev, stats)) {
			if (stats->n_stats > n)
				stats->n_stats = n;
			return stats;
		}
	}
	free(*names);
	*names = NULL;
	free(stats);
	return NULL;
}

/* The name of ethtool -S value @i, terminated, in @name. */
static const char *ethtool_name(const char *names, uint32_t i, char *name)
{
	memcpy(name, names + (size_t)i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
	name[ETH_GSTRING_LEN] = '\0';
	return name;
}

static void read_ethtool(struct ctr_set *s, int fd, const char *dev)
{
	char *names, name[ETH_GSTRING_LEN + 1];
	struct ethtool_stats *stats = ethtool_values(fd, dev, &names);
	uint32_t i;

	for (i = 0; stats && i < stats->n_stats; i++)
		ctr_add(s, CTR_ETHTOOL, dev, ethtool_name(names, i, name), stats->data[i]);
	free(names);
	free(stats);
}

/*
 * The resets @dev counted so far: the sum of its ethtool -S values named
 * for them (bnxt's, hns3's, ktgen-nic's "resets"), or -1 when it keeps none.
 * A driver that reopens its channels without a carrier drop (mlx5) is seen
 * resetting only here. In the caller's namespace.
 */
long long ethtool_resets(const char *dev)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	char *names, name[ETH_GSTRING_LEN + 1];
	struct ethtool_stats *stats;
	long long sum = -1;
	uint32_t i;

	if (fd < 0)
		return -1;
	stats = ethtool_values(fd, dev, &names);
	close(fd);
	for (i = 0; stats && i < stats->n_stats; i++)
		if (strstr(ethtool_name(names, i, name), "reset"))
			sum = (sum < 0 ? 0 : sum) + (long long)stats->data[i];
	free(names);
	free(stats);
	return sum;
}

/*
 * Sums by device of a netlink dump (page pools): an array of
 * structs of @size bytes, each beginning with its ifindex.
 */
struct dev_sums {
	void	*v;
	size_t	n, size;
};

static void *dev_sum_find(const struct dev_sums *d, int ifindex)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		int *p = (int *)((char *)d->v + i * d->size);

		if (*p == ifindex)
			return p;
	}
	return NULL;
}

/* @ifindex's sum, zeroed when new; NULL without memory. */
static void *dev_sum_get(struct dev_sums *d, int ifindex)
{
	int *p = dev_sum_find(d, ifindex);
	void *v;

	if (p)
		return p;
	v = realloc(d->v, (d->n + 1) * d->size);
	if (!v)
		return NULL;
	d->v = v;
	p = (int *)((char *)v + d->n++ * d->size);
	memset(p, 0, d->size);
	*p = ifindex;
	return p;
}

static int qdisc_stats_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **q = data;

	if (mnl_attr_get_type(a) == TCA_STATS_QUEUE &&
	    mnl_attr_get_payload_len(a) >= sizeof(struct gnet_stats_queue))
		*q = a;
	return MNL_CB_OK;
}

const struct qdisc_sum *ctr_qdisc_find(const struct qdisc_sums *d, int ifindex)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->v[i].ifindex == ifindex)
			return &d->v[i];
	return NULL;
}

/*
 * Qdisc statistics of a device: drops, requeues, overlimits of its root
 * qdiscs (egress, and ingress or clsact), from an RTM_GETQDISC dump. A
 * classful or multi-queue root (mq on most multi-queue NICs) already holds
 * what its children counted: the children, dumped too, are not added.
 */
int ctr_qdisc_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct tcmsg *tc = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a, *queue = NULL;
	const struct gnet_stats_queue *q;
	struct qdisc_sums *d = data;
	struct qdisc_sum *sum;

	if (tc->tcm_parent != TC_H_ROOT && tc->tcm_parent != TC_H_INGRESS)
		return MNL_CB_OK;
	mnl_attr_for_each(a, nlh, sizeof(*tc))
		if (mnl_attr_get_type(a) == TCA_STATS2)
			mnl_attr_parse_nested(a, qdisc_stats_cb, &queue);
	if (!queue)
		return MNL_CB_OK;
	sum = (struct qdisc_sum *)ctr_qdisc_find(d, tc->tcm_ifindex);
	if (!sum) {
		sum = realloc(d->v, (d->n + 1) * sizeof(*d->v));
		if (!sum)
			return MNL_CB_OK;
		d->v = sum;
		sum = &d->v[d->n++];
		memset(sum, 0, sizeof(*sum));
		sum->ifindex = tc->tcm_ifindex;
	}
	q = mnl_attr_get_payload(queue);
	sum->drops += q->drops;
	sum->requeues += q->requeues;
	sum->overlimits += q->overlimits;
	return MNL_CB_OK;
}

static void read_qdiscs(struct qdisc_sums *d)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct mnl_socket *nl;
	struct nlmsghdr *nlh;
	struct tcmsg *tc;
	unsigned int seq = 1, portid;
	ssize_t len;
	int ret = MNL_CB_OK;

	nl = mnl_socket_open(NETLINK_ROUTE);
	if (!nl)
		return;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0)
		goto out;
	portid = mnl_socket_get_portid(nl);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETQDISC;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	tc = mnl_nlmsg_put_extra_header(nlh, sizeof(*tc));
	tc->tcm_family = AF_UNSPEC;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		goto out;
	while (ret > MNL_CB_STOP && (len = mnl_socket_recvfrom(nl, buf, sizeof(buf))) > 0)
		ret = mnl_cb_run(buf, len, seq, portid, ctr_qdisc_cb, d);
out:
	mnl_socket_close(nl);
}

static void add_qdisc(struct ctr_set *s, const struct qdisc_sums *d, const char *dev)
{
	const struct qdisc_sum *q = ctr_qdisc_find(d, (int)if_nametoindex(dev));

	if (!q)
		return;
	ctr_add(s, CTR_QDISC, dev, "drops", q->drops);
	ctr_add(s, CTR_QDISC, dev, "requeues", q->requeues);
	ctr_add(s, CTR_QDISC, dev, "overlimits", q->overlimits);
}

/*
 * Page pools, from netdev netlink's page-pool-stats-get (6.8, with
 * CONFIG_PAGE_POOL_STATS): each pool's allocation and recycling counts,
 * summed over the pools of a device (a pool per receive ring). The numbers
 * are <linux/netdev.h>'s, which older distributions' headers lack; stats
 * are "uint" attributes, 4 or 8 bytes as the value needs.
 */
#define PP_FAMILY		"netdev"
#define PP_CMD_STATS_GET	9	/* NETDEV_CMD_PAGE_POOL_STATS_GET */
#define PP_A_STATS_INFO		1	/* nest: NETDEV_A_PAGE_POOL_* */
#define PP_A_IFINDEX		2	/* NETDEV_A_PAGE_POOL_IFINDEX */
#define PP_A_STATS_FIRST	8	/* NETDEV_A_PAGE_POOL_STATS_ALLOC_FAST */

static const char * const pp_stat_names[] = {
	"alloc_fast", "alloc_slow", "alloc_slow_high_order", "alloc_empty",
	"alloc_refill", "alloc_waive", "recycle_cached", "recycle_cache_full",
	"recycle_ring", "recycle_ring_full", "recycle_released_refcnt",
};
#define PP_NSTATS	(sizeof(pp_stat_names) / sizeof(pp_stat_names[0]))

struct pp_sum {
	int		ifindex;
	uint64_t	v[PP_NSTATS];
};

static bool pp_uint(const struct nlattr *a, uint64_t *v)
{
	if (mnl_attr_get_payload_len(a) == sizeof(uint32_t))
		*v = mnl_attr_get_u32(a);
	else if (mnl_attr_get_payload_len(a) == sizeof(uint64_t))
		*v = mnl_attr_get_u64(a);
	else
		return false;
	return true;
}

static int pp_stats_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *a, *info = NULL, *stat[PP_NSTATS] = { 0 };
	struct pp_sum *sum;
	uint64_t ifindex = 0, v;
	size_t i;

	mnl_attr_for_each(a, nlh, GENL_HDRLEN) {
		unsigned int t = mnl_attr_get_type(a);

		if (t == PP_A_STATS_INFO && mnl_attr_validate(a, MNL_TYPE_NESTED) >= 0)
			info = a;
		else if (t >= PP_A_STATS_FIRST && t < PP_A_STATS_FIRST + PP_NSTATS)
			stat[t - PP_A_STATS_FIRST] = a;
	}
	if (!info)
		return MNL_CB_OK;
	mnl_attr_for_each_nested(a, info)
		if (mnl_attr_get_type(a) == PP_A_IFINDEX)
			pp_uint(a, &ifindex);
	if (!ifindex)
		return MNL_CB_OK;	/* a pool of no device, or of one gone */
	sum = dev_sum_get(data, (int)ifindex);
	if (!sum)
		return MNL_CB_OK;
	for (i = 0; i < PP_NSTATS; i++)
		if (stat[i] && pp_uint(stat[i], &v))
			sum->v[i] += v;
	return MNL_CB_OK;
}

/* Nothing on kernels without the family or the operation. */
static void read_page_pools(struct dev_sums *d)
{
	struct nl_ctx ctx;
	struct nlmsghdr *nlh;

	if (nl_open_family(&ctx, PP_FAMILY, 1))
		return;
	nlh = nl_msg_start(&ctx, PP_CMD_STATS_GET, NLM_F_DUMP);
	nl_request_quiet(&ctx, nlh, pp_stats_cb, d);
	nl_close(&ctx);
}

static void add_page_pools(struct ctr_set *s, const struct dev_sums *d, const char *dev)
{
	const struct pp_sum *p = dev_sum_find(d, (int)if_nametoindex(dev));
	size_t k;

	for (k = 0; p && k < PP_NSTATS; k++)
		ctr_add(s, CTR_PAGE_POOL, dev, pp_stat_names[k], p->v[k]);
}

void counters_read(struct ctr_set *s)
{
	struct qdisc_sums qd = { 0 };
	struct dev_sums pd = { .size = sizeof(struct pp_sum) };
	struct dirent *e;
	DIR *d;
	int fd;

	s->n = 0;
	read_pairs(s, CTR_SNMP, "/proc/net/snmp");
	read_pairs(s, CTR_NETSTAT, "/proc/net/netstat");
	read_snmp6(s);
	read_softnet(s);

	d = opendir("/sys/class/net");
	if (!d)
		return;
	read_qdiscs(&qd);
	read_page_pools(&pd);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "lo") ||
		    strlen(e->d_name) >= IFNAMSIZ || !dev_up(e->d_name))
			continue;
		read_dev_stats(s, e->d_name);
		if (fd >= 0)
			read_ethtool(s, fd, e->d_name);
		add_qdisc(s, &qd, e->d_name);
		add_page_pools(s, &pd, e->d_name);
	}
	if (fd >= 0)
		close(fd);
	closedir(d);
	free(qd.v);
	free(pd.v);
}

/* @after becomes after - before, counter by counter (new ones: as read). */
void counters_delta(struct ctr_set *after, const struct ctr_set *before)
{
	size_t i, j = 0, k;

	for (i = 0; i < after->n; i++) {
		struct ctr *a = &after->v[i];

		/* Same order as before, nearly always: look from the last match. */
		for (k = 0; k < before->n; k++) {
			const struct ctr *b = &before->v[(j + k) % before->n];

			if (b->group == a->group && !strcmp(b->name, a->name) &&
			    !strcmp(b->dev, a->dev)) {
				a->val = a->val >= b->val ? a->val - b->val : 0;
				j = (j + k + 1) % before->n;
				break;
			}
		}
	}
}

static const char * const group_keys[] = {
	[CTR_SNMP]	= "snmp",
	[CTR_NETSTAT]	= "netstat",
	[CTR_SNMP6]	= "snmp6",
	[CTR_SOFTNET]	= "softnet",
	[CTR_DEV]	= "stats",
	[CTR_ETHTOOL]	= "ethtool",
	[CTR_QDISC]	= "qdisc",
	[CTR_PAGE_POOL]	= "page_pool",
};

/* "Tcp.RetransSegs", "softnet.dropped", "eth0.rx_bytes", "eth0:rx_pkts" */
static void ctr_label(const struct ctr *c, char *buf, size_t len)
{
	switch (c->group) {
	case CTR_SOFTNET:
		snprintf(buf, len, "softnet.%s", c->name);
		break;
	case CTR_DEV:
		snprintf(buf, len, "%s.%s", c->dev, c->name);
		break;
	case CTR_ETHTOOL:
		snprintf(buf, len, "%s:%s", c->dev, c->name);
		break;
	case CTR_QDISC:
		snprintf(buf, len, "%s.qdisc.%s", c->dev, c->name);
		break;
	case CTR_PAGE_POOL:
		snprintf(buf, len, "%s.page_pool.%s", c->dev, c->name);
		break;
	default:
		snprintf(buf, len, "%s", c->name);
	}
}

/*
 * JSON: every counter, {"snmp": {...}, "netstat": {...}, "snmp6": {...},
 * "softnet": {...}, "devices": {"eth0": {"stats": {...}, "ethtool":
 * {...}}}}. Text: the ones that changed, "Tcp.RetransSegs +61", five to
 * a line.
 */
void counters_print(const struct ctr_set *d)
{
	const char *open_dev = NULL;
	int open_group = -1, shown = 0;
	char label[2 * CTR_NAME_LEN];
	size_t i;

	if (!print_is_json()) {
		for (i = 0; i < d->n; i++) {
			if (!d->v[i].val)
				continue;
			ctr_label(&d->v[i], label, sizeof(label));
			print_text("%s%s +%llu", shown % 5 ? "  " : shown ? "\n           " :
				   "  changed: ", label, (unsigned long long)d->v[i].val);
			shown++;
		}
		if (shown)
			print_text("\n");
		return;
	}
	print_open_object("counters");
	for (i = 0; i < d->n; i++) {
		const struct ctr *c = &d->v[i];
		bool dev = c->group >= CTR_DEV;
		bool new_dev = dev && (!open_dev || strcmp(open_dev, c->dev));

		if ((int)c->group != open_group || new_dev) {
			if (open_group >= 0)
				print_close_object();
			if (new_dev) {
				if (open_dev)
					print_close_object();
				else
					print_open_object("devices");
				print_open_object(c->dev);
				open_dev = c->dev;
			}
			print_open_object(group_keys[c->group]);
			open_group = c->group;
		}
		print_u64(PRINT_JSON, c->name, NULL, c->val);
	}
	if (open_group >= 0)
		print_close_object();
	if (open_dev) {
		print_close_object();
		print_close_object();
	}
	print_close_object();
}
