// SPDX-License-Identifier: GPL-2.0
/*
 * nlfuzz: the ktgen family under requests made from its spec, from several
 * threads at once, each request judged.
 *
 *   nlfuzz [-s SEED] [-t SECONDS] [-j THREADS] [-r MIN_RATE] [-m KO] [-N]
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

struct thread {
	unsigned int idx;
	uint64_t rng;
	struct mnl_socket *sock;
	uint16_t family;
	uint32_t seq, portid;
	unsigned int next_port;
	unsigned char *umem;
	char buf[4 * MSG_ROOM];
	char reply[MSG_ROOM];
	pthread_t tid;
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

/* The family's id, asked on sock: what else is queued there is skipped. */
static int resolve_family(struct mnl_socket *sock, uint16_t *family)
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
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, KTGEN_FAMILY_NAME);
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

static struct mnl_socket *open_socket(uint32_t *portid)
{
	struct mnl_socket *sock = mnl_socket_open(NETLINK_GENERIC);
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
					memcpy(t->reply, nlh, min_len(nlh->nlmsg_len, sizeof(t->reply)));
					a->reply = (struct nlmsghdr *)t->reply;
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

int main(int argc, char **argv)
{
	unsigned long secs = 20, min_rate = 0;
	struct settings was = { UINT64_MAX };
	struct thread *end;
	bool netns = false;
	long rate;
	int c;

	while ((c = getopt(argc, argv, "s:t:j:r:m:N")) != -1) {
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
		else
			return 2;
	}
	if (!nthreads || nthreads > 16)
		return 2;
	signal(SIGPIPE, SIG_IGN);
	printf("# nlfuzz: seed %" PRIu64 ", %u threads, %lu s%s%s\n", seed, nthreads, secs,
	       ko ? ", reloading" : "", netns ? ", namespaces" : "");
	fflush(stdout);
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
