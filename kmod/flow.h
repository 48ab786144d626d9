/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A flow's pieces, shared by flow.c (its life, its step, the source ring,
 * staging pages), tcp.c and udp.c (the send paths by tx mode, the drains)
 * and rr.c (transactions).
 */
#ifndef _KTG_FLOW_H
#define _KTG_FLOW_H

#include "run.h"

/* pages of one datagram's payload: unaligned, it spans one more */
#define KTG_DGRAM_PAGES		(DIV_ROUND_UP(KTG_MAX_UDP_SIZE, PAGE_SIZE) + 1)

/* flow.c */
int ktg_flow_socket(struct ktg_flow *f, struct netlink_ext_ack *extack, int *cerr);
int ktg_flow_hello(struct ktg_flow *f);
int ktg_flow_send_one(struct ktg_flow *f);
void ktg_flow_send_delay(void);
void ktg_flow_drain_start(struct ktg_flow *f);
void ktg_flow_sent_all(struct ktg_flow *f);
int ktg_src_kvecs(struct ktg_run *run, u64 off, u32 len, struct kvec *iov);
int ktg_src_iovecs(struct ktg_run *run, u64 off, u32 len, struct iovec *iov);
bool ktg_tx_staged(const struct ktg_run *run);
struct page *ktg_stage_page(struct ktg_flow *f);
void ktg_stage_copy(struct ktg_run *run, struct page *dst, struct page *src,
		    u32 off, u32 len);
void ktg_splice_account(struct ktg_run *run, struct page *pg, int refs);

/* tcp.c */
int ktg_send_copied(struct ktg_flow *f, u32 len);
int ktg_send_pages(struct ktg_flow *f, u32 len);
void ktg_tx_drop(struct ktg_flow *f);
void ktg_tcp_drain_start(struct ktg_flow *f);
int ktg_tcp_drain(struct ktg_flow *f);

/* udp.c */
int ktg_flow_gso(struct ktg_flow *f, struct netlink_ext_ack *extack);
void ktg_gso_reserve(struct ktg_flow *f);
int ktg_send_dgram(struct ktg_flow *f, u32 len, u32 magic, u64 seq);
int ktg_send_dgram_data(struct ktg_flow *f, u32 len);
int ktg_send_dgram_pages(struct ktg_flow *f, u32 len);
int ktg_send_dgram_user(struct ktg_flow *f, u32 len);
int ktg_send_dgram_req(struct ktg_flow *f, u32 len);
int ktg_send_dgram_gso(struct ktg_flow *f);
int ktg_udp_drain(struct ktg_flow *f);

/* rr.c */
int ktg_rr_tcp(struct ktg_flow *f);
int ktg_rr_udp(struct ktg_flow *f);
int ktg_crr_tcp(struct ktg_flow *f);
void ktg_rr_udp_drain_start(struct ktg_flow *f);
void ktg_crr_drain_start(struct ktg_flow *f);

#endif /* _KTG_FLOW_H */
