// SPDX-License-Identifier: GPL-2.0
/*
 * The module's messages: get-info (its version and what this kernel lets
 * it do), get-config and set-config (the buffer budget and the limits on
 * runs and sinks).
 */
#include <linux/utsname.h>
#include <net/genetlink.h>
#include <linux/ktgen.h>

#include "compat.h"
#include "copy.h"
#include "cpu.h"
#include "ktgen.h"
#include "mem.h"
#include "netlink.h"

static void *ktg_nl_reply_put(struct sk_buff **msg, struct genl_info *info, u8 cmd)
{
	void *hdr;

	*msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!*msg) {
		NL_SET_ERR_MSG(info->extack, "no memory for the reply");
		return NULL;
	}
	hdr = genlmsg_put_reply(*msg, info, &ktg_nl_family, 0, cmd);
	if (!hdr) {
		nlmsg_free(*msg);
		NL_SET_ERR_MSG(info->extack, "reply does not fit");
	}
	return hdr;
}

static int ktg_nl_info_fill(struct sk_buff *msg)
{
	if (nla_put_string(msg, KTGEN_A_INFO_VERSION, KTGEN_VERSION) ||
	    nla_put_u32(msg, KTGEN_A_INFO_ABI_VERSION, KTGEN_ABI_VERSION) ||
	    nla_put_string(msg, KTGEN_A_INFO_KERNEL, init_utsname()->release) ||
	    nla_put_u32(msg, KTGEN_A_INFO_NOCACHE_IMPL, ktg_copy_nocache_impl()) ||
	    nla_put_u32(msg, KTGEN_A_INFO_PAGE_SEND, ktg_page_send_method()) ||
	    nla_put_u8(msg, KTGEN_A_INFO_PMU, ktg_cpu_have_pmu()) ||
	    nla_put_u32(msg, KTGEN_A_INFO_SPLICE_SELFTEST,
			ktg_splice_selftest_result(KTG_SPLICE_TCP)) ||
	    nla_put_u32(msg, KTGEN_A_INFO_SPLICE_SELFTEST_UDP,
			ktg_splice_selftest_result(KTG_SPLICE_UDP)) ||
	    nla_put_u32(msg, KTGEN_A_INFO_SPLICE_SELFTEST_UDP6,
			ktg_splice_selftest_result(KTG_SPLICE_UDP6)) ||
	    nla_put_u8(msg, KTGEN_A_INFO_COPY_PROBE, IS_ENABLED(CONFIG_KPROBES)) ||
	    nla_put_u32(msg, KTGEN_A_INFO_TSC_KHZ, ktg_tsc_khz()))
		return -EMSGSIZE;
	return 0;
}

int ktg_nl_get_info_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;

	hdr = ktg_nl_reply_put(&msg, info, KTGEN_CMD_GET_INFO);
	if (!hdr)
		return -ENOMEM;
	if (ktg_nl_info_fill(msg))
		goto err_free_msg;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free_msg:
	nlmsg_free(msg);
	NL_SET_ERR_MSG(info->extack, "reply does not fit");
	return -EMSGSIZE;
}

int ktg_nl_get_config_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;

	hdr = ktg_nl_reply_put(&msg, info, KTGEN_CMD_GET_CONFIG);
	if (!hdr)
		return -ENOMEM;
	if (nla_put_u64_64bit(msg, KTGEN_A_CONFIG_BUFFER_BUDGET, ktg_mem_budget(), 0) ||
	    nla_put_u64_64bit(msg, KTGEN_A_CONFIG_BUFFER_USED, ktg_mem_used(), 0) ||
	    nla_put_u32(msg, KTGEN_A_CONFIG_MAX_RUNS, ktg_max_runs()) ||
	    nla_put_u32(msg, KTGEN_A_CONFIG_MAX_SINKS, ktg_max_sinks()))
		goto err_free_msg;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free_msg:
	nlmsg_free(msg);
	NL_SET_ERR_MSG(info->extack, "reply does not fit");
	return -EMSGSIZE;
}

int ktg_nl_set_config_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *budget = info->attrs[KTGEN_A_CONFIG_BUFFER_BUDGET];
	struct nlattr *runs = info->attrs[KTGEN_A_CONFIG_MAX_RUNS];
	struct nlattr *sinks = info->attrs[KTGEN_A_CONFIG_MAX_SINKS];
	int err;

	if (!budget && !runs && !sinks) {
		NL_SET_ERR_MSG(info->extack, "nothing to set");
		return -EINVAL;
	}
	if (budget) {
		err = ktg_mem_set_budget(nla_get_u64(budget));
		if (err == -EBUSY)
			NL_SET_ERR_MSG_ATTR(info->extack, budget,
					    "budget is below the memory in use");
		if (err)
			return err;
	}
	if (runs)
		ktg_set_max_runs(nla_get_u32(runs));
	if (sinks)
		ktg_set_max_sinks(nla_get_u32(sinks));
	return 0;
}
