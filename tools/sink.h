/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sinks (sink.c): what `sink add` takes, for `peer serve` to add one the
 * same way.
 */
#ifndef KTGEN_SINK_H
#define KTGEN_SINK_H

#include <stdbool.h>
#include <stdint.h>
#include <libmnl/libmnl.h>

#include "ktgen.h"

struct nl_ctx;

struct sink_args {
	int		proto;
	struct ktg_addr	local;
	bool		has_port;
	uint16_t	port;
	int		rx_mode;	/* -1: the kernel's default */
	uint8_t		cpus[KTG_CPUMASK_BYTES];
	size_t		cpus_len;
	bool		has_rcvbuf;
	uint32_t	rcvbuf;
	bool		has_busy_poll;
	uint32_t	busy_poll_us;
	bool		has_max_conns;
	uint32_t	max_conns;
	bool		has_idle_ms;
	uint32_t	idle_ms;
	bool		ipv4;		/* the wildcard's families */
	bool		ipv6;
	bool		gro;
	bool		rr;		/* answers requests */
	bool		has_resp_max;
	uint32_t	resp_max;	/* above the request's size: token only */
	bool		detach;		/* rx user: outlives this process */
};

/* What the kernel said of a sink it added. */
struct sink_added {
	uint32_t	id;
	uint64_t	token;		/* 0: not told (never a sink's) */
};

/* "tcp|udp [local ADDR] port PORT [rx MODE]...": 0, or -1 after a usage
 * message naming the word.
 */
int sink_add_parse(struct sink_args *a, int argc, char **argv);
/* Add it; its id and token into @out. 0, or -1 after the kernel's reason. */
int sink_add(struct nl_ctx *ctx, const struct sink_args *a, struct sink_added *out);
/* A token as the CLI prints it and run's token takes it: 0x and 16 digits. */
void sink_format_token(uint64_t token, char *buf, size_t len);
/* sink-get of one sink to @cb (sink_print_cb takes a JSON key as @data). */
int sink_get(struct nl_ctx *ctx, uint32_t id, mnl_cb_t cb, void *data);
int sink_del(struct nl_ctx *ctx, bool all, uint32_t id);

#endif /* KTGEN_SINK_H */
