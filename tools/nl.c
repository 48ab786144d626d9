// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink plumbing: resolve the family, send a request, collect the
 * replies, explain errors with the kernel's extended ACK.
 */
#include <errno.h>
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
};

static const char * const config_names[KTGEN_A_CONFIG_MAX + 1] = {
	[KTGEN_A_CONFIG_BUFFER_BUDGET]	= "buffer-budget",
	[KTGEN_A_CONFIG_BUFFER_USED]	= "buffer-used",
};

const struct attr_set ktg_info_attrs = { "info", info_names, KTGEN_A_INFO_MAX };
const struct attr_set ktg_config_attrs = { "config", config_names, KTGEN_A_CONFIG_MAX };

const char *attr_name(const struct attr_set *set, unsigned int type,
		      char *buf, size_t len)
{
	if (set && type <= set->max && set->attrs[type])
		return set->attrs[type];
	snprintf(buf, len, "%s%stype %u", set ? set->name : "",
		 set ? " " : "", type);
	return buf;
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
	genl->version = KTGEN_FAMILY_VERSION;
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
struct req_state {
	struct nl_ctx	*ctx;
	mnl_cb_t	cb;
	void		*data;
	bool		quiet_noent;
};

static int data_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct req_state *s = arg;

	return s->cb ? s->cb(nlh, s->data) : MNL_CB_OK;
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
	if (!(s->quiet_noent && e->error == -ENOENT)) {
		nl_format_error(nlh, s->ctx->req, s->ctx->req_set, msg, sizeof(msg));
		fprintf(stderr, "Error: %s\n", msg);
	}
	errno = -e->error;
	return MNL_CB_ERROR;
}

static mnl_cb_t ctl_cb[NLMSG_MIN_TYPE] = {
	[NLMSG_ERROR] = error_cb,
};

static int do_request(struct nl_ctx *ctx, struct nlmsghdr *nlh,
		      const struct attr_set *set, struct req_state *s)
{
	uint32_t seq = nlh->nlmsg_seq;
	char *rbuf;
	ssize_t n;
	int ret;

	if (mnl_socket_sendto(ctx->sock, nlh, nlh->nlmsg_len) < 0) {
		ret = -errno;
		fprintf(stderr, "ktgen: netlink send: %s\n", strerror(errno));
		return ret;
	}
	/* The request stays in ctx->buf for error reports: replies get a
	 * buffer of their own.
	 */
	rbuf = malloc(MNL_SOCKET_BUFFER_SIZE);
	if (!rbuf)
		return -ENOMEM;
	ctx->req = nlh;
	ctx->req_set = set;
	do {
		n = mnl_socket_recvfrom(ctx->sock, rbuf, MNL_SOCKET_BUFFER_SIZE);
		if (n < 0) {
			ret = -errno;
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

int nl_open(struct nl_ctx *ctx)
{
	struct genlmsghdr *genl;
	struct nlmsghdr *nlh;
	int one = 1;
	int err;

	memset(ctx, 0, sizeof(*ctx));
	ctx->buf = malloc(MNL_SOCKET_BUFFER_SIZE);
	if (!ctx->buf)
		return -ENOMEM;
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

	/* Asking the controller for the family loads the module on demand
	 * (MODULE_ALIAS_GENL_FAMILY).
	 */
	nlh = mnl_nlmsg_put_header(ctx->buf);
	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = ++ctx->seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = CTRL_CMD_GETFAMILY;
	genl->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, KTGEN_FAMILY_NAME);
	err = do_request(ctx, nlh, NULL, &(struct req_state){
		.ctx = ctx, .cb = family_cb, .data = ctx, .quiet_noent = true });
	if (err == -ENOENT)
		fprintf(stderr, "ktgen: the ktgen module is not loaded and could not be loaded (modprobe ktgen)\n");
	if (err) {
		nl_close(ctx);
		return err;
	}
	return 0;
}

void nl_close(struct nl_ctx *ctx)
{
	if (ctx->sock)
		mnl_socket_close(ctx->sock);
	free(ctx->buf);
	ctx->sock = NULL;
	ctx->buf = NULL;
}
