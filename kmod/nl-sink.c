// SPDX-License-Identifier: GPL-2.0
/*
 * Sink messages: a sink's attributes (one fill for do, dump and the
 * creator's reply), sink-new's request checked and the sink created,
 * sink-get (do and dump) and sink-del.
 */
#include <net/genetlink.h>
#include <linux/ktgen.h>

#include "compat.h"
#include "ktgen.h"
#include "netlink.h"
#include "policy.h"
#include "sink.h"

static int ktg_sink_fill(struct sk_buff *msg, struct ktg_sink *sink, bool secret)
{
	if (nla_put_u32(msg, KTGEN_A_SINK_ID, sink->id) ||
	    nla_put_u32(msg, KTGEN_A_SINK_PROTO, sink->p.proto) ||
	    ktg_addr_put(msg, KTGEN_A_SINK_LOCAL_ADDR, &sink->p.addr) ||
	    nla_put_be16(msg, KTGEN_A_SINK_PORT, ktg_addr_port(&sink->p.addr)) ||
	    nla_put_u32(msg, KTGEN_A_SINK_RX_MODE, sink->p.rx_mode) ||
	    ktg_cpus_put(msg, KTGEN_A_SINK_CPUS, sink->p.cpus) ||
	    (sink->p.rcvbuf && nla_put_u32(msg, KTGEN_A_SINK_RCVBUF, sink->p.rcvbuf)) ||
	    (sink->p.busy_poll_us &&
	     nla_put_u32(msg, KTGEN_A_SINK_BUSY_POLL, sink->p.busy_poll_us)) ||
	    (sink->p.gro && nla_put_flag(msg, KTGEN_A_SINK_GRO)) ||
	    (sink->p.rr && nla_put_flag(msg, KTGEN_A_SINK_RR)) ||
	    (sink->p.resp_max && nla_put_u32(msg, KTGEN_A_SINK_RESP_MAX, sink->p.resp_max)) ||
	    (secret && nla_put_u64_64bit(msg, KTGEN_A_SINK_TOKEN, sink->token, 0)) ||
	    nla_put_u32(msg, KTGEN_A_SINK_MAX_CONNS, sink->p.max_conns) ||
	    nla_put_u32(msg, KTGEN_A_SINK_IDLE_MS, sink->p.idle_ms) ||
	    (sink->p.detach && nla_put_flag(msg, KTGEN_A_SINK_DETACH)) ||
	    ((sink->p.families & KTG_FAMILY_IPV4) && nla_put_flag(msg, KTGEN_A_SINK_IPV4)) ||
	    ((sink->p.families & KTG_FAMILY_IPV6) && nla_put_flag(msg, KTGEN_A_SINK_IPV6)) ||
	    ktg_rx_stats_fill(msg, KTGEN_A_SINK_RX, &sink->stats, U64_MAX))
		return -EMSGSIZE;
	return 0;
}

/* @secret: the token goes to the sink's creator and CAP_NET_ADMIN only. */
static int ktg_nl_sink_send(struct sk_buff *msg, struct ktg_sink *sink, u32 portid,
			    u32 seq, int flags, u8 cmd, bool secret)
{
	void *hdr;

	hdr = genlmsg_put(msg, portid, seq, &ktg_nl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (ktg_sink_fill(msg, sink, secret)) {
		genlmsg_cancel(msg, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return 0;
}

/* @msg: allocated by the caller, consumed here. */
static int ktg_nl_sink_reply(struct sk_buff *skb, struct sk_buff *msg,
			     struct genl_info *info, struct ktg_sink *sink, u8 cmd)
{
	if (ktg_nl_sink_send(msg, sink, info->snd_portid, info->snd_seq, 0, cmd,
			     netlink_capable(skb, CAP_NET_ADMIN))) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return genlmsg_reply(msg, info);
}

/* SINK_NEW's scalars, flags and address into @p, each checked against the
 * others; nothing allocated.
 */
static int ktg_nl_sink_params(struct genl_info *info, struct ktg_sink_params *p)
{
	struct nlattr **tb = info->attrs;
	__be16 port;

	if (ktg_req_attr_missing(info, KTGEN_A_SINK_PORT) ||
	    ktg_nl_port(info, KTGEN_A_SINK_PORT, &port))
		return -EINVAL;
	p->proto = ktg_nl_u32(info, KTGEN_A_SINK_PROTO, KTGEN_PROTO_TCP);
	p->rx_mode = ktg_nl_u32(info, KTGEN_A_SINK_RX_MODE, KTGEN_RX_MODE_COPY);
	p->rcvbuf = ktg_nl_u32(info, KTGEN_A_SINK_RCVBUF, 0);
	p->busy_poll_us = ktg_nl_u32(info, KTGEN_A_SINK_BUSY_POLL, 0);
	p->gro = nla_get_flag(tb[KTGEN_A_SINK_GRO]);
	p->rr = nla_get_flag(tb[KTGEN_A_SINK_RR]);
	p->resp_max = ktg_nl_u32(info, KTGEN_A_SINK_RESP_MAX, 0);
	p->max_conns = ktg_nl_u32(info, KTGEN_A_SINK_MAX_CONNS, KTG_DEFAULT_MAX_CONNS);
	p->idle_ms = ktg_nl_u32(info, KTGEN_A_SINK_IDLE_MS, KTG_DEFAULT_IDLE_MS);
	p->detach = nla_get_flag(tb[KTGEN_A_SINK_DETACH]);
	p->portid = info->snd_portid;
	if (p->detach && p->rx_mode != KTGEN_RX_MODE_USER) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KTGEN_A_SINK_DETACH],
				    "detach is for rx user sinks (no other belongs to a socket)");
		return -EINVAL;
	}
	if (p->resp_max && !p->rr) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KTGEN_A_SINK_RESP_MAX],
				    "resp-max is for sinks that answer requests (rr)");
		return -EINVAL;
	}
	if (p->gro && p->proto != KTGEN_PROTO_UDP) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KTGEN_A_SINK_GRO],
				    "gro is for UDP sinks (TCP reads a byte stream)");
		return -EINVAL;
	}
	if (tb[KTGEN_A_SINK_USER_BUF]) {
		p->user_buf = nla_get_u64(tb[KTGEN_A_SINK_USER_BUF]);
		if (ktg_req_attr_missing(info, KTGEN_A_SINK_USER_LEN))
			return -EINVAL;
		p->user_len = nla_get_u64(tb[KTGEN_A_SINK_USER_LEN]);
	}
	/* The wildcard's families: none named, both where IPv6 is there. */
	if (tb[KTGEN_A_SINK_IPV4])
		p->families |= KTG_FAMILY_IPV4;
	if (tb[KTGEN_A_SINK_IPV6])
		p->families |= KTG_FAMILY_IPV6;
	if (p->families && tb[KTGEN_A_SINK_LOCAL_ADDR]) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KTGEN_A_SINK_IPV4] ?: tb[KTGEN_A_SINK_IPV6],
				    "ipv4 and ipv6 are for the wildcard address only (an address gives the family)");
		return -EINVAL;
	}
	return ktg_addr_parse(tb[KTGEN_A_SINK_LOCAL_ADDR],
			      p->families == KTG_FAMILY_IPV4 ? AF_INET : AF_INET6,
			      port, &p->addr, info->extack);
}

/* The last online CPU below KTG_CPUS_MAX: on a host with more CPUs, a
 * sink's default is still one its replies can name.
 */
static unsigned int ktg_sink_default_cpu(void)
{
	unsigned int n = min_t(unsigned int, nr_cpu_ids, KTG_CPUS_MAX);
	unsigned int cpu = find_last_bit(cpumask_bits(cpu_online_mask), n);

	return cpu < n ? cpu : cpumask_first(cpu_online_mask);
}

/* SINK_NEW's CPUs (allocated into @p, freed again on an error) and user
 * memory, which is sized by them.
 */
static int ktg_nl_sink_cpus(struct genl_info *info, struct ktg_sink_params *p)
{
	struct nlattr **tb = info->attrs;
	int err;

	if (!zalloc_cpumask_var(&p->cpus, GFP_KERNEL)) {
		NL_SET_ERR_MSG(info->extack, "no memory for the sink");
		return -ENOMEM;
	}
	/* Default: the last online CPU a CPU list can name, away from
	 * senders that default to the first (on loopback their softirqs run
	 * there).
	 */
	err = ktg_cpus_parse(tb[KTGEN_A_SINK_CPUS], p->cpus,
			     cpumask_of(ktg_sink_default_cpu()), info->extack);
	if (err)
		goto err_free_cpus;
	err = ktg_nl_user_mem(info, KTGEN_A_SINK_USER_BUF,
			      p->rx_mode == KTGEN_RX_MODE_USER, p->user_len);
	if (err)
		goto err_free_cpus;
	if (tb[KTGEN_A_SINK_USER_LEN] && p->rx_mode != KTGEN_RX_MODE_USER) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KTGEN_A_SINK_USER_LEN],
				    "user memory is for user mode only");
		err = -EINVAL;
		goto err_free_cpus;
	}
	if (p->user_len && p->user_len < (u64)ktg_sink_slots(p) * KTG_RX_BUF) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KTGEN_A_SINK_USER_LEN],
				    "too short: 64 KiB per worker (one per CPU for TCP)");
		err = -EINVAL;
		goto err_free_cpus;
	}
	return 0;

err_free_cpus:
	free_cpumask_var(p->cpus);
	return err;
}

int ktg_nl_sink_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ktg_net *kn = ktg_pernet(genl_info_net(info));
	struct ktg_sink_params p = {};
	struct ktg_sink *sink;
	struct sk_buff *msg;
	int err;

	err = ktg_nl_sink_params(info, &p);
	if (err)
		return err;
	err = ktg_nl_sink_cpus(info, &p);
	if (err)
		return err;

	/* The reply is allocated and filled before the sink is listed: a
	 * sink is never created and then reported as a failure. It is
	 * built outside kn->lock, which only its listing takes.
	 */
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg) {
		NL_SET_ERR_MSG(info->extack, "no memory for the reply");
		free_cpumask_var(p.cpus);
		return -ENOMEM;
	}
	err = ktg_sink_create(kn, &p, &sink, info->extack);
	if (err == -EFAULT)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KTGEN_A_SINK_USER_BUF],
				    "cannot write to the user memory");
	if (err) {
		NL_SET_ERR_MSG_WEAK(info->extack, "cannot create the sink");
		nlmsg_free(msg);
		return err;
	}
	if (ktg_nl_sink_send(msg, sink, info->snd_portid, info->snd_seq, 0,
			     KTGEN_CMD_SINK_NEW, netlink_capable(skb, CAP_NET_ADMIN))) {
		nlmsg_free(msg);
		ktg_sink_discard(sink);
		NL_SET_ERR_MSG(info->extack, "reply does not fit");
		return -EMSGSIZE;
	}
	ktg_sink_publish(sink);
	return genlmsg_reply(msg, info);
}

int ktg_nl_sink_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ktg_net *kn = ktg_pernet(genl_info_net(info));
	struct ktg_sink *sink;
	struct sk_buff *msg;
	int err;

	if (ktg_req_attr_missing(info, KTGEN_A_SINK_ID))
		return -EINVAL;
	sink = ktg_sink_get(kn, nla_get_u32(info->attrs[KTGEN_A_SINK_ID]));
	if (!sink) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KTGEN_A_SINK_ID], "no such sink");
		return -ENOENT;
	}
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (msg) {
		err = ktg_nl_sink_reply(skb, msg, info, sink, KTGEN_CMD_SINK_GET);
	} else {
		NL_SET_ERR_MSG(info->extack, "no memory for the reply");
		err = -ENOMEM;
	}
	ktg_sink_put(sink);
	return err;
}

/* cb->args[0]: the id of the next sink (or run) to dump. No lock: each
 * object is looked up under RCU and held while it is filled.
 */
int ktg_nl_sink_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct ktg_net *kn = ktg_pernet(sock_net(skb->sk));
	bool secret = netlink_capable(cb->skb, CAP_NET_ADMIN);
	unsigned long id = cb->args[0];
	struct ktg_sink *sink;
	int err = 0;

	while ((sink = ktg_sink_get_next(kn, &id))) {
		err = ktg_nl_sink_send(skb, sink, NETLINK_CB(cb->skb).portid,
				       cb->nlh->nlmsg_seq, NLM_F_MULTI, KTGEN_CMD_SINK_GET,
				       secret);
		ktg_sink_put(sink);
		if (err)
			break;
		id++;
	}
	cb->args[0] = id;
	return err == -EMSGSIZE && skb->len ? skb->len : err;
}

int ktg_nl_sink_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ktg_net *kn = ktg_pernet(genl_info_net(info));
	int err;

	err = ktg_nl_id_or_all(info, KTGEN_A_SINK_ID, KTGEN_A_SINK_ALL);
	if (err)
		return err;
	if (info->attrs[KTGEN_A_SINK_ALL]) {
		ktg_sinks_destroy_all(kn);
		return 0;
	}
	err = ktg_sink_del(kn, nla_get_u32(info->attrs[KTGEN_A_SINK_ID]));
	if (err == -ENOENT)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KTGEN_A_SINK_ID], "no such sink");
	return err;
}
