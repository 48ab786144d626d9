/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences, decided by feature probes (kmod/probes/, run by
 * scripts/compat-probe.sh into compat-gen.h) or by the presence of a macro.
 * This is the only place that knows about them: .c files never test kernel
 * versions.
 */
#ifndef _KTG_COMPAT_H
#define _KTG_COMPAT_H

#include <net/genetlink.h>
#include "compat-gen.h"

/* Ops numbered from @op on are validated strictly, unknown attributes and
 * reserved header bits refused (6.1+); older kernels are strict per op.
 */
#ifdef KTG_HAVE_GENL_RESV_START_OP
#define KTG_GENL_RESV_START_OP(op)	.resv_start_op = (op),
#else
#define KTG_GENL_RESV_START_OP(op)
#endif

/* True, with the attribute reported missing, when @attr is absent; the
 * missing-attribute extack (GENL_REQ_ATTR_CHECK) arrived in 6.0.
 */
static inline bool ktg_req_attr_missing(struct genl_info *info, int attr)
{
#ifdef GENL_REQ_ATTR_CHECK
	return GENL_REQ_ATTR_CHECK(info, attr);
#else
	if (info->attrs[attr])
		return false;
	NL_SET_ERR_MSG(info->extack, "missing attribute");
	return true;
#endif
}

#endif /* _KTG_COMPAT_H */
