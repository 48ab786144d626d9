/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Generic netlink plumbing for the ktgen family (libmnl).
 */
#ifndef KTGEN_NL_H
#define KTGEN_NL_H

#include <signal.h>
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
	uint8_t			version;
	/* What a request is about, put before the kernel's error message
	 * ("kn0: feature rx-gro"); NULL for none.
	 */
	const char		*what;
	uint32_t		mcgrp_events;
	uint32_t		seq;
	uint32_t		portid;
	char			*buf;
	/* The request in flight, kept for naming the attribute an error
	 * points at.
	 */
	const struct nlmsghdr	*req;
	const struct attr_set	*req_set;
	/* How the last request ended, for callers that judge errors (the
	 * fault-injection walk): where the error came from and the kernel's
	 * extack message, "" when it gave none.
	 */
	enum { NL_ERR_NONE, NL_ERR_SEND, NL_ERR_RECV, NL_ERR_ACK } err_from;
	char			err_msg[256];
	/* Notifications come on a socket of their own (nl_join_events()),
	 * so replies and notifications never interleave.
	 */
	struct mnl_socket	*ev_sock;
	char			*ev_buf;
};

int nl_open(struct nl_ctx *ctx);
/* Why the module could not be loaded on demand, or NULL (nl.c). */
const char *nl_module_refusal(char *buf, size_t len);
/* A socket for another generic netlink family (ethtool), resolved by name. */
int nl_open_family(struct nl_ctx *ctx, const char *name, uint8_t version);
void nl_close(struct nl_ctx *ctx);
struct nlmsghdr *nl_msg_start(struct nl_ctx *ctx, uint8_t cmd, uint16_t flags);
int nl_request(struct nl_ctx *ctx, struct nlmsghdr *nlh,
	       const struct attr_set *set, mnl_cb_t cb, void *data);

/* The same, printing no error: for what a device may not have. */
int nl_request_quiet(struct nl_ctx *ctx, struct nlmsghdr *nlh, mnl_cb_t cb,
		     void *data);

/* Decode an NLMSG_ERROR message into text: "MESSAGE (attribute NAME)" or
 * the errno text; exported for the unit tests.
 */
int nl_format_error(const struct nlmsghdr *err, const struct nlmsghdr *req,
		    const struct attr_set *set, char *buf, size_t len);
const char *attr_name(const struct attr_set *set, unsigned int type,
		      char *buf, size_t len);

/* Parse a message's (or a nest's) attributes into @tb, indexed by type:
 * attributes of an unknown type (beyond @max or MNL_TYPE_UNSPEC in
 * @types) and attributes that fail mnl_attr_validate() are left out.
 */
void nl_parse(const struct nlmsghdr *nlh, const enum mnl_attr_data_type *types,
	      unsigned int max, const struct nlattr **tb);
void nl_parse_nested(const struct nlattr *nest, const enum mnl_attr_data_type *types,
		     unsigned int max, const struct nlattr **tb);
/* A u64 of a nest by type, 0 when absent or malformed. */
uint64_t nl_nested_u64(const struct nlattr *nest, unsigned int type);
uint8_t nl_genl_cmd(const struct nlmsghdr *nlh);

/* Join the events multicast group, on a second socket. Call before the
 * request whose outcome is awaited, so no notification is missed.
 */
int nl_join_events(struct nl_ctx *ctx);
/* Wait for notifications (ppoll() with @sigmask while waiting) and pass
 * each of the ktgen family to @cb. Returns 0, or -EINTR when a signal
 * came, -ENOBUFS when notifications were lost, another -errno on error.
 */
int nl_recv_events(struct nl_ctx *ctx, const sigset_t *sigmask, mnl_cb_t cb,
		   void *data);

extern const struct attr_set ktg_info_attrs;
extern const struct attr_set ktg_config_attrs;
extern const struct attr_set ktg_rx_stats_attrs;
extern const struct attr_set ktg_tx_stats_attrs;
extern const struct attr_set ktg_sink_attrs;
extern const struct attr_set ktg_run_attrs;
extern const struct attr_set ktg_flow_attrs;

#endif /* KTGEN_NL_H */
