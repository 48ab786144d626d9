// SPDX-License-Identifier: GPL-2.0
/*
 * The ktgen generic netlink family: policies, handlers, notifications.
 * include/uapi/linux/ktgen.yaml is the contract; the policies below follow
 * its checks.
 */
#include <linux/utsname.h>
#include <net/genetlink.h>

#include "compat.h"
#include "ktgen.h"

static struct genl_family ktg_nl_family;

static struct netlink_range_validation ktg_budget_range = {
	.min	= KTG_MEM_BUDGET_MIN,
	.max	= KTG_MEM_BUDGET_MAX,
};

static const struct nla_policy ktg_config_policy[KTGEN_A_CONFIG_MAX + 1] = {
	[KTGEN_A_CONFIG_BUFFER_BUDGET]	= NLA_POLICY_FULL_RANGE(NLA_U64, &ktg_budget_range),
};

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
	    nla_put_u8(msg, KTGEN_A_INFO_PMU, ktg_cpu_have_pmu()))
		return -EMSGSIZE;
	return 0;
}

static int ktg_nl_get_info_doit(struct sk_buff *skb, struct genl_info *info)
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

static int ktg_nl_get_config_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;

	hdr = ktg_nl_reply_put(&msg, info, KTGEN_CMD_GET_CONFIG);
	if (!hdr)
		return -ENOMEM;
	if (nla_put_u64_64bit(msg, KTGEN_A_CONFIG_BUFFER_BUDGET, ktg_mem_budget(), 0) ||
	    nla_put_u64_64bit(msg, KTGEN_A_CONFIG_BUFFER_USED, ktg_mem_used(), 0))
		goto err_free_msg;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free_msg:
	nlmsg_free(msg);
	NL_SET_ERR_MSG(info->extack, "reply does not fit");
	return -EMSGSIZE;
}

static int ktg_nl_set_config_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *budget = info->attrs[KTGEN_A_CONFIG_BUFFER_BUDGET];
	int err;

	if (!budget) {
		NL_SET_ERR_MSG(info->extack, "nothing to set");
		return -EINVAL;
	}
	err = ktg_mem_set_budget(nla_get_u64(budget));
	if (err == -EBUSY)
		NL_SET_ERR_MSG_ATTR(info->extack, budget,
				    "budget is below the memory in use");
	return err;
}

static const struct genl_ops ktg_nl_ops[] = {
	{
		.cmd	= KTGEN_CMD_GET_INFO,
		.doit	= ktg_nl_get_info_doit,
		/* no attributes: the core rejects any */
	},
	{
		.cmd	= KTGEN_CMD_GET_CONFIG,
		.doit	= ktg_nl_get_config_doit,
	},
	{
		.cmd	= KTGEN_CMD_SET_CONFIG,
		.doit	= ktg_nl_set_config_doit,
		.policy	= ktg_config_policy,
		.maxattr = KTGEN_A_CONFIG_MAX,
		.flags	= GENL_ADMIN_PERM,
	},
};

static const struct genl_multicast_group ktg_nl_mcgrps[] = {
	{ .name = KTGEN_MCGRP_EVENTS },
};

static struct genl_family ktg_nl_family __ro_after_init = {
	.name		= KTGEN_FAMILY_NAME,
	.version	= KTGEN_FAMILY_VERSION,
	.netnsok	= true,
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	.ops		= ktg_nl_ops,
	.n_ops		= ARRAY_SIZE(ktg_nl_ops),
	.mcgrps		= ktg_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(ktg_nl_mcgrps),
	KTG_GENL_RESV_START_OP(KTGEN_CMD_GET_INFO)
};

int __init ktg_netlink_init(void)
{
	return genl_register_family(&ktg_nl_family);
}

void ktg_netlink_exit(void)
{
	genl_unregister_family(&ktg_nl_family);
}
