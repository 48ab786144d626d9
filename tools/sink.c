// SPDX-License-Identifier: GPL-2.0
/*
 * ktgen sink: receivers listening on a port, and what they counted.
 */
#include <inttypes.h>
#include <signal.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/ktgen.h>

#include "ktgen.h"
#include "nl.h"
#include "print.h"
#include "show.h"
#include "sink.h"

static const char * const proto_names[] = {
	[KTGEN_PROTO_TCP]	= "tcp",
	[KTGEN_PROTO_UDP]	= "udp",
};

static const char * const rx_mode_names[] = {
	[KTGEN_RX_MODE_COPY]	= "copy",
	[KTGEN_RX_MODE_NOCACHE]	= "nocache",
	[KTGEN_RX_MODE_TOUCH]	= "touch",
	[KTGEN_RX_MODE_DISCARD]	= "discard",
	[KTGEN_RX_MODE_VERIFY]	= "verify",
	[KTGEN_RX_MODE_RECVMSG]	= "recvmsg",
	[KTGEN_RX_MODE_USER]	= "user",
};

static const enum mnl_attr_data_type sink_types[KTGEN_A_SINK_MAX + 1] = {
	[KTGEN_A_SINK_ID]		= MNL_TYPE_U32,
	[KTGEN_A_SINK_PROTO]		= MNL_TYPE_U32,
	[KTGEN_A_SINK_LOCAL_ADDR]	= MNL_TYPE_BINARY,
	[KTGEN_A_SINK_PORT]		= MNL_TYPE_U16,
	[KTGEN_A_SINK_RX_MODE]		= MNL_TYPE_U32,
	[KTGEN_A_SINK_CPUS]		= MNL_TYPE_BINARY,
	[KTGEN_A_SINK_RCVBUF]		= MNL_TYPE_U32,
	[KTGEN_A_SINK_RX]		= MNL_TYPE_NESTED,
	[KTGEN_A_SINK_USER_BUF]		= MNL_TYPE_U64,
	[KTGEN_A_SINK_USER_LEN]		= MNL_TYPE_U64,
	[KTGEN_A_SINK_BUSY_POLL]	= MNL_TYPE_U32,
	[KTGEN_A_SINK_GRO]		= MNL_TYPE_FLAG,
	[KTGEN_A_SINK_RR]		= MNL_TYPE_FLAG,
	[KTGEN_A_SINK_RESP_MAX]		= MNL_TYPE_U32,
	[KTGEN_A_SINK_TOKEN]		= MNL_TYPE_U64,
	[KTGEN_A_SINK_MAX_CONNS]	= MNL_TYPE_U32,
	[KTGEN_A_SINK_IDLE_MS]		= MNL_TYPE_U32,
	[KTGEN_A_SINK_DETACH]		= MNL_TYPE_FLAG,
	[KTGEN_A_SINK_IPV4]		= MNL_TYPE_FLAG,
	[KTGEN_A_SINK_IPV6]		= MNL_TYPE_FLAG,
};

void sink_format_token(uint64_t token, char *buf, size_t len)
{
	snprintf(buf, len, "0x%016" PRIx64, token);
}

/* An rr sink's token, when the kernel told it: text " token 0x...", JSON
 * a string (a JSON number loses bits past 2^53 in many readers).
 */
static void print_token(const struct nlattr *rr, const struct nlattr *token)
{
	char buf[24];

	if (!rr || !token)
		return;
	sink_format_token(mnl_attr_get_u64(token), buf, sizeof(buf));
	print_string(PRINT_ANY, "token", " token %s", buf);
}

/* The module's defaults (ktgen.yaml): text shows other values only. */
#define SINK_DEFAULT_MAX_CONNS	4096
#define SINK_DEFAULT_IDLE_MS	30000

/* What a sink holds from peers: always in JSON, in text when not the
 * default.
 */
static void print_sink_limits(const struct nlattr *const *tb)
{
	uint32_t v;

	if (tb[KTGEN_A_SINK_MAX_CONNS]) {
		v = mnl_attr_get_u32(tb[KTGEN_A_SINK_MAX_CONNS]);
		print_u64(PRINT_JSON, "max_conns", NULL, v);
		if (v != SINK_DEFAULT_MAX_CONNS)
			print_u64(PRINT_TEXT, NULL, " max-conns %llu", v);
	}
	if (tb[KTGEN_A_SINK_IDLE_MS]) {
		v = mnl_attr_get_u32(tb[KTGEN_A_SINK_IDLE_MS]);
		print_u64(PRINT_JSON, "idle_ms", NULL, v);
		if (v != SINK_DEFAULT_IDLE_MS)
			print_u64(PRINT_TEXT, NULL, " idle-ms %llu", v);
	}
}

/* " *:5201" or " 10.0.0.2:5201": where the sink listens, and for which
 * families.
 */
static void print_sink_where(const struct nlattr **tb)
{
	/* the wildcard of both families as ss prints it: *:PORT */
	print_endpoint(tb[KTGEN_A_SINK_IPV4] && tb[KTGEN_A_SINK_IPV6] ? NULL :
		       tb[KTGEN_A_SINK_LOCAL_ADDR], tb[KTGEN_A_SINK_PORT], " %s");
	print_addr(tb[KTGEN_A_SINK_LOCAL_ADDR], "local_addr");
	if (tb[KTGEN_A_SINK_IPV4] || tb[KTGEN_A_SINK_IPV6]) {
		print_open_array("families");
		if (tb[KTGEN_A_SINK_IPV4])
			print_string(PRINT_JSON, NULL, NULL, "ipv4");
		if (tb[KTGEN_A_SINK_IPV6])
			print_string(PRINT_JSON, NULL, NULL, "ipv6");
		print_close_array();
	}
	if (tb[KTGEN_A_SINK_PORT])
		print_u64(PRINT_JSON, "port", NULL, ntohs(mnl_attr_get_u16(tb[KTGEN_A_SINK_PORT])));
}

/* A flag as " NAME" in text and "KEY": true in JSON. */
static void print_sink_flag(const struct nlattr *a, const char *key, const char *name)
{
	if (!a)
		return;
	print_bool(PRINT_JSON, key, NULL, true);
	print_text(" %s", name);
}

/* What the sink was asked for beyond its address and mode. */
static void print_sink_options(const struct nlattr **tb)
{
	char buf[32];

	if (tb[KTGEN_A_SINK_RCVBUF]) {
		uint32_t v = mnl_attr_get_u32(tb[KTGEN_A_SINK_RCVBUF]);

		print_u64(PRINT_JSON, "rcvbuf", NULL, v);
		print_string(PRINT_TEXT, NULL, " rcvbuf %s", format_size(v, buf, sizeof(buf)));
	}
	if (tb[KTGEN_A_SINK_BUSY_POLL])
		print_u64(PRINT_ANY, "busy_poll_us", " busy-poll %lluus",
			  mnl_attr_get_u32(tb[KTGEN_A_SINK_BUSY_POLL]));
	print_sink_flag(tb[KTGEN_A_SINK_GRO], "gro", "gro");
	print_sink_flag(tb[KTGEN_A_SINK_RR], "rr", "rr");
	if (tb[KTGEN_A_SINK_RESP_MAX])
		print_u64(PRINT_ANY, "resp_max", " resp-max %llu",
			  mnl_attr_get_u32(tb[KTGEN_A_SINK_RESP_MAX]));
	print_token(tb[KTGEN_A_SINK_RR], tb[KTGEN_A_SINK_TOKEN]);
	print_sink_flag(tb[KTGEN_A_SINK_DETACH], "detach", "detach");
}

/* One sink, text:
 *   sink 3 tcp *:5001 rx verify cpus 0-3 rcvbuf 4M rr resp-max 64K token 0x...
 *     rx  15425000000 bytes  235000 msgs  conns 4  lost 0  verify errors 0
 * @data: its JSON key within an object, or NULL as an array's item.
 */
int sink_print_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[KTGEN_A_SINK_MAX + 1];

	nl_parse(nlh, sink_types, KTGEN_A_SINK_MAX, tb);
	if (tb[KTGEN_A_SINK_LOCAL_ADDR] &&
	    mnl_attr_get_payload_len(tb[KTGEN_A_SINK_LOCAL_ADDR]) != 4 &&
	    mnl_attr_get_payload_len(tb[KTGEN_A_SINK_LOCAL_ADDR]) != 16)
		tb[KTGEN_A_SINK_LOCAL_ADDR] = NULL;

	print_open_object(data);
	print_u64(PRINT_ANY, "id", "sink %llu",
		  tb[KTGEN_A_SINK_ID] ? mnl_attr_get_u32(tb[KTGEN_A_SINK_ID]) : 0);
	print_enum(tb[KTGEN_A_SINK_PROTO], "proto", " %s", proto_names,
		   ARRAY_SIZE(proto_names));
	print_sink_where(tb);
	print_enum(tb[KTGEN_A_SINK_RX_MODE], "rx_mode", " rx %s", rx_mode_names,
		   ARRAY_SIZE(rx_mode_names));
	print_cpus(tb[KTGEN_A_SINK_CPUS], " cpus %s");
	print_sink_options(tb);
	print_sink_limits(tb);
	print_text("\n");
	if (tb[KTGEN_A_SINK_RX]) {
		print_text("  rx");
		print_rx_stats(tb[KTGEN_A_SINK_RX]);
		print_text("\n");
	}
	print_close_object();
	return MNL_CB_OK;
}

static int sink_added_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[KTGEN_A_SINK_MAX + 1];
	struct sink_added *out = data;

	nl_parse(nlh, sink_types, KTGEN_A_SINK_MAX, tb);
	if (!tb[KTGEN_A_SINK_ID]) {
		fprintf(stderr, "ktgen: the kernel's reply has no sink id\n");
		return MNL_CB_ERROR;
	}
	out->id = mnl_attr_get_u32(tb[KTGEN_A_SINK_ID]);
	out->token = tb[KTGEN_A_SINK_RR] && tb[KTGEN_A_SINK_TOKEN] ?
		     mnl_attr_get_u64(tb[KTGEN_A_SINK_TOKEN]) : 0;
	return MNL_CB_OK;
}

static void sink_usage(FILE *f)
{
	fputs("Usage: ktgen sink add tcp|udp [local ADDR] port PORT\n"
	      "                      [rx copy|nocache|touch|discard|verify|recvmsg|user]\n"
	      "                      [cpus LIST] [rcvbuf BYTES] [busy-poll USECS] [gro]\n"
	      "                      [ipv4] [ipv6] [rr [resp-max BYTES]] [max-conns N]\n"
	      "                      [idle-ms MSECS] [detach]\n"
	      "       ktgen sink show [ID]\n"
	      "       ktgen sink del ID|all\n"
	      "local: IPv4 or IPv6 address to listen on (default: the wildcard of\n"
	      "       both families, one dual-stack IPv6 socket; IPv4 alone where\n"
	      "       IPv6 is not available)\n"
	      "ipv4, ipv6: the wildcard of that family only\n"
	      "cpus:  CPUs for the sink's workers, e.g. 0-3,8\n"
	      "busy-poll: a worker with nothing to do spins this long (50, 200us,\n"
	      "           10ms) after the last thing it did before it sleeps\n"
	      "gro:   udp: take GRO batches (UDP_GRO) and read each whole, a\n"
	      "       datagram at a time\n"
	      "max-conns: TCP connections held at once, UDP senders tracked\n"
	      "           (default 4096); beyond it refused\n"
	      "idle-ms: a connection whose hello has not come this long after it\n"
	      "         was accepted is closed; a UDP sender silent this long may\n"
	      "         make room for another (default 30000)\n"
	      "rx user: the workers receive into this process's memory (64 KiB\n"
	      "         each), so the stack's copy_to_user runs. add then stays\n"
	      "         until a signal (Ctrl-C) and the sink goes with it\n"
	      "detach: rx user: add returns and the sink stays (holding this\n"
	      "        process's address space) until it is deleted\n"
	      "rr:    answer requests (tcp_rr, udp_rr, tcp_crr); without it a sink\n"
	      "       answers nothing (requests are counted as refused). A response\n"
	      "       is at most as large as its request, unless the request carries\n"
	      "       the sink's token (printed by add and show: run ... token T)\n"
	      "resp-max: with the token, responses up to BYTES (at most 16M)\n", f);
}

/* One "keyword [value]" of sink add; returns the words used, or -1. */
/* A keyword without a value: whether @kw is one (and now set). */
static bool sink_add_flag(struct sink_args *a, const char *kw)
{
	static const struct {
		const char	*kw;
		size_t		off;
	} flags[] = {
		{ "ipv4",	offsetof(struct sink_args, ipv4) },
		{ "ipv6",	offsetof(struct sink_args, ipv6) },
		{ "gro",	offsetof(struct sink_args, gro) },
		{ "rr",		offsetof(struct sink_args, rr) },
		{ "detach",	offsetof(struct sink_args, detach) },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		if (!strcmp(kw, flags[i].kw)) {
			*(bool *)((char *)a + flags[i].off) = true;
			return true;
		}
	}
	return false;
}

/* The sink's limits: buffer and response sizes, busy polling, connections,
 * idle time. 0, 1 when @kw is none of them, -1 after a usage message.
 */
static int sink_add_limit(struct sink_args *a, const char *kw, const char *val)
{
	static const struct {
		const char	*kw;
		int		(*parse)(const char *s, uint32_t *v);
		size_t		off, has;
		const char	*needs;
	} limits[] = {
		{ "rcvbuf", parse_size_u32, offsetof(struct sink_args, rcvbuf),
		  offsetof(struct sink_args, has_rcvbuf), "a size in bytes below 4G" },
		{ "busy-poll", parse_usecs, offsetof(struct sink_args, busy_poll_us),
		  offsetof(struct sink_args, has_busy_poll),
		  "microseconds, like 50, 200us or 10ms" },
		{ "resp-max", parse_size_u32, offsetof(struct sink_args, resp_max),
		  offsetof(struct sink_args, has_resp_max), "a size in bytes" },
		{ "max-conns", parse_u32, offsetof(struct sink_args, max_conns),
		  offsetof(struct sink_args, has_max_conns), "a number" },
		{ "idle-ms", parse_u32, offsetof(struct sink_args, idle_ms),
		  offsetof(struct sink_args, has_idle_ms), "milliseconds" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(limits); i++) {
		if (strcmp(kw, limits[i].kw))
			continue;
		if (limits[i].parse(val, (uint32_t *)((char *)a + limits[i].off))) {
			usage_error("sink add: %s needs %s, not '%s'", kw, limits[i].needs, val);
			return -1;
		}
		*(bool *)((char *)a + limits[i].has) = true;
		return 0;
	}
	return 1;
}

/* A keyword of sink add at @argv: the words taken, -1 after a usage
 * message.
 */
static int sink_add_arg(struct sink_args *a, int argc, char **argv)
{
	const char *kw = argv[0], *val = argc > 1 ? argv[1] : NULL;
	int err;

	if (sink_add_flag(a, kw))
		return 1;
	if (strcmp(kw, "local") && strcmp(kw, "port") && strcmp(kw, "rx") &&
	    strcmp(kw, "cpus") && strcmp(kw, "rcvbuf") && strcmp(kw, "busy-poll") &&
	    strcmp(kw, "resp-max") && strcmp(kw, "max-conns") && strcmp(kw, "idle-ms")) {
		usage_error("sink add: unknown keyword '%s'", kw);
		return -1;
	}
	if (!val) {
		usage_error("sink add: %s needs a value", kw);
		return -1;
	}
	err = sink_add_limit(a, kw, val);
	if (err <= 0)
		return err ? -1 : 2;
	if (!strcmp(kw, "local") && parse_addr(val, &a->local)) {
		usage_error("sink add: local needs an IPv4 or IPv6 address, not '%s'", val);
		return -1;
	}
	if (!strcmp(kw, "port")) {
		if (parse_port(val, &a->port)) {
			usage_error("sink add: port needs a number up to 65535, not '%s'", val);
			return -1;
		}
		a->has_port = true;
	}
	if (!strcmp(kw, "rx")) {
		a->rx_mode = lookup_name(val, rx_mode_names, ARRAY_SIZE(rx_mode_names));
		if (a->rx_mode < 0) {
			usage_error("sink add: unknown rx mode '%s'", val);
			return -1;
		}
	}
	if (!strcmp(kw, "cpus") &&
	    parse_cpulist(val, a->cpus, sizeof(a->cpus), &a->cpus_len)) {
		usage_error("sink add: cpus needs a list like 0-3,5 (CPUs below %d), not '%s'",
			    KTG_CPUS_MAX, val);
		return -1;
	}
	return 2;
}

int sink_add_parse(struct sink_args *a, int argc, char **argv)
{
	int n;

	memset(a, 0, sizeof(*a));
	a->rx_mode = -1;
	if (argc < 1) {
		usage_error("sink add: tcp or udp?");
		return -1;
	}
	a->proto = lookup_name(argv[0], proto_names, ARRAY_SIZE(proto_names));
	if (a->proto < 0) {
		usage_error("sink add: unknown protocol '%s' (tcp or udp)", argv[0]);
		return -1;
	}
	for (argc--, argv++; argc > 0; argc -= n, argv += n) {
		n = sink_add_arg(a, argc, argv);
		if (n < 0)
			return -1;
	}
	if (!a->has_port) {
		usage_error("sink add: port is required");
		return -1;
	}
	/* A local address gives the family; ipv4 and ipv6 the wildcard's. */
	if ((a->ipv4 || a->ipv6) && a->local.family) {
		usage_error("sink add: ipv4 and ipv6 are for the wildcard address only (a local address gives the family)");
		return -1;
	}
	if (a->gro && a->proto != KTGEN_PROTO_UDP) {
		usage_error("sink add: gro is for udp sinks (tcp reads a byte stream)");
		return -1;
	}
	if (a->has_resp_max && !a->rr) {
		usage_error("sink add: resp-max is for sinks that answer requests (rr)");
		return -1;
	}
	if (a->detach && a->rx_mode != KTGEN_RX_MODE_USER) {
		usage_error("sink add: detach is for rx user sinks (no other stays with this process)");
		return -1;
	}
	return 0;
}

/* rx user: a slice per worker; TCP has one per CPU (default: one CPU). */
static uint64_t sink_user_len(const struct sink_args *a)
{
	uint64_t cpus = 0;
	size_t i;

	for (i = 0; i < a->cpus_len; i++)
		cpus += __builtin_popcount(a->cpus[i]);
	if (a->proto != KTGEN_PROTO_TCP || !cpus)
		cpus = 1;
	return cpus * KTG_SINK_USER_SLICE;
}

int sink_add(struct nl_ctx *ctx, const struct sink_args *a, struct sink_added *out)
{
	struct nlmsghdr *nlh = nl_msg_start(ctx, KTGEN_CMD_SINK_NEW, 0);
	uint64_t len;
	void *mem;

	mnl_attr_put_u32(nlh, KTGEN_A_SINK_PROTO, a->proto);
	if (a->local.family)
		mnl_attr_put(nlh, KTGEN_A_SINK_LOCAL_ADDR, a->local.len, a->local.bytes);
	mnl_attr_put_u16(nlh, KTGEN_A_SINK_PORT, htons(a->port));
	if (a->rx_mode >= 0)
		mnl_attr_put_u32(nlh, KTGEN_A_SINK_RX_MODE, a->rx_mode);
	if (a->cpus_len)
		mnl_attr_put(nlh, KTGEN_A_SINK_CPUS, a->cpus_len, a->cpus);
	if (a->has_rcvbuf)
		mnl_attr_put_u32(nlh, KTGEN_A_SINK_RCVBUF, a->rcvbuf);
	if (a->has_busy_poll)
		mnl_attr_put_u32(nlh, KTGEN_A_SINK_BUSY_POLL, a->busy_poll_us);
	if (a->has_max_conns)
		mnl_attr_put_u32(nlh, KTGEN_A_SINK_MAX_CONNS, a->max_conns);
	if (a->has_idle_ms)
		mnl_attr_put_u32(nlh, KTGEN_A_SINK_IDLE_MS, a->idle_ms);
	if (a->ipv4)
		mnl_attr_put(nlh, KTGEN_A_SINK_IPV4, 0, NULL);
	if (a->ipv6)
		mnl_attr_put(nlh, KTGEN_A_SINK_IPV6, 0, NULL);
	if (a->gro)
		mnl_attr_put(nlh, KTGEN_A_SINK_GRO, 0, NULL);
	if (a->rr)
		mnl_attr_put(nlh, KTGEN_A_SINK_RR, 0, NULL);
	if (a->has_resp_max)
		mnl_attr_put_u32(nlh, KTGEN_A_SINK_RESP_MAX, a->resp_max);
	if (a->detach)
		mnl_attr_put(nlh, KTGEN_A_SINK_DETACH, 0, NULL);
	if (a->rx_mode == KTGEN_RX_MODE_USER) {
		len = sink_user_len(a);
		mem = user_mem_map(len);
		if (!mem)
			return -1;
		mnl_attr_put_u64(nlh, KTGEN_A_SINK_USER_BUF, (uintptr_t)mem);
		mnl_attr_put_u64(nlh, KTGEN_A_SINK_USER_LEN, len);
	}
	memset(out, 0, sizeof(*out));
	return nl_request(ctx, nlh, &ktg_sink_attrs, sink_added_cb, out);
}

/* The sink's reply to sink-get, to @cb (as sink_print_cb takes it). */
int sink_get(struct nl_ctx *ctx, uint32_t id, mnl_cb_t cb, void *data)
{
	struct nlmsghdr *nlh = nl_msg_start(ctx, KTGEN_CMD_SINK_GET, 0);

	mnl_attr_put_u32(nlh, KTGEN_A_SINK_ID, id);
	return nl_request(ctx, nlh, &ktg_sink_attrs, cb, data);
}

static int sink_show(struct nl_ctx *ctx, bool one, uint32_t id)
{
	struct nlmsghdr *nlh;
	int err;

	if (one)
		return sink_get(ctx, id, sink_print_cb, NULL);
	nlh = nl_msg_start(ctx, KTGEN_CMD_SINK_GET, NLM_F_DUMP);
	print_open_array(NULL);
	err = nl_request(ctx, nlh, &ktg_sink_attrs, sink_print_cb, NULL);
	print_close_array();
	return err;
}

int sink_del(struct nl_ctx *ctx, bool all, uint32_t id)
{
	struct nlmsghdr *nlh = nl_msg_start(ctx, KTGEN_CMD_SINK_DEL, 0);

	if (all)
		mnl_attr_put(nlh, KTGEN_A_SINK_ALL, 0, NULL);
	else
		mnl_attr_put_u32(nlh, KTGEN_A_SINK_ID, id);
	return nl_request(ctx, nlh, &ktg_sink_attrs, NULL, NULL);
}

/* An rx user sink is this process's (its memory is): it stays while
 * the process does, unless detached.
 */
static bool sink_owned(const struct sink_args *a)
{
	return a->rx_mode == KTGEN_RX_MODE_USER && !a->detach;
}

static const int sink_stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static void sink_on_signal(int sig)
{
	(void)sig;
}

static void sink_block_signals(sigset_t *oldmask)
{
	struct sigaction sa = { .sa_handler = sink_on_signal };
	sigset_t block;
	size_t i;

	sigemptyset(&block);
	for (i = 0; i < ARRAY_SIZE(sink_stop_signals); i++) {
		sigaddset(&block, sink_stop_signals[i]);
		sigaction(sink_stop_signals[i], &sa, NULL);
	}
	sigprocmask(SIG_BLOCK, &block, oldmask);
}

/* Until a signal: then the sink is deleted (had the process died, the
 * module would have deleted it when its netlink socket closed).
 */
static int sink_hold(struct nl_ctx *ctx, uint32_t id, const sigset_t *oldmask)
{
	sigset_t waitmask = *oldmask;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sink_stop_signals); i++)
		sigdelset(&waitmask, sink_stop_signals[i]);
	fflush(stdout);
	sigsuspend(&waitmask);
	sigprocmask(SIG_SETMASK, oldmask, NULL);
	return sink_del(ctx, false, id);
}

int do_sink(int argc, char **argv)
{
	const char *cmd = argc > 0 ? argv[0] : "show";
	struct sink_added added;
	struct sink_args a;
	char token[24];
	struct nl_ctx ctx;
	sigset_t oldmask;
	bool all = false;
	uint32_t id = 0;
	int err;

	if (argc > 0 && is_help(cmd)) {
		sink_usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(cmd, "add"))
		err = sink_add_parse(&a, argc - 1, argv + 1);
	else if (!strcmp(cmd, "show"))
		err = argc > 1 ? parse_id_arg("sink show", argc - 1, argv + 1, false,
					      &all, &id) : 0;
	else if (!strcmp(cmd, "del"))
		err = parse_id_arg("sink del", argc - 1, argv + 1, true, &all, &id);
	else {
		usage_error("sink: unknown command '%s'", cmd);
		err = -1;
	}
	if (err)
		return EXIT_USAGE;

	if (nl_open(&ctx))
		return EXIT_FAIL;
	if (!strcmp(cmd, "add")) {
		/* blocked before the sink exists: no signal is lost */
		if (sink_owned(&a))
			sink_block_signals(&oldmask);
		err = sink_add(&ctx, &a, &added);
		if (!err) {
			print_open_object(NULL);
			print_u64(PRINT_ANY, "id", "sink %llu", added.id);
			if (added.token) {
				sink_format_token(added.token, token, sizeof(token));
				print_string(PRINT_ANY, "token", " token %s", token);
			}
			print_text("\n");
			print_close_object();
		}
		if (!err && sink_owned(&a))
			err = sink_hold(&ctx, added.id, &oldmask);
	} else if (!strcmp(cmd, "show"))
		err = sink_show(&ctx, argc > 1, id);
	else
		err = sink_del(&ctx, all, id);
	nl_close(&ctx);
	return err ? EXIT_FAIL : EXIT_OK;
}
