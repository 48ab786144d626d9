// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink plumbing: resolve the family, send a request, collect the
 * replies, explain errors with the kernel's extended ACK.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/ktgen.h>

#include "ktgen.h"
#include "nl.h"

static const char * const info_names[KTGEN_A_INFO_MAX + 1] = {
	[KTGEN_A_INFO_VERSION]		= "version",
	[KTGEN_A_INFO_ABI_VERSION]	= "abi-version",
	[KTGEN_A_INFO_KERNEL]		= "kernel",
	[KTGEN_A_INFO_NOCACHE_IMPL]	= "nocache-impl",
	[KTGEN_A_INFO_PAGE_SEND]	= "page-send",
	[KTGEN_A_INFO_PMU]		= "pmu",
	[KTGEN_A_INFO_SPLICE_SELFTEST]	= "splice-selftest",
	[KTGEN_A_INFO_SPLICE_SELFTEST_UDP] = "splice-selftest-udp",
	[KTGEN_A_INFO_SPLICE_SELFTEST_UDP6] = "splice-selftest-udp6",
	[KTGEN_A_INFO_COPY_PROBE]	= "copy-probe",
	[KTGEN_A_INFO_TSC_KHZ]		= "tsc-khz",
};

static const char * const config_names[KTGEN_A_CONFIG_MAX + 1] = {
	[KTGEN_A_CONFIG_BUFFER_BUDGET]	= "buffer-budget",
	[KTGEN_A_CONFIG_BUFFER_USED]	= "buffer-used",
	[KTGEN_A_CONFIG_MAX_RUNS]	= "max-runs",
	[KTGEN_A_CONFIG_MAX_SINKS]	= "max-sinks",
};

static const char * const rx_stats_names[KTGEN_A_RX_STATS_MAX + 1] = {
	[KTGEN_A_RX_STATS_BYTES]		= "bytes",
	[KTGEN_A_RX_STATS_MSGS]			= "msgs",
	[KTGEN_A_RX_STATS_CONNS]		= "conns",
	[KTGEN_A_RX_STATS_VERIFY_ERRORS]	= "verify-errors",
	[KTGEN_A_RX_STATS_VERIFY_FIRST_OFFSET]	= "verify-first-offset",
	[KTGEN_A_RX_STATS_LOST]			= "lost",
	[KTGEN_A_RX_STATS_LATE]			= "late",
	[KTGEN_A_RX_STATS_DUP]			= "dup",
	[KTGEN_A_RX_STATS_BAD_HEADERS]		= "bad-headers",
	[KTGEN_A_RX_STATS_RESPONSES]		= "responses",
	[KTGEN_A_RX_STATS_READS]		= "reads",
	[KTGEN_A_RX_STATS_REFUSED]		= "refused",
	[KTGEN_A_RX_STATS_CSUM_ERRORS]		= "csum-errors",
};

static const char * const tx_stats_names[KTGEN_A_TX_STATS_MAX + 1] = {
	[KTGEN_A_TX_STATS_BYTES]	= "bytes",
	[KTGEN_A_TX_STATS_MSGS]		= "msgs",
	[KTGEN_A_TX_STATS_ACKED]	= "acked",
	[KTGEN_A_TX_STATS_SEND_ERRORS]	= "send-errors",
	[KTGEN_A_TX_STATS_RETRANS]	= "retrans",
	[KTGEN_A_TX_STATS_SRTT_US]	= "srtt-us",
	[KTGEN_A_TX_STATS_CWND]		= "cwnd",
	[KTGEN_A_TX_STATS_NOCACHE_COPY_FLOWS] = "nocache-copy-flows",
	[KTGEN_A_TX_STATS_NOCACHE_COPIES] = "nocache-copies",
};

static const char * const sink_names[KTGEN_A_SINK_MAX + 1] = {
	[KTGEN_A_SINK_ID]		= "id",
	[KTGEN_A_SINK_PROTO]		= "proto",
	[KTGEN_A_SINK_LOCAL_ADDR]	= "local-addr",
	[KTGEN_A_SINK_PORT]		= "port",
	[KTGEN_A_SINK_RX_MODE]		= "rx-mode",
	[KTGEN_A_SINK_CPUS]		= "cpus",
	[KTGEN_A_SINK_RCVBUF]		= "rcvbuf",
	[KTGEN_A_SINK_ALL]		= "all",
	[KTGEN_A_SINK_IPV6]		= "ipv6",
	[KTGEN_A_SINK_RX]		= "rx",
	[KTGEN_A_SINK_USER_BUF]		= "user-buf",
	[KTGEN_A_SINK_USER_LEN]		= "user-len",
	[KTGEN_A_SINK_BUSY_POLL]	= "busy-poll",
	[KTGEN_A_SINK_GRO]		= "gro",
	[KTGEN_A_SINK_RR]		= "rr",
	[KTGEN_A_SINK_RESP_MAX]		= "resp-max",
	[KTGEN_A_SINK_TOKEN]		= "token",
	[KTGEN_A_SINK_MAX_CONNS]	= "max-conns",
	[KTGEN_A_SINK_IDLE_MS]		= "idle-ms",
	[KTGEN_A_SINK_DETACH]		= "detach",
	[KTGEN_A_SINK_IPV4]		= "ipv4",
};

static const char * const run_names[KTGEN_A_RUN_MAX + 1] = {
	[KTGEN_A_RUN_ID]		= "id",
	[KTGEN_A_RUN_TEST]		= "test",
	[KTGEN_A_RUN_REMOTE_ADDR]	= "remote-addr",
	[KTGEN_A_RUN_REMOTE_PORT]	= "remote-port",
	[KTGEN_A_RUN_LOCAL_ADDR]	= "local-addr",
	[KTGEN_A_RUN_IFINDEX]		= "ifindex",
	[KTGEN_A_RUN_SIZE]		= "size",
	[KTGEN_A_RUN_FLOWS]		= "flows",
	[KTGEN_A_RUN_CPUS]		= "cpus",
	[KTGEN_A_RUN_TIME_MS]		= "time-ms",
	[KTGEN_A_RUN_BYTES]		= "bytes",
	[KTGEN_A_RUN_MSGS]		= "msgs",
	[KTGEN_A_RUN_TX_MODE]		= "tx-mode",
	[KTGEN_A_RUN_BUFFER]		= "buffer",
	[KTGEN_A_RUN_SNDBUF]		= "sndbuf",
	[KTGEN_A_RUN_NODELAY]		= "nodelay",
	[KTGEN_A_RUN_DETACH]		= "detach",
	[KTGEN_A_RUN_ALL]		= "all",
	[KTGEN_A_RUN_STATE]		= "state",
	[KTGEN_A_RUN_ERROR]		= "error",
	[KTGEN_A_RUN_ERROR_FLOW]	= "error-flow",
	[KTGEN_A_RUN_DURATION_NS]	= "duration-ns",
	[KTGEN_A_RUN_SPLICE]		= "splice",
	[KTGEN_A_RUN_TX]		= "tx",
	[KTGEN_A_RUN_RX]		= "rx",
	[KTGEN_A_RUN_CPU_RUN]		= "cpu-run",
	[KTGEN_A_RUN_CPU_OTHER]		= "cpu-other",
	[KTGEN_A_RUN_INTERVAL_MS]	= "interval-ms",
	[KTGEN_A_RUN_INTERVAL]		= "interval",
	[KTGEN_A_RUN_WARMUP_MS]		= "warmup-ms",
	[KTGEN_A_RUN_WINDOW]		= "window",
	[KTGEN_A_RUN_USER_BUF]		= "user-buf",
	[KTGEN_A_RUN_PROBE_COPIES]	= "probe-copies",
	[KTGEN_A_RUN_REQ_SIZE]		= "req-size",
	[KTGEN_A_RUN_RESP_SIZE]		= "resp-size",
	[KTGEN_A_RUN_RATE]		= "rate",
	[KTGEN_A_RUN_PERCENTILES]	= "percentiles",
	[KTGEN_A_RUN_RR_TIMEOUT_MS]	= "rr-timeout-ms",
	[KTGEN_A_RUN_LATENCY]		= "latency",
	[KTGEN_A_RUN_PACE_BPS]		= "pace-bps",
	[KTGEN_A_RUN_PACE_PPS]		= "pace-pps",
	[KTGEN_A_RUN_BURST]		= "burst",
	[KTGEN_A_RUN_BUSY_POLL]		= "busy-poll",
	[KTGEN_A_RUN_GSO]		= "gso",
	[KTGEN_A_RUN_TOKEN]		= "token",
	[KTGEN_A_RUN_PROBE_RX]		= "probe-rx",
	[KTGEN_A_RUN_RX_PATH]		= "rx-path",
	[KTGEN_A_RUN_EVENTS]		= "events",
};

static const char * const flow_names[KTGEN_A_FLOW_MAX + 1] = {
	[KTGEN_A_FLOW_RUN_ID]		= "run-id",
	[KTGEN_A_FLOW_ID]		= "id",
	[KTGEN_A_FLOW_BYTES]		= "bytes",
	[KTGEN_A_FLOW_MSGS]		= "msgs",
	[KTGEN_A_FLOW_ACKED]		= "acked",
	[KTGEN_A_FLOW_RETRANS]		= "retrans",
	[KTGEN_A_FLOW_SRTT_US]		= "srtt-us",
	[KTGEN_A_FLOW_CWND]		= "cwnd",
	[KTGEN_A_FLOW_TIMEOUTS]		= "timeouts",
};

const struct attr_set ktg_info_attrs = { "info", info_names, KTGEN_A_INFO_MAX };
const struct attr_set ktg_config_attrs = { "config", config_names, KTGEN_A_CONFIG_MAX };
const struct attr_set ktg_rx_stats_attrs = { "rx-stats", rx_stats_names, KTGEN_A_RX_STATS_MAX };
const struct attr_set ktg_tx_stats_attrs = { "tx-stats", tx_stats_names, KTGEN_A_TX_STATS_MAX };
const struct attr_set ktg_sink_attrs = { "sink", sink_names, KTGEN_A_SINK_MAX };
const struct attr_set ktg_run_attrs = { "run", run_names, KTGEN_A_RUN_MAX };
const struct attr_set ktg_flow_attrs = { "flow", flow_names, KTGEN_A_FLOW_MAX };

const char *attr_name(const struct attr_set *set, unsigned int type,
		      char *buf, size_t len)
{
	if (set && type <= set->max && set->attrs[type])
		return set->attrs[type];
	snprintf(buf, len, "%s%stype %u", set ? set->name : "",
		 set ? " " : "", type);
	return buf;
}

struct parse_state {
	const enum mnl_attr_data_type	*types;
	unsigned int			max;
	const struct nlattr		**tb;
};

static int parse_cb(const struct nlattr *attr, void *data)
{
	unsigned int type = mnl_attr_get_type(attr);
	struct parse_state *s = data;

	if (type <= s->max && s->types[type] != MNL_TYPE_UNSPEC &&
	    mnl_attr_validate(attr, s->types[type]) >= 0)
		s->tb[type] = attr;
	return MNL_CB_OK;
}

void nl_parse(const struct nlmsghdr *nlh, const enum mnl_attr_data_type *types,
	      unsigned int max, const struct nlattr **tb)
{
	struct parse_state s = { types, max, tb };

	memset(tb, 0, (max + 1) * sizeof(*tb));
	if (mnl_nlmsg_get_payload_len(nlh) >= GENL_HDRLEN)
		mnl_attr_parse(nlh, GENL_HDRLEN, parse_cb, &s);
}

void nl_parse_nested(const struct nlattr *nest, const enum mnl_attr_data_type *types,
		     unsigned int max, const struct nlattr **tb)
{
	struct parse_state s = { types, max, tb };

	memset(tb, 0, (max + 1) * sizeof(*tb));
	if (nest)
		mnl_attr_parse_nested(nest, parse_cb, &s);
}

uint64_t nl_nested_u64(const struct nlattr *nest, unsigned int type)
{
	const struct nlattr *a;

	if (!nest)
		return 0;
	mnl_attr_for_each_nested(a, nest) {
		if (mnl_attr_get_type(a) == type &&
		    mnl_attr_validate(a, MNL_TYPE_U64) >= 0)
			return mnl_attr_get_u64(a);
	}
	return 0;
}

uint8_t nl_genl_cmd(const struct nlmsghdr *nlh)
{
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);

	return mnl_nlmsg_get_payload_len(nlh) >= GENL_HDRLEN ? genl->cmd : 0;
}

static int family_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);

	if (type <= CTRL_ATTR_MAX)
		tb[type] = attr;
	return MNL_CB_OK;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[CTRL_ATTR_MAX + 1] = {};
	struct nl_ctx *ctx = data;
	const struct nlattr *grp;

	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), family_attr_cb, tb);
	if (!tb[CTRL_ATTR_FAMILY_ID])
		return MNL_CB_ERROR;
	ctx->family = mnl_attr_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	if (!tb[CTRL_ATTR_MCAST_GROUPS])
		return MNL_CB_OK;
	mnl_attr_for_each_nested(grp, tb[CTRL_ATTR_MCAST_GROUPS]) {
		const struct nlattr *gtb[CTRL_ATTR_MCAST_GRP_MAX + 1] = {};
		const struct nlattr *a;

		mnl_attr_for_each_nested(a, grp)
			if (mnl_attr_get_type(a) <= CTRL_ATTR_MCAST_GRP_MAX)
				gtb[mnl_attr_get_type(a)] = a;
		if (gtb[CTRL_ATTR_MCAST_GRP_NAME] && gtb[CTRL_ATTR_MCAST_GRP_ID] &&
		    !strcmp(mnl_attr_get_str(gtb[CTRL_ATTR_MCAST_GRP_NAME]),
			    KTGEN_MCGRP_EVENTS))
			ctx->mcgrp_events = mnl_attr_get_u32(gtb[CTRL_ATTR_MCAST_GRP_ID]);
	}
	return MNL_CB_OK;
}

struct nlmsghdr *nl_msg_start(struct nl_ctx *ctx, uint8_t cmd, uint16_t flags)
{
	struct genlmsghdr *genl;
	struct nlmsghdr *nlh;

	nlh = mnl_nlmsg_put_header(ctx->buf);
	nlh->nlmsg_type = ctx->family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = ++ctx->seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = ctx->version;
	return nlh;
}

struct ack_tlvs {
	const char	*msg;
	int		has_offs;
	uint32_t	offs;
	int		has_miss;
	uint32_t	miss_type;
};

static void parse_ack_tlvs(const struct nlmsghdr *nlh, struct ack_tlvs *t)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;
	unsigned int off;

	memset(t, 0, sizeof(*t));
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	off = sizeof(*e);
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(e->msg);
	if (mnl_nlmsg_get_payload_len(nlh) < off)
		return;
	mnl_attr_for_each(a, nlh, off) {
		switch (mnl_attr_get_type(a)) {
		case NLMSGERR_ATTR_MSG:
			if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
				t->msg = mnl_attr_get_str(a);
			break;
		case NLMSGERR_ATTR_OFFS:
			if (mnl_attr_validate(a, MNL_TYPE_U32) >= 0) {
				t->has_offs = 1;
				t->offs = mnl_attr_get_u32(a);
			}
			break;
		case NLMSGERR_ATTR_MISS_TYPE:
			if (mnl_attr_validate(a, MNL_TYPE_U32) >= 0) {
				t->has_miss = 1;
				t->miss_type = mnl_attr_get_u32(a);
			}
			break;
		}
	}
}

int nl_format_error(const struct nlmsghdr *nlh, const struct nlmsghdr *req,
		    const struct attr_set *set, char *buf, size_t len)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	char name[64];
	struct ack_tlvs t;
	int n;

	parse_ack_tlvs(nlh, &t);
	n = snprintf(buf, len, "%s", t.msg ? t.msg : strerror(-e->error));
	if (t.has_offs && req && t.offs >= sizeof(*req) + GENL_HDRLEN &&
	    t.offs + sizeof(struct nlattr) <= req->nlmsg_len) {
		const struct nlattr *a = (const void *)((const char *)req + t.offs);

		n += snprintf(buf + n, len > (size_t)n ? len - n : 0,
			      " (attribute %s)",
			      attr_name(set, mnl_attr_get_type(a), name, sizeof(name)));
	}
	if (t.has_miss)
		n += snprintf(buf + n, len > (size_t)n ? len - n : 0,
			      " (missing attribute %s)",
			      attr_name(set, t.miss_type, name, sizeof(name)));
	if (t.msg)
		snprintf(buf + n, len > (size_t)n ? len - n : 0, ": %s",
			 strerror(-e->error));
	return e->error;
}

/* One request in flight: the caller's callback and what errors need. */
/* A reply of ethtool's verbose bitsets (every feature, by name, in four
 * sets) is larger than MNL_SOCKET_BUFFER_SIZE.
 */
#define NL_RECV_SIZE	65536

struct req_state {
	struct nl_ctx	*ctx;
	mnl_cb_t	cb;
	void		*data;
	bool		quiet_noent;
	bool		quiet;		/* print no error */
};

static int data_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct req_state *s = arg;

	return s->cb ? s->cb(nlh, s->data) : MNL_CB_OK;
}

static void note_ack_error(struct nl_ctx *ctx, const struct nlmsghdr *nlh)
{
	struct ack_tlvs t;

	parse_ack_tlvs(nlh, &t);
	ctx->err_from = NL_ERR_ACK;
	snprintf(ctx->err_msg, sizeof(ctx->err_msg), "%s", t.msg ? t.msg : "");
}

static int error_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	struct req_state *s = arg;
	char msg[512];

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*e))
		return MNL_CB_ERROR;
	if (!e->error)
		return MNL_CB_STOP;
	note_ack_error(s->ctx, nlh);
	if (!s->quiet && !(s->quiet_noent && e->error == -ENOENT)) {
		nl_format_error(nlh, s->ctx->req, s->ctx->req_set, msg, sizeof(msg));
		if (s->ctx->what)
			fprintf(stderr, "Error: %s: %s\n", s->ctx->what, msg);
		else
			fprintf(stderr, "Error: %s\n", msg);
	}
	errno = -e->error;
	return MNL_CB_ERROR;
}

/* The end of a dump: its payload is the dump's error (0 when it went
 * through), then extack attributes.
 */
static int done_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct req_state *s = arg;
	const char *msg = NULL;
	const struct nlattr *a;
	int err;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(err))
		return MNL_CB_STOP;
	memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
	if (!err)
		return MNL_CB_STOP;
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
		mnl_attr_for_each(a, nlh, sizeof(err)) {
			if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG &&
			    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
				msg = mnl_attr_get_str(a);
		}
	}
	s->ctx->err_from = NL_ERR_ACK;
	snprintf(s->ctx->err_msg, sizeof(s->ctx->err_msg), "%s", msg ? msg : "");
	if (msg)
		fprintf(stderr, "Error: %s: %s\n", msg, strerror(-err));
	else
		fprintf(stderr, "Error: %s\n", strerror(-err));
	errno = -err;
	return MNL_CB_ERROR;
}

static mnl_cb_t ctl_cb[NLMSG_MIN_TYPE] = {
	[NLMSG_ERROR] = error_cb,
	[NLMSG_DONE] = done_cb,
};

static int do_request(struct nl_ctx *ctx, struct nlmsghdr *nlh,
		      const struct attr_set *set, struct req_state *s)
{
	uint32_t seq = nlh->nlmsg_seq;
	char *rbuf;
	ssize_t n;
	int ret;

	ctx->err_from = NL_ERR_NONE;
	ctx->err_msg[0] = '\0';
	if (mnl_socket_sendto(ctx->sock, nlh, nlh->nlmsg_len) < 0) {
		ret = -errno;
		ctx->err_from = NL_ERR_SEND;
		fprintf(stderr, "ktgen: netlink send: %s\n", strerror(errno));
		return ret;
	}
	/* The request stays in ctx->buf for error reports: replies get a
	 * buffer of their own.
	 */
	rbuf = malloc(NL_RECV_SIZE);
	if (!rbuf)
		return -ENOMEM;
	ctx->req = nlh;
	ctx->req_set = set;
	do {
		n = mnl_socket_recvfrom(ctx->sock, rbuf, NL_RECV_SIZE);
		if (n < 0) {
			ret = -errno;
			ctx->err_from = NL_ERR_RECV;
			fprintf(stderr, "ktgen: netlink receive: %s\n", strerror(errno));
			goto out;
		}
		errno = 0;
		ret = mnl_cb_run2(rbuf, n, seq, ctx->portid, data_cb, s,
				  ctl_cb, NLMSG_MIN_TYPE);
	} while (ret == MNL_CB_OK);
	ret = ret == MNL_CB_ERROR ? -(errno ? errno : EPROTO) : 0;
out:
	free(rbuf);
	ctx->req = NULL;
	ctx->req_set = NULL;
	return ret;
}

int nl_request(struct nl_ctx *ctx, struct nlmsghdr *nlh,
	       const struct attr_set *set, mnl_cb_t cb, void *data)
{
	struct req_state s = { .ctx = ctx, .cb = cb, .data = data };

	return do_request(ctx, nlh, set, &s);
}

int nl_request_quiet(struct nl_ctx *ctx, struct nlmsghdr *nlh, mnl_cb_t cb,
		     void *data)
{
	struct req_state s = { .ctx = ctx, .cb = cb, .data = data, .quiet = true };

	return do_request(ctx, nlh, NULL, &s);
}

int nl_open_family(struct nl_ctx *ctx, const char *name, uint8_t version)
{
	struct genlmsghdr *genl;
	struct nlmsghdr *nlh;
	int one = 1;
	int err;

	memset(ctx, 0, sizeof(*ctx));
	ctx->version = version;
	ctx->buf = malloc(MNL_SOCKET_BUFFER_SIZE);
	if (!ctx->buf) {
		fprintf(stderr, "ktgen: netlink buffer: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	ctx->sock = mnl_socket_open(NETLINK_GENERIC);
	if (!ctx->sock || mnl_socket_bind(ctx->sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		err = -errno;
		fprintf(stderr, "ktgen: netlink socket: %s\n", strerror(errno));
		nl_close(ctx);
		return err;
	}
	ctx->portid = mnl_socket_get_portid(ctx->sock);
	ctx->seq = (uint32_t)getpid() << 8;
	mnl_socket_setsockopt(ctx->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(ctx->sock, NETLINK_CAP_ACK, &one, sizeof(one));

	/* Asking the controller for the family loads its module on demand
	 * (MODULE_ALIAS_GENL_FAMILY).
	 */
	nlh = mnl_nlmsg_put_header(ctx->buf);
	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = ++ctx->seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = CTRL_CMD_GETFAMILY;
	genl->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, name);
	err = do_request(ctx, nlh, NULL, &(struct req_state){
		.ctx = ctx, .cb = family_cb, .data = ctx, .quiet_noent = true });
	if (err) {
		nl_close(ctx);
		return err;
	}
	return 0;
}

/* The first line of the host file @path in @buf; false when it cannot be
 * read.
 */
static bool host_line(const char *path, char *buf, size_t len)
{
	FILE *f = host_fopen(path);
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	return ok;
}

/* Secure Boot's EFI variable: 4 bytes of attributes, then its value. */
static bool secure_boot(void)
{
	FILE *f = host_fopen("/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-e3e8c35d4e8c");
	unsigned char v[5];
	bool on;

	if (!f)
		return false;
	on = fread(v, 1, sizeof(v), f) == sizeof(v) && v[4] == 1;
	fclose(f);
	return on;
}

/*
 * Why the kernel could not load ktgen on demand, as far as the host says:
 * module loading off, the module not installed for this kernel, or a
 * kernel that takes only signed modules (the likeliest reason an
 * installed module is refused). NULL when none of these holds.
 */
const char *nl_module_refusal(char *buf, size_t len)
{
	char line[256], kver[128] = "", dep[256];

	if (host_line("/proc/sys/kernel/modules_disabled", line, sizeof(line)) && line[0] == '1')
		return "module loading is off (kernel.modules_disabled) until the next boot";
	if (host_line("/proc/sys/kernel/osrelease", line, sizeof(line)))
		sscanf(line, "%127s", kver);
	snprintf(dep, sizeof(dep), "/lib/modules/%s/modules.dep", kver);
	if (kver[0] && host_line(dep, line, sizeof(line))) {
		FILE *f = host_fopen(dep);
		bool found = false;
		char l[1024];

		while (f && !found && fgets(l, sizeof(l), f))
			found = strstr(l, "/ktgen.ko") != NULL;
		if (f)
			fclose(f);
		if (!found) {
			snprintf(buf, len, "it is not installed for %s (make install-module, "
				 "or insmod kmod/ktgen.ko)", kver);
			return buf;
		}
	}
	if (secure_boot())
		snprintf(buf, len, "Secure Boot is on");
	else if (host_line("/sys/kernel/security/lockdown", line, sizeof(line)) &&
		 !strstr(line, "[none]"))
		snprintf(buf, len, "the kernel is locked down");
	else if (host_line("/sys/module/module/parameters/sig_enforce", line, sizeof(line)) &&
		 line[0] == 'Y')
		snprintf(buf, len, "module.sig_enforce is set");
	else
		return NULL;
	snprintf(buf + strlen(buf), len - strlen(buf),
		 ", so this kernel loads only modules signed with a key it trusts: sign "
		 "ktgen.ko (make install-module SIGN_KEY=... SIGN_CERT=..., or DKMS with "
		 "its MOK key enrolled: docs/install.md)");
	return buf;
}

int nl_open(struct nl_ctx *ctx)
{
	int err = nl_open_family(ctx, KTGEN_FAMILY_NAME, KTGEN_FAMILY_VERSION);
	char why[512];
	const char *reason;

	if (err != -ENOENT)
		return err;
	reason = nl_module_refusal(why, sizeof(why));
	if (reason)
		fprintf(stderr, "ktgen: the ktgen module is not loaded and could not be loaded: %s\n",
			reason);
	else
		fprintf(stderr, "ktgen: the ktgen module is not loaded and could not be loaded (modprobe ktgen)\n");
	return err;
}

void nl_close(struct nl_ctx *ctx)
{
	if (ctx->sock)
		mnl_socket_close(ctx->sock);
	if (ctx->ev_sock)
		mnl_socket_close(ctx->ev_sock);
	free(ctx->buf);
	free(ctx->ev_buf);
	ctx->sock = NULL;
	ctx->ev_sock = NULL;
	ctx->buf = NULL;
	ctx->ev_buf = NULL;
}

int nl_join_events(struct nl_ctx *ctx)
{
	unsigned int grp = ctx->mcgrp_events;
	int err;

	if (!grp) {
		fprintf(stderr, "ktgen: the module has no '%s' multicast group\n",
			KTGEN_MCGRP_EVENTS);
		return -ENOENT;
	}
	ctx->ev_buf = malloc(MNL_SOCKET_BUFFER_SIZE);
	ctx->ev_sock = mnl_socket_open(NETLINK_GENERIC);
	if (!ctx->ev_buf || !ctx->ev_sock ||
	    mnl_socket_bind(ctx->ev_sock, 0, MNL_SOCKET_AUTOPID) < 0 ||
	    mnl_socket_setsockopt(ctx->ev_sock, NETLINK_ADD_MEMBERSHIP, &grp,
				  sizeof(grp)) < 0) {
		err = ctx->ev_buf ? -errno : -ENOMEM;
		fprintf(stderr, "ktgen: joining the %s group: %s\n",
			KTGEN_MCGRP_EVENTS, strerror(-err));
		return err;
	}
	return 0;
}

struct ev_state {
	struct nl_ctx	*ctx;
	mnl_cb_t	cb;
	void		*data;
};

static int ev_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct ev_state *s = arg;

	if (nlh->nlmsg_type != s->ctx->family ||
	    mnl_nlmsg_get_payload_len(nlh) < GENL_HDRLEN)
		return MNL_CB_OK;
	return s->cb(nlh, s->data);
}

int nl_recv_events(struct nl_ctx *ctx, const sigset_t *sigmask, mnl_cb_t cb,
		   void *data)
{
	struct pollfd pfd = { .fd = mnl_socket_get_fd(ctx->ev_sock), .events = POLLIN };
	struct ev_state s = { ctx, cb, data };
	ssize_t n;
	int ret;

	if (ppoll(&pfd, 1, NULL, sigmask) < 0)
		return -errno;
	n = mnl_socket_recvfrom(ctx->ev_sock, ctx->ev_buf, MNL_SOCKET_BUFFER_SIZE);
	if (n < 0)
		return -errno;
	errno = 0;
	ret = mnl_cb_run2(ctx->ev_buf, n, 0, 0, ev_cb, &s, NULL, 0);
	return ret == MNL_CB_ERROR ? -(errno ? errno : EPROTO) : 0;
}
