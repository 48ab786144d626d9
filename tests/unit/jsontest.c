// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of tools/json.c, the reader of `ktgen -j` documents, on the
 * host under ASan and UBSan: values, lookups, every error with its
 * position, and a run document as the schema (ktgen-run.schema.json)
 * describes it, hand-written and printed by ktgen's own print path.
 * Output is KTAP.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "print.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

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
	if (!got_ || strcmp(got_, want_)) {				\
		failures++;						\
		printf("# %s:%d: got '%s', want '%s'\n", __FILE__,	\
		       __LINE__, got_ ? got_ : "(null)", want_);	\
	}								\
} while (0)

static struct json *parse(const char *text)
{
	char err[256];

	return json_parse(text, strlen(text), err, sizeof(err));
}

/* The number at @path in @j, NAN if there is none. */
static double num_at(const struct json *j, const char *path)
{
	double v;

	return json_number(json_path(j, path), &v) ? NAN : v;
}

static void test_scalars(void)
{
	struct json *j;
	uint64_t u;
	bool b;

	j = parse(" true ");
	CHECK(j && j->type == JSON_BOOL && !json_bool(j, &b) && b);
	json_free(j);
	j = parse("false");
	CHECK(j && j->type == JSON_BOOL && !j->boolean);
	json_free(j);
	j = parse("\n\tnull\r\n");
	CHECK(j && j->type == JSON_NULL && json_number(j, &(double){ 0 }) == -EINVAL);
	json_free(j);

	j = parse("-0");
	CHECK(j && j->type == JSON_NUMBER && j->is_int && j->i == 0 && j->is_uint &&
	      signbit(j->num));
	json_free(j);
	j = parse("-12.5e-1");
	CHECK(j && j->num == -1.25 && !j->is_int && !j->is_uint);
	json_free(j);
	j = parse("1E+2");
	CHECK(j && j->num == 100 && !j->is_int);
	json_free(j);
	j = parse("18446744073709551615");
	CHECK(j && !j->is_int && j->is_uint && !json_u64(j, &u) && u == UINT64_MAX);
	json_free(j);
	j = parse("9223372036854775807");
	CHECK(j && j->is_int && j->i == INT64_MAX && j->u == INT64_MAX);
	json_free(j);
	j = parse("-9223372036854775808");
	CHECK(j && j->is_int && j->i == INT64_MIN && !j->is_uint && json_u64(j, &u) == -EINVAL);
	json_free(j);
	j = parse("18446744073709551616");
	CHECK(j && !j->is_int && !j->is_uint && j->num == 18446744073709551616.0);
	json_free(j);
	j = parse("1e-400");		/* underflows to 0: a number still */
	CHECK(j && j->num == 0);
	json_free(j);
	j = parse("1.7976931348623157e308");
	CHECK(j && j->num == 1.7976931348623157e308);
	json_free(j);
}

static void test_strings(void)
{
	struct json *j;

	j = parse("\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"");
	CHECK_STR(json_string(j), "a\"b\\c/d\b\f\n\r\t");
	json_free(j);
	/* two, three and four UTF-8 bytes, from escapes and raw */
	j = parse("\"\\u00e9\\u20AC\\ud83d\\ude00 \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
	CHECK_STR(json_string(j), "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	json_free(j);
	j = parse("\"\\u0041\\u007f\\u0080\\u07ff\\u0800\\uffff\\udbff\\udfff\"");
	CHECK_STR(json_string(j), "A\x7f\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf\xf4\x8f\xbf\xbf");
	json_free(j);
	/* \u0000 is in the value, which json_string() shows up to it */
	j = parse("\"a\\u0000b\"");
	CHECK(j && j->len == 3 && !memcmp(j->str, "a\0b", 4));
	json_free(j);
	j = parse("\"\"");
	CHECK(j && j->len == 0 && !strcmp(json_string(j), ""));
	CHECK(!json_string(NULL));
	json_free(j);
}

static void test_containers(void)
{
	struct json *j;

	j = parse("[]");
	CHECK(j && j->type == JSON_ARRAY && j->len == 0 && !json_index(j, 0));
	json_free(j);
	j = parse("{ }");
	CHECK(j && j->type == JSON_OBJECT && j->len == 0 && !json_get(j, "a"));
	json_free(j);
	j = parse("[1, [2, [3, {\"a\": [4]}]], \"x\", null]");
	CHECK(j && j->len == 4);
	CHECK(num_at(j, "[1][1][1].a[0]") == 4);
	CHECK(json_index(j, 3)->type == JSON_NULL && !json_index(j, 4));
	CHECK(!json_get(j, "a"));		/* an array has no keys */
	json_free(j);

	/* duplicate keys: all kept, the first found */
	j = parse("{\"a\": 1, \"b\": {}, \"a\": 2}");
	CHECK(j && j->len == 3 && num_at(j, "a") == 1 && j->items[2].num == 2);
	CHECK_STR(j->items[2].key, "a");
	json_free(j);

	/* positions, for the messages of a reader */
	j = parse("{\n  \"a\": [1,\n    true]\n}");
	CHECK(j && j->line == 1 && j->col == 1);
	CHECK(j && j->items[0].line == 2 && j->items[0].col == 8);
	CHECK(j && json_index(json_get(j, "a"), 1)->line == 3 &&
	      json_index(json_get(j, "a"), 1)->col == 5);
	json_free(j);

	/* as deep as allowed */
	{
		char deep[2 * JSON_MAX_DEPTH + 1];

		memset(deep, '[', JSON_MAX_DEPTH);
		memset(deep + JSON_MAX_DEPTH, ']', JSON_MAX_DEPTH);
		deep[2 * JSON_MAX_DEPTH] = '\0';
		j = parse(deep);
		CHECK(j);
		json_free(j);
	}
}

static void test_paths(void)
{
	struct json *j = parse("{\"a\": {\"b\": [10, {\"c\": 30}], \"x.y\": 5, \"q\\\"k\": 6,"
			       " \"[\": 7, \"\": 8}, \"t\": true, \"s\": \"str\"}");
	uint64_t u;
	bool b;

	CHECK(j);
	CHECK(num_at(j, "a.b[0]") == 10);
	CHECK(num_at(j, "a.b[1].c") == 30);
	CHECK(num_at(j, "a[\"x.y\"]") == 5);
	CHECK(num_at(j, "a[\"q\\\"k\"]") == 6);
	CHECK(num_at(j, "a[\"[\"]") == 7);
	CHECK(num_at(j, "a[\"\"]") == 8);
	CHECK(json_path(j, "") == j);
	CHECK(!json_path(j, "a.b[2]"));		/* out of range */
	CHECK(!json_path(j, "a.b.c"));		/* not an object */
	CHECK(!json_path(j, "a[0]"));		/* not an array */
	CHECK(!json_path(j, "a.nope"));
	CHECK(!json_path(j, "a..b"));
	CHECK(!json_path(j, ".a"));
	CHECK(!json_path(j, "a."));
	CHECK(!json_path(j, "a.b[x]"));
	CHECK(!json_path(j, "a.b[-1]"));
	CHECK(!json_path(j, "a.b[0"));
	CHECK(!json_path(j, "a[\"x.y\""));
	CHECK(!json_path(NULL, "a"));
	CHECK(!json_get(NULL, "a") && !json_index(NULL, 0));
	CHECK(!json_bool(json_get(j, "t"), &b) && b);
	CHECK(json_bool(json_get(j, "s"), &b) == -EINVAL);
	CHECK_STR(json_string(json_get(j, "s")), "str");
	CHECK(!json_string(json_get(j, "t")));
	CHECK(!json_u64(json_path(j, "a.b[0]"), &u) && u == 10);
	CHECK(json_u64(json_get(j, "s"), &u) == -EINVAL);
	CHECK_STR(json_type_name(json_get(j, "a")->type), "object");
	CHECK_STR(json_type_name(JSON_NUMBER), "number");
	json_free(j);
}

/* Each error, with where it is reported. */
static const struct {
	const char	*text;
	size_t		len;		/* 0: strlen */
	const char	*err;
} bad_docs[] = {
	{ "", 0, "1:1: expected a value, found the end of the input" },
	{ "  \n ", 0, "2:2: expected a value, found the end of the input" },
	{ "[1, 2] x", 0, "1:8: expected the end after the document, found 'x'" },
	{ "{\"a\": 1}}", 0, "1:9: expected the end after the document, found '}'" },
	{ "1 2", 0, "1:3: expected the end after the document, found '2'" },
	{ "\"\\x\"", 0, "1:2: invalid escape '\\x'" },
	{ "\"\\'\"", 0, "1:2: invalid escape '\\''" },
	{ "\"\\u12g4\"", 0, "1:2: invalid \\u escape: 4 hex digits wanted" },
	{ "\"\\u12\"", 0, "1:2: invalid \\u escape: 4 hex digits wanted" },
	{ "\"ab\\ud83d\"", 0, "1:4: high surrogate \\ud83d without a low one" },
	{ "\"\\ud83d\\u0041\"", 0, "1:2: high surrogate \\ud83d without a low one" },
	{ "\"\\ude00\"", 0, "1:2: unpaired low surrogate \\ude00" },
	{ "\"abc", 0, "1:1: unterminated string" },
	{ "[\"abc\\\"]", 0, "1:2: unterminated string" },
	{ "\"abc\\", 0, "1:1: unterminated string" },
	{ "[1, 2", 0, "1:6: expected ',' or ']', found the end of the input" },
	{ "{\"a\": 1", 0, "1:8: expected ',' or '}', found the end of the input" },
	{ "{\"a\" 1}", 0, "1:6: expected ':' after the key, found '1'" },
	{ "{a: 1}", 0, "1:2: expected a string key, found 'a'" },
	{ "{'a': 1}", 0, "1:2: expected a string key, found '''" },
	{ "[1,]", 0, "1:4: expected a value, found ']'" },
	{ "{\"a\": 1,}", 0, "1:9: expected a string key, found '}'" },
	{ "[1 2]", 0, "1:4: expected ',' or ']', found '2'" },
	{ "01", 0, "1:1: invalid number: leading zero" },
	{ "-", 0, "1:2: invalid number: a digit wanted" },
	{ "-a", 0, "1:2: invalid number: a digit wanted" },
	{ "1.", 0, "1:3: invalid number: a digit wanted after '.'" },
	{ "1.e5", 0, "1:3: invalid number: a digit wanted after '.'" },
	{ "1e", 0, "1:3: invalid number: a digit wanted in the exponent" },
	{ "1e+", 0, "1:4: invalid number: a digit wanted in the exponent" },
	{ ".5", 0, "1:1: expected a value, found '.'" },
	{ "+1", 0, "1:1: expected a value, found '+'" },
	{ "[1e999]", 0, "1:2: number out of range" },
	{ "-1e400", 0, "1:1: number out of range" },
	{ "NaN", 0, "1:1: expected a value, found 'N'" },
	{ "Infinity", 0, "1:1: expected a value, found 'I'" },
	{ "tru", 0, "1:1: expected a value, found 't'" },
	{ "nul", 0, "1:1: expected a value, found 'n'" },
	{ "truex", 0, "1:5: expected the end after the document, found 'x'" },
	{ "\"a\tb\"", 0, "1:3: control character 0x09 in a string" },
	{ "\"a\nb\"", 0, "1:3: control character 0x0a in a string" },
	{ "\"\xff\"", 0, "1:2: invalid UTF-8 in a string" },
	{ "\"\xc0\xaf\"", 0, "1:2: invalid UTF-8 in a string" },		/* overlong */
	{ "\"\xe0\x80\xaf\"", 0, "1:2: invalid UTF-8 in a string" },	/* overlong */
	{ "\"\xed\xa0\x80\"", 0, "1:2: invalid UTF-8 in a string" },	/* surrogate */
	{ "\"\xf4\x90\x80\x80\"", 0, "1:2: invalid UTF-8 in a string" },	/* > U+10FFFF */
	{ "\"ab\xe2\x82\"", 0, "1:4: invalid UTF-8 in a string" },	/* truncated */
	{ "\"\x80\"", 0, "1:2: invalid UTF-8 in a string" },		/* continuation */
	{ "\xef\xbb\xbf{}", 0, "1:1: expected a value, found byte 0xef" },	/* BOM */
	{ "[1]\0", 4, "1:4: expected the end after the document, found byte 0x00" },
	{ "\"a\0b\"", 5, "1:3: control character 0x00 in a string" },
	{ "[1] // c", 0, "1:5: expected the end after the document, found '/'" },
	{ "{\n  \"a\": [1,\n    tru]\n}", 0, "3:5: expected a value, found 't'" },
	{ "{\n\t\"s\": \"x\\q\"\n}", 0, "2:9: invalid escape '\\q'" },
};

static void test_errors(void)
{
	char err[256], deep[2 * JSON_MAX_DEPTH + 3];
	struct json *j;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad_docs); i++) {
		size_t len = bad_docs[i].len ? bad_docs[i].len : strlen(bad_docs[i].text);

		j = json_parse(bad_docs[i].text, len, err, sizeof(err));
		CHECK(!j);
		json_free(j);
		if (strcmp(err, bad_docs[i].err))
			printf("# bad_docs[%u]:\n", i);
		CHECK_STR(err, bad_docs[i].err);
	}

	/* one level too deep, in arrays and in objects */
	memset(deep, '[', JSON_MAX_DEPTH + 1);
	memset(deep + JSON_MAX_DEPTH + 1, ']', JSON_MAX_DEPTH + 1);
	j = json_parse(deep, 2 * JSON_MAX_DEPTH + 2, err, sizeof(err));
	CHECK(!j);
	CHECK_STR(err, "1:65: nesting deeper than 64");
	j = parse("{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":"
		  "{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":"
		  "{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":"
		  "{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":"
		  "{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":");
	CHECK(!j);

	/* a short buffer still gets a terminated message; none at all is fine */
	j = json_parse("[", 1, err, 8);
	CHECK(!j && !strcmp(err, "1:2: ex"));
	CHECK(!json_parse("[", 1, NULL, 0));
}

static void test_seq(void)
{
	char err[256];
	struct json *j;

	j = json_parse_seq("{\"id\": 1}\n{\n  \"id\": 2\n}\n[]7", 27, err, sizeof(err));
	CHECK(j && j->type == JSON_ARRAY && j->len == 4);
	CHECK(num_at(j, "[0].id") == 1 && num_at(j, "[1].id") == 2 && num_at(j, "[3]") == 7);
	json_free(j);
	j = json_parse_seq(" \n ", 3, err, sizeof(err));
	CHECK(j && j->type == JSON_ARRAY && j->len == 0);
	json_free(j);
	j = json_parse_seq("{\"id\": 1}\n{\"id\": 2,}\n", 21, err, sizeof(err));
	CHECK(!j);
	CHECK_STR(err, "2:10: expected a string key, found '}'");
}

/* A document as `ktgen -j -p run ...` prints one, every kind of member
 * the schema has; it validates against ktgen-run.schema.json.
 */
static const char run_doc[] =
	"{\n"
	"  \"schema_version\": 1,\n"
	"  \"id\": 3,\n"
	"  \"test\": \"tcp_rr\",\n"
	"  \"remote_addr\": \"fe80::1\",\n"
	"  \"remote_port\": 5001,\n"
	"  \"local_addr\": \"fe80::2\",\n"
	"  \"ifindex\": 2,\n"
	"  \"tx_mode\": \"user\",\n"
	"  \"size\": 1448,\n"
	"  \"flows\": 2,\n"
	"  \"cpus\": \"0-1\",\n"
	"  \"time_ms\": 2000,\n"
	"  \"req_size\": 64,\n"
	"  \"resp_size\": 128,\n"
	"  \"interval_ms\": 1000,\n"
	"  \"warmup_ms\": 500,\n"
	"  \"latency\": {\n"
	"    \"transactions\": 41210,\n"
	"    \"tps\": 27473.3,\n"
	"    \"timeouts\": 0,\n"
	"    \"min_ns\": 18022,\n"
	"    \"mean_ns\": 36312,\n"
	"    \"stddev_ns\": 4021,\n"
	"    \"max_ns\": 912003,\n"
	"    \"percentiles_ns\": {\n"
	"      \"p50\": 35840,\n"
	"      \"p99\": 51200,\n"
	"      \"p99.9\": 120832\n"
	"    }\n"
	"  },\n"
	"  \"window\": {\n"
	"    \"start_ns\": 500000000,\n"
	"    \"duration_ns\": 1500000000,\n"
	"    \"tx_bytes\": 2637440,\n"
	"    \"tx_msgs\": 41210,\n"
	"    \"tx_bps\": 14066346\n"
	"  },\n"
	"  \"state\": \"done\",\n"
	"  \"duration_ns\": 2000113221,\n"
	"  \"splice\": \"none\",\n"
	"  \"tx\": {\n"
	"    \"bytes\": 3515840,\n"
	"    \"msgs\": 54935,\n"
	"    \"send_errors\": 0,\n"
	"    \"retrans\": 0,\n"
	"    \"srtt_us\": 31,\n"
	"    \"cwnd\": 10\n"
	"  },\n"
	"  \"tx_bps\": 14062423,\n"
	"  \"cpu\": {\n"
	"    \"method\": \"busy-time\",\n"
	"    \"estimated\": true,\n"
	"    \"run\": {\n"
	"      \"cpus\": 2,\n"
	"      \"busy_ns\": 1499000000,\n"
	"      \"util_pct\": 49.9667,\n"
	"      \"cycles\": 4497000000,\n"
	"      \"cycles_per_byte\": 1705.06,\n"
	"      \"cycles_per_msg\": 109124,\n"
	"      \"us_per_kb\": 581.993\n"
	"    },\n"
	"    \"other\": {\n"
	"      \"cpus\": 6,\n"
	"      \"busy_ns\": 12000000,\n"
	"      \"util_pct\": 0.133333,\n"
	"      \"cycles_per_byte\": null,\n"
	"      \"cycles_per_msg\": null,\n"
	"      \"us_per_kb\": null\n"
	"    }\n"
	"  },\n"
	"  \"per_flow\": [\n"
	"    {\n"
	"      \"id\": 0,\n"
	"      \"bytes\": 1757952,\n"
	"      \"msgs\": 27468,\n"
	"      \"srtt_us\": 30\n"
	"    },\n"
	"    {\n"
	"      \"id\": 1,\n"
	"      \"bytes\": 1757888,\n"
	"      \"msgs\": 27467,\n"
	"      \"srtt_us\": 33\n"
	"    }\n"
	"  ],\n"
	"  \"fairness\": 1,\n"
	"  \"counters\": {\n"
	"    \"snmp\": {\n"
	"      \"Tcp.RetransSegs\": 0,\n"
	"      \"Tcp.OutSegs\": 110021,\n"
	"      \"Udp.InErrors\": 0\n"
	"    },\n"
	"    \"softnet\": {\n"
	"      \"processed\": 220114,\n"
	"      \"dropped\": 0,\n"
	"      \"time_squeeze\": 3\n"
	"    },\n"
	"    \"devices\": {\n"
	"      \"lo\": {\n"
	"        \"stats\": {\n"
	"          \"rx_bytes\": 18446744073709551615,\n"
	"          \"tx_bytes\": 9223372036854775808\n"
	"        },\n"
	"        \"ethtool\": {},\n"
	"        \"qdisc\": {\n"
	"          \"drops\": 0,\n"
	"          \"requeues\": 0,\n"
	"          \"overlimits\": 0\n"
	"        }\n"
	"      }\n"
	"    }\n"
	"  },\n"
	"  \"environment\": {\n"
	"    \"kernel\": \"6.1.0-18-amd64\",\n"
	"    \"machine\": \"x86_64\",\n"
	"    \"hostname\": \"bench\\u00e9-\\u20ac-\\ud83d\\ude00\",\n"
	"    \"cpu_model\": \"Intel(R) Xeon(R) CPU \\\"E5\\\" \\\\ 2.20GHz\\ttab\",\n"
	"    \"cpus_online\": 8,\n"
	"    \"ktgen_cli\": \"0.1.0\",\n"
	"    \"module\": {\n"
	"      \"version\": \"0.1.0\",\n"
	"      \"abi_version\": 1,\n"
	"      \"nocache_impl\": \"movnti\",\n"
	"      \"page_send\": \"splice-pages\",\n"
	"      \"pmu\": false\n"
	"    },\n"
	"    \"preflight\": {\n"
	"      \"governor\": \"performance\",\n"
	"      \"boost\": true,\n"
	"      \"smt\": false,\n"
	"      \"irqbalance\": false,\n"
	"      \"warnings\": [\n"
	"        \"irqbalance is running\",\n"
	"        \"CPU 3 is offline\"\n"
	"      ]\n"
	"    },\n"
	"    \"devices\": {\n"
	"      \"lo\": {\n"
	"        \"driver\": \"\",\n"
	"        \"version\": \"\",\n"
	"        \"firmware\": \"\",\n"
	"        \"bus\": \"\",\n"
	"        \"rings\": {\n"
	"          \"rx\": 256,\n"
	"          \"rx_max\": 4096\n"
	"        }\n"
	"      }\n"
	"    }\n"
	"  },\n"
	"  \"intervals\": [\n"
	"    {\n"
	"      \"interval\": 1,\n"
	"      \"start_ns\": 500000000,\n"
	"      \"end_ns\": 1500000000,\n"
	"      \"tx_bytes\": 1758720,\n"
	"      \"tx_bps\": 14069760,\n"
	"      \"transactions\": 27480,\n"
	"      \"tps\": 27480,\n"
	"      \"percentiles_ns\": {\n"
	"        \"p50\": 35840,\n"
	"        \"p99\": 51200\n"
	"      }\n"
	"    },\n"
	"    {\n"
	"      \"interval\": 2,\n"
	"      \"start_ns\": 1500000000,\n"
	"      \"end_ns\": 2000000000,\n"
	"      \"tx_bytes\": 878720,\n"
	"      \"tx_bps\": 14059520,\n"
	"      \"transactions\": 13730,\n"
	"      \"tps\": 2.746e+04,\n"
	"      \"percentiles_ns\": {\n"
	"        \"p50\": 36864,\n"
	"        \"p99\": 52224\n"
	"      }\n"
	"    }\n"
	"  ]\n"
	"}\n";

static void check_run_doc(const struct json *j)
{
	const struct json *env = json_get(j, "environment");
	uint64_t u;

	CHECK(j && j->type == JSON_OBJECT && j->len == 29);
	CHECK(num_at(j, "schema_version") == 1);
	CHECK_STR(json_string(json_get(j, "test")), "tcp_rr");
	CHECK_STR(json_string(json_get(j, "remote_addr")), "fe80::1");
	CHECK(num_at(j, "latency.tps") == 27473.3);
	CHECK(num_at(j, "latency.percentiles_ns[\"p99.9\"]") == 120832);
	CHECK(!json_path(j, "latency.percentiles_ns.p99.9"));	/* that needs quotes */
	CHECK(!json_u64(json_path(j, "duration_ns"), &u) && u == 2000113221);
	CHECK(json_get(json_path(j, "cpu.other"), "us_per_kb")->type == JSON_NULL);
	CHECK(json_path(j, "cpu.estimated")->boolean);
	CHECK(num_at(j, "cpu.run.util_pct") == 49.9667);
	CHECK(json_path(j, "per_flow")->len == 2 && num_at(j, "per_flow[1].srtt_us") == 33);
	CHECK(num_at(j, "fairness") == 1);
	CHECK(num_at(j, "counters.snmp[\"Tcp.OutSegs\"]") == 110021);
	CHECK(!json_u64(json_path(j, "counters.devices.lo.stats.rx_bytes"), &u) && u == UINT64_MAX);
	CHECK(!json_u64(json_path(j, "counters.devices.lo.stats.tx_bytes"), &u) &&
	      u == 1ULL << 63);
	CHECK(json_path(j, "counters.devices.lo.ethtool")->len == 0);
	CHECK_STR(json_string(json_get(env, "hostname")),
		  "bench\xc3\xa9-\xe2\x82\xac-\xf0\x9f\x98\x80");
	CHECK_STR(json_string(json_get(env, "cpu_model")),
		  "Intel(R) Xeon(R) CPU \"E5\" \\ 2.20GHz\ttab");
	CHECK_STR(json_string(json_path(env, "preflight.warnings[1]")), "CPU 3 is offline");
	CHECK(num_at(env, "devices.lo.rings.rx_max") == 4096);
	CHECK(num_at(j, "intervals[1].tps") == 27460 && !json_path(j, "intervals[1].tps")->is_int);
	CHECK(num_at(j, "intervals[0].percentiles_ns.p50") == 35840);
	CHECK(json_path(j, "intervals[1].percentiles_ns.p99")->line == 174);
}

static void test_run_doc(void)
{
	char err[256], path[] = "/tmp/ktgen-jsontest-XXXXXX";
	struct json *j, *seq;
	FILE *f;
	int fd;

	j = json_parse(run_doc, strlen(run_doc), err, sizeof(err));
	if (!j)
		printf("# %s\n", err);
	check_run_doc(j);
	json_free(j);

	/* the same twice in a file, as a repeated run prints it */
	fd = mkstemp(path);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	CHECK(f);
	if (!f)
		return;
	fprintf(f, "%s%s", run_doc, run_doc);
	fclose(f);
	seq = json_load(path, err, sizeof(err));
	CHECK(seq && seq->len == 2);
	if (seq && seq->len == 2) {
		check_run_doc(json_index(seq, 0));
		CHECK(json_index(seq, 1)->line == 179);
	}
	json_free(seq);
	unlink(path);
	CHECK(!json_load(path, err, sizeof(err)));
	CHECK(!strncmp(err, path, strlen(path)) && strstr(err, ": No such file or directory"));
}

/* What ktgen's own print path writes (escapes, u64 extremes, doubles in
 * their shortest exact form, NaN as null, pretty or not) reads back as the
 * same values, bit for bit.
 */
static void print_sample(void)
{
	print_open_object(NULL);
	print_string(PRINT_JSON, "ctl", NULL, "a\x01\x1f\"\\\n\t/\x7f\xc3\xa9");
	print_string(PRINT_JSON, "none", NULL, NULL);
	print_u64(PRINT_JSON, "max", NULL, UINT64_MAX);
	print_u64(PRINT_JSON, "zero", NULL, 0);
	print_double(PRINT_JSON, "third", NULL, 1.0 / 3);
	print_double(PRINT_JSON, "big", NULL, 1234567.0);
	print_double(PRINT_JSON, "tiny", NULL, -2.5e-7);
	print_double(PRINT_JSON, "nan", NULL, NAN);
	print_double(PRINT_JSON, "bps", NULL, 9220271234.5);
	print_double(PRINT_JSON, "sum", NULL, 0.1 + 0.2);
	print_double(PRINT_JSON, "dmax", NULL, DBL_MAX);
	print_double(PRINT_JSON, "denorm", NULL, 4.9406564584124654e-324);
	print_bool(PRINT_JSON, "yes", NULL, true);
	print_open_object("snmp");
	print_u64(PRINT_JSON, "Tcp.RetransSegs", NULL, 61);
	print_close_object();
	print_open_array("list");
	print_u64(PRINT_JSON, NULL, NULL, 1);
	print_open_object(NULL);
	print_close_object();
	print_open_array(NULL);
	print_close_array();
	print_close_array();
	print_close_object();
}

/* A double in its shortest exact form: as JSON writes it, and positional
 * (no exponent: what CSV writes), each reading back as the same value.
 */
static void test_format_double(void)
{
	static const struct {
		double v;
		const char *json, *fixed;
	} t[] = {
		{ 0.3489, "0.3489", "0.3489" },
		{ 0.1 + 0.2, "0.30000000000000004", "0.30000000000000004" },
		{ 9220271234.5, "9220271234.5", "9220271234.5" },
		{ 9.22027e9, "9220270000", "9220270000" },
		{ 100, "100", "100" },
		{ 1e-6, "0.000001", "0.000001" },
		{ 1e-7, "1e-07", "0.0000001" },
		{ -2.5e-7, "-2.5e-07", "-0.00000025" },
		{ 1e21, "1e+21", "1000000000000000000000" },
		{ 123.0, "123", "123" },
		{ -0.0, "-0", "-0" },
		{ 0, "0", "0" },
	};
	char buf[400];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		CHECK_STR(format_double(buf, sizeof(buf), t[i].v, false), t[i].json);
		CHECK(strtod(buf, NULL) == t[i].v);
		CHECK_STR(format_double(buf, sizeof(buf), t[i].v, true), t[i].fixed);
		CHECK(strtod(buf, NULL) == t[i].v);
	}
	format_double(buf, sizeof(buf), DBL_MAX, true);
	CHECK(strlen(buf) == 309 && strtod(buf, NULL) == DBL_MAX);
	format_double(buf, sizeof(buf), 4.9406564584124654e-324, true);
	CHECK(!strncmp(buf, "0.000", 5) && strtod(buf, NULL) == 4.9406564584124654e-324);
}

static void test_print_roundtrip(void)
{
	char *buf = NULL, err[256];
	struct json *j;
	size_t len = 0;
	int pretty;
	FILE *f;

	for (pretty = 0; pretty < 2; pretty++) {
		f = open_memstream(&buf, &len);
		print_init(f, true, pretty);
		print_sample();
		print_finish();
		fclose(f);
		j = json_parse(buf, len, err, sizeof(err));
		if (!j)
			printf("# %s in:\n# %s\n", err, buf);
		CHECK(j && j->len == 15);
		CHECK_STR(json_string(json_get(j, "ctl")), "a\x01\x1f\"\\\n\t/\x7f\xc3\xa9");
		CHECK(json_get(j, "none") && json_get(j, "none")->type == JSON_NULL);
		CHECK(json_get(j, "max") && json_get(j, "max")->u == UINT64_MAX);
		CHECK(json_get(j, "zero") && json_get(j, "zero")->is_int);
		CHECK(num_at(j, "third") == 1.0 / 3);
		CHECK(num_at(j, "big") == 1234567.0);
		CHECK(num_at(j, "tiny") == -2.5e-7);
		CHECK(num_at(j, "bps") == 9220271234.5);
		CHECK(num_at(j, "sum") == 0.1 + 0.2);
		CHECK(num_at(j, "dmax") == DBL_MAX);
		CHECK(num_at(j, "denorm") == 4.9406564584124654e-324);
		/* the shortest form that reads back exact */
		CHECK(strstr(buf, "0.30000000000000004") && strstr(buf, "9220271234.5") &&
		      strstr(buf, "1234567") && !strstr(buf, "1234567.0") &&
		      strstr(buf, "-2.5e-07"));
		CHECK(json_get(j, "nan") && json_get(j, "nan")->type == JSON_NULL);
		CHECK(json_get(j, "yes") && json_get(j, "yes")->boolean);
		CHECK(num_at(j, "snmp[\"Tcp.RetransSegs\"]") == 61);
		CHECK(num_at(j, "list[0]") == 1 && json_path(j, "list[1]")->type == JSON_OBJECT &&
		      json_path(j, "list[2]")->len == 0);
		json_free(j);
		free(buf);
		buf = NULL;
	}
}

static const struct {
	const char *name;
	void (*fn)(void);
} tests[] = {
	{ "json_scalars", test_scalars },
	{ "json_strings", test_strings },
	{ "json_containers", test_containers },
	{ "json_paths", test_paths },
	{ "json_errors", test_errors },
	{ "json_sequence", test_seq },
	{ "json_run_document", test_run_doc },
	{ "json_print_roundtrip", test_print_roundtrip },
	{ "json_format_double", test_format_double },
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
