// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the CLI's building blocks, run on the host under ASan and
 * UBSan: the text/JSON print path, size and number parsing, and the
 * decoding of kernel errors (extack message, offending and missing
 * attribute) from hand-built NLMSG_ERROR messages, CPU lists and rates,
 * and the printing of hand-built sink and run messages. Output is KTAP.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/stat.h>
#include <linux/gen_stats.h>
#include <linux/genetlink.h>
#include <linux/ktgen.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>

#include "counters.h"
#include "cpu-scale.h"
#include "env.h"
#include "hist.h"
#include "pattern.h"
#include "proto.h"
#include "job.h"
#include "json.h"
#include "ktgen.h"
#include "nl.h"
#include "pmu.h"
#include "print.h"
#include "show.h"

struct opts opts;

static int failures, checks;

#define CHECK(cond) do {						\
	checks++;							\
	if (!(cond)) {							\
		failures++;						\
		printf("# %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
	}								\
} while (0)

#define CHECK_STR(got, want) do {					\
	const char *got_ = (got), *want_ = (want);			\
									\
	checks++;							\
	if (strcmp(got_, want_)) {					\
		failures++;						\
		printf("# %s:%d: got '%s', want '%s'\n", __FILE__,	\
		       __LINE__, got_, want_);				\
	}								\
} while (0)

/* Capture what the print path writes. */
static char *capture_buf;
static size_t capture_len;
static FILE *capture_file;

static void capture_start(bool json, bool pretty)
{
	capture_file = open_memstream(&capture_buf, &capture_len);
	print_init(capture_file, json, pretty);
}

static const char *capture_end(void)
{
	static char out[4096];

	print_finish();
	fclose(capture_file);
	snprintf(out, sizeof(out), "%s", capture_buf);
	free(capture_buf);
	capture_buf = NULL;
	return out;
}

static void print_sample(void)
{
	print_open_object(NULL);
	print_string(PRINT_ANY, "name", "name %s", "a \"b\"\n");
	print_u64(PRINT_ANY, "bytes", " bytes %llu", 18446744073709551615ULL);
	print_bool(PRINT_ANY, "ok", " ok %s\n", true);
	print_open_array("list");
	print_u64(PRINT_JSON, NULL, NULL, 1);
	print_u64(PRINT_JSON, NULL, NULL, 2);
	print_close_array();
	print_open_object("empty");
	print_close_object();
	print_string(PRINT_TEXT, NULL, "text only %s\n", "x");
	print_string(PRINT_JSON, "json_only", NULL, NULL);
	print_close_object();
}

static void test_print(void)
{
	capture_start(false, false);
	print_sample();
	CHECK_STR(capture_end(), "name a \"b\"\n bytes 18446744073709551615 ok yes\ntext only x\n");

	capture_start(true, false);
	print_sample();
	CHECK_STR(capture_end(),
		  "{\"name\":\"a \\\"b\\\"\\n\",\"bytes\":18446744073709551615,\"ok\":true,"
		  "\"list\":[1,2],\"empty\":{},\"json_only\":null}\n");

	capture_start(true, true);
	print_sample();
	CHECK_STR(capture_end(),
		  "{\n  \"name\": \"a \\\"b\\\"\\n\",\n  \"bytes\": 18446744073709551615,\n"
		  "  \"ok\": true,\n  \"list\": [\n    1,\n    2\n  ],\n  \"empty\": {},\n"
		  "  \"json_only\": null\n}\n");
}

static void test_parse(void)
{
	char buf[32];
	uint64_t v;

	CHECK(!parse_size("0", &v) && v == 0);
	CHECK(!parse_size("64K", &v) && v == 65536);
	CHECK(!parse_size("256m", &v) && v == 256ULL << 20);
	CHECK(!parse_size("1GiB", &v) && v == 1ULL << 30);
	CHECK(!parse_size("16777215T", &v) && v == 16777215ULL << 40);
	CHECK(parse_size("16777216T", &v) == -ERANGE);
	CHECK(parse_size("18446744073709551616", &v) == -EINVAL);
	CHECK(parse_size("-1", &v) == -EINVAL);
	CHECK(parse_size("", &v) == -EINVAL);
	CHECK(parse_size("1X", &v) == -EINVAL);
	CHECK(parse_size("K", &v) == -EINVAL);
	CHECK(!parse_u64("0x10", &v) && v == 16);
	CHECK(parse_u64("12abc", &v) == -EINVAL);
	CHECK(parse_u64(" 1", &v) == -EINVAL || v == 1);
	CHECK_STR(format_size(1ULL << 30, buf, sizeof(buf)), "1G");
	CHECK_STR(format_size(1536ULL << 20, buf, sizeof(buf)), "1536M");
	CHECK_STR(format_size(1000, buf, sizeof(buf)), "1000");
	CHECK_STR(format_size(0, buf, sizeof(buf)), "0");
}

/* An NLMSG_ERROR for @req as the kernel builds it with NETLINK_CAP_ACK. */
static struct nlmsghdr *make_error(char *buf, const struct nlmsghdr *req,
				   int error, const char *msg, int offs,
				   int miss)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nlmsgerr *e;

	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_flags = NLM_F_CAPPED;
	e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));
	e->error = error;
	e->msg = *req;
	if (msg || offs >= 0 || miss >= 0)
		nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
	if (msg)
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, msg);
	if (offs >= 0)
		mnl_attr_put_u32(nlh, NLMSGERR_ATTR_OFFS, offs);
	if (miss >= 0)
		mnl_attr_put_u32(nlh, NLMSGERR_ATTR_MISS_TYPE, miss);
	return nlh;
}

static void test_errors(void)
{
	char reqbuf[256], errbuf[512], out[256];
	struct genlmsghdr *genl;
	struct nlmsghdr *req;
	int offs;

	req = mnl_nlmsg_put_header(reqbuf);
	genl = mnl_nlmsg_put_extra_header(req, sizeof(*genl));
	genl->cmd = KTGEN_CMD_SET_CONFIG;
	offs = req->nlmsg_len;
	mnl_attr_put_u64(req, KTGEN_A_CONFIG_BUFFER_BUDGET, 1);

	/* Message and offending attribute, named from the request. */
	nl_format_error(make_error(errbuf, req, -ERANGE, "integer out of range", offs, -1),
			req, &ktg_config_attrs, out, sizeof(out));
	CHECK_STR(out, "integer out of range (attribute buffer-budget): Numerical result out of range");

	/* An attribute the set does not know is named by number. */
	offs = req->nlmsg_len;
	mnl_attr_put_u32(req, 99, 1);
	nl_format_error(make_error(errbuf, req, -EINVAL, "Unknown attribute type", offs, -1),
			req, &ktg_config_attrs, out, sizeof(out));
	CHECK_STR(out, "Unknown attribute type (attribute config type 99): Invalid argument");

	/* Missing attribute (6.0+). */
	nl_format_error(make_error(errbuf, req, -EINVAL, "missing", -1, KTGEN_A_CONFIG_BUFFER_BUDGET),
			req, &ktg_config_attrs, out, sizeof(out));
	CHECK_STR(out, "missing (missing attribute buffer-budget): Invalid argument");

	/* No extack at all: the errno text alone. */
	nl_format_error(make_error(errbuf, req, -EPERM, NULL, -1, -1),
			req, &ktg_config_attrs, out, sizeof(out));
	CHECK_STR(out, "Operation not permitted");

	/* An offset outside the request is ignored, not dereferenced. */
	nl_format_error(make_error(errbuf, req, -EINVAL, "bad", 100000, -1),
			req, &ktg_config_attrs, out, sizeof(out));
	CHECK_STR(out, "bad: Invalid argument");
	nl_format_error(make_error(errbuf, req, -EINVAL, "bad", 2, -1),
			req, &ktg_config_attrs, out, sizeof(out));
	CHECK_STR(out, "bad: Invalid argument");

	/* A truncated output buffer stays terminated. */
	nl_format_error(make_error(errbuf, req, -ERANGE, "integer out of range", 20, -1),
			req, &ktg_config_attrs, out, 10);
	CHECK(strlen(out) == 9);
}

static void test_cpulist(void)
{
	uint8_t mask[KTG_CPUMASK_BYTES];
	char buf[KTG_CPULIST_LEN];
	size_t len;

	CHECK(!parse_cpulist("0-3,5", mask, sizeof(mask), &len));
	CHECK(len == 1 && mask[0] == 0x2f);
	CHECK_STR(format_cpulist(mask, len, buf, sizeof(buf)), "0-3,5");
	CHECK(!parse_cpulist("8", mask, sizeof(mask), &len));
	CHECK(len == 2 && mask[0] == 0 && mask[1] == 1);
	CHECK(!parse_cpulist("1023", mask, sizeof(mask), &len));
	CHECK(len == 128 && mask[127] == 0x80);
	CHECK_STR(format_cpulist(mask, len, buf, sizeof(buf)), "1023");
	CHECK(!parse_cpulist("0-1023", mask, sizeof(mask), &len));
	CHECK(len == 128 && mask[0] == 0xff && mask[127] == 0xff);
	CHECK_STR(format_cpulist(mask, len, buf, sizeof(buf)), "0-1023");
	CHECK(!parse_cpulist("7,3,4-9,3", mask, sizeof(mask), &len));
	CHECK(len == 2 && mask[0] == 0xf8 && mask[1] == 0x03);
	CHECK_STR(format_cpulist(mask, len, buf, sizeof(buf)), "3-9");
	CHECK(!parse_cpulist("0,2,4", mask, sizeof(mask), &len));
	CHECK_STR(format_cpulist(mask, len, buf, sizeof(buf)), "0,2,4");
	CHECK_STR(format_cpulist(mask, len, buf, 6), "0...");
	CHECK(parse_cpulist("1024", mask, sizeof(mask), &len) == -ERANGE);
	CHECK(parse_cpulist("0-4096", mask, sizeof(mask), &len) == -ERANGE);
	CHECK(parse_cpulist("99999999999999999999999", mask, sizeof(mask), &len) == -ERANGE);
	CHECK(parse_cpulist("", mask, sizeof(mask), &len) == -EINVAL);
	CHECK(parse_cpulist("3-1", mask, sizeof(mask), &len) == -EINVAL);
	CHECK(parse_cpulist("1,", mask, sizeof(mask), &len) == -EINVAL);
	CHECK(parse_cpulist(",1", mask, sizeof(mask), &len) == -EINVAL);
	CHECK(parse_cpulist("1-", mask, sizeof(mask), &len) == -EINVAL);
	CHECK(parse_cpulist("-1", mask, sizeof(mask), &len) == -EINVAL);
	CHECK(parse_cpulist("1 2", mask, sizeof(mask), &len) == -EINVAL);
	CHECK(parse_cpulist("a", mask, sizeof(mask), &len) == -EINVAL);
	CHECK_STR(format_cpulist(mask, 0, buf, sizeof(buf)), "");
}

static void test_numbers(void)
{
	struct ktg_addr a;
	uint32_t ms, us, v32;
	uint16_t port;
	char buf[64];

	/* bit/s from bytes and nanoseconds */
	CHECK(rate_bps(0, 0) == 0);
	CHECK(rate_bps(1000, 0) == 0);
	CHECK(rate_bps(125, 1000000000) == 1000);
	CHECK(rate_bps(15425000000ULL, 10000000000ULL) == 12340000000ULL);
	CHECK(rate_bps(1, 3) == 2666666666ULL);
	/* no overflow on large counts: 2^60 bytes in 1000 s */
	CHECK(rate_bps(1ULL << 60, 1000000000000ULL) == (1ULL << 63) / 1000);
	CHECK(rate_bps(UINT64_MAX, 1) == UINT64_MAX);

	CHECK(!parse_secs_ms("10", &ms) && ms == 10000);
	CHECK(!parse_secs_ms("0.5", &ms) && ms == 500);
	CHECK(!parse_secs_ms(".25", &ms) && ms == 250);
	CHECK(!parse_secs_ms("1.", &ms) && ms == 1000);
	CHECK(!parse_secs_ms("0", &ms) && ms == 0);
	CHECK(!parse_secs_ms("0.0001", &ms) && ms == 1);
	CHECK(!parse_secs_ms("1.2340", &ms) && ms == 1234);
	CHECK(!parse_secs_ms("4294967.295", &ms) && ms == UINT32_MAX);
	CHECK(parse_secs_ms("4294967.296", &ms) == -ERANGE);
	CHECK(parse_secs_ms("99999999999", &ms) == -ERANGE);
	CHECK(parse_secs_ms("", &ms) == -EINVAL);
	CHECK(parse_secs_ms(".", &ms) == -EINVAL);
	CHECK(parse_secs_ms("-1", &ms) == -EINVAL);
	CHECK(parse_secs_ms("1s", &ms) == -EINVAL);
	CHECK(parse_secs_ms("1e3", &ms) == -EINVAL);

	CHECK(!parse_usecs("50", &us) && us == 50);
	CHECK(!parse_usecs("200us", &us) && us == 200);
	CHECK(!parse_usecs("10ms", &us) && us == 10000);
	CHECK(!parse_usecs("2s", &us) && us == 2000000);
	CHECK(!parse_usecs("4294967295", &us) && us == UINT32_MAX);
	CHECK(parse_usecs("4294967296", &us) == -ERANGE);
	CHECK(parse_usecs("4295s", &us) == -ERANGE);
	CHECK(parse_usecs("", &us) == -EINVAL);
	CHECK(parse_usecs("ms", &us) == -EINVAL);
	CHECK(parse_usecs("1.5ms", &us) == -EINVAL);
	CHECK(parse_usecs("10m", &us) == -EINVAL);
	CHECK(parse_usecs("-1", &us) == -EINVAL);

	CHECK(!parse_port("5001", &port) && port == 5001);
	CHECK(!parse_port("0", &port) && port == 0);
	CHECK(parse_port("65536", &port) == -EINVAL);
	CHECK(!parse_u32("4294967295", &v32) && v32 == UINT32_MAX);
	CHECK(parse_u32("4294967296", &v32) == -ERANGE);
	CHECK(!parse_size_u32("64K", &v32) && v32 == 65536);
	CHECK(parse_size_u32("4G", &v32) == -ERANGE);

	CHECK(!parse_addr("10.0.0.2", &a) && a.len == 4 && a.bytes[0] == 10 && a.bytes[3] == 2);
	CHECK(!parse_addr("fe80::1", &a) && a.len == 16 && a.bytes[0] == 0xfe && a.bytes[15] == 1);
	CHECK(parse_addr("10.0.0", &a) == -EINVAL);
	CHECK(parse_addr("host", &a) == -EINVAL);
	CHECK_STR(format_endpoint("\x0a\x00\x00\x02", 4, 5001, buf, sizeof(buf)), "10.0.0.2:5001");
	parse_addr("::1", &a);
	CHECK_STR(format_endpoint(a.bytes, 16, 80, buf, sizeof(buf)), "[::1]:80");
	CHECK_STR(format_endpoint(NULL, 0, 80, buf, sizeof(buf)), "*:80");
	CHECK_STR(format_addr("abc", 3, buf, sizeof(buf)), "?");
}

/* A ktgen message as the kernel sends it. */
static struct nlmsghdr *genl_msg(char *buf, uint8_t cmd)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *genl;

	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	return nlh;
}

static void put_rx_stats(struct nlmsghdr *nlh, unsigned int type, uint64_t bytes)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, type);

	mnl_attr_put_u64(nlh, KTGEN_A_RX_STATS_BYTES, bytes);
	mnl_attr_put_u64(nlh, KTGEN_A_RX_STATS_MSGS, 235000);
	mnl_attr_put_u64(nlh, KTGEN_A_RX_STATS_CONNS, 4);
	mnl_attr_put_u64(nlh, KTGEN_A_RX_STATS_VERIFY_ERRORS, 0);
	mnl_attr_put_u64(nlh, KTGEN_A_RX_STATS_VERIFY_FIRST_OFFSET, 0);
	mnl_attr_put_u64(nlh, KTGEN_A_RX_STATS_LOST, 0);
	mnl_attr_put_u64(nlh, KTGEN_A_RX_STATS_LATE, 0);
	mnl_attr_put_u64(nlh, KTGEN_A_RX_STATS_DUP, 2);
	mnl_attr_put_u64(nlh, KTGEN_A_RX_STATS_BAD_HEADERS, 0);
	mnl_attr_put_u32(nlh, 99, 1);		/* unknown: ignored */
	mnl_attr_nest_end(nlh, nest);
}

static struct nlmsghdr *sample_sink(char *buf)
{
	static const uint8_t cpus[] = { 0x0f };
	struct nlmsghdr *nlh = genl_msg(buf, KTGEN_CMD_SINK_GET);

	mnl_attr_put_u32(nlh, KTGEN_A_SINK_ID, 3);
	mnl_attr_put_u32(nlh, KTGEN_A_SINK_PROTO, KTGEN_PROTO_TCP);
	mnl_attr_put_u16(nlh, KTGEN_A_SINK_PORT, htons(5001));
	mnl_attr_put_u32(nlh, KTGEN_A_SINK_RX_MODE, KTGEN_RX_MODE_VERIFY);
	mnl_attr_put(nlh, KTGEN_A_SINK_CPUS, sizeof(cpus), cpus);
	mnl_attr_put_u32(nlh, KTGEN_A_SINK_RCVBUF, 4 << 20);
	mnl_attr_put_u64(nlh, KTGEN_A_SINK_PROTO + 100, 1);	/* unknown */
	put_rx_stats(nlh, KTGEN_A_SINK_RX, 1000);
	return nlh;
}

static struct nlmsghdr *sample_run(char *buf, uint32_t state)
{
	static const uint8_t to[] = { 10, 0, 0, 2 };
	struct nlmsghdr *nlh = genl_msg(buf, KTGEN_CMD_RUN_DONE);
	struct nlattr *nest;

	mnl_attr_put_u32(nlh, KTGEN_A_RUN_ID, 1);
	mnl_attr_put_u32(nlh, KTGEN_A_RUN_TEST, KTGEN_TEST_TCP_STREAM);
	mnl_attr_put(nlh, KTGEN_A_RUN_REMOTE_ADDR, sizeof(to), to);
	mnl_attr_put_u16(nlh, KTGEN_A_RUN_REMOTE_PORT, htons(5001));
	mnl_attr_put_u32(nlh, KTGEN_A_RUN_SIZE, 65536);
	mnl_attr_put_u32(nlh, KTGEN_A_RUN_FLOWS, 4);
	mnl_attr_put_u32(nlh, KTGEN_A_RUN_TX_MODE, KTGEN_TX_MODE_STACK);
	mnl_attr_put(nlh, KTGEN_A_RUN_NODELAY, 0, NULL);
	mnl_attr_put_u32(nlh, KTGEN_A_RUN_STATE, state);
	if (state == KTGEN_RUN_STATE_FAILED) {
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_ERROR, ECONNREFUSED);
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_ERROR_FLOW, 2);
	}
	mnl_attr_put_u64(nlh, KTGEN_A_RUN_DURATION_NS, 10000000000ULL);
	mnl_attr_put_u32(nlh, KTGEN_A_RUN_SPLICE, KTGEN_SPLICE_NONE);
	nest = mnl_attr_nest_start(nlh, KTGEN_A_RUN_TX);
	mnl_attr_put_u64(nlh, KTGEN_A_TX_STATS_BYTES, 15425000000ULL);
	mnl_attr_put_u64(nlh, KTGEN_A_TX_STATS_MSGS, 235000);
	mnl_attr_put_u64(nlh, KTGEN_A_TX_STATS_ACKED, 15425000000ULL);
	mnl_attr_put_u64(nlh, KTGEN_A_TX_STATS_SEND_ERRORS, 0);
	mnl_attr_nest_end(nlh, nest);
	put_rx_stats(nlh, KTGEN_A_RUN_RX, 15425000000ULL);
	return nlh;
}

/* A wildcard sink's families: "*" for both, as ss prints it. */
static void show_families(char *buf, bool v4, bool v6, const char *text,
			  const char *json)
{
	static const uint8_t any[16];
	struct nlmsghdr *nlh = genl_msg(buf, KTGEN_CMD_SINK_GET);
	const char *out;

	mnl_attr_put_u32(nlh, KTGEN_A_SINK_ID, 4);
	mnl_attr_put_u32(nlh, KTGEN_A_SINK_PROTO, KTGEN_PROTO_UDP);
	if (v6)
		mnl_attr_put(nlh, KTGEN_A_SINK_LOCAL_ADDR, sizeof(any), any);
	else
		mnl_attr_put(nlh, KTGEN_A_SINK_LOCAL_ADDR, 4, any);
	mnl_attr_put_u16(nlh, KTGEN_A_SINK_PORT, htons(5002));
	if (v4)
		mnl_attr_put(nlh, KTGEN_A_SINK_IPV4, 0, NULL);
	if (v6)
		mnl_attr_put(nlh, KTGEN_A_SINK_IPV6, 0, NULL);
	capture_start(false, false);
	sink_print_cb(nlh, NULL);
	out = capture_end();
	CHECK_STR(out, text);
	capture_start(true, false);
	sink_print_cb(nlh, NULL);
	out = capture_end();
	CHECK_STR(out, json);
}

static void test_show_families(char *buf)
{
	show_families(buf, true, true, "sink 4 udp *:5002\n",
		      "{\"id\":4,\"proto\":\"udp\",\"local_addr\":\"::\","
		      "\"families\":[\"ipv4\",\"ipv6\"],\"port\":5002}\n");
	show_families(buf, false, true, "sink 4 udp [::]:5002\n",
		      "{\"id\":4,\"proto\":\"udp\",\"local_addr\":\"::\","
		      "\"families\":[\"ipv6\"],\"port\":5002}\n");
	show_families(buf, true, false, "sink 4 udp 0.0.0.0:5002\n",
		      "{\"id\":4,\"proto\":\"udp\",\"local_addr\":\"0.0.0.0\","
		      "\"families\":[\"ipv4\"],\"port\":5002}\n");
}

/* tx-nocache-copy on where it cannot act: a line in text, and the run's
 * "warnings" in JSON, for jobs to pass on; none with tx user.
 */
static struct nlmsghdr *nocache_run(char *buf, uint32_t mode)
{
	struct nlmsghdr *nlh = genl_msg(buf, KTGEN_CMD_RUN_DONE);
	struct nlattr *nest;

	mnl_attr_put_u32(nlh, KTGEN_A_RUN_ID, 2);
	mnl_attr_put_u32(nlh, KTGEN_A_RUN_FLOWS, 4);
	mnl_attr_put_u32(nlh, KTGEN_A_RUN_TX_MODE, mode);
	nest = mnl_attr_nest_start(nlh, KTGEN_A_RUN_TX);
	mnl_attr_put_u64(nlh, KTGEN_A_TX_STATS_BYTES, 1000);
	mnl_attr_put_u32(nlh, KTGEN_A_TX_STATS_NOCACHE_COPY_FLOWS, 3);
	mnl_attr_nest_end(nlh, nest);
	return nlh;
}

static void test_show_run_warnings(char *buf)
{
	const char *out;
	int i;

	for (i = 0; i < 2; i++) {	/* the second run starts afresh */
		capture_start(true, false);
		run_print_cb(nocache_run(buf, KTGEN_TX_MODE_CACHED), NULL);
		out = capture_end();
		CHECK(strstr(out, ",\"warnings\":[\"tx-nocache-copy on for 3 of 4 flows: no effect "
			      "possible on tx cached (only tx user sends user memory)\"]}\n"));
	}
	capture_start(false, false);
	run_print_cb(nocache_run(buf, KTGEN_TX_MODE_CACHED), NULL);
	out = capture_end();
	CHECK(strstr(out, "\n  tx-nocache-copy on for 3 of 4 flows: no effect possible on tx cached "
			  "(only tx user sends user memory)\n"));
	capture_start(true, false);
	run_print_cb(nocache_run(buf, KTGEN_TX_MODE_USER), NULL);
	out = capture_end();
	CHECK(!strstr(out, "warnings") && strstr(out, "\"nocache_copy_effect\":true"));
}

static void test_show(void)
{
	const char *out;
	char buf[1024];

	capture_start(false, false);
	sink_print_cb(sample_sink(buf), NULL);
	out = capture_end();
	CHECK_STR(out,
		  "sink 3 tcp *:5001 rx verify cpus 0-3 rcvbuf 4M\n"
		  "  rx  1000 bytes  235000 msgs  conns 4  lost 0  verify errors 0  dup 2\n");
	capture_start(true, false);
	sink_print_cb(sample_sink(buf), NULL);
	out = capture_end();
	CHECK_STR(out,
		  "{\"id\":3,\"proto\":\"tcp\",\"port\":5001,\"rx_mode\":\"verify\","
		  "\"cpus\":\"0-3\",\"rcvbuf\":4194304,\"rx\":{\"bytes\":1000,\"msgs\":235000,"
		  "\"conns\":4,\"lost\":0,\"verify_errors\":0,\"verify_first_offset\":0,"
		  "\"late\":0,\"dup\":2,\"bad_headers\":0}}\n");
	test_show_families(buf);

	capture_start(false, false);
	run_print_cb(sample_run(buf, KTGEN_RUN_STATE_DONE), NULL);
	out = capture_end();
	CHECK_STR(out,
		  "run 1 tcp_stream to 10.0.0.2:5001 tx stack size 65536 flows 4: done in 10.00 s\n"
		  "  tx 12.34 Gbit/s  15425000000 bytes  235000 msgs  acked 15425000000\n"
		  "  rx 12.34 Gbit/s  15425000000 bytes  235000 msgs  conns 4  lost 0  "
		  "verify errors 0  dup 2\n");
	capture_start(false, false);
	run_print_cb(sample_run(buf, KTGEN_RUN_STATE_FAILED), NULL);
	out = capture_end();
	CHECK(strstr(out, "flows 4: failed after 10.00 s: "
			  "flow 2: connect to 10.0.0.2:5001: Connection refused\n"));
	capture_start(true, false);
	run_print_cb(sample_run(buf, KTGEN_RUN_STATE_DONE), NULL);
	out = capture_end();
	CHECK_STR(out,
		  "{\"id\":1,\"test\":\"tcp_stream\",\"remote_addr\":\"10.0.0.2\","
		  "\"remote_port\":5001,\"tx_mode\":\"stack\",\"size\":65536,\"flows\":4,"
		  "\"nodelay\":true,\"detach\":false,\"probe_copies\":false,\"probe_rx\":false,"
		  "\"state\":\"done\","
		  "\"duration_ns\":10000000000,\"splice\":\"none\","
		  "\"tx\":{\"bytes\":15425000000,\"msgs\":235000,\"acked\":15425000000,"
		  "\"send_errors\":0},\"tx_bps\":12340000000,"
		  "\"rx\":{\"bytes\":15425000000,\"msgs\":235000,\"conns\":4,\"lost\":0,"
		  "\"verify_errors\":0,\"verify_first_offset\":0,\"late\":0,\"dup\":2,"
		  "\"bad_headers\":0},\"rx_bps\":12340000000}\n");

	/* Malformed attributes are left out, not read past their end. */
	{
		struct nlmsghdr *nlh = genl_msg(buf, KTGEN_CMD_RUN_DONE);

		mnl_attr_put_u32(nlh, KTGEN_A_RUN_ID, 7);
		mnl_attr_put_u16(nlh, KTGEN_A_RUN_STATE, 1);
		mnl_attr_put(nlh, KTGEN_A_RUN_REMOTE_ADDR, 3, "abc");
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_DURATION_NS, 5);
		mnl_attr_put_u16(nlh, KTGEN_A_RUN_TX, 5);
		capture_start(false, false);
		run_print_cb(nlh, NULL);
		out = capture_end();
	CHECK_STR(out, "run 7 to *:0\n");
	}
	test_show_run_warnings(buf);
}

/* Known inputs: netperf's service demand is util x cpus x elapsed (us)
 * per KB; one CPU busy for all of 10 s moving 15425000000 bytes spends
 * 1e7 us on 15063476.5625 KB.
 */
static bool near(double got, double want)
{
	return got == want || fabs(got - want) <= 1e-9 * fabs(want);
}

static void test_cpu_cost(void)
{
	struct cpu_cost c;

	cpu_cost(10000000000ULL, 30000000000ULL, 1, 10000000000ULL,
		 15425000000ULL, 235000, &c);
	CHECK(near(c.util_pct, 100));
	CHECK(near(c.cycles_per_byte, 30000000000.0 / 15425000000.0));
	CHECK(near(c.cycles_per_msg, 30000000000.0 / 235000));
	CHECK(near(c.us_per_kb, 1e7 / 15063476.5625));
	/* two CPUs, 5 s busy between them in 10 s: a quarter of their time */
	cpu_cost(5000000000ULL, 0, 2, 10000000000ULL, 1024, 1, &c);
	CHECK(near(c.util_pct, 25));
	CHECK(c.cycles_per_byte == 0 && c.cycles_per_msg == 0);
	CHECK(near(c.us_per_kb, 5e6));
	/* nothing to divide by: zeros, never NaN */
	cpu_cost(1000, 1000, 0, 0, 0, 0, &c);
	CHECK(c.util_pct == 0 && c.cycles_per_byte == 0 && c.cycles_per_msg == 0 &&
	      c.us_per_kb == 0);
}

static void put_cpu_stats(struct nlmsghdr *nlh, int type, uint32_t cpus,
			  uint64_t busy, uint64_t cycles)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, type);

	mnl_attr_put_u32(nlh, KTGEN_A_CPU_STATS_METHOD, KTGEN_CPU_METHOD_BUSY_TIME);
	mnl_attr_put_u32(nlh, KTGEN_A_CPU_STATS_CPUS, cpus);
	mnl_attr_put_u64(nlh, KTGEN_A_CPU_STATS_BUSY_NS, busy);
	mnl_attr_put_u64(nlh, KTGEN_A_CPU_STATS_CYCLES, cycles);
	mnl_attr_put(nlh, KTGEN_A_CPU_STATS_ESTIMATED, 0, NULL);
	mnl_attr_nest_end(nlh, nest);
}

static void test_cpu_show(void)
{
	struct nlmsghdr *nlh;
	const char *out;
	char buf[1024];

	nlh = sample_run(buf, KTGEN_RUN_STATE_DONE);
	put_cpu_stats(nlh, KTGEN_A_RUN_CPU_RUN, 1, 10000000000ULL, 30850000000ULL);
	put_cpu_stats(nlh, KTGEN_A_RUN_CPU_OTHER, 3, 7500000000ULL, 23137500000ULL);
	capture_start(false, false);
	run_print_cb(nlh, NULL);
	out = capture_end();
	CHECK(strstr(out, "\n  cpu run 1 cpu 100.0% 2.00 cycles/B 0.664 us/KB  "
			  "other 3 cpus 25.0% 1.50 cycles/B 0.498 us/KB  "
			  "(busy time, cycles estimated)\n"));
	capture_start(true, false);
	run_print_cb(nlh, NULL);
	out = capture_end();
	CHECK(strstr(out, ",\"cpu\":{\"method\":\"busy-time\",\"estimated\":true,"
			  "\"run\":{\"cpus\":1,\"busy_ns\":10000000000,\"util_pct\":100,"
			  "\"cycles\":30850000000,\"cycles_per_byte\":2,"
			  "\"cycles_per_msg\":131276.59574468085,\"us_per_kb\":0.6638573743922204},"
			  "\"other\":{\"cpus\":3,\"busy_ns\":7500000000,\"util_pct\":25,"
			  "\"cycles\":23137500000,\"cycles_per_byte\":1.5,"
			  "\"cycles_per_msg\":98457.44680851063,\"us_per_kb\":0.4978930307941653}}}\n"));
}

/* An RTM_NEWQDISC of @ifindex, @parent, with @drops in its TCA_STATS2. */
static struct nlmsghdr *qdisc_msg(char *buf, int ifindex, uint32_t parent, uint32_t drops)
{
	struct gnet_stats_queue q = { .drops = drops, .requeues = 1, .overlimits = 2 };
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct tcmsg *tc;
	struct nlattr *st;

	nlh->nlmsg_type = RTM_NEWQDISC;
	tc = mnl_nlmsg_put_extra_header(nlh, sizeof(*tc));
	tc->tcm_ifindex = ifindex;
	tc->tcm_parent = parent;
	mnl_attr_put_strz(nlh, TCA_KIND, parent == TC_H_ROOT ? "mq" : "netem");
	st = mnl_attr_nest_start(nlh, TCA_STATS2);
	mnl_attr_put(nlh, TCA_STATS_QUEUE, sizeof(q), &q);
	mnl_attr_nest_end(nlh, st);
	return nlh;
}

/* A multi-queue device's dump: the mq root holds its children's sums,
 * which are dumped too; the root counts, once, and so does an ingress
 * qdisc (a root of its own); another device's qdiscs are its own.
 */
static void test_qdisc_root(void)
{
	struct qdisc_sums d = { 0 };
	const struct qdisc_sum *q;
	char buf[512];

	ctr_qdisc_cb(qdisc_msg(buf, 7, TC_H_ROOT, 27975), &d);
	ctr_qdisc_cb(qdisc_msg(buf, 7, TC_H_MAKE(0x10000, 1), 13000), &d);
	ctr_qdisc_cb(qdisc_msg(buf, 7, TC_H_MAKE(0x10000, 2), 14975), &d);
	ctr_qdisc_cb(qdisc_msg(buf, 7, TC_H_INGRESS, 5), &d);
	ctr_qdisc_cb(qdisc_msg(buf, 8, TC_H_MAKE(0x10000, 1), 99), &d);
	ctr_qdisc_cb(qdisc_msg(buf, 8, TC_H_ROOT, 99), &d);
	q = ctr_qdisc_find(&d, 7);
	CHECK(q && q->drops == 27975 + 5 && q->requeues == 2 && q->overlimits == 4);
	q = ctr_qdisc_find(&d, 8);
	CHECK(q && q->drops == 99);
	CHECK(!ctr_qdisc_find(&d, 9));
	free(d.v);
}

/* Deltas by group, name and device; every counter in JSON, devices nested;
 * only the changed ones in text.
 */
static void test_counters(void)
{
	struct ctr_set before = { 0 }, after = { 0 };
	const char *out;

	ctr_add(&before, CTR_SNMP, NULL, "Tcp.OutSegs", 10);
	ctr_add(&before, CTR_SOFTNET, NULL, "dropped", 2);
	ctr_add(&before, CTR_DEV, "ktg0", "tx_packets", 5);
	ctr_add(&before, CTR_ETHTOOL, "ktg0", "peer_ifindex", 3);
	ctr_add(&before, CTR_DEV, "ktg1", "tx_packets", 7);

	ctr_add(&after, CTR_SNMP, NULL, "Tcp.OutSegs", 25);
	ctr_add(&after, CTR_SOFTNET, NULL, "dropped", 2);
	ctr_add(&after, CTR_DEV, "ktg0", "tx_packets", 5);
	ctr_add(&after, CTR_ETHTOOL, "ktg0", "peer_ifindex", 3);
	ctr_add(&after, CTR_DEV, "ktg1", "tx_packets", 9);
	ctr_add(&after, CTR_ETHTOOL, "ktg1", "x\"y", 4);	/* new: as read */
	counters_delta(&after, &before);

	capture_start(true, false);
	print_open_object(NULL);
	counters_print(&after);
	print_close_object();
	out = capture_end();
	CHECK_STR(out, "{\"counters\":{\"snmp\":{\"Tcp.OutSegs\":15},"
		  "\"softnet\":{\"dropped\":0},\"devices\":{"
		  "\"ktg0\":{\"stats\":{\"tx_packets\":0},\"ethtool\":{\"peer_ifindex\":0}},"
		  "\"ktg1\":{\"stats\":{\"tx_packets\":2},\"ethtool\":{\"x\\\"y\":4}}}}}\n");
	capture_start(false, false);
	counters_print(&after);
	out = capture_end();
	CHECK_STR(out, "  changed: Tcp.OutSegs +15  ktg1.tx_packets +2  ktg1:x\"y +4\n");
	counters_free(&before);
	counters_free(&after);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* @n values from @gen into a histogram; every percentile, the mean and
 * the standard deviation against the exact figures of the sorted values.
 */
static void hist_against_exact(uint64_t (*gen)(unsigned int i), unsigned int n)
{
	static const uint32_t ppm[] = { 0, 1, 10000, 250000, 500000, 900000, 950000,
					990000, 999000, 999900, 1000000 };
	static struct ktg_hist h;
	uint64_t *v = malloc(n * sizeof(*v));
	double sum = 0, sq = 0, mean, sd;
	unsigned int i;

	ktg_hist_reset(&h);
	for (i = 0; i < n; i++) {
		v[i] = gen(i);
		ktg_hist_add(&h, v[i]);
		sum += v[i];
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	mean = sum / n;
	for (i = 0; i < n; i++)
		sq += (v[i] - mean) * (v[i] - mean);
	sd = sqrt(sq / n);
	CHECK(h.count == n && h.min == v[0] && h.max == v[n - 1]);
	CHECK(ktg_hist_mean(&h) == (uint64_t)(sum / n));
	CHECK(fabs((double)ktg_hist_stddev(&h) - sd) <= 0.01 * sd + 1);
	for (i = 0; i < ARRAY_SIZE(ppm); i++) {
		/* nearest rank: the smallest value with ceil(n * p) below it */
		uint64_t rank = ((uint64_t)n * ppm[i] + 999999) / 1000000;
		uint64_t exact = v[rank ? rank - 1 : 0];
		uint64_t got = ktg_hist_percentile(&h, ppm[i]);

		CHECK(fabs((double)got - (double)exact) <= exact / 100.0 + 1);
		if (fabs((double)got - (double)exact) > exact / 100.0 + 1)
			printf("# ppm %u: %llu, exact %llu\n", ppm[i],
			       (unsigned long long)got, (unsigned long long)exact);
	}
	free(v);
}

static uint64_t gen_uniform(unsigned int i)
{
	return 1 + (i * 7919ULL) % 100000;	/* 1..100000 ns, each once */
}

static uint64_t lcg(unsigned int i)
{
	return (i * 6364136223846793005ULL + 1442695040888963407ULL) >> 11;
}

/* exponential, mean 50 us: a long tail */
static uint64_t gen_exp(unsigned int i)
{
	double u = (lcg(i) % 1000000 + 0.5) / 1000000.0;

	return (uint64_t)(-log(u) * 50000.0);
}

/* two modes, 20 us and 4 ms, 1 % in the slow one: a tail at p99 */
static uint64_t gen_bimodal(unsigned int i)
{
	return (i % 100 == 7 ? 4000000 : 20000) + lcg(i) % 1000;
}

/* An interval's histogram, from two states of one: exact counts, and
 * percentiles those of the values added in between.
 */
static void test_hist_sub(void)
{
	static struct ktg_hist a, b;
	unsigned int i;

	ktg_hist_reset(&a);
	for (i = 0; i < 1000; i++)
		ktg_hist_add(&a, 10000 + i);		/* 10.0-11.0 us */
	b = a;
	for (i = 0; i < 100; i++)
		ktg_hist_add(&b, 5000000 + 1000 * i);	/* 5.0-5.1 ms */
	ktg_hist_sub(&b, &a);
	CHECK(b.count == 100 && b.sum == 100 * 5000000ULL + 1000ULL * 4950);
	CHECK(b.min >= 4960000 && b.min <= 5000000);
	CHECK(b.max >= 5099000 && b.max <= 5140000);
	CHECK(fabs((double)ktg_hist_percentile(&b, 500000) - 5049000) < 0.01 * 5049000);
	CHECK(ktg_hist_percentile(&b, 10000) >= 4960000);
}

static void test_hist(void)
{
	uint64_t v;
	uint32_t idx, last = 0;

	/* every bucket holds what it says and is at most 1/128 wide */
	for (v = 0; v < (1ULL << 36); v = v < 4096 ? v + 1 : v + v / 97) {
		idx = ktg_hist_index(v);
		CHECK(idx < KTG_HIST_BUCKETS && idx >= last);
		CHECK(ktg_hist_low(idx) <= v && v < ktg_hist_low(idx) + ktg_hist_width(idx));
		CHECK(ktg_hist_width(idx) * 128 <= ktg_hist_low(idx) || ktg_hist_width(idx) == 1);
		last = idx;
	}
	CHECK(ktg_hist_index(1ULL << 40) == KTG_HIST_BUCKETS - 1);
	hist_against_exact(gen_uniform, 100000);
	hist_against_exact(gen_exp, 200000);
	hist_against_exact(gen_bimodal, 100000);
	hist_against_exact(gen_uniform, 1);
	test_hist_sub();
}

/* The many-flows warning: on when the kernel restarts idle windows. */
static void test_env_flows(void)
{
	char path[] = "/tmp/ktgen-unit-ssai.XXXXXX";
	struct env e = { 0 };
	FILE *f;
	int fd;

	fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	f = fdopen(fd, "w");
	fputs("1\n", f);
	fclose(f);
	env_check_flows(&e, 10, path);
	CHECK(e.nwarnings == 0);
	env_check_flows(&e, 1000, path);
	CHECK(e.nwarnings == 1);
	if (e.nwarnings)
		CHECK_STR(e.warnings[0],
			  "1000 flows take turns: tcp_slow_start_after_idle=1 restarts each flow's window whenever a turn comes after its RTO");
	f = fopen(path, "w");
	fputs("0\n", f);
	fclose(f);
	env_check_flows(&e, 1000, path);
	CHECK(e.nwarnings == 1);
	unlink(path);
	env_check_flows(&e, 1000, path);	/* no such file: no warning */
	CHECK(e.nwarnings == 1);
}

/* A file of the fake host @root (directories made as needed). */
static void host_put(const char *root, const char *rel, const char *text)
{
	char path[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	CHECK(f);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

static void host_cpu(const char *root, int cpu, const char *rel, const char *text)
{
	char path[256];

	snprintf(path, sizeof(path), "sys/devices/system/cpu/cpu%d/%s", cpu, rel);
	host_put(root, path, text);
}

/*
 * A fake host where nothing is wrong: four CPUs, each its own core, on
 * the performance governor, shallow idle states only, boost off, no
 * irqbalance.
 */
static void host_quiet(const char *root)
{
	char list[16];
	int cpu;

	for (cpu = 0; cpu < 4; cpu++) {
		snprintf(list, sizeof(list), "%d\n", cpu);
		host_cpu(root, cpu, "cpufreq/scaling_governor", "performance\n");
		host_cpu(root, cpu, "topology/thread_siblings_list", list);
		host_cpu(root, cpu, "online", "1\n");
		host_cpu(root, cpu, "node0/cpulist", "0-3\n");
		host_cpu(root, cpu, "cpuidle/state0/name", "POLL\n");
		host_cpu(root, cpu, "cpuidle/state0/latency", "0\n");
		host_cpu(root, cpu, "cpuidle/state1/name", "C1\n");
		host_cpu(root, cpu, "cpuidle/state1/latency", "2\n");
		host_cpu(root, cpu, "cpuidle/state1/disable", "0\n");
	}
	host_put(root, "sys/devices/system/cpu/cpufreq/boost", "0\n");
	host_put(root, "sys/devices/system/cpu/smt/active", "0\n");
	host_put(root, "proc/1/comm", "init\n");
}

/*
 * Preflight on fake hosts, one thing wrong at a time: the warnings, and
 * each only when its condition holds. @cpus: the run's CPUs as a list.
 */
static void preflight_case(const char *what, const char *cpus, int numa,
			   void (*spoil)(const char *root), const char *want)
{
	char root[] = "/tmp/ktgen-unit-host.XXXXXX", cmd[128];
	uint8_t mask[KTG_CPUMASK_BYTES];
	struct env_dev dev = { .name = "eth9", .numa_node = numa };
	struct env e = { .cpus_online = 4 };
	size_t len = 0;

	if (!mkdtemp(root)) {
		CHECK(!"mkdtemp");
		return;
	}
	host_quiet(root);
	if (spoil)
		spoil(root);
	CHECK(!parse_cpulist(cpus, mask, sizeof(mask), &len));
	if (numa >= 0) {
		e.devs = &dev;
		e.ndevs = 1;
	}
	setenv("KTGEN_SYSROOT", root, 1);
	env_preflight(&e, mask, len);
	unsetenv("KTGEN_SYSROOT");
	if (!want) {
		if (e.nwarnings)
			printf("# %s: unexpected warning: %s\n", what, e.warnings[0]);
		CHECK(e.nwarnings == 0);
	} else {
		if (e.nwarnings != 1 || strcmp(e.warnings[0], want))
			printf("# %s: want \"%s\", got %d warnings%s%s\n", what, want,
			       e.nwarnings, e.nwarnings ? ", first: " : "",
			       e.nwarnings ? e.warnings[0] : "");
		CHECK(e.nwarnings == 1 && !strcmp(e.warnings[0], want));
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	CHECK(system(cmd) == 0);
}

static void spoil_governor(const char *r)
{
	host_cpu(r, 2, "cpufreq/scaling_governor", "powersave\n");
}

static void spoil_boost(const char *r)
{
	host_put(r, "sys/devices/system/cpu/cpufreq/boost", "1\n");
}

static void spoil_no_turbo(const char *r)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpufreq/boost", r);
	unlink(path);
	host_put(r, "sys/devices/system/cpu/intel_pstate/no_turbo", "0\n");
}

static void spoil_sibling(const char *r)
{
	host_cpu(r, 0, "topology/thread_siblings_list", "0,2\n");
	host_cpu(r, 2, "topology/thread_siblings_list", "0,2\n");
	host_put(r, "sys/devices/system/cpu/smt/active", "1\n");
}

static void spoil_sibling_off(const char *r)
{
	spoil_sibling(r);
	host_cpu(r, 2, "online", "0\n");
}

static void spoil_smt_unknown(const char *r)
{
	char path[512];
	int cpu;

	for (cpu = 0; cpu < 4; cpu++) {
		snprintf(path, sizeof(path),
			 "%s/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", r, cpu);
		unlink(path);
	}
	host_put(r, "sys/devices/system/cpu/smt/active", "1\n");
}

static void spoil_cstate(const char *r)
{
	host_cpu(r, 1, "cpuidle/state2/name", "C6\n");
	host_cpu(r, 1, "cpuidle/state2/latency", "133\n");
	host_cpu(r, 1, "cpuidle/state2/disable", "0\n");
}

static void spoil_cstate_off(const char *r)
{
	spoil_cstate(r);
	host_cpu(r, 1, "cpuidle/state2/disable", "1\n");
}

static void spoil_irqbalance(const char *r)
{
	host_put(r, "proc/4242/comm", "irqbalance\n");
}

static void test_preflight(void)
{
	preflight_case("quiet", "0-3", -1, NULL, NULL);
	preflight_case("governor", "0", -1, spoil_governor,
		       "cpufreq governor mixed, not performance: clock changes move the numbers");
	preflight_case("boost", "0", -1, spoil_boost,
		       "turbo/boost is on: the clock follows temperature and load");
	preflight_case("no_turbo", "0", -1, spoil_no_turbo,
		       "turbo/boost is on: the clock follows temperature and load");
	preflight_case("sibling online", "0", -1, spoil_sibling,
		       "run CPU 0 shares its core with SMT sibling 2: pin one thread per core or take 2 offline");
	preflight_case("siblings both run", "0,2", -1, spoil_sibling,
		       "run CPUs 0 and 2 are SMT siblings: one core's execution units for both");
	preflight_case("sibling offline", "0", -1, spoil_sibling_off, NULL);
	preflight_case("sibling of another CPU", "1", -1, spoil_sibling, NULL);
	preflight_case("smt, topology unknown", "1", -1, spoil_smt_unknown,
		       "SMT is on: sibling threads share a core (pin one thread per core)");
	preflight_case("deep C-state", "1", -1, spoil_cstate,
		       "run CPU 1 may idle in C6 (exit latency 133 us): a wakeup after idle pays it (cpupower idle-set -D 20)");
	preflight_case("deep C-state, other CPU", "0", -1, spoil_cstate, NULL);
	preflight_case("deep C-state disabled", "1", -1, spoil_cstate_off, NULL);
	preflight_case("irqbalance", "0", -1, spoil_irqbalance,
		       "irqbalance is running: it may move device interrupts mid-run");
	preflight_case("numa", "1", 1, NULL, "eth9 is on NUMA node 1, run CPU 1 on node 0");
	preflight_case("numa same node", "1", 0, NULL, NULL);
}

/* Any value of a run document is a metric: the built-in names (the
 * window's figures before the run's), rates over the window, any
 * percentile, any path with a direction.
 */
static void test_metrics(void)
{
	static const char doc_text[] =
		"{\"test\":\"tcp_rr\",\"duration_ns\":2000000000,\"tx_bps\":1e9,"
		"\"tx\":{\"msgs\":3000,\"retrans\":7},\"rx\":{\"msgs\":2000,\"lost\":0},"
		"\"window\":{\"duration_ns\":1000000000,\"tx_msgs\":1500,\"tx_bps\":8e8},"
		"\"latency\":{\"tps\":1500,\"percentiles_ns\":{\"p50\":1000,\"p95\":4000,"
		"\"p99.99\":9000}},\"cpu\":{\"run\":{\"cycles_per_byte\":2.5}},"
		"\"counters\":{\"snmp\":{\"Tcp.RetransSegs\":11},"
		"\"devices\":{\"eth0\":{\"stats\":{\"tx_packets\":123}}}}}";
	char err[128];
	struct json *doc = json_parse(doc_text, strlen(doc_text), err, sizeof(err));
	double v = 0;

	CHECK(doc);
	if (!doc)
		return;
	CHECK(!ab_metric_value("tx_bps", doc, &v) && v == 8e8);		/* the window's */
	CHECK(!ab_metric_value("tx_pps", doc, &v) && near(v, 1500));	/* over the window */
	CHECK(!ab_metric_value("rx_pps", doc, &v) && near(v, 1000));	/* over the run */
	CHECK(!ab_metric_value("p95", doc, &v) && v == 4000);
	CHECK(!ab_metric_value("p99.99", doc, &v) && v == 9000);
	CHECK(ab_metric_value("p90", doc, &v) == -ENODATA);		/* not asked for */
	CHECK(!ab_metric_value("retrans", doc, &v) && v == 7);
	CHECK(!ab_metric_value("lost", doc, &v) && v == 0);
	CHECK(!ab_metric_value("run_cycles_per_byte", doc, &v) && v == 2.5);
	CHECK(!ab_metric_value("counters.snmp[\"Tcp.RetransSegs\"]:lower", doc, &v) && v == 11);
	CHECK(!ab_metric_value("counters.devices.eth0.stats.tx_packets:higher", doc, &v) &&
	      v == 123);
	CHECK(ab_metric_value("counters.devices.eth1.stats.tx_packets:higher", doc, &v) ==
	      -ENODATA);
	CHECK(ab_metric_value("tx.msgs", doc, &v) == -ENOENT);		/* no direction */
	CHECK(ab_metric_value("tx.msgs:sideways", doc, &v) == -ENOENT);
	CHECK(ab_metric_value("p100", doc, &v) == -ENOENT);
	CHECK(ab_metric_value("p", doc, &v) == -ENOENT);
	json_free(doc);
}

/* probe-rx: a run's rx path, @avail of its counters probed. */
static struct nlmsghdr *rx_path_run(char *buf, uint32_t avail, const uint64_t *n)
{
	struct nlmsghdr *nlh = genl_msg(buf, KTGEN_CMD_RUN_DONE);
	struct nlattr *nest;
	unsigned int i;

	mnl_attr_put_u32(nlh, KTGEN_A_RUN_ID, 5);
	mnl_attr_put(nlh, KTGEN_A_RUN_PROBE_RX, 0, NULL);
	nest = mnl_attr_nest_start(nlh, KTGEN_A_RUN_RX_PATH);
	mnl_attr_put_u32(nlh, KTGEN_A_RX_PATH_AVAILABLE, avail);
	for (i = 0; i < 5; i++)
		if (avail & (1U << i))
			mnl_attr_put_u64(nlh, KTGEN_A_RX_PATH_BUILD_SKB + i, n[i]);
	mnl_attr_nest_end(nlh, nest);
	return nlh;
}

static void test_rx_path(void)
{
	static const uint64_t n[5] = { 998, 2, 0, 3, 7 };
	const char *out;
	char buf[1024];

	capture_start(false, false);
	run_print_cb(rx_path_run(buf, 31, n), NULL);
	out = capture_end();
	CHECK(strstr(out, "\n  rx path: build_skb 99.8 %, alloc+copy 0.2 %, frags 0.0 % of "
			  "1000 skbs; frags added 3, GRO merged 7\n"));
	capture_start(true, false);
	run_print_cb(rx_path_run(buf, 31, n), NULL);
	out = capture_end();
	CHECK(strstr(out, "\"probe_rx\":true"));
	CHECK(strstr(out, "\"rx_path\":{\"available\":[\"build_skb\",\"alloc_skb\","
			  "\"get_frags\",\"add_frag\",\"gro_merged\"],\"build_skb\":998,"
			  "\"build_pct\":99.8,\"alloc_skb\":2,\"alloc_pct\":0.2,"
			  "\"get_frags\":0,\"frags_pct\":0,\"skbs\":1000,\"add_frag\":3,"
			  "\"gro_merged\":7}"));
	/* 7.2 inlines skb_add_rx_frag; a kernel without napi_alloc_skb's
	 * probe: no share is given, nothing claimed 0
	 */
	capture_start(false, false);
	run_print_cb(rx_path_run(buf, 31 & ~2 & ~8, n), NULL);
	out = capture_end();
	CHECK(strstr(out, "\n  rx path: build_skb 998, alloc+copy not available, frags 0; "
			  "frags added not available, GRO merged 7\n"));
	capture_start(true, false);
	run_print_cb(rx_path_run(buf, 31 & ~2 & ~8, n), NULL);
	out = capture_end();
	CHECK(strstr(out, "\"rx_path\":{\"available\":[\"build_skb\",\"get_frags\","
			  "\"gro_merged\"],\"build_skb\":998,\"get_frags\":0,"
			  "\"gro_merged\":7}"));
	CHECK(!strstr(out, "pct") && !strstr(out, "alloc_skb"));
	/* no kprobes (User-Mode Linux) */
	capture_start(false, false);
	run_print_cb(rx_path_run(buf, 0, n), NULL);
	out = capture_end();
	CHECK(strstr(out, "\n  rx path: build_skb not available, alloc+copy not available, "
			  "frags not available; frags added not available, GRO merged not "
			  "available\n"));
}

/* ab: both variants built their skbs one way: the rx path did not change. */
static void test_rx_path_same(void)
{
	double a_build[3] = { 100, 99.5, 100 }, b_build[3] = { 99.9, 100, 99 };
	double a_alloc[3] = { 0, 0.5, 0 }, b_alloc[3] = { 0.1, 0, 1 };
	double frags[3] = { 0, 0, 0 };
	size_t mb = metric_find("rx_build_pct") - metrics;
	size_t ma = metric_find("rx_alloc_pct") - metrics;
	size_t mf = metric_find("rx_frags_pct") - metrics;
	struct variant a = { .n = 3 }, b = { .n = 3 };
	char w[256];

	a.x[mb] = a_build;
	b.x[mb] = b_build;
	a.x[ma] = a_alloc;
	b.x[ma] = b_alloc;
	a.x[mf] = b.x[mf] = frags;
	CHECK(rx_path_same(&a, &b, w, sizeof(w)) == w);
	CHECK_STR(w, "rx path unchanged: both variants built at least 99 % of their skbs with "
		     "build_skb in every run (a 99.5 %, b 99.0 %)");
	/* legacy-rx took effect in one run of b */
	b_build[1] = 0;
	b_alloc[1] = 100;
	CHECK(!rx_path_same(&a, &b, w, sizeof(w)));
	/* b copied every time, a never: changed */
	b_build[0] = b_build[2] = 0;
	b_alloc[0] = b_alloc[2] = 100;
	CHECK(!rx_path_same(&a, &b, w, sizeof(w)));
	/* both copied */
	memcpy(a_alloc, b_alloc, sizeof(a_alloc));
	CHECK(rx_path_same(&a, &b, w, sizeof(w)) &&
	      strstr(w, "with alloc+copy (netdev/napi_alloc_skb) in every run"));
	/* a run without the probe's shares says nothing */
	a_alloc[1] = NAN;
	CHECK(!rx_path_same(&a, &b, w, sizeof(w)));
}

/* The old check, a byte at a time: what the word-wise one must say. */
static u64 pattern_check_bytes(const u8 *p, u64 off, size_t len, u32 pages, u64 *first)
{
	u64 bad = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		if (p[i] == ktg_pattern_byte(off + i, pages))
			continue;
		if (!bad)
			*first = off + i;
		bad++;
	}
	return bad;
}

/* ktg_pattern_check against the byte-wise definition: rings of every size
 * class (one page, under, at and past the 256 kinds, the largest), spans
 * that start anywhere in a page, cross pages and the 64-bit edge, are
 * shorter than a word and sit at any alignment, clean and with flips at
 * their ends and in the middle; a span ktg_pattern_fill wrote is what the
 * byte-wise definition says.
 */
static void test_pattern(void)
{
	static const u32 rings[] = { 1, 2, 37, 255, 256, 257, 4096, 65537, UINT32_MAX };
	static const size_t lens[] = { 0, 1, 7, 8, 9, 31, 33, 4095, 4096, 4097, 9000, 65536 };
	static const u64 offs[] = { 0, 1, 4095, 4096, 12345, 1ULL << 32, (1ULL << 44) + 3,
				    UINT64_MAX - 70000, UINT64_MAX - 4000 };
	size_t max = 65536 + 8;
	u8 *buf = malloc(max + 1);
	unsigned int r, l, o, a, flips, mismatch = 0, cases = 0;

	if (!buf || ktg_pattern_init()) {
		CHECK(0);
		free(buf);
		return;
	}
	for (r = 0; r < ARRAY_SIZE(rings); r++)
		for (o = 0; o < ARRAY_SIZE(offs); o++)
			for (l = 0; l < ARRAY_SIZE(lens); l++)
				for (a = 0; a < 8; a += (lens[l] > 4096 ? 3 : 1))
					for (flips = 0; flips < 4; flips++) {
						u8 *p = buf + a;	/* unaligned too */
						size_t len = lens[l];
						u64 off = offs[o], f1 = 7, f2 = 7, b1, b2;

						ktg_pattern_fill(p, off, len, rings[r]);
						if (len && flips & 1)
							p[len - 1] ^= 0x40;
						if (len && flips & 2) {
							p[0] ^= 1;
							p[len / 2] ^= 0x80;
						}
						b1 = ktg_pattern_check(p, off, len, rings[r], &f1);
						b2 = pattern_check_bytes(p, off, len, rings[r], &f2);
						cases++;
						if ((b1 != b2 || f1 != f2 || (!flips && b2)) && !mismatch++)
							printf("# ring %u off %llu len %zu at +%u flips %u: %llu bad first %llu, bytewise %llu first %llu\n",
							       rings[r], (unsigned long long)off, len, a, flips,
							       (unsigned long long)b1, (unsigned long long)f1,
							       (unsigned long long)b2, (unsigned long long)f2);
					}
	CHECK(mismatch == 0);
	CHECK(cases > ARRAY_SIZE(rings) * ARRAY_SIZE(offs) * ARRAY_SIZE(lens) * 4 * 3);
	/* a byte from the wrong page of the ring, right in every other way */
	ktg_pattern_fill(buf, 0, 8192, 16);
	buf[4096 + 100] = ktg_pattern_byte(100, 16);
	{
		u64 first = 0;

		CHECK(ktg_pattern_check(buf, 0, 8192, 16, &first) == 1 && first == 4196);
	}
	ktg_pattern_exit();
	free(buf);
}

/* run events: a group's event nest, with what it says. */
static void pmu_event_put(struct nlmsghdr *nlh, uint32_t bit, uint64_t count, uint64_t enabled,
			  uint64_t running, uint32_t err, uint32_t stand_in)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, KTGEN_A_CPU_STATS_EVENT);

	mnl_attr_put_u32(nlh, KTGEN_A_CPU_EVENT_STATS_EVENT, bit);
	if (err) {
		mnl_attr_put_u32(nlh, KTGEN_A_CPU_EVENT_STATS_ERROR, err);
	} else {
		mnl_attr_put_u64(nlh, KTGEN_A_CPU_EVENT_STATS_ENABLED_NS, enabled);
		mnl_attr_put_u64(nlh, KTGEN_A_CPU_EVENT_STATS_RUNNING_NS, running);
		if (running)
			mnl_attr_put_u64(nlh, KTGEN_A_CPU_EVENT_STATS_COUNT, count);
		if (running < enabled)
			mnl_attr_put(nlh, KTGEN_A_CPU_EVENT_STATS_SCALED, 0, NULL);
	}
	if (stand_in != UINT32_MAX)
		mnl_attr_put_u32(nlh, KTGEN_A_CPU_EVENT_STATS_STAND_IN, stand_in);
	mnl_attr_nest_end(nlh, nest);
}

/* A done run of 1 MiB in 1024 messages with events: cycles counted,
 * instructions multiplexed (ran half its time), cache-misses absent
 * (ENOENT), llc-load-misses never on the PMU; or, @sw, the software
 * events standing in.
 */
static struct nlmsghdr *pmu_run(char *buf, bool sw)
{
	struct nlmsghdr *nlh = genl_msg(buf, KTGEN_CMD_RUN_DONE);
	struct nlattr *nest;
	int g;

	mnl_attr_put_u32(nlh, KTGEN_A_RUN_ID, 6);
	mnl_attr_put_u32(nlh, KTGEN_A_RUN_EVENTS, sw ? 3 : 27);
	mnl_attr_put_u64(nlh, KTGEN_A_RUN_DURATION_NS, 1000000000);
	nest = mnl_attr_nest_start(nlh, KTGEN_A_RUN_TX);
	mnl_attr_put_u64(nlh, KTGEN_A_TX_STATS_BYTES, 1 << 20);
	mnl_attr_put_u64(nlh, KTGEN_A_TX_STATS_MSGS, 1024);
	mnl_attr_nest_end(nlh, nest);
	for (g = 0; g < 2; g++) {
		nest = mnl_attr_nest_start(nlh, g ? KTGEN_A_RUN_CPU_OTHER : KTGEN_A_RUN_CPU_RUN);
		mnl_attr_put_u32(nlh, KTGEN_A_CPU_STATS_METHOD,
				 sw ? KTGEN_CPU_METHOD_SW_EVENT : KTGEN_CPU_METHOD_PMU_CYCLES);
		mnl_attr_put_u32(nlh, KTGEN_A_CPU_STATS_CPUS, 1);
		mnl_attr_put_u64(nlh, KTGEN_A_CPU_STATS_BUSY_NS, 500000000);
		mnl_attr_put_u64(nlh, KTGEN_A_CPU_STATS_CYCLES, 2000000000);
		if (sw) {
			pmu_event_put(nlh, KTGEN_CPU_EVENT_CYCLES, 1000000000, 1000000000,
				      1000000000, 0, 0 /* PERF_COUNT_SW_CPU_CLOCK */);
			pmu_event_put(nlh, KTGEN_CPU_EVENT_INSTRUCTIONS, 999000000, 1000000000,
				      1000000000, 0, 1 /* PERF_COUNT_SW_TASK_CLOCK */);
		} else {
			pmu_event_put(nlh, KTGEN_CPU_EVENT_CYCLES, 2048000, 1000, 1000, 0,
				      UINT32_MAX);
			pmu_event_put(nlh, KTGEN_CPU_EVENT_INSTRUCTIONS, 4096000, 1000, 500, 0,
				      UINT32_MAX);
			pmu_event_put(nlh, KTGEN_CPU_EVENT_CACHE_MISSES, 0, 0, 0, ENOENT,
				      UINT32_MAX);
			pmu_event_put(nlh, KTGEN_CPU_EVENT_LLC_LOAD_MISSES, 0, 1000, 0, 0,
				      UINT32_MAX);
		}
		mnl_attr_nest_end(nlh, nest);
	}
	return nlh;
}

static void test_pmu_print(void)
{
	const char *out;
	char buf[2048];

	capture_start(false, false);
	run_print_cb(pmu_run(buf, false), NULL);
	out = capture_end();
	CHECK(strstr(out, " events cycles,instructions,cache-misses,llc-load-misses"));
	CHECK(strstr(out, "\n  pmu run: cycles 2048000 (2000/KB, 2000/msg)  instructions 4096000 "
			  "(scaled, ran 50.0 %) (4000/KB, 4000/msg)  cache-misses absent (ENOENT)  "
			  "llc-load-misses absent (not counted: multiplexed out)\n"));
	CHECK(strstr(out, "\n  pmu other: cycles 2048000"));
	CHECK(!strstr(out, "cache-misses 0") && !strstr(out, "llc-load-misses 0"));
	capture_start(true, false);
	run_print_cb(pmu_run(buf, false), NULL);
	out = capture_end();
	CHECK(strstr(out, "\"events\":[\"cycles\",\"instructions\",\"cache-misses\","
			  "\"llc-load-misses\"]"));
	CHECK(strstr(out, "\"pmu\":{\"run\":{\"cycles\":{\"enabled_ns\":1000,\"running_ns\":1000,"
			  "\"scaled\":false,\"running_pct\":100,\"count\":2048000,\"per_kb\":2000,"
			  "\"per_msg\":2000},\"instructions\":{\"enabled_ns\":1000,"
			  "\"running_ns\":500,\"scaled\":true,\"running_pct\":50,\"count\":4096000,"
			  "\"per_kb\":4000,\"per_msg\":4000},\"cache_misses\":{\"absent\":true,"
			  "\"errno\":2,\"error\":\"ENOENT\"},\"llc_load_misses\":{\"enabled_ns\":1000,"
			  "\"running_ns\":0,\"scaled\":true,\"running_pct\":0,\"absent\":true,"
			  "\"error\":\"not counted: multiplexed out\"}},\"other\":{"));
	capture_start(false, false);
	run_print_cb(pmu_run(buf, true), NULL);
	out = capture_end();
	CHECK(strstr(out, "\n  pmu run: cycles [cpu-clock] 1000000000 (9.766e+05/KB, 9.766e+05/msg)"
			  "  instructions [task-clock] 999000000 "));
	capture_start(true, false);
	run_print_cb(pmu_run(buf, true), NULL);
	out = capture_end();
	CHECK(strstr(out, "\"cycles\":{\"stand_in\":\"cpu-clock\",\"enabled_ns\":1000000000"));
}

/* The events counted and withheld from this reader: the module's flag in
 * each group, no event nest. Said so, never an empty pmu line nor 0s.
 */
static void test_pmu_withheld(void)
{
	const char *out;
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	char buf[2048];
	int g, json;

	for (json = 0; json < 2; json++) {
		nlh = genl_msg(buf, KTGEN_CMD_RUN_GET);
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_ID, 7);
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_EVENTS, KTGEN_CPU_EVENT_CYCLES);
		mnl_attr_put_u64(nlh, KTGEN_A_RUN_DURATION_NS, 1000000000);
		for (g = 0; g < 2; g++) {
			nest = mnl_attr_nest_start(nlh, g ? KTGEN_A_RUN_CPU_OTHER :
							    KTGEN_A_RUN_CPU_RUN);
			mnl_attr_put_u32(nlh, KTGEN_A_CPU_STATS_METHOD, KTGEN_CPU_METHOD_BUSY_TIME);
			mnl_attr_put_u32(nlh, KTGEN_A_CPU_STATS_CPUS, 1);
			mnl_attr_put_u64(nlh, KTGEN_A_CPU_STATS_BUSY_NS, 500000000);
			mnl_attr_put(nlh, KTGEN_A_CPU_STATS_EVENTS_WITHHELD, 0, NULL);
			mnl_attr_nest_end(nlh, nest);
		}
		capture_start(json, false);
		run_print_cb(nlh, NULL);
		out = capture_end();
		if (json) {
			CHECK(strstr(out, "\"pmu\":{\"withheld\":true}"));
		} else {
			CHECK(strstr(out, "\n  pmu withheld: reading events needs CAP_PERFMON or "
					  "CAP_SYS_ADMIN\n"));
			CHECK(!strstr(out, "pmu run"));
		}
	}
	/* counted and given: no withheld word */
	capture_start(false, false);
	run_print_cb(pmu_run(buf, false), NULL);
	CHECK(!strstr(capture_end(), "withheld"));
}

/* The events word, and the metrics the events make. */
static void test_pmu_words(void)
{
	static const char doc_text[] =
		"{\"pmu\":{\"run\":{\"instructions\":{\"count\":5000,\"per_kb\":2.5,"
		"\"per_msg\":7},\"cache_misses\":{\"absent\":true,\"errno\":2,"
		"\"error\":\"ENOENT\"}},\"other\":{\"instructions\":{\"per_kb\":0.5}}}}";
	char err[128], why[128];
	struct json *doc = json_parse(doc_text, strlen(doc_text), err, sizeof(err));
	uint32_t ev = 0;
	double v = 0;

	CHECK(!pmu_parse_events("cycles", &ev) && ev == KTGEN_CPU_EVENT_CYCLES);
	CHECK(!pmu_parse_events("instructions,llc-load-misses", &ev) &&
	      ev == (KTGEN_CPU_EVENT_INSTRUCTIONS | KTGEN_CPU_EVENT_LLC_LOAD_MISSES));
	CHECK(!pmu_parse_events("cache_misses,cache-references", &ev) && ev == 12);
	CHECK(!pmu_parse_events("all", &ev) && ev == 31);
	CHECK(pmu_parse_events("cycles,bogus", &ev) == -EINVAL);
	CHECK(pmu_parse_events("cycles,cycles", &ev) == -EINVAL);
	CHECK(pmu_parse_events("", &ev) == -EINVAL);
	CHECK(pmu_parse_events(",", &ev) == -EINVAL);
	CHECK(pmu_parse_events("all,cycles", &ev) == -EINVAL);
	CHECK(doc);
	if (!doc)
		return;
	CHECK(!ab_metric_value("run_instructions_per_kb", doc, &v) && v == 2.5);
	CHECK(!ab_metric_value("run_instructions_per_msg", doc, &v) && v == 7);
	CHECK(!ab_metric_value("other_instructions_per_kb", doc, &v) && v == 0.5);
	CHECK(ab_metric_value("run_cache_misses_per_kb", doc, &v) == -ENODATA);
	CHECK(ab_metric_value("run_cycles_per_kb", doc, &v) == -ENODATA);
	CHECK(ab_metric_value("run_instructions_per_byte", doc, &v) == -ENOENT);
	CHECK(ab_metric_value("peer_instructions_per_kb", doc, &v) == -ENOENT);
	CHECK(ab_metric_value("run_instructions", doc, &v) == -ENOENT);
	CHECK_STR(metric_why(metric_find("run_cache_misses_per_kb"), doc, why, sizeof(why)) ?: "",
		  "the event is absent: ENOENT");
	CHECK(!metric_why(metric_find("run_cycles_per_kb"), doc, why, sizeof(why)));
	CHECK(!metric_why(metric_find("tx_bps"), doc, why, sizeof(why)));
	json_free(doc);
	doc = json_parse("{\"tx_bps\":1}", 12, err, sizeof(err));
	CHECK(doc && !strcmp(metric_why(metric_find("run_cycles_per_msg"), doc, why, sizeof(why)),
			     "the run counted no PMU events (run ... events LIST)"));
	json_free(doc);
}

/* ktg_cpu_scale() against exact 128-bit arithmetic: windows past 4.3 s
 * (enabled over 32 bits), running near 0, running == enabled, counts
 * whose scaled value needs all 64 bits or more.
 */
static void test_cpu_scale(void)
{
	static const struct {
		u64 count, enabled, running;
	} c[] = {
		{ 1000, 1000, 1000 },			/* ran all the time */
		{ 1000, 2000, 1000 },			/* half: doubled */
		{ 1000000000ULL, 10000000000ULL, 1 },	/* 10 s, ran 1 ns */
		{ 12345, 5000000000ULL, 3 },		/* 5 s, ran 3 ns */
		{ 999999937, 8000000000ULL, 2000000001ULL },	/* 8 s, a quarter */
		{ 7, 3, 2 },				/* 10.5: truncated */
		{ U64_MAX / 3, 3, 2 },			/* 1.5 x near the top */
		{ 1ULL << 62, 1ULL << 63, 1ULL << 62 },	/* huge times */
		{ U64_MAX, U64_MAX, U64_MAX },		/* all ones */
		{ U64_MAX - 1, U64_MAX, U64_MAX - 1 },	/* just fits */
		{ 40000000000ULL, 600000000000ULL, 599999999999ULL },
	};
	unsigned int i;
	u64 got;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		unsigned __int128 want = (unsigned __int128)c[i].count * c[i].enabled / c[i].running;

		CHECK(ktg_cpu_scale(c[i].count, c[i].enabled, c[i].running, &got));
		CHECK(got == (u64)want);
		if (got != (u64)want)
			fprintf(stderr, "# scale %llu * %llu / %llu: %llu, expected %llu\n",
				(unsigned long long)c[i].count, (unsigned long long)c[i].enabled,
				(unsigned long long)c[i].running, (unsigned long long)got,
				(unsigned long long)want);
	}
	/* never ran: nothing to scale, whatever the count */
	CHECK(!ktg_cpu_scale(0, 5000000000ULL, 0, &got));
	CHECK(!ktg_cpu_scale(12345, 5000000000ULL, 0, &got));
	CHECK(!ktg_cpu_scale(1, 1, 0, &got));
	/* a scaled count past 64 bits is no count either */
	CHECK(!ktg_cpu_scale(U64_MAX, 3, 2, &got));
	CHECK(!ktg_cpu_scale(1ULL << 40, 1ULL << 40, 1, &got));
}

static const struct {
	const char *name;
	void (*fn)(void);
} tests[] = {
	{ "print_text_json", test_print },
	{ "parse_size", test_parse },
	{ "extack_decode", test_errors },
	{ "cpulist", test_cpulist },
	{ "numbers_rates_addrs", test_numbers },
	{ "sink_run_print", test_show },
	{ "cpu_cost", test_cpu_cost },
	{ "cpu_print", test_cpu_show },
	{ "counters", test_counters },
	{ "qdisc_root", test_qdisc_root },
	{ "latency_histogram", test_hist },
	{ "payload_pattern", test_pattern },
	{ "env_many_flows", test_env_flows },
	{ "metrics_any_field", test_metrics },
	{ "preflight_warnings", test_preflight },
	{ "rx_path_print", test_rx_path },
	{ "ab_rx_path_same", test_rx_path_same },
	{ "pmu_print", test_pmu_print },
	{ "pmu_withheld", test_pmu_withheld },
	{ "pmu_words", test_pmu_words },
	{ "cpu_event_scale", test_cpu_scale },
};

int main(void)
{
	unsigned int i;
	int failed = 0;

	printf("KTAP version 1\n1..%zu\n", ARRAY_SIZE(tests));
	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		int before = failures;

		tests[i].fn();
		printf("%sok %u %s\n", failures == before ? "" : "not ", i + 1, tests[i].name);
		failed += failures != before;
	}
	printf("# %d checks, %d failed\n", checks, failures);
	return failed ? 1 : 0;
}
