// SPDX-License-Identifier: GPL-2.0
/*
 * nlfuzz: the ktgen family under requests made from its spec, from several
 * threads at once, each request judged.
 *
 *   nlfuzz [-s SEED] [-t SECONDS] [-j THREADS] [-r MIN_RATE] [-m KO] [-N]
 *   nlfuzz -L [-s SEED] [-t SECONDS] [-j THREADS] [-r MIN_RATE]
 *
 * What a request may carry comes from include/uapi/linux/ktgen.yaml: the
 * operations, the attributes each request carries and the policies the
 * spec generates (scripts/ynl-gen.sh --policy, built in). Each thread has
 * its own socket and seed (SEED + thread) and sends, in turn:
 *   valid    an operation with attributes its spec allows (values at and
 *            inside their bounds, ids of objects made before, loopback
 *            addresses, user memory the thread owns): it succeeds, or the
 *            kernel says why in an extack message.
 *   broken   the same with one more attribute that breaks the spec (a value
 *            or length out of bounds, a flag with payload, an attribute no
 *            request carries, an unknown type, a nest flag): it fails and
 *            extack points at that attribute.
 *   garbage  random types and payloads, truncation, bytes past the end, an
 *            attribute longer than its message: any answer will do.
 * Beside them, -m KO unloads and reloads the module every so often, and -N
 * makes sinks and runs in namespaces that go away under them. No answer in
 * 10 s is a failure. At the end nothing may hold the buffer budget that is
 * not listed: every run and sink listed is deleted, the budget must come
 * back to 0, and the settings are put back. Fewer than MIN_RATE requests a
 * second fails too. Exit 0 when every oracle held.
 *
 * -L fuzzes ktgen-nic's links instead (ktgen_nic.ko loaded, as root): in
 * two namespaces of its own nlfuzz makes a pair, kfzt0 and kfzt1, with
 * 10.79.0.1 and .2, and one thread sends datagrams across it all along.
 * Each of THREADS threads makes pairs of its own (kfTdS, peer kfTpS, in
 * the initial namespace, the peer now and then in the other) and sends,
 * in turn, to its pairs or to the traffic pair:
 *   newlink     RTM_NEWLINK kind ktgen-nic: the device's and the peer's
 *               (KTGEN_A_NIC_PEER's ifinfomsg and attributes) name, MTU,
 *               IFLA_NUM_TX/RX_QUEUES, up or not; IFLA_INFO_DATA drawn from
 *               the spec's policy of the nic set (dma-cpu, irq-cpus: CPUs
 *               online; rx-style, which the policy leaves out, only broken)
 *   changelink  RTM_NEWLINK on an existing device with link data, an MTU
 *   dellink     RTM_DELLINK by the device's name or its peer's
 *   updown      RTM_NEWLINK with IFF_UP in ifi_change
 *   channels, rings, coalesce, privflags
 *               ethtool netlink's CHANNELS_SET, RINGS_SET, COALESCE_SET,
 *               PRIVFLAGS_SET (a compact bit set, one without a mask, or by
 *               names), after the matching _GET reads the bounds back
 * valid, broken (one attribute out of its bounds, of a wrong length, one
 * no request carries; a queue count from 0, 9, 16, 4096, 2^32-1 or above
 * the rings) or garbage, judged as above; where ktgen-nic or a policy
 * refuses, extack must point at the broken attribute (the core's own
 * refusals, such as an MTU under the minimum, need only refuse). An
 * unknown type in the link data is valid: rtnetlink parses link data
 * liberally and ignores it. A valid request that raises or resizes rings
 * may also fail for ktgen-nic's page budget (ENOSPC or ENOMEM) where the
 * operation has no extack to say so (ndo_open, set_channels,
 * set_priv_flags). At the end every pair made is deleted, the traffic
 * pair is up at MTU 1500 and must carry a datagram within 10 s, and is
 * deleted; no ktgen-nic device may be left in the three namespaces but
 * those there before. Printed: per kind, requests sent, valid ones
 * accepted, explained, refused for the budget, broken ones refused and
 * located, garbage; the datagrams sent and received.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/rtnetlink.h>
#include <linux/ethtool_netlink.h>

#include <net/netlink.h>	/* the kernel's policy types: tests/unit/kinclude */
#include <linux/ktgen.h>
#include <linux/ktgen_nic.h>
#include "spec-policy.c"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MSG_ROOM	4096
#define ANSWER_MS	10000
#define USER_MEM	(4 << 20)

enum { KTG_SPEC_DO = 1, KTG_SPEC_DUMP = 2, KTG_SPEC_ADMIN = 4 };

struct spec_op {
	uint8_t cmd;
	const char *name, *set;
	const unsigned short *req;
	unsigned int nreq, flags;
};

static const struct spec_op ops[] = {
#define KTG_SPEC_OP(c, n, s, r, k, f)	{ c, n, s, r, k, f },
	KTG_SPEC_OPS
#undef KTG_SPEC_OP
};

struct spec_set {
	const char *name;
	const struct nla_policy *pol;
	const char *const *names;
	unsigned int max;
};

static const struct spec_set sets[] = {
#define KTG_SPEC_POLICY(s, p, n, m)	{ s, p, n, m },
	KTG_SPEC_POLICIES
#undef KTG_SPEC_POLICY
};

/* Shared by the threads. */
static atomic_bool stop, failed;
static atomic_ulong n_req, n_ok, n_explained, n_broken, n_garbage, n_reloads, n_netns;
static atomic_uint generation;	/* bumped by each reload */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t run_ids[64], sink_ids[64];
static uint16_t sink_ports[64];
static unsigned int nthreads = 4;
static uint64_t budget_cap;	/* the budget at start: no more is asked */
static const char *ko;
static uint64_t seed = 1;

/* -L: a device pair a thread made, by its slot. */
#define NIC_SLOTS	4
enum { NS_INIT, NS_A, NS_B, NS_COUNT };

struct nic_slot {
	bool exists, peer_named;
	unsigned int peer_ns;
};

struct thread {
	unsigned int idx;
	uint64_t rng;
	struct mnl_socket *sock;
	uint16_t family;
	uint32_t seq, portid;
	unsigned int next_port;
	unsigned char *umem;
	char buf[4 * MSG_ROOM];
	char reply[4 * MSG_ROOM];
	pthread_t tid;
	/* -L: a socket of each bus in each namespace, the pairs made */
	struct mnl_socket *rt[NS_COUNT], *et[NS_COUNT];
	struct nic_slot slot[NIC_SLOTS];
};

static uint64_t rnd(struct thread *t)
{
	/* xorshift64*: reproducible from the seed printed at start. */
	t->rng ^= t->rng >> 12;
	t->rng ^= t->rng << 25;
	t->rng ^= t->rng >> 27;
	return t->rng * 2685821657736338717ULL;
}

static unsigned int below(struct thread *t, unsigned int n)
{
	return rnd(t) % n;
}

static void fail(const char *fmt, ...)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	va_list ap;

	pthread_mutex_lock(&lock);
	printf("# nlfuzz: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	pthread_mutex_unlock(&lock);
	failed = true;
	stop = true;
}

static const struct spec_set *set_of(const struct spec_op *op)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sets); i++)
		if (!strcmp(sets[i].name, op->set))
			return &sets[i];
	return NULL;
}

static const char *attr_name(const struct spec_set *s, unsigned int type)
{
	return s && type <= s->max && s->names[type] ? s->names[type] : "?";
}

/* --- netlink --- */

/* The id of family name, asked on sock: what else is queued there is skipped. */
static int resolve_named(struct mnl_socket *sock, const char *name, uint16_t *family)
{
	struct pollfd pfd = { .fd = mnl_socket_get_fd(sock), .events = POLLIN };
	static __thread uint32_t seq = 1u << 31;
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct genlmsghdr *genl;
	struct nlmsghdr *nlh;
	struct nlattr *a;
	int len;

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = ++seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = CTRL_CMD_GETFAMILY;
	genl->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, name);
	if (mnl_socket_sendto(sock, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	while (poll(&pfd, 1, ANSWER_MS) > 0) {
		len = recv(pfd.fd, buf, sizeof(buf), 0);
		if (len < 0)
			return -errno;
		for (nlh = (struct nlmsghdr *)buf; mnl_nlmsg_ok(nlh, len);
		     nlh = mnl_nlmsg_next(nlh, &len)) {
			if (nlh->nlmsg_seq != seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)mnl_nlmsg_get_payload(nlh))->error ?:
				       -ENOENT;
			if (nlh->nlmsg_type != GENL_ID_CTRL)
				continue;
			mnl_attr_for_each(a, nlh, GENL_HDRLEN)
				if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID) {
					*family = mnl_attr_get_u16(a);
					return 0;
				}
			return -ENOENT;
		}
	}
	return -ETIMEDOUT;
}

static int resolve_family(struct mnl_socket *sock, uint16_t *family)
{
	return resolve_named(sock, KTGEN_FAMILY_NAME, family);
}

static struct mnl_socket *open_bus(int bus, uint32_t *portid)
{
	struct mnl_socket *sock = mnl_socket_open(bus);
	int one = 1;

	if (!sock)
		return NULL;
	if (mnl_socket_bind(sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		mnl_socket_close(sock);
		return NULL;
	}
	mnl_socket_setsockopt(sock, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(sock, NETLINK_CAP_ACK, &one, sizeof(one));
	*portid = mnl_socket_get_portid(sock);
	return sock;
}

static struct mnl_socket *open_socket(uint32_t *portid)
{
	return open_bus(NETLINK_GENERIC, portid);
}

/* The family again, after a reload: waits while the module is out (the
 * reloader puts it back before it looks at stop).
 */
static int reresolve(struct thread *t)
{
	int i;

	for (i = 0; i < 1000; i++) {
		if (!resolve_family(t->sock, &t->family))
			return 0;
		usleep(10000);
	}
	return -ENOENT;
}

struct answer {
	int err;		/* 0, or the negative errno */
	int answered;
	char msg[160];		/* extack message, if any */
	int64_t offs;		/* extack offset of the bad attribute, or -1 */
	uint32_t id;		/* KTGEN_A_*_ID of a reply, or 0 */
	struct nlmsghdr *reply;	/* the (first) reply, in the thread's buffer */
};

static size_t min_len(size_t a, size_t b)
{
	return a < b ? a : b;
}

static void parse_ack(const struct nlmsghdr *nlh, struct answer *a)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *at;

	a->err = e->error;
	a->answered = 1;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	mnl_attr_for_each(at, nlh, sizeof(*e)) {
		if (mnl_attr_get_type(at) == NLMSGERR_ATTR_MSG)
			snprintf(a->msg, sizeof(a->msg), "%s", mnl_attr_get_str(at));
		else if (mnl_attr_get_type(at) == NLMSGERR_ATTR_OFFS)
			a->offs = mnl_attr_get_u32(at);
		else if (mnl_attr_get_type(at) == NLMSGERR_ATTR_MISS_TYPE && !a->msg[0])
			snprintf(a->msg, sizeof(a->msg), "missing attribute %u",
				 mnl_attr_get_u32(at));	/* GENL_REQ_ATTR_CHECK */
	}
}

static void parse_done(const struct nlmsghdr *nlh, struct answer *a)
{
	const struct nlattr *at;
	int err = 0;

	if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(int))
		memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(int));
	a->err = err;
	a->answered = 1;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	mnl_attr_for_each(at, nlh, sizeof(int))
		if (mnl_attr_get_type(at) == NLMSGERR_ATTR_MSG)
			snprintf(a->msg, sizeof(a->msg), "%s", mnl_attr_get_str(at));
}

/* Reads until the answer to seq: an ack, an error or a dump's end. */
static void await(struct thread *t, uint32_t seq, struct answer *a, int wait_ms)
{
	struct pollfd pfd = { .fd = mnl_socket_get_fd(t->sock), .events = POLLIN };
	char *buf = t->buf;

	memset(a, 0, sizeof(*a));
	a->offs = -1;
	while (!a->answered && poll(&pfd, 1, wait_ms) > 0) {
		int len = recv(pfd.fd, buf, sizeof(t->buf), 0);
		struct nlmsghdr *nlh = (struct nlmsghdr *)buf;

		if (len < 0) {
			if (errno == ENOBUFS || errno == EINTR)
				continue;
			a->err = -errno;
			a->answered = 1;
			return;
		}
		for (; mnl_nlmsg_ok(nlh, len); nlh = mnl_nlmsg_next(nlh, &len)) {
			if (nlh->nlmsg_seq != seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				parse_ack(nlh, a);
			} else if (nlh->nlmsg_type == NLMSG_DONE) {
				parse_done(nlh, a);
			} else if (nlh->nlmsg_type == t->family) {
				const struct nlattr *at;

				if (!a->reply) {
					size_t n = min_len(nlh->nlmsg_len, sizeof(t->reply));

					memcpy(t->reply, nlh, n);
					a->reply = (struct nlmsghdr *)t->reply;
					a->reply->nlmsg_len = n;
				}
				mnl_attr_for_each(at, nlh, GENL_HDRLEN)
					if (mnl_attr_get_type(at) == 1 &&
					    mnl_attr_get_payload_len(at) == 4)
						a->id = mnl_attr_get_u32(at);
			}
		}
	}
}

/* --- the pools: objects made before, for ids and ports --- */

static void pool_put(uint32_t *pool, uint32_t id, struct thread *t)
{
	pthread_mutex_lock(&pool_lock);
	pool[below(t, 64)] = id;
	pthread_mutex_unlock(&pool_lock);
}

static uint32_t pool_get(const uint32_t *pool, struct thread *t)
{
	uint32_t id;

	pthread_mutex_lock(&pool_lock);
	id = pool[below(t, 64)];
	pthread_mutex_unlock(&pool_lock);
	return id ?: (uint32_t)below(t, 8) + 1;
}

static void port_put(struct thread *t, uint16_t port)
{
	pthread_mutex_lock(&pool_lock);
	sink_ports[below(t, 64)] = port;
	pthread_mutex_unlock(&pool_lock);
}

static uint16_t port_get(struct thread *t)
{
	uint16_t port;

	pthread_mutex_lock(&pool_lock);
	port = sink_ports[below(t, 64)];
	pthread_mutex_unlock(&pool_lock);
	return port ?: 20000;
}

/* --- values the spec allows --- */

static int int_bytes(unsigned int type)
{
	switch (type) {
	case NLA_U8:
	case NLA_S8:
		return 1;
	case NLA_U16:
	case NLA_S16:
	case NLA_BE16:
		return 2;
	case NLA_U32:
	case NLA_S32:
	case NLA_BE32:
		return 4;
	case NLA_U64:
	case NLA_S64:
	case NLA_MSECS:
		return 8;
	}
	return 0;
}

/* The values an unsigned integer attribute takes, or lengths a binary takes. */
static void bounds(const struct nla_policy *p, uint64_t *lo, uint64_t *hi)
{
	int bytes = int_bytes(p->type);

	*lo = 0;
	*hi = bytes ? UINT64_MAX >> (64 - 8 * bytes) : p->len ? p->len : 256;
	switch (p->validation_type) {
	case NLA_VALIDATE_RANGE:
	case NLA_VALIDATE_RANGE_WARN_TOO_LONG:
		*lo = p->min;
		*hi = p->max;
		break;
	case NLA_VALIDATE_MIN:
		*lo = p->min;
		break;
	case NLA_VALIDATE_MAX:
		*hi = p->max;
		break;
	case NLA_VALIDATE_RANGE_PTR:
		*lo = p->range->min;
		*hi = p->range->max;
		break;
	}
}

/* A value in [lo, hi]: a bound now and then, else near the low end (a
 * run's time or a buffer stays small), else anywhere.
 */
static uint64_t pick(struct thread *t, uint64_t lo, uint64_t hi)
{
	uint64_t span = hi - lo;

	switch (below(t, 8)) {
	case 0:
		return lo;
	case 1:
		return hi;
	case 2:
		return span == UINT64_MAX ? rnd(t) : lo + rnd(t) % (span + 1);
	}
	return lo + rnd(t) % (span < 1000 ? span + 1 : 1000);
}

static void put_int(struct nlmsghdr *nlh, unsigned int type, unsigned int ptype, uint64_t v)
{
	switch (int_bytes(ptype)) {
	case 1:
		mnl_attr_put_u8(nlh, type, v);
		break;
	case 2:
		mnl_attr_put_u16(nlh, type, ptype == NLA_BE16 ? htons(v) : v);
		break;
	case 4:
		mnl_attr_put_u32(nlh, type, ptype == NLA_BE32 ? htonl(v) : v);
		break;
	default:
		mnl_attr_put_u64(nlh, type, v);
	}
}

static void put_binary(struct thread *t, struct nlmsghdr *nlh, unsigned int type,
		       const char *name, const struct nla_policy *p)
{
	unsigned char b[256];
	uint64_t lo, hi, len, i;

	bounds(p, &lo, &hi);
	if (hi > sizeof(b))
		hi = sizeof(b);
	if (strstr(name, "addr") && below(t, 8)) {
		/* loopback only: nothing leaves the machine */
		static const struct in6_addr lo6 = IN6ADDR_LOOPBACK_INIT;
		uint32_t lo4 = htonl(INADDR_LOOPBACK);

		if (below(t, 4))
			mnl_attr_put(nlh, type, 4, &lo4);
		else
			mnl_attr_put(nlh, type, 16, &lo6);
		return;
	}
	len = pick(t, lo, hi);
	if (len > 16 && !strcmp(name, "cpus"))
		len = 1 + below(t, 16);
	for (i = 0; i < len; i++)
		b[i] = rnd(t);
	if (!strcmp(name, "percentiles"))
		for (i = 0; i + 4 <= len; i += 4) {
			uint32_t ppm = 1 + below(t, 999999);

			memcpy(b + i, &ppm, 4);
		}
	mnl_attr_put(nlh, type, len, b);
}

/* One attribute of a request, valid by the spec; names pick the values
 * that must make sense together (ids, ports, addresses, user memory).
 */
static void put_valid(struct thread *t, struct nlmsghdr *nlh, const struct spec_set *s,
		      unsigned int type)
{
	const struct nla_policy *p = &s->pol[type];
	const char *name = s->names[type];
	uint64_t lo, hi, v;

	if (p->type == NLA_FLAG) {
		mnl_attr_put(nlh, type, 0, NULL);
		return;
	}
	if (!int_bytes(p->type)) {
		put_binary(t, nlh, type, name, p);
		return;
	}
	bounds(p, &lo, &hi);
	v = pick(t, lo, hi);
	if (p->validation_type == NLA_VALIDATE_MASK)
		v = rnd(t) & p->mask;	/* flags: any set of the defined ones */
	if (!strcmp(name, "id") || !strcmp(name, "run-id"))
		v = pool_get(strcmp(s->name, "sink") ? run_ids : sink_ids, t);
	else if (!strcmp(name, "port"))
		v = 20000 + t->idx * 1000 + t->next_port++ % 1000;
	else if (!strcmp(name, "remote-port"))
		v = port_get(t);
	else if (!strcmp(name, "user-buf"))
		v = below(t, 4) ? (uintptr_t)t->umem : below(t, 2) ? 0 : 4096;
	else if (!strcmp(name, "user-len") && below(t, 4))
		v = USER_MEM;
	else if (!strcmp(name, "buffer-budget") && v > budget_cap)
		v = budget_cap;		/* a valid 64G would let the runs take the memory */
	else if (!strcmp(name, "time-ms"))
		v = 1 + below(t, 300);
	else if (!strcmp(name, "ifindex") && below(t, 2))
		v = 1;
	put_int(nlh, type, p->type, v);
}

static bool in_request(const struct spec_op *op, unsigned int type)
{
	unsigned int i;

	for (i = 0; i < op->nreq; i++)
		if (op->req[i] == type)
			return true;
	return false;
}

/* The attributes of a valid request: what makes a sink or a run, then any
 * of the others the request carries.
 */
static void put_request(struct thread *t, struct nlmsghdr *nlh, const struct spec_op *op,
			const struct spec_set *s)
{
	static const char *const sink_core[] = { "proto", "port" };
	static const char *const run_core[] = { "test", "remote-addr", "remote-port", "time-ms" };
	const char *const *core = NULL;
	unsigned int i, j, ncore = 0;

	if (op->cmd == KTGEN_CMD_SINK_NEW) {
		core = sink_core;
		ncore = ARRAY_SIZE(sink_core);
	} else if (op->cmd == KTGEN_CMD_RUN_NEW) {
		core = run_core;
		ncore = ARRAY_SIZE(run_core);
	}
	for (i = 0; i < op->nreq; i++) {
		unsigned int type = op->req[i];
		bool is_core = false;

		for (j = 0; j < ncore; j++)
			is_core |= !strcmp(s->names[type], core[j]);
		if (is_core || !below(t, ncore ? 6 : 2))
			put_valid(t, nlh, s, type);
	}
}

/* What breaking an attribute of a request works on. */
struct breaking {
	struct thread *t;
	struct nlmsghdr *nlh;
	const struct spec_set *s;
	unsigned int type;
	const struct nla_policy *p;
	uint64_t lo, hi;	/* values, or lengths of a binary */
	char *what;
	size_t n;
};

static const unsigned char junk[300];

static bool break_flag(struct breaking *b)
{
	if (b->p->type != NLA_FLAG)
		return false;
	mnl_attr_put_u32(b->nlh, b->type, 1);
	snprintf(b->what, b->n, "flag %s with a payload", attr_name(b->s, b->type));
	return true;
}

static bool break_value(struct breaking *b)
{
	int bytes = int_bytes(b->p->type);
	uint64_t v;

	if (!bytes)
		return false;
	if (b->p->validation_type == NLA_VALIDATE_MASK) {
		uint64_t undefined = ~(uint64_t)b->p->mask & (UINT64_MAX >> (64 - 8 * bytes));

		if (!undefined)
			return false;
		v = undefined & -undefined;	/* the lowest bit no flag has */
		put_int(b->nlh, b->type, b->p->type, v | (rnd(b->t) & b->p->mask));
		snprintf(b->what, b->n, "%s with bit %d, outside mask %#x",
			 attr_name(b->s, b->type), __builtin_ctzll(undefined), b->p->mask);
		return true;
	}
	if (b->lo > 0)
		v = b->lo - 1;
	else if (b->hi < UINT64_MAX >> (64 - 8 * bytes))
		v = b->hi + 1;
	else
		return false;
	put_int(b->nlh, b->type, b->p->type, v);
	snprintf(b->what, b->n, "%s %" PRIu64 ", outside %" PRIu64 "..%" PRIu64,
		 attr_name(b->s, b->type), v, b->lo, b->hi);
	return true;
}

static bool break_length(struct breaking *b)
{
	int bytes = int_bytes(b->p->type);
	uint64_t len;

	if (bytes)
		len = bytes == 8 ? 4 : 8;
	else if (b->p->type != NLA_BINARY ||
		 b->p->validation_type == NLA_VALIDATE_RANGE_WARN_TOO_LONG)
		return false;	/* too long only warns */
	else if (b->hi < sizeof(junk))
		len = b->hi + 1;
	else if (b->lo > 0)
		len = b->lo - 1;
	else
		return false;
	mnl_attr_put(b->nlh, b->type, len, junk);
	snprintf(b->what, b->n, "%s of %" PRIu64 " bytes", attr_name(b->s, b->type), len);
	return true;
}

static bool break_nesting(struct breaking *b)
{
	struct nlattr *nest;

	if (b->p->type == NLA_NESTED)
		return false;
	nest = mnl_attr_nest_start(b->nlh, b->type);
	mnl_attr_nest_end(b->nlh, nest);
	snprintf(b->what, b->n, "%s marked nested", attr_name(b->s, b->type));
	return true;
}

/* An attribute of the set no request carries. */
static bool put_refused(struct breaking *b)
{
	if (b->p->type != NLA_UNSPEC && b->p->type != NLA_REJECT)
		return false;
	mnl_attr_put_u32(b->nlh, b->type, rnd(b->t));
	snprintf(b->what, b->n, "%s, which no request carries", attr_name(b->s, b->type));
	return true;
}

/* One attribute that breaks the spec, last in the message: returns its
 * offset from the message's start and says what it is in what.
 */
static int64_t put_broken(struct thread *t, struct nlmsghdr *nlh, const struct spec_op *op,
			  const struct spec_set *s, char *what, size_t n)
{
	static bool (*const breakers[])(struct breaking *) = {
		break_flag, break_value, break_length, break_nesting,
	};
	struct breaking b = { .t = t, .nlh = nlh, .s = s, .what = what, .n = n };
	int64_t offs = nlh->nlmsg_len;
	unsigned int tries, kind;

	for (tries = 0; s && op->nreq && tries < 16; tries++) {
		kind = below(t, ARRAY_SIZE(breakers) + 2);
		if (!kind)
			break;		/* an unknown type */
		b.type = 1 + below(t, s->max);
		b.p = &s->pol[b.type];
		if (kind == 1) {
			if (put_refused(&b))
				return offs;
			continue;
		}
		if (!in_request(op, b.type))
			continue;
		bounds(b.p, &b.lo, &b.hi);
		if (breakers[kind - 2](&b))
			return offs;
	}
	b.type = (s ? s->max : 1) + 1 + below(t, 8);
	mnl_attr_put_u32(nlh, b.type, rnd(t));
	snprintf(what, n, "unknown type %u", b.type);
	return offs;
}

/* --- garbage: what the first fuzzer sent --- */

static void put_garbage(struct thread *t, struct nlmsghdr *nlh)
{
	unsigned char payload[96];
	unsigned int k, i, len;

	for (k = below(t, 4); k; k--) {
		uint16_t type = below(t, 4) ? below(t, 40) : rnd(t);

		len = below(t, sizeof(payload));
		for (i = 0; i < len; i++)
			payload[i] = below(t, 3) ? rnd(t) : 0;
		mnl_attr_put_check(nlh, MSG_ROOM - 64, type, len, payload);
	}
	switch (below(t, 4)) {
	case 0:		/* truncated: the header claims less than was built */
		nlh->nlmsg_len = below(t, nlh->nlmsg_len + 1);
		break;
	case 1:		/* garbage after a valid start, inside nlmsg_len */
		for (k = below(t, 32) + 1; k; k--)
			((char *)nlh)[nlh->nlmsg_len++] = rnd(t);
		break;
	case 2:		/* the first attribute's length runs past the end */
		if (nlh->nlmsg_len > NLMSG_HDRLEN + GENL_HDRLEN + 4)
			((struct nlattr *)((char *)nlh + NLMSG_HDRLEN + GENL_HDRLEN))->nla_len +=
				below(t, 512);
		break;
	}
}

/* --- one request and its oracle --- */

enum mode { VALID, BROKEN, GARBAGE };

static struct nlmsghdr *start(struct thread *t, char *buf, uint8_t cmd, bool dump)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = t->family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (dump ? NLM_F_DUMP : 0);
	nlh->nlmsg_seq = ++t->seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = KTGEN_FAMILY_VERSION;
	return nlh;
}

static const struct spec_op *choose_op(struct thread *t)
{
	/* makers twice as often as the rest, set-config seldom */
	static const uint8_t weights[] = {
		[KTGEN_CMD_SINK_NEW] = 6, [KTGEN_CMD_RUN_NEW] = 6, [KTGEN_CMD_SET_CONFIG] = 1,
	};
	unsigned int i, total = 0, r;

	for (i = 0; i < ARRAY_SIZE(ops); i++)
		total += ops[i].cmd < sizeof(weights) && weights[ops[i].cmd] ?
			 weights[ops[i].cmd] : 3;
	r = below(t, total);
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		unsigned int w = ops[i].cmd < sizeof(weights) && weights[ops[i].cmd] ?
				 weights[ops[i].cmd] : 3;

		if (r < w)
			return &ops[i];
		r -= w;
	}
	return &ops[0];
}

static void judge(struct thread *t, const struct spec_op *op, enum mode mode, bool dump,
		  const char *what, int64_t offs, const struct answer *a, unsigned int gen)
{
	const char *m = mode == VALID ? "valid" : "broken";

	if (!a->answered) {
		fail("thread %u: %s %s%s got no answer in %d s", t->idx, m, op->name,
		     dump ? " (dump)" : "", ANSWER_MS / 1000);
		return;
	}
	/* the module went out under the request: no family to answer, or
	 * none to hold for a dump (netlink's EPROTONOSUPPORT)
	 */
	if (ko && (a->err == -ENOENT || a->err == -EPROTONOSUPPORT) && !a->msg[0]) {
		uint16_t was = t->family;
		int err, i;

		/* a module going away gives no reference for a dump: it goes */
		for (i = 0; a->err == -EPROTONOSUPPORT && generation == gen && i < 1000; i++)
			usleep(10000);
		err = reresolve(t);

		if (err) {
			fail("thread %u: %s %s: %s, and the family is gone (%s)", t->idx, m,
			     op->name, strerror(-a->err), strerror(-err));
			return;
		}
		/* back after a reload (counted before the module returns), or
		 * sent to the id the family had before one
		 */
		if (generation != gen || t->family != was)
			return;
	}
	if (geteuid() && (op->flags & KTG_SPEC_ADMIN)) {
		if (a->err != -EPERM)
			fail("thread %u: %s %s by an unprivileged caller: %s, not EPERM",
			     t->idx, m, op->name, strerror(-a->err));
		return;
	}
	if (mode == VALID) {
		if (!a->err)
			n_ok++;
		else if (a->msg[0])
			n_explained++;
		else
			fail("thread %u: valid %s%s failed with %s and no extack message",
			     t->idx, op->name, dump ? " (dump)" : "", strerror(-a->err));
		return;
	}
	if (a->err && a->offs == offs) {
		n_broken++;
		return;
	}
	fail("thread %u: %s%s with %s (at %" PRId64 "): %s, extack \"%s\" at %" PRId64,
	     t->idx, op->name, dump ? " (dump)" : "", what, offs,
	     a->err ? strerror(-a->err) : "success", a->msg, a->offs);
}

static void one_request(struct thread *t)
{
	const struct spec_op *op = choose_op(t);
	const struct spec_set *s = set_of(op);
	unsigned int r = below(t, 16), gen = generation;
	enum mode mode = r < 10 ? VALID : r < 15 ? BROKEN : GARBAGE;
	bool dump = (op->flags & KTG_SPEC_DUMP) &&
		    (!(op->flags & KTG_SPEC_DO) || below(t, 2));
	struct nlmsghdr *nlh;
	char out[MSG_ROOM], what[96] = "";
	int64_t offs = -1;
	struct answer a;

	nlh = start(t, out, op->cmd, dump);
	if (s && mode != GARBAGE)
		put_request(t, nlh, op, s);
	if (mode == BROKEN)
		offs = put_broken(t, nlh, op, s, what, sizeof(what));
	else if (mode == GARBAGE)
		put_garbage(t, nlh);
	n_req++;
	if (send(mnl_socket_get_fd(t->sock), out, NLMSG_ALIGN(nlh->nlmsg_len), 0) < 0) {
		if (mode != GARBAGE)
			fail("thread %u: send %s: %s", t->idx, op->name, strerror(errno));
		return;
	}
	await(t, t->seq, &a, mode == GARBAGE ? 50 : ANSWER_MS);
	if (mode == GARBAGE) {
		n_garbage++;
		return;
	}
	judge(t, op, mode, dump, what, offs, &a, gen);
	if (mode == VALID && !a.err && a.id && op->cmd == KTGEN_CMD_SINK_NEW) {
		const struct nlattr *at;

		pool_put(sink_ids, a.id, t);
		mnl_attr_for_each(at, nlh, GENL_HDRLEN)
			if (mnl_attr_get_type(at) == KTGEN_A_SINK_PORT)
				port_put(t, ntohs(mnl_attr_get_u16(at)));
	} else if (mode == VALID && !a.err && a.id && op->cmd == KTGEN_CMD_RUN_NEW) {
		pool_put(run_ids, a.id, t);
	}
}

static void *worker(void *arg)
{
	struct thread *t = arg;

	while (!stop)
		one_request(t);
	return NULL;
}

/* --- racing: reloads and namespaces that go away --- */

static int load(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -1;
	err = syscall(SYS_finit_module, fd, "", 0);
	close(fd);
	return err && errno != EEXIST ? -1 : 0;
}

static void *reloader(void *arg)
{
	struct thread *t = arg;

	while (!stop) {
		usleep(200000 + below(t, 800000));
		if (syscall(SYS_delete_module, "ktgen", O_NONBLOCK))
			continue;
		generation++;
		n_reloads++;
		usleep(below(t, 50000));
		if (load(ko)) {
			fail("reload of %s: %s", ko, strerror(errno));
			return NULL;
		}
	}
	return NULL;
}


/* A request of the namespace child or the end, built apart from replies. */
static struct nlmsghdr *request(struct thread *t, uint8_t cmd)
{
	static __thread char out[MSG_ROOM];

	return start(t, out, cmd, false);
}

static int send_await(struct thread *t, struct nlmsghdr *nlh, struct answer *a)
{
	if (send(mnl_socket_get_fd(t->sock), nlh, nlh->nlmsg_len, 0) < 0)
		return -errno;
	await(t, nlh->nlmsg_seq, a, ANSWER_MS);
	return a->answered ? a->err : -ETIMEDOUT;
}

/* In a namespace of its own: lo up, a sink and a detached run to it, then
 * gone a moment later with both still there.
 */
static void netns_child(struct thread *t)
{
	struct ifreq ifr = { .ifr_flags = IFF_UP };
	uint32_t lo4 = htonl(INADDR_LOOPBACK);
	struct nlmsghdr *nlh;
	struct answer a;
	int fd;

	if (unshare(CLONE_NEWNET))
		_exit(2);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	strcpy(ifr.ifr_name, "lo");
	if (fd < 0 || ioctl(fd, SIOCSIFFLAGS, &ifr))
		_exit(2);
	t->sock = open_socket(&t->portid);
	if (!t->sock || resolve_family(t->sock, &t->family))
		_exit(ko ? 0 : 3);	/* the module may be out */
	nlh = request(t, KTGEN_CMD_SINK_NEW);
	mnl_attr_put_u32(nlh, KTGEN_A_SINK_PROTO, below(t, 2));
	mnl_attr_put_u16(nlh, KTGEN_A_SINK_PORT, htons(5001));
	mnl_attr_put(nlh, KTGEN_A_SINK_DETACH, 0, NULL);
	send_await(t, nlh, &a);
	nlh = request(t, KTGEN_CMD_RUN_NEW);
	mnl_attr_put_u32(nlh, KTGEN_A_RUN_TEST, below(t, 2));
	mnl_attr_put(nlh, KTGEN_A_RUN_REMOTE_ADDR, 4, &lo4);
	mnl_attr_put_u16(nlh, KTGEN_A_RUN_REMOTE_PORT, htons(5001));
	mnl_attr_put_u32(nlh, KTGEN_A_RUN_TIME_MS, 2000);
	mnl_attr_put_u32(nlh, KTGEN_A_RUN_FLOWS, 1 + below(t, 4));
	mnl_attr_put(nlh, KTGEN_A_RUN_DETACH, 0, NULL);
	send_await(t, nlh, &a);
	usleep(below(t, 300000));
	_exit(0);
}

static void *netnser(void *arg)
{
	struct thread *t = arg;

	while (!stop) {
		int status;
		pid_t pid;

		t->rng += 1;
		pid = fork();
		if (pid < 0) {
			fail("fork: %s", strerror(errno));
			return NULL;
		}
		if (!pid)
			netns_child(t);
		waitpid(pid, &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fail("namespace child: status %#x", status);
			return NULL;
		}
		n_netns++;
	}
	return NULL;
}

/* --- the end: nothing holds the budget that is not listed --- */

/* An attribute of the module's settings, or UINT64_MAX. */
static uint64_t config(struct thread *t, unsigned int attr)
{
	const struct nlattr *at;
	uint64_t val = UINT64_MAX;
	struct nlmsghdr *nlh;
	struct answer a;

	nlh = request(t, KTGEN_CMD_GET_CONFIG);
	if (send(mnl_socket_get_fd(t->sock), nlh, nlh->nlmsg_len, 0) < 0)
		return val;
	await(t, nlh->nlmsg_seq, &a, ANSWER_MS);
	if (a.err || !a.reply)
		return val;
	mnl_attr_for_each(at, a.reply, GENL_HDRLEN)
		if (mnl_attr_get_type(at) == attr)
			val = mnl_attr_get_payload_len(at) == 8 ? mnl_attr_get_u64(at) :
			      mnl_attr_get_u32(at);
	return val;
}

/* Deletes everything listed in this namespace, with the all flag. */
static int delete_all(struct thread *t)
{
	struct nlmsghdr *nlh;
	struct answer a;
	int err;

	nlh = request(t, KTGEN_CMD_RUN_DEL);
	mnl_attr_put(nlh, KTGEN_A_RUN_ALL, 0, NULL);
	err = send_await(t, nlh, &a);
	if (err && err != -ENOENT)
		return err;
	nlh = request(t, KTGEN_CMD_SINK_DEL);
	mnl_attr_put(nlh, KTGEN_A_SINK_ALL, 0, NULL);
	err = send_await(t, nlh, &a);
	return err == -ENOENT ? 0 : err;
}

struct settings {
	uint64_t budget, max_runs, max_sinks;
};

static int settle(struct thread *t, const struct settings *was)
{
	struct nlmsghdr *nlh;
	struct answer a;
	uint64_t used;
	int i, err;

	err = delete_all(t);
	if (err) {
		fail("deleting what is listed: %s", strerror(-err));
		return -1;
	}
	/* namespaces go away in the background: their objects with them */
	for (i = 0; i < 300; i++) {
		used = config(t, KTGEN_A_CONFIG_BUFFER_USED);
		if (!used)
			break;
		usleep(100000);
	}
	if (used) {
		fail("%" PRIu64 " bytes of the budget still held with nothing listed", used);
		return -1;
	}
	/* the settings back: set-config may have changed them */
	nlh = request(t, KTGEN_CMD_SET_CONFIG);
	mnl_attr_put_u64(nlh, KTGEN_A_CONFIG_BUFFER_BUDGET, was->budget);
	mnl_attr_put_u32(nlh, KTGEN_A_CONFIG_MAX_RUNS, was->max_runs);
	mnl_attr_put_u32(nlh, KTGEN_A_CONFIG_MAX_SINKS, was->max_sinks);
	err = send_await(t, nlh, &a);
	if (err)
		fail("set-config back to %" PRIu64 " bytes, %" PRIu64 " runs, %" PRIu64
		     " sinks: %s (%s)", was->budget, was->max_runs, was->max_sinks,
		     strerror(-err), a.msg);
	return err ? -1 : 0;
}

static struct thread *new_thread(unsigned int idx)
{
	struct thread *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->idx = idx;
	t->rng = (seed + idx) * 0x9e3779b97f4a7c15ULL ?: 1;
	t->sock = open_socket(&t->portid);
	if (!t->sock || resolve_family(t->sock, &t->family))
		return NULL;
	t->umem = mmap(NULL, USER_MEM, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return t->umem == MAP_FAILED ? NULL : t;
}

static int start_thread(unsigned int idx, void *(*fn)(void *), struct thread **out)
{
	*out = new_thread(idx);
	if (!*out || pthread_create(&(*out)->tid, NULL, fn, *out)) {
		printf("# nlfuzz: cannot start thread %u\n", idx);
		return -1;
	}
	return 0;
}

/* The workers and the racers for secs: the rate they kept, or -1. */
static long fuzz(unsigned long secs, bool netns)
{
	struct thread *t[16], *racer[2] = { NULL, NULL };
	bool root = geteuid() == 0;
	struct timespec t0, t1;
	unsigned int i;
	double took;
	long rate;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < nthreads; i++)
		if (start_thread(i, worker, &t[i]))
			return -1;
	if ((ko && root && start_thread(nthreads, reloader, &racer[0])) ||
	    (netns && root && start_thread(nthreads + 1, netnser, &racer[1])))
		return -1;
	for (i = 0; i < secs * 10 && !stop; i++)
		usleep(100000);
	stop = true;
	for (i = 0; i < nthreads; i++)
		pthread_join(t[i]->tid, NULL);
	for (i = 0; i < ARRAY_SIZE(racer); i++)
		if (racer[i])
			pthread_join(racer[i]->tid, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	took = t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	rate = n_req / took;
	printf("# nlfuzz: %lu requests in %.1f s (%ld/s): %lu valid ok, %lu explained, "
	       "%lu broken named, %lu garbage; %lu reloads, %lu namespaces\n",
	       (unsigned long)n_req, took, rate, (unsigned long)n_ok,
	       (unsigned long)n_explained, (unsigned long)n_broken, (unsigned long)n_garbage,
	       (unsigned long)n_reloads, (unsigned long)n_netns);
	return rate;
}
/* --- -L: ktgen-nic's links and their ethtool settings --- */

#define NIC_MAX_USECS	10000	/* ktgen-nic's bound on rx-usecs (KTG_NIC_MAX_USECS) */
#define NIC_RING_MIN	64	/* and its smallest ring (KTG_NIC_RING_MIN) */
#define TRAFFIC_PORT	5399

enum lkind { L_NEW, L_CHANGE, L_DEL, L_UPDOWN, L_CHANNELS, L_RINGS, L_COALESCE, L_PRIVFLAGS,
	     L_KINDS };

static const char *const lkind_names[L_KINDS] = {
	"newlink", "changelink", "dellink", "updown", "channels", "rings", "coalesce", "privflags",
};

/* Per kind: valid ones accepted, refused with extack (explained) or for
 * ring pages (budget); broken ones refused, located when extack pointed
 * at the broken attribute; garbage sent.
 */
struct lcount {
	atomic_ulong sent, accepted, explained, budget, refused, located, garbage;
};

static struct lcount lcounts[L_KINDS];
static atomic_ulong tr_sent, tr_received;
static int nsfd[NS_COUNT] = { -1, -1, -1 };
static uint16_t ethtool_family;
static const struct spec_set *nic_set;
static uint32_t nic_queues = 8, min_mtu = 68, max_mtu = 1500, ring_max = 4096, ncpus = 1;
static char pflag_names[32][ETH_GSTRING_LEN];
static unsigned int npflags, pf_legacy, pf_frags = 1;
static int traffic_tx = -1, traffic_rx = -1;
static char before[64][IFNAMSIZ];	/* ktgen-nic devices there at the start */
static unsigned int nbefore;

/* The pair traffic crosses, one end in each namespace of nlfuzz's own. */
static const char *const tpair[2] = { "kfzt0", "kfzt1" };
static const unsigned int tpair_ns[2] = { NS_A, NS_B };

/* The sites a request may break, one at a time: the device's attributes,
 * the same of the peer (+5), the link data's.
 */
enum {
	B_NONE, B_NAME, B_MTU, B_TXQ, B_RXQ, B_QLEN,
	B_PEER_NAME, B_PEER_MTU, B_PEER_TXQ, B_PEER_RXQ, B_PEER_QLEN,
	B_PEER_SHORT, B_PEER_CHANGE, B_DMA, B_IRQ, B_REFUSED, B_UNKNOWN,
};

#define SITE(peer, b)	((peer) ? (b) + B_PEER_NAME - B_NAME : (b))

struct lreq {
	enum lkind kind;
	enum mode mode;
	unsigned int brk;	/* the site broken, B_* */
	int64_t offs;		/* where the broken attribute starts, or -1 */
	bool locate;		/* extack must point there */
	bool budget;		/* may fail for ring pages without a message */
	bool peer_named;	/* newlink: a peer with a name of ours */
	unsigned int peer_ns;
	char what[128];
};

/* Where a device is: its name and the namespace of the sockets to use. */
struct target {
	char name[IFNAMSIZ];
	unsigned int ns;
	int slot;		/* the thread's pair, or -1: the traffic pair */
};

static void mark(struct lreq *r, const struct nlmsghdr *nlh, bool locate, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The attribute put next is the broken one: where it starts, what it is. */
static void mark(struct lreq *r, const struct nlmsghdr *nlh, bool locate, const char *fmt, ...)
{
	va_list ap;

	r->offs = nlh->nlmsg_len;
	r->locate = locate;
	va_start(ap, fmt);
	vsnprintf(r->what, sizeof(r->what), fmt, ap);
	va_end(ap);
}

static void use(struct thread *t, struct mnl_socket *sock, uint16_t reply_type)
{
	t->sock = sock;
	t->family = reply_type;
}

static struct nlmsghdr *rt_start(struct thread *t, char *buf, uint16_t type, uint16_t flags,
				 unsigned int ifi_flags, unsigned int ifi_change)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifm;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = ++t->seq;
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	ifm->ifi_flags = ifi_flags;
	ifm->ifi_change = ifi_change;
	return nlh;
}

static struct nlmsghdr *et_start(struct thread *t, char *buf, uint8_t cmd, const char *dev,
				 uint32_t hflags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *genl;
	struct nlattr *nest;

	nlh->nlmsg_type = ethtool_family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = ++t->seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = ETHTOOL_GENL_VERSION;
	/* every request's header is its attribute 1 */
	nest = mnl_attr_nest_start(nlh, ETHTOOL_A_CHANNELS_HEADER);
	mnl_attr_put_strz(nlh, ETHTOOL_A_HEADER_DEV_NAME, dev);
	if (hflags)
		mnl_attr_put_u32(nlh, ETHTOOL_A_HEADER_FLAGS, hflags);
	mnl_attr_nest_end(nlh, nest);
	return nlh;
}

/* A nest without NLA_F_NESTED: a binary attribute holding a header and
 * attributes, as KTGEN_A_NIC_PEER (veth's VETH_INFO_PEER).
 */
static struct nlattr *plain_nest(struct nlmsghdr *nlh, uint16_t type)
{
	struct nlattr *nest = mnl_nlmsg_get_payload_tail(nlh);

	nest->nla_type = type;
	nlh->nlmsg_len += MNL_ALIGN(sizeof(struct nlattr));
	return nest;
}

/* Random attributes of types from..max + 2: garbage. */
static void put_junk_attrs(struct thread *t, struct nlmsghdr *nlh, unsigned int from,
			   unsigned int max)
{
	unsigned char payload[64];
	unsigned int k, i, len;

	for (k = 1 + below(t, 4); k; k--) {
		len = below(t, sizeof(payload));
		for (i = 0; i < len; i++)
			payload[i] = below(t, 3) ? rnd(t) : 0;
		mnl_attr_put_check(nlh, MSG_ROOM - 256, from + below(t, max + 3 - from), len,
				   payload);
	}
}

/* The request's answer, judged; false when it got none. */
static bool ask(struct thread *t, struct mnl_socket *sock, struct nlmsghdr *nlh,
		struct lreq *r, struct answer *a)
{
	struct lcount *c = &lcounts[r->kind];
	const char *k = lkind_names[r->kind];

	n_req++;
	c->sent++;
	use(t, sock, r->kind >= L_CHANNELS ? ethtool_family : RTM_NEWLINK);
	if (send(mnl_socket_get_fd(sock), nlh, NLMSG_ALIGN(nlh->nlmsg_len), 0) < 0) {
		fail("thread %u: send %s: %s", t->idx, k, strerror(errno));
		return false;
	}
	await(t, nlh->nlmsg_seq, a, ANSWER_MS);
	if (!a->answered) {
		fail("thread %u: %s %s got no answer in %d s", t->idx,
		     r->mode == VALID ? "valid" : r->mode == BROKEN ? "broken" : "garbage", k,
		     ANSWER_MS / 1000);
		return false;
	}
	if (r->mode == GARBAGE) {
		c->garbage++;
		return true;
	}
	if (r->mode == VALID) {
		if (!a->err)
			c->accepted++;
		else if (a->msg[0])
			c->explained++;
		else if (r->budget && (a->err == -ENOSPC || a->err == -ENOMEM))
			c->budget++;
		else
			fail("thread %u: valid %s%s%s failed with %s and no extack message", t->idx, k,
			     r->what[0] ? " with " : "", r->what, strerror(-a->err));
		return true;
	}
	if (!a->err) {
		fail("thread %u: %s with %s was accepted", t->idx, k, r->what);
		return true;
	}
	c->refused++;
	if (a->offs == r->offs)
		c->located++;
	else if (r->locate)
		fail("thread %u: %s with %s (at %" PRId64 "): %s, extack \"%s\" at %" PRId64,
		     t->idx, k, r->what, r->offs, strerror(-a->err), a->msg, a->offs);
	return true;
}

/* A request not counted (a read-back, a cleanup): its errno. */
static int quiet(struct thread *t, struct mnl_socket *sock, uint16_t reply_type,
		 struct nlmsghdr *nlh, struct answer *a)
{
	use(t, sock, reply_type);
	return send_await(t, nlh, a);
}

/* --- what a request carries --- */

static uint32_t valid_queues(struct thread *t)
{
	uint32_t some[] = { 1, 2, nic_queues - 1, nic_queues };

	return below(t, 2) ? some[below(t, ARRAY_SIZE(some))] : 1 + below(t, nic_queues);
}

/* IFLA attributes of a device or of its peer: its name, an MTU, queue
 * counts and, for the peer, its namespace; r->brk may break one.
 */
static void put_link_attrs(struct thread *t, struct nlmsghdr *nlh, struct lreq *r, bool peer,
			   const char *name, unsigned int ns)
{
	static const uint32_t qbad[] = { 0, 9, 16, 4096, UINT32_MAX };
	const char *who = peer ? "peer's " : "";
	unsigned int q;
	uint32_t v;

	if (r->brk == SITE(peer, B_NAME) && below(t, 2)) {
		mark(r, nlh, true, "%sIFLA_IFNAME of 20 characters", who);
		mnl_attr_put_strz(nlh, IFLA_IFNAME, "kfzzzzzzzzzzzzzzzzzz");
	} else if (r->brk == SITE(peer, B_NAME)) {
		mark(r, nlh, false, "%sIFLA_IFNAME with a slash", who);
		mnl_attr_put_strz(nlh, IFLA_IFNAME, "kf/z");
	} else if (name) {
		mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	}
	if (r->brk == SITE(peer, B_MTU)) {
		v = below(t, 3) ? below(t, 2) ? max_mtu + 1 : UINT32_MAX : below(t, min_mtu);
		/* over the maximum ktgen-nic refuses, under the minimum the core */
		mark(r, nlh, v > max_mtu, "%sIFLA_MTU %u, outside %u..%u", who, v, min_mtu, max_mtu);
		mnl_attr_put_u32(nlh, IFLA_MTU, v);
	} else if (!below(t, 3)) {
		mnl_attr_put_u32(nlh, IFLA_MTU, pick(t, min_mtu, max_mtu));
	}
	for (q = 0; q < 2; q++) {
		uint16_t type = q ? IFLA_NUM_RX_QUEUES : IFLA_NUM_TX_QUEUES;
		const char *qn = q ? "IFLA_NUM_RX_QUEUES" : "IFLA_NUM_TX_QUEUES";

		if (r->brk == SITE(peer, B_TXQ + q)) {
			v = below(t, 4) ? qbad[below(t, ARRAY_SIZE(qbad))] :
			    nic_queues + 1 + below(t, 100000);
			/* 0: the core may refuse first, without pointing */
			mark(r, nlh, v > nic_queues, "%s%s %u, outside 1..%u", who, qn, v, nic_queues);
			mnl_attr_put_u32(nlh, type, v);
		} else if (r->brk == SITE(peer, B_QLEN) && !q) {
			uint16_t v16 = 1;

			mark(r, nlh, true, "%s%s of 2 bytes", who, qn);
			mnl_attr_put(nlh, type, sizeof(v16), &v16);
		} else if (below(t, 2)) {
			mnl_attr_put_u32(nlh, type, valid_queues(t));
		}
	}
	if (peer && ns != NS_INIT)
		mnl_attr_put_u32(nlh, IFLA_NET_NS_FD, nsfd[ns]);
}

/* KTGEN_A_NIC_PEER: an ifinfomsg and the peer's attributes, or too short. */
static void put_peer(struct thread *t, struct nlmsghdr *nlh, struct lreq *r, bool create,
		     unsigned int type, const struct nla_policy *p, const char *name,
		     unsigned int ns)
{
	bool broken_peer = r->brk >= B_PEER_NAME && r->brk <= B_PEER_QLEN;
	struct ifinfomsg *ifm;
	struct nlattr *nest;
	unsigned int len;

	if (r->brk == B_PEER_SHORT) {
		/* the policy's length is the least a peer takes */
		len = below(t, p->len);
		mark(r, nlh, true, "peer of %u bytes, under %u", len, p->len);
		mnl_attr_put(nlh, type, len, junk);
		return;
	}
	if (create ? !broken_peer && below(t, 3) : r->brk != B_PEER_CHANGE)
		return;
	if (r->brk == B_PEER_CHANGE)
		mark(r, nlh, true, "a peer for an existing device");
	nest = plain_nest(nlh, type);
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_change = IFF_UP;
	ifm->ifi_flags = below(t, 2) ? IFF_UP : 0;
	r->peer_named = name && below(t, 4);
	r->peer_ns = ns;
	put_link_attrs(t, nlh, r, true, r->peer_named ? name : NULL, ns);
	mnl_attr_nest_end(nlh, nest);
}

/* CPUs (dma-cpu, irq-cpus): online ones, or where broken, one that is
 * not, or a length the policy or ktgen-nic refuses.
 */
static void put_cpus(struct thread *t, struct nlmsghdr *nlh, struct lreq *r,
		     unsigned int type, const char *name, const struct nla_policy *p)
{
	int bytes = int_bytes(p->type);
	uint32_t cpus[16];
	uint64_t lo, hi;
	unsigned int n, i, len;

	for (i = 0; i < ARRAY_SIZE(cpus); i++)
		cpus[i] = below(t, ncpus);
	bounds(p, &lo, &hi);
	if (bytes && r->brk == B_DMA) {
		if (below(t, 2)) {
			cpus[0] = below(t, 2) ? ncpus + below(t, 4) : UINT32_MAX;
			mark(r, nlh, true, "%s %u, not an online CPU", name, cpus[0]);
			put_int(nlh, type, p->type, cpus[0]);
		} else {
			len = below(t, bytes);
			mark(r, nlh, true, "%s of %u bytes", name, len);
			mnl_attr_put(nlh, type, len, cpus);
		}
		return;
	}
	if (bytes) {
		if (!below(t, 3))
			put_int(nlh, type, p->type, cpus[0]);
		return;
	}
	n = hi / 4;
	if (r->brk != B_IRQ) {
		if (!below(t, 3))
			mnl_attr_put(nlh, type, 4 * (1 + below(t, n)), cpus);
		return;
	}
	switch (below(t, 4)) {
	case 0:
		mark(r, nlh, true, "%s of %u bytes, over %" PRIu64, name, 4 * (n + 1), hi);
		mnl_attr_put(nlh, type, 4 * (n + 1), cpus);
		break;
	case 1:
		mark(r, nlh, true, "%s empty", name);
		mnl_attr_put(nlh, type, 0, NULL);
		break;
	case 2:
		len = 4 * below(t, n) + 1 + below(t, 3);
		mark(r, nlh, true, "%s of %u bytes, not whole CPUs", name, len);
		mnl_attr_put(nlh, type, len, cpus);
		break;
	default:
		i = 1 + below(t, n);
		cpus[below(t, i)] = below(t, 2) ? ncpus : UINT32_MAX;
		mark(r, nlh, true, "%s with a CPU not online", name);
		mnl_attr_put(nlh, type, 4 * i, cpus);
	}
}

static bool policy_empty(const struct nla_policy *p)
{
	static const struct nla_policy none;

	return !memcmp(p, &none, sizeof(none));
}

/* IFLA_INFO_DATA's attributes, from the spec's policy of the nic set: the
 * peer (at creation), the CPUs; an attribute the policy leaves empty (the
 * spec's reported-only rx-style) only where broken.
 */
static void put_nic_data(struct thread *t, struct nlmsghdr *nlh, struct lreq *r, bool create,
			 const char *peer, unsigned int peer_ns)
{
	const struct spec_set *s = nic_set;
	unsigned int type;

	for (type = 1; type <= s->max; type++) {
		const struct nla_policy *p = &s->pol[type];
		const char *name = s->names[type];

		if (!name)
			continue;
		if (!strcmp(name, "peer")) {
			put_peer(t, nlh, r, create, type, p, peer, peer_ns);
		} else if (policy_empty(p)) {
			if (r->brk != B_REFUSED)
				continue;
			mark(r, nlh, true, "%s, which no request carries", name);
			mnl_attr_put_u32(nlh, type, below(t, 3));
		} else {
			put_cpus(t, nlh, r, type, name, p);
		}
	}
	if (r->brk == B_UNKNOWN) {
		/* rtnetlink parses link data liberally: ignored, so valid */
		type = s->max + 1 + below(t, 8);
		snprintf(r->what, sizeof(r->what), "unknown type %u in the link data", type);
		mnl_attr_put_u32(nlh, type, rnd(t));
		r->mode = VALID;
		r->brk = B_NONE;
	}
}

/* IFLA_LINKINFO: kind ktgen-nic and, now and then or where it is broken,
 * the link data.
 */
static void put_linkinfo(struct thread *t, struct nlmsghdr *nlh, struct lreq *r, bool create,
			 const char *peer, unsigned int peer_ns)
{
	struct nlattr *info, *data;

	info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, KTGEN_NIC_KIND);
	if (r->brk >= B_PEER_NAME || r->mode == GARBAGE || below(t, 4)) {
		data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
		put_nic_data(t, nlh, r, create, peer, peer_ns);
		if (r->mode == GARBAGE)
			put_junk_attrs(t, nlh, 0, nic_set->max);
		mnl_attr_nest_end(nlh, data);
	}
	mnl_attr_nest_end(nlh, info);
}

/* Whether device name is in namespace ns. */
static bool link_exists(struct thread *t, unsigned int ns, const char *name)
{
	struct nlmsghdr *nlh;
	char out[MSG_ROOM];
	struct answer a;

	nlh = rt_start(t, out, RTM_GETLINK, 0, 0, 0);
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	return !quiet(t, t->rt[ns], RTM_NEWLINK, nlh, &a);
}

static void slot_names(struct thread *t, unsigned int sl, char *dev, char *peer)
{
	snprintf(dev, IFNAMSIZ, "kf%ud%u", t->idx, sl);
	snprintf(peer, IFNAMSIZ, "kf%up%u", t->idx, sl);
}

/* --- the requests --- */

static void nic_newlink(struct thread *t, struct lreq *r, unsigned int sl)
{
	static const uint8_t sites[] = {
		B_NAME, B_MTU, B_TXQ, B_RXQ, B_QLEN, B_PEER_NAME, B_PEER_MTU, B_PEER_TXQ,
		B_PEER_RXQ, B_PEER_QLEN, B_PEER_SHORT, B_DMA, B_IRQ, B_REFUSED, B_UNKNOWN,
	};
	char out[MSG_ROOM], name[IFNAMSIZ], peer[IFNAMSIZ];
	struct nic_slot *s = &t->slot[sl];
	bool up = !below(t, 3);
	struct nlmsghdr *nlh;
	struct answer a;

	if (r->mode == BROKEN)
		r->brk = sites[below(t, ARRAY_SIZE(sites))];
	slot_names(t, sl, name, peer);
	nlh = rt_start(t, out, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, up ? IFF_UP : 0, IFF_UP);
	put_link_attrs(t, nlh, r, false, name, NS_INIT);
	put_linkinfo(t, nlh, r, true, peer, below(t, 4) ? NS_INIT : NS_A);
	/* up at once, it takes ring pages (with no extack to say so) */
	r->budget = up;
	if (!ask(t, t->rt[NS_INIT], nlh, r, &a))
		return;
	if (r->mode == GARBAGE) {
		/* made or not, with a peer named by the garbage if at all */
		s->exists = link_exists(t, NS_INIT, name);
		s->peer_named = false;
	} else if (!a.err) {
		s->exists = true;
		s->peer_named = r->peer_named;
		s->peer_ns = r->peer_ns;
	}
}

static void nic_changelink(struct thread *t, struct lreq *r, const struct target *tg)
{
	static const uint8_t sites[] = {
		B_MTU, B_TXQ, B_RXQ, B_PEER_SHORT, B_PEER_CHANGE, B_DMA, B_IRQ, B_REFUSED,
		B_UNKNOWN,
	};
	struct nlmsghdr *nlh;
	char out[MSG_ROOM];
	struct answer a;

	if (r->mode == BROKEN)
		r->brk = sites[below(t, ARRAY_SIZE(sites))];
	nlh = rt_start(t, out, RTM_NEWLINK, 0, 0, 0);
	mnl_attr_put_strz(nlh, IFLA_IFNAME, tg->name);
	put_link_attrs(t, nlh, r, false, NULL, tg->ns);
	put_linkinfo(t, nlh, r, false, NULL, NS_INIT);
	if (r->mode == GARBAGE && below(t, 2))
		nlh->nlmsg_len = NLMSG_HDRLEN + below(t, nlh->nlmsg_len - NLMSG_HDRLEN);
	ask(t, t->rt[tg->ns], nlh, r, &a);
}

/* Deleted by the device's name or the peer's; broken, by a name too long
 * or of no device.
 */
static void nic_dellink(struct thread *t, struct lreq *r, unsigned int sl)
{
	char out[MSG_ROOM], name[IFNAMSIZ], peer[IFNAMSIZ];
	struct nic_slot *s = &t->slot[sl];
	unsigned int ns = NS_INIT;
	struct nlmsghdr *nlh;
	struct answer a;

	slot_names(t, sl, name, peer);
	nlh = rt_start(t, out, RTM_DELLINK, 0, 0, 0);
	if (r->mode == BROKEN && below(t, 2)) {
		mark(r, nlh, true, "IFLA_IFNAME of 20 characters");
		mnl_attr_put_strz(nlh, IFLA_IFNAME, "kfzzzzzzzzzzzzzzzzzz");
	} else if (r->mode == BROKEN) {
		mark(r, nlh, false, "IFLA_IFNAME of no device");
		mnl_attr_put_strz(nlh, IFLA_IFNAME, "kfnone");
	} else if (s->peer_named && below(t, 3)) {
		mnl_attr_put_strz(nlh, IFLA_IFNAME, peer);
		ns = s->peer_ns;
	} else {
		mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	}
	if (ask(t, t->rt[ns], nlh, r, &a) && r->mode == VALID && !a.err)
		s->exists = false;
}

static void nic_updown(struct thread *t, struct lreq *r, const struct target *tg)
{
	bool up = below(t, 2);
	struct nlmsghdr *nlh;
	char out[MSG_ROOM];
	struct answer a;

	nlh = rt_start(t, out, RTM_NEWLINK, 0, up ? IFF_UP : 0, IFF_UP);
	if (r->mode == BROKEN && below(t, 2)) {
		mark(r, nlh, true, "IFLA_IFNAME of 20 characters");
		mnl_attr_put_strz(nlh, IFLA_IFNAME, "kfzzzzzzzzzzzzzzzzzz");
	} else if (r->mode == BROKEN) {
		mark(r, nlh, false, "IFLA_IFNAME of no device");
		mnl_attr_put_strz(nlh, IFLA_IFNAME, "kfnone");
	} else {
		mnl_attr_put_strz(nlh, IFLA_IFNAME, tg->name);
	}
	r->budget = up;
	if (!r->what[0])
		snprintf(r->what, sizeof(r->what), "%s %s", tg->name, up ? "up" : "down");
	ask(t, t->rt[tg->ns], nlh, r, &a);
}

/* The u32 attributes of an ethtool reply, read back before a change. */
static int et_get(struct thread *t, const struct target *tg, uint8_t cmd, uint32_t *vals,
		  unsigned int nvals)
{
	const struct nlattr *at;
	struct nlmsghdr *nlh;
	char out[MSG_ROOM];
	struct answer a;
	int err;

	nlh = et_start(t, out, cmd, tg->name, 0);
	err = quiet(t, t->et[tg->ns], ethtool_family, nlh, &a);
	if (!err && !a.reply)
		err = -ENODATA;
	if (err) {
		fail("thread %u: ethtool get %u of %s: %s (%s)", t->idx, cmd, tg->name,
		     strerror(-err), a.msg);
		return err;
	}
	memset(vals, 0, nvals * sizeof(*vals));
	mnl_attr_for_each(at, a.reply, GENL_HDRLEN)
		if (mnl_attr_get_type(at) < nvals && mnl_attr_get_payload_len(at) == 4)
			vals[mnl_attr_get_type(at)] = mnl_attr_get_u32(at);
	return 0;
}

/* Garbage after a valid ethtool request: attributes of any type but the
 * header (another device's index could come of it), or the message cut
 * short.
 */
static void et_garbage(struct thread *t, struct nlmsghdr *nlh, unsigned int max)
{
	if (below(t, 3)) {
		put_junk_attrs(t, nlh, 2, max);
		return;
	}
	nlh->nlmsg_len = NLMSG_HDRLEN + below(t, nlh->nlmsg_len - NLMSG_HDRLEN);
}

static void nic_channels(struct thread *t, struct lreq *r, const struct target *tg)
{
	uint32_t v[ETHTOOL_A_CHANNELS_MAX + 1], max, c;
	static const char *const zero_names[] = { "rx", "tx", "other" };
	static const uint16_t zero_max[][2] = {
		{ ETHTOOL_A_CHANNELS_RX_COUNT, ETHTOOL_A_CHANNELS_RX_MAX },
		{ ETHTOOL_A_CHANNELS_TX_COUNT, ETHTOOL_A_CHANNELS_TX_MAX },
		{ ETHTOOL_A_CHANNELS_OTHER_COUNT, ETHTOOL_A_CHANNELS_OTHER_MAX },
	};
	struct nlmsghdr *nlh;
	char out[MSG_ROOM];
	struct answer a;
	unsigned int k;

	if (et_get(t, tg, ETHTOOL_MSG_CHANNELS_GET, v, ARRAY_SIZE(v)))
		return;
	max = v[ETHTOOL_A_CHANNELS_COMBINED_MAX];
	c = (uint32_t[]){ 1, max, v[ETHTOOL_A_CHANNELS_COMBINED_COUNT],
			  1 + below(t, max ?: 1) }[below(t, 4)];
	nlh = et_start(t, out, ETHTOOL_MSG_CHANNELS_SET, tg->name, 0);
	r->budget = true;
	k = below(t, 5);
	if (r->mode == BROKEN && !k) {
		c = below(t, 2) ? max + 1 + below(t, 8) : UINT32_MAX;
		mark(r, nlh, true, "combined %u, over %u", c, max);
	} else if (r->mode == BROKEN && k == 4) {
		c = 0;
		mark(r, nlh, false, "combined 0");
	}
	mnl_attr_put_u32(nlh, ETHTOOL_A_CHANNELS_COMBINED_COUNT, c);
	if (r->mode == BROKEN && k && k < 4) {
		mark(r, nlh, true, "%s count %u, over %u", zero_names[k - 1],
		     v[zero_max[k - 1][1]] + 1, v[zero_max[k - 1][1]]);
		mnl_attr_put_u32(nlh, zero_max[k - 1][0], v[zero_max[k - 1][1]] + 1);
	}
	if (r->mode == GARBAGE)
		et_garbage(t, nlh, ETHTOOL_A_CHANNELS_MAX);
	ask(t, t->et[tg->ns], nlh, r, &a);
}

/* A ring size ktgen-nic takes: a power of 2 from 64 to max. */
static uint32_t ring_size(struct thread *t, uint32_t max, uint32_t cur)
{
	uint32_t v = NIC_RING_MIN << below(t, 7);

	switch (below(t, 4)) {
	case 0:
		return NIC_RING_MIN;
	case 1:
		return max;
	case 2:
		return cur;
	}
	return v <= max ? v : max;
}

static void nic_rings(struct thread *t, struct lreq *r, const struct target *tg)
{
	static const uint32_t odd[] = { 0, 1, 32, 63, 65, 100, 1000 };
	uint32_t v[ETHTOOL_A_RINGS_MAX + 1], rx, tx, bad;
	unsigned int k = below(t, 6), which;
	struct nlmsghdr *nlh;
	char out[MSG_ROOM];
	struct answer a;

	if (et_get(t, tg, ETHTOOL_MSG_RINGS_GET, v, ARRAY_SIZE(v)))
		return;
	rx = ring_size(t, v[ETHTOOL_A_RINGS_RX_MAX], v[ETHTOOL_A_RINGS_RX]);
	tx = ring_size(t, v[ETHTOOL_A_RINGS_TX_MAX], v[ETHTOOL_A_RINGS_TX]);
	which = 1 + below(t, 3);	/* rx, tx or both */
	nlh = et_start(t, out, ETHTOOL_MSG_RINGS_SET, tg->name, 0);
	r->budget = true;
	if (which & 1)
		mnl_attr_put_u32(nlh, ETHTOOL_A_RINGS_RX, rx);
	if (which & 2)
		mnl_attr_put_u32(nlh, ETHTOOL_A_RINGS_TX, tx);
	if (r->mode == BROKEN && k < 2) {
		uint16_t type = k ? ETHTOOL_A_RINGS_TX : ETHTOOL_A_RINGS_RX;
		uint32_t max = v[k ? ETHTOOL_A_RINGS_TX_MAX : ETHTOOL_A_RINGS_RX_MAX];

		bad = (uint32_t[]){ max + 1, 2 * max, UINT32_MAX }[below(t, 3)];
		mark(r, nlh, true, "%s ring %u, over %u", k ? "tx" : "rx", bad, max);
		mnl_attr_put_u32(nlh, type, bad);
	} else if (r->mode == BROKEN && k < 4) {
		uint16_t type = k == 2 ? ETHTOOL_A_RINGS_RX_MINI : ETHTOOL_A_RINGS_RX_JUMBO;

		mark(r, nlh, true, "%s ring 1, over 0", k == 2 ? "mini" : "jumbo");
		mnl_attr_put_u32(nlh, type, 1);
	} else if (r->mode == BROKEN) {
		/* under the least or not a power of 2: ktgen-nic refuses */
		bad = odd[below(t, ARRAY_SIZE(odd))];
		mark(r, nlh, false, "%s ring %u", k == 4 ? "rx" : "tx", bad);
		mnl_attr_put_u32(nlh, k == 4 ? ETHTOOL_A_RINGS_RX : ETHTOOL_A_RINGS_TX, bad);
	}
	if (r->mode == GARBAGE)
		et_garbage(t, nlh, ETHTOOL_A_RINGS_TX);
	ask(t, t->et[tg->ns], nlh, r, &a);
}

static void nic_coalesce(struct thread *t, struct lreq *r, const struct target *tg)
{
	static const uint16_t unsupported[] = {
		ETHTOOL_A_COALESCE_RX_USECS_IRQ, ETHTOOL_A_COALESCE_TX_USECS,
		ETHTOOL_A_COALESCE_TX_MAX_FRAMES, ETHTOOL_A_COALESCE_STATS_BLOCK_USECS,
	};
	uint32_t v[ETHTOOL_A_COALESCE_MAX + 1], bad;
	unsigned int k = below(t, 4), which = 1 + below(t, 3);
	struct nlmsghdr *nlh;
	char out[MSG_ROOM];
	struct answer a;

	if (et_get(t, tg, ETHTOOL_MSG_COALESCE_GET, v, ARRAY_SIZE(v)))
		return;
	nlh = et_start(t, out, ETHTOOL_MSG_COALESCE_SET, tg->name, 0);
	if (which & 1)
		mnl_attr_put_u32(nlh, ETHTOOL_A_COALESCE_RX_USECS,
				 below(t, 4) ? pick(t, 0, NIC_MAX_USECS) :
				 v[ETHTOOL_A_COALESCE_RX_USECS]);
	if (which & 2)
		mnl_attr_put_u32(nlh, ETHTOOL_A_COALESCE_RX_MAX_FRAMES, pick(t, 0, ring_max));
	if (r->mode == BROKEN && k == 0) {
		bad = below(t, 2) ? NIC_MAX_USECS + 1 + below(t, 1000) : UINT32_MAX;
		mark(r, nlh, false, "rx-usecs %u, over %u", bad, NIC_MAX_USECS);
		mnl_attr_put_u32(nlh, ETHTOOL_A_COALESCE_RX_USECS, bad);
	} else if (r->mode == BROKEN && k == 1) {
		bad = below(t, 2) ? ring_max + 1 : UINT32_MAX;
		mark(r, nlh, false, "rx-max-frames %u, over %u", bad, ring_max);
		mnl_attr_put_u32(nlh, ETHTOOL_A_COALESCE_RX_MAX_FRAMES, bad);
	} else if (r->mode == BROKEN && k == 2) {
		mark(r, nlh, true, "use-adaptive-rx, which ktgen-nic does not support");
		mnl_attr_put_u8(nlh, ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX, 1);
	} else if (r->mode == BROKEN) {
		uint16_t type = unsupported[below(t, ARRAY_SIZE(unsupported))];

		mark(r, nlh, true, "coalesce attribute %u, which ktgen-nic does not support", type);
		mnl_attr_put_u32(nlh, type, 1 + below(t, 100));
	}
	if (r->mode == GARBAGE)
		et_garbage(t, nlh, ETHTOOL_A_COALESCE_RATE_SAMPLE_INTERVAL);
	ask(t, t->et[tg->ns], nlh, r, &a);
}

/* A bit set by names: each bit of mask, set where value has it. */
static void put_bits(struct nlmsghdr *nlh, uint32_t value, uint32_t mask)
{
	struct nlattr *bits, *bit;
	unsigned int i;

	bits = mnl_attr_nest_start(nlh, ETHTOOL_A_BITSET_BITS);
	for (i = 0; i < npflags; i++) {
		if (!(mask & (1u << i)))
			continue;
		bit = mnl_attr_nest_start(nlh, ETHTOOL_A_BITSET_BITS_BIT);
		mnl_attr_put_strz(nlh, ETHTOOL_A_BITSET_BIT_NAME, pflag_names[i]);
		if (value & (1u << i))
			mnl_attr_put(nlh, ETHTOOL_A_BITSET_BIT_VALUE, 0, NULL);
		mnl_attr_nest_end(nlh, bit);
	}
	mnl_attr_nest_end(nlh, bits);
}

/* Private flags: a random set that never picks two receive styles, as a
 * compact bit set, one without a mask, or by names; broken, both styles,
 * a name or a bit ktgen-nic has not, bits past its size.
 */
static void nic_privflags(struct thread *t, struct lreq *r, const struct target *tg)
{
	uint32_t all = (1u << npflags) - 1, styles = 1u << pf_legacy | 1u << pf_frags;
	uint32_t v[ETHTOOL_A_PRIVFLAGS_MAX + 1], value, mask;
	unsigned int k = below(t, 4), form = below(t, 3);
	struct nlattr *set, *bits, *bit;
	struct nlmsghdr *nlh;
	char out[MSG_ROOM];
	struct answer a;

	if (et_get(t, tg, ETHTOOL_MSG_PRIVFLAGS_GET, v, ARRAY_SIZE(v)))
		return;
	value = rnd(t) & all;
	mask = (rnd(t) & all) | styles;
	if ((value & styles) == styles)
		value &= ~(1u << (below(t, 2) ? pf_legacy : pf_frags));
	if (r->mode == BROKEN && !k)
		value |= styles;
	nlh = et_start(t, out, ETHTOOL_MSG_PRIVFLAGS_SET, tg->name, 0);
	r->budget = true;
	if (r->mode == BROKEN && !k)
		mark(r, nlh, false, "legacy-rx and rx-frags both on");
	else if (r->mode == BROKEN && k == 1)
		mark(r, nlh, false, "a flag named no-such-flag");
	else if (r->mode == BROKEN && k == 2)
		mark(r, nlh, false, "a compact set with bit 31 of 32");
	else if (r->mode == BROKEN)
		mark(r, nlh, false, "bit index %u of %u", npflags, npflags);
	set = mnl_attr_nest_start(nlh, ETHTOOL_A_PRIVFLAGS_FLAGS);
	if (r->mode == BROKEN && k == 1) {
		bits = mnl_attr_nest_start(nlh, ETHTOOL_A_BITSET_BITS);
		bit = mnl_attr_nest_start(nlh, ETHTOOL_A_BITSET_BITS_BIT);
		mnl_attr_put_strz(nlh, ETHTOOL_A_BITSET_BIT_NAME, "no-such-flag");
		mnl_attr_put(nlh, ETHTOOL_A_BITSET_BIT_VALUE, 0, NULL);
		mnl_attr_nest_end(nlh, bit);
		mnl_attr_nest_end(nlh, bits);
	} else if (r->mode == BROKEN && k == 2) {
		mnl_attr_put_u32(nlh, ETHTOOL_A_BITSET_SIZE, 32);
		mnl_attr_put_u32(nlh, ETHTOOL_A_BITSET_VALUE, 1u << 31);
		mnl_attr_put_u32(nlh, ETHTOOL_A_BITSET_MASK, 1u << 31);
	} else if (r->mode == BROKEN && k == 3) {
		bits = mnl_attr_nest_start(nlh, ETHTOOL_A_BITSET_BITS);
		bit = mnl_attr_nest_start(nlh, ETHTOOL_A_BITSET_BITS_BIT);
		mnl_attr_put_u32(nlh, ETHTOOL_A_BITSET_BIT_INDEX, npflags + below(t, 8));
		mnl_attr_put(nlh, ETHTOOL_A_BITSET_BIT_VALUE, 0, NULL);
		mnl_attr_nest_end(nlh, bit);
		mnl_attr_nest_end(nlh, bits);
	} else if (form == 0) {
		mnl_attr_put_u32(nlh, ETHTOOL_A_BITSET_SIZE, npflags);
		mnl_attr_put_u32(nlh, ETHTOOL_A_BITSET_VALUE, value);
		mnl_attr_put_u32(nlh, ETHTOOL_A_BITSET_MASK, mask);
	} else if (form == 1) {
		mnl_attr_put(nlh, ETHTOOL_A_BITSET_NOMASK, 0, NULL);
		mnl_attr_put_u32(nlh, ETHTOOL_A_BITSET_SIZE, npflags);
		mnl_attr_put_u32(nlh, ETHTOOL_A_BITSET_VALUE, value);
	} else {
		put_bits(nlh, value, mask);
	}
	mnl_attr_nest_end(nlh, set);
	if (r->mode == GARBAGE)
		et_garbage(t, nlh, ETHTOOL_A_PRIVFLAGS_MAX);
	ask(t, t->et[tg->ns], nlh, r, &a);
}

/* A device to change: one of the traffic pair, or of the thread's. */
static void pick_target(struct thread *t, struct target *tg, bool traffic)
{
	unsigned int sl = below(t, NIC_SLOTS), i;
	char dev[IFNAMSIZ], peer[IFNAMSIZ];

	for (i = 0; !traffic && i < NIC_SLOTS; i++, sl = (sl + 1) % NIC_SLOTS) {
		struct nic_slot *s = &t->slot[sl];

		if (!s->exists)
			continue;
		slot_names(t, sl, dev, peer);
		tg->slot = sl;
		if (s->peer_named && below(t, 2)) {
			snprintf(tg->name, sizeof(tg->name), "%s", peer);
			tg->ns = s->peer_ns;
		} else {
			snprintf(tg->name, sizeof(tg->name), "%s", dev);
			tg->ns = NS_INIT;
		}
		return;
	}
	i = below(t, 2);
	snprintf(tg->name, sizeof(tg->name), "%s", tpair[i]);
	tg->ns = tpair_ns[i];
	tg->slot = -1;
}

static void nic_request(struct thread *t)
{
	/* weights: makers and the ethtool sets most, deletions least */
	static const uint8_t weights[L_KINDS] = { 3, 2, 1, 2, 2, 2, 2, 2 };
	unsigned int m = below(t, 16), total = 0, i, w, free_sl = NIC_SLOTS, used = NIC_SLOTS;
	struct lreq r = { .offs = -1, .peer_ns = NS_INIT };
	struct target tg;

	for (i = 0; i < L_KINDS; i++)
		total += weights[i];
	w = below(t, total);
	for (i = 0; w >= weights[i]; i++)
		w -= weights[i];
	r.kind = i;
	r.mode = m < 10 ? VALID : m < 15 ? BROKEN : GARBAGE;
	i = below(t, NIC_SLOTS);
	for (w = 0; w < NIC_SLOTS; w++, i = (i + 1) % NIC_SLOTS) {
		if (t->slot[i].exists)
			used = i;
		else
			free_sl = i;
	}
	if (r.kind == L_DEL && used == NIC_SLOTS)
		r.kind = L_NEW;
	if (r.kind == L_NEW && free_sl == NIC_SLOTS)
		r.kind = L_DEL;
	if ((r.kind == L_DEL || r.kind == L_UPDOWN) && r.mode == GARBAGE)
		r.mode = BROKEN;
	/* a third of the changes to the traffic pair, half of the flaps */
	pick_target(t, &tg, !below(t, r.kind == L_UPDOWN ? 2 : 3));
	switch (r.kind) {
	case L_NEW:
		nic_newlink(t, &r, free_sl);
		break;
	case L_CHANGE:
		nic_changelink(t, &r, &tg);
		break;
	case L_DEL:
		nic_dellink(t, &r, used);
		break;
	case L_UPDOWN:
		nic_updown(t, &r, &tg);
		break;
	case L_CHANNELS:
		nic_channels(t, &r, &tg);
		break;
	case L_RINGS:
		nic_rings(t, &r, &tg);
		break;
	case L_COALESCE:
		nic_coalesce(t, &r, &tg);
		break;
	default:
		nic_privflags(t, &r, &tg);
	}
}

static void *nic_worker(void *arg)
{
	struct thread *t = arg;

	while (!stop)
		nic_request(t);
	return NULL;
}

/* Datagrams from one end of the traffic pair to the other, all along. */
static void *traffic(void *arg)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(TRAFFIC_PORT) };
	struct pollfd pfd = { .fd = traffic_rx, .events = POLLIN };
	struct thread *t = arg;
	char msg[256] = "fuzz", in[2048];
	unsigned int i;

	inet_pton(AF_INET, "10.79.0.2", &to.sin_addr);
	while (!stop) {
		for (i = 0; i < 8; i++)
			if (sendto(traffic_tx, msg, 16 + below(t, sizeof(msg) - 16), MSG_DONTWAIT,
				   (struct sockaddr *)&to, sizeof(to)) > 0)
				tr_sent++;
		if (poll(&pfd, 1, 5) > 0)
			while (recv(traffic_rx, in, sizeof(in), MSG_DONTWAIT) > 0)
				tr_received++;
	}
	return NULL;
}

/* --- -L: the namespaces, the traffic pair, the end --- */

static int enter(unsigned int ns)
{
	return setns(nsfd[ns], CLONE_NEWNET);
}

/* A thread with a socket of each bus in each namespace. */
static struct thread *new_lthread(unsigned int idx)
{
	struct thread *t = calloc(1, sizeof(*t));
	unsigned int ns;
	bool ok = t;

	for (ns = 0; ok && ns < NS_COUNT; ns++) {
		ok = !enter(ns);
		if (ok) {
			t->rt[ns] = open_bus(NETLINK_ROUTE, &t->portid);
			t->et[ns] = open_bus(NETLINK_GENERIC, &t->portid);
			ok = t->rt[ns] && t->et[ns];
		}
	}
	if (enter(NS_INIT) || !ok) {
		printf("# nlfuzz: no sockets for thread %u: %s\n", idx, strerror(errno));
		return NULL;
	}
	t->idx = idx;
	t->rng = (seed + idx) * 0x9e3779b97f4a7c15ULL ?: 1;
	use(t, t->rt[NS_INIT], RTM_NEWLINK);
	return t;
}

/* The ktgen-nic devices of namespace ns, their names in names. */
static int nic_devices(struct thread *t, unsigned int ns, char (*names)[IFNAMSIZ],
		       unsigned int max)
{
	struct pollfd pfd = { .fd = mnl_socket_get_fd(t->rt[ns]), .events = POLLIN };
	unsigned int n = 0;
	struct nlmsghdr *nlh;
	char out[MSG_ROOM];
	uint32_t seq;
	int len;

	nlh = rt_start(t, out, RTM_GETLINK, 0, 0, 0);
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	seq = nlh->nlmsg_seq;
	if (send(pfd.fd, nlh, nlh->nlmsg_len, 0) < 0)
		return -errno;
	while (poll(&pfd, 1, ANSWER_MS) > 0) {
		len = recv(pfd.fd, t->buf, sizeof(t->buf), 0);
		if (len < 0)
			return -errno;
		for (nlh = (struct nlmsghdr *)t->buf; mnl_nlmsg_ok(nlh, len);
		     nlh = mnl_nlmsg_next(nlh, &len)) {
			const struct nlattr *at, *info, *name = NULL;
			bool nic = false;

			if (nlh->nlmsg_seq != seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_DONE)
				return n;
			if (nlh->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)mnl_nlmsg_get_payload(nlh))->error;
			mnl_attr_for_each(at, nlh, sizeof(struct ifinfomsg)) {
				if (mnl_attr_get_type(at) == IFLA_IFNAME)
					name = at;
				if (mnl_attr_get_type(at) != IFLA_LINKINFO)
					continue;
				mnl_attr_for_each_nested(info, at)
					nic |= mnl_attr_get_type(info) == IFLA_INFO_KIND &&
					       !strcmp(mnl_attr_get_str(info), KTGEN_NIC_KIND);
			}
			if (nic && name && n < max)
				snprintf(names[n++], IFNAMSIZ, "%s", mnl_attr_get_str(name));
		}
	}
	return -ETIMEDOUT;
}

/* A device's index and MTU bounds, 0 or the errno. */
static int link_get(struct thread *t, unsigned int ns, const char *name, int *ifindex)
{
	const struct nlattr *at;
	struct nlmsghdr *nlh;
	char out[MSG_ROOM];
	struct answer a;
	int err;

	nlh = rt_start(t, out, RTM_GETLINK, 0, 0, 0);
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	err = quiet(t, t->rt[ns], RTM_NEWLINK, nlh, &a);
	if (err || !a.reply)
		return err ?: -ENODATA;
	*ifindex = ((struct ifinfomsg *)mnl_nlmsg_get_payload(a.reply))->ifi_index;
	mnl_attr_for_each(at, a.reply, sizeof(struct ifinfomsg)) {
		if (mnl_attr_get_type(at) == IFLA_MIN_MTU)
			min_mtu = mnl_attr_get_u32(at);
		else if (mnl_attr_get_type(at) == IFLA_MAX_MTU)
			max_mtu = mnl_attr_get_u32(at);
	}
	return 0;
}

/* Up (with an MTU) or an address: what the traffic pair needs. */
static int link_up(struct thread *t, unsigned int ns, const char *name, uint32_t mtu,
		   struct answer *a)
{
	struct nlmsghdr *nlh;
	char out[MSG_ROOM];

	nlh = rt_start(t, out, RTM_NEWLINK, 0, IFF_UP, IFF_UP);
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	if (mtu)
		mnl_attr_put_u32(nlh, IFLA_MTU, mtu);
	return quiet(t, t->rt[ns], RTM_NEWLINK, nlh, a);
}

static int addr_add(struct thread *t, unsigned int ns, int ifindex, const char *addr)
{
	struct nlmsghdr *nlh;
	struct ifaddrmsg *ifa;
	char out[MSG_ROOM];
	struct answer a;
	uint32_t in;

	inet_pton(AF_INET, addr, &in);
	nlh = mnl_nlmsg_put_header(out);
	nlh->nlmsg_type = RTM_NEWADDR;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL;
	nlh->nlmsg_seq = ++t->seq;
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = AF_INET;
	ifa->ifa_prefixlen = 24;
	ifa->ifa_index = ifindex;
	mnl_attr_put(nlh, IFA_LOCAL, 4, &in);
	mnl_attr_put(nlh, IFA_ADDRESS, 4, &in);
	return quiet(t, t->rt[ns], RTM_NEWLINK, nlh, &a);
}

/* The names of the private flags, and which choose the receive style. */
static int read_pflags(struct thread *t, const struct target *tg)
{
	const struct nlattr *at, *set, *bits, *bit;
	struct nlmsghdr *nlh;
	char out[MSG_ROOM];
	struct answer a;
	int err;

	nlh = et_start(t, out, ETHTOOL_MSG_PRIVFLAGS_GET, tg->name, 0);
	err = quiet(t, t->et[tg->ns], ethtool_family, nlh, &a);
	if (err || !a.reply)
		return err ?: -ENODATA;
	mnl_attr_for_each(at, a.reply, GENL_HDRLEN) {
		if (mnl_attr_get_type(at) != ETHTOOL_A_PRIVFLAGS_FLAGS)
			continue;
		mnl_attr_for_each_nested(set, at) {
			if (mnl_attr_get_type(set) != ETHTOOL_A_BITSET_BITS)
				continue;
			mnl_attr_for_each_nested(bits, set) {
				uint32_t idx = UINT32_MAX;
				const char *name = NULL;

				mnl_attr_for_each_nested(bit, bits) {
					if (mnl_attr_get_type(bit) == ETHTOOL_A_BITSET_BIT_INDEX)
						idx = mnl_attr_get_u32(bit);
					else if (mnl_attr_get_type(bit) == ETHTOOL_A_BITSET_BIT_NAME)
						name = mnl_attr_get_str(bit);
				}
				if (idx >= ARRAY_SIZE(pflag_names) || !name)
					continue;
				snprintf(pflag_names[idx], ETH_GSTRING_LEN, "%s", name);
				if (idx >= npflags)
					npflags = idx + 1;
				if (!strcmp(name, "legacy-rx"))
					pf_legacy = idx;
				else if (!strcmp(name, "rx-frags"))
					pf_frags = idx;
			}
		}
	}
	return npflags >= 2 ? 0 : -ENODATA;
}

/* The traffic pair, its ends in namespaces A and B, 10.79.0.1 and .2. */
static int traffic_pair(struct thread *t)
{
	static const char *const addrs[2] = { "10.79.0.1", "10.79.0.2" };
	struct sockaddr_in at = { .sin_family = AF_INET, .sin_port = htons(TRAFFIC_PORT) };
	struct target tg = { .ns = NS_A, .slot = -1 };
	uint32_t v[ETHTOOL_A_RINGS_MAX + 1];
	struct nlattr *info, *data, *peer;
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifm;
	int err, ifindex, i;
	char out[MSG_ROOM];
	struct answer a;

	nlh = rt_start(t, out, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, 0, 0);
	mnl_attr_put_strz(nlh, IFLA_IFNAME, tpair[0]);
	mnl_attr_put_u32(nlh, IFLA_NET_NS_FD, nsfd[NS_A]);
	info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, KTGEN_NIC_KIND);
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	peer = plain_nest(nlh, KTGEN_A_NIC_PEER);
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, tpair[1]);
	mnl_attr_put_u32(nlh, IFLA_NET_NS_FD, nsfd[NS_B]);
	mnl_attr_nest_end(nlh, peer);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, info);
	err = quiet(t, t->rt[NS_INIT], RTM_NEWLINK, nlh, &a);
	if (err) {
		printf("# nlfuzz: the traffic pair: %s (%s)\n", strerror(-err), a.msg);
		return err;
	}
	/* the bounds, read back: MTUs, queues (channels), rings, flags */
	snprintf(tg.name, sizeof(tg.name), "%s", tpair[0]);
	if (et_get(t, &tg, ETHTOOL_MSG_CHANNELS_GET, v, ETHTOOL_A_CHANNELS_MAX + 1))
		return -1;
	nic_queues = v[ETHTOOL_A_CHANNELS_COMBINED_MAX];
	if (et_get(t, &tg, ETHTOOL_MSG_RINGS_GET, v, ETHTOOL_A_RINGS_MAX + 1))
		return -1;
	ring_max = v[ETHTOOL_A_RINGS_RX_MAX];
	err = read_pflags(t, &tg);
	for (i = 0; !err && i < 2; i++) {
		err = link_get(t, tpair_ns[i], tpair[i], &ifindex) ?:
		      addr_add(t, tpair_ns[i], ifindex, addrs[i]) ?:
		      link_up(t, tpair_ns[i], tpair[i], 0, &a);
	}
	if (err || nic_queues < 2) {
		printf("# nlfuzz: the traffic pair's settings: %s\n",
		       err ? strerror(-err) : "under 2 queues");
		return -1;
	}
	inet_pton(AF_INET, addrs[1], &at.sin_addr);
	if (enter(NS_A) || (traffic_tx = socket(AF_INET, SOCK_DGRAM, 0)) < 0 ||
	    enter(NS_B) || (traffic_rx = socket(AF_INET, SOCK_DGRAM, 0)) < 0 ||
	    bind(traffic_rx, (struct sockaddr *)&at, sizeof(at)) || enter(NS_INIT)) {
		printf("# nlfuzz: the traffic sockets: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* The namespaces, the ethtool family, the traffic pair: the thread that
 * makes them, or NULL.
 */
static struct thread *nic_setup(void)
{
	unsigned int ns;
	struct thread *t;
	int n;

	for (ns = 0; ns < NS_COUNT; ns++) {
		if (ns && unshare(CLONE_NEWNET))
			break;
		nsfd[ns] = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
		if (nsfd[ns] < 0)
			break;
	}
	if (ns < NS_COUNT || enter(NS_INIT)) {
		printf("# nlfuzz: no namespaces: %s\n", strerror(errno));
		return NULL;
	}
	t = new_lthread(99);
	if (!t)
		return NULL;
	if (resolve_named(t->et[NS_INIT], ETHTOOL_GENL_NAME, &ethtool_family)) {
		printf("# nlfuzz: no ethtool family\n");
		return NULL;
	}
	n = nic_devices(t, NS_INIT, before, ARRAY_SIZE(before));
	if (n < 0) {
		printf("# nlfuzz: listing the links: %s\n", strerror(-n));
		return NULL;
	}
	nbefore = n;
	return traffic_pair(t) ? NULL : t;
}

/* After the fuzz: both ends up at a plain MTU carry datagrams again. */
static void traffic_after(struct thread *t)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(TRAFFIC_PORT) };
	struct pollfd pfd = { .fd = traffic_rx, .events = POLLIN };
	char in[2048];
	struct answer a;
	int i, err;

	for (i = 0; i < 2; i++) {
		err = link_up(t, tpair_ns[i], tpair[i], max_mtu < 1500 ? max_mtu : 1500, &a);
		if (err) {
			fail("%s up after the fuzz: %s (%s)", tpair[i], strerror(-err), a.msg);
			return;
		}
	}
	while (recv(traffic_rx, in, sizeof(in), MSG_DONTWAIT) > 0)
		;
	inet_pton(AF_INET, "10.79.0.2", &to.sin_addr);
	for (i = 0; i < ANSWER_MS / 20; i++) {
		sendto(traffic_tx, "after", 5, MSG_DONTWAIT, (struct sockaddr *)&to, sizeof(to));
		if (poll(&pfd, 1, 20) <= 0)
			continue;
		while (recv(traffic_rx, in, sizeof(in), MSG_DONTWAIT) == 5)
			if (!memcmp(in, "after", 5))
				return;
	}
	fail("the traffic pair carries nothing after the fuzz");
}

/* Every pair deleted (the threads', then the traffic pair), and no
 * ktgen-nic device in nlfuzz's namespaces that was not there before.
 */
static void nic_end(struct thread *end, struct thread **ts)
{
	char dev[IFNAMSIZ], peer[IFNAMSIZ], left[64][IFNAMSIZ];
	unsigned int i, sl, ns, j;
	struct nlmsghdr *nlh;
	char out[MSG_ROOM];
	struct answer a;
	int err, n;

	for (i = 0; i < nthreads; i++) {
		for (sl = 0; sl < NIC_SLOTS; sl++) {
			if (!ts[i]->slot[sl].exists)
				continue;
			slot_names(ts[i], sl, dev, peer);
			nlh = rt_start(end, out, RTM_DELLINK, 0, 0, 0);
			mnl_attr_put_strz(nlh, IFLA_IFNAME, dev);
			err = quiet(end, end->rt[NS_INIT], RTM_NEWLINK, nlh, &a);
			if (err)
				fail("deleting %s: %s (%s)", dev, strerror(-err), a.msg);
		}
	}
	traffic_after(end);
	nlh = rt_start(end, out, RTM_DELLINK, 0, 0, 0);
	mnl_attr_put_strz(nlh, IFLA_IFNAME, tpair[0]);
	err = quiet(end, end->rt[NS_A], RTM_NEWLINK, nlh, &a);
	if (err)
		fail("deleting %s: %s (%s)", tpair[0], strerror(-err), a.msg);
	for (ns = 0; ns < NS_COUNT; ns++) {
		n = nic_devices(end, ns, left, ARRAY_SIZE(left));
		if (n < 0)
			fail("listing the links of namespace %u: %s", ns, strerror(-n));
		for (i = 0; n > 0 && i < (unsigned int)n; i++) {
			for (j = 0; ns == NS_INIT && j < nbefore; j++)
				if (!strcmp(left[i], before[j]))
					break;
			if (ns != NS_INIT || j == nbefore)
				fail("%s left in namespace %u", left[i], ns);
		}
	}
}

/* -L: workers and the traffic for secs, then the end: the rate, or -1. */
static long nic_fuzz(unsigned long secs)
{
	struct thread *t[17], *end;
	struct timespec t0, t1;
	unsigned int i;
	double took;
	long rate;

	for (i = 0; i < ARRAY_SIZE(sets); i++)
		if (!strcmp(sets[i].name, "nic"))
			nic_set = &sets[i];
	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	end = nic_set ? nic_setup() : NULL;
	if (!end)
		return -1;
	printf("# nlfuzz: ktgen-nic: %u queues, MTU %u..%u, rings to %u, %u private flags, "
	       "%u CPUs\n", nic_queues, min_mtu, max_mtu, ring_max, npflags, ncpus);
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i <= nthreads; i++) {
		t[i] = new_lthread(i);
		if (!t[i] || pthread_create(&t[i]->tid, NULL, i < nthreads ? nic_worker : traffic,
					    t[i])) {
			printf("# nlfuzz: cannot start thread %u\n", i);
			return -1;
		}
	}
	for (i = 0; i < secs * 10 && !stop; i++)
		usleep(100000);
	stop = true;
	for (i = 0; i <= nthreads; i++)
		pthread_join(t[i]->tid, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	took = t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	rate = n_req / took;
	printf("# nlfuzz: %lu requests in %.1f s (%ld/s)\n", (unsigned long)n_req, took, rate);
	for (i = 0; i < L_KINDS; i++)
		printf("# nlfuzz: %s sent %lu accepted %lu explained %lu budget %lu refused %lu "
		       "located %lu garbage %lu\n", lkind_names[i],
		       (unsigned long)lcounts[i].sent, (unsigned long)lcounts[i].accepted,
		       (unsigned long)lcounts[i].explained, (unsigned long)lcounts[i].budget,
		       (unsigned long)lcounts[i].refused, (unsigned long)lcounts[i].located,
		       (unsigned long)lcounts[i].garbage);
	printf("# nlfuzz: traffic sent %lu received %lu\n", (unsigned long)tr_sent,
	       (unsigned long)tr_received);
	fflush(stdout);
	nic_end(end, t);
	return rate;
}

int main(int argc, char **argv)
{
	unsigned long secs = 20, min_rate = 0;
	struct settings was = { UINT64_MAX };
	struct thread *end;
	bool netns = false, links = false;
	long rate;
	int c;

	while ((c = getopt(argc, argv, "s:t:j:r:m:NL")) != -1) {
		if (c == 's')
			seed = strtoull(optarg, NULL, 0);
		else if (c == 't')
			secs = strtoul(optarg, NULL, 0);
		else if (c == 'j')
			nthreads = strtoul(optarg, NULL, 0);
		else if (c == 'r')
			min_rate = strtoul(optarg, NULL, 0);
		else if (c == 'm')
			ko = optarg;
		else if (c == 'N')
			netns = true;
		else if (c == 'L')
			links = true;
		else
			return 2;
	}
	if (!nthreads || nthreads > 16)
		return 2;
	signal(SIGPIPE, SIG_IGN);
	printf("# nlfuzz: seed %" PRIu64 ", %u threads, %lu s%s%s%s\n", seed, nthreads, secs,
	       ko ? ", reloading" : "", netns ? ", namespaces" : "", links ? ", links" : "");
	fflush(stdout);
	if (links) {
		rate = nic_fuzz(secs);
		if (rate < 0)
			return 4;
		if (!failed && (unsigned long)rate < min_rate) {
			printf("# nlfuzz: %ld requests a second, under %lu\n", rate, min_rate);
			return 1;
		}
		return failed ? 1 : 0;
	}
	end = new_thread(99);
	if (end) {
		was.budget = config(end, KTGEN_A_CONFIG_BUFFER_BUDGET);
		was.max_runs = config(end, KTGEN_A_CONFIG_MAX_RUNS);
		was.max_sinks = config(end, KTGEN_A_CONFIG_MAX_SINKS);
	}
	budget_cap = was.budget;
	if (was.budget == UINT64_MAX || was.max_runs == UINT64_MAX ||
	    was.max_sinks == UINT64_MAX) {
		printf("# nlfuzz: no ktgen family to fuzz\n");
		return 4;
	}
	rate = fuzz(secs, netns);
	if (rate < 0)
		return 4;
	if (ko && load(ko)) {
		printf("# nlfuzz: the module does not load back\n");
		return 1;
	}
	if (failed)
		return 1;
	if ((unsigned long)rate < min_rate) {
		printf("# nlfuzz: %ld requests a second, under %lu\n", rate, min_rate);
		return 1;
	}
	return geteuid() == 0 && (reresolve(end) || settle(end, &was)) ? 1 : 0;
}
