/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Generic netlink plumbing for the ktgen family (libmnl).
 */
#ifndef KTGEN_NL_H
#define KTGEN_NL_H

#include <stddef.h>
#include <stdint.h>
#include <libmnl/libmnl.h>

/* Names of one attribute set, indexed by type, for error messages. */
struct attr_set {
	const char		*name;
	const char * const	*attrs;
	unsigned int		max;
};

struct nl_ctx {
	struct mnl_socket	*sock;
	uint16_t		family;
	uint32_t		mcgrp_events;
	uint32_t		seq;
	uint32_t		portid;
	char			*buf;
	/* The request in flight, kept for naming the attribute an error
	 * points at.
	 */
	const struct nlmsghdr	*req;
	const struct attr_set	*req_set;
};

int nl_open(struct nl_ctx *ctx);
void nl_close(struct nl_ctx *ctx);
struct nlmsghdr *nl_msg_start(struct nl_ctx *ctx, uint8_t cmd, uint16_t flags);
int nl_request(struct nl_ctx *ctx, struct nlmsghdr *nlh,
	       const struct attr_set *set, mnl_cb_t cb, void *data);

/* Decode an NLMSG_ERROR message into text: "MESSAGE (attribute NAME)" or
 * the errno text; exported for the unit tests.
 */
int nl_format_error(const struct nlmsghdr *err, const struct nlmsghdr *req,
		    const struct attr_set *set, char *buf, size_t len);
const char *attr_name(const struct attr_set *set, unsigned int type,
		      char *buf, size_t len);

extern const struct attr_set ktg_info_attrs;
extern const struct attr_set ktg_config_attrs;

#endif /* KTGEN_NL_H */
