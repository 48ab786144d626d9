// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the CLI's building blocks, run on the host under ASan and
 * UBSan: the text/JSON print path, size and number parsing, and the
 * decoding of kernel errors (extack message, offending and missing
 * attribute) from hand-built NLMSG_ERROR messages. Output is KTAP.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>
#include <linux/ktgen.h>

#include "ktgen.h"
#include "nl.h"
#include "print.h"

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
	checks++;							\
	if (strcmp((got), (want))) {					\
		failures++;						\
		printf("# %s:%d: got '%s', want '%s'\n", __FILE__,	\
		       __LINE__, (got), (want));			\
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

static void sample(void)
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
	sample();
	CHECK_STR(capture_end(), "name a \"b\"\n bytes 18446744073709551615 ok yes\ntext only x\n");

	capture_start(true, false);
	sample();
	CHECK_STR(capture_end(),
		  "{\"name\":\"a \\\"b\\\"\\n\",\"bytes\":18446744073709551615,\"ok\":true,"
		  "\"list\":[1,2],\"empty\":{},\"json_only\":null}\n");

	capture_start(true, true);
	sample();
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

static const struct {
	const char *name;
	void (*fn)(void);
} tests[] = {
	{ "print_text_json", test_print },
	{ "parse_size", test_parse },
	{ "extack_decode", test_errors },
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
