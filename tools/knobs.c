// SPDX-License-Identifier: GPL-2.0
/*
 * Device knobs: parsed from the command line, applied in order (read, set
 * when it differs, read back: a device that refuses a value, or takes it
 * and keeps its own, is an error that names the knob), and restored. The
 * kinds are in their families' files (knob.h). A device in another
 * namespace is reached by entering it (setns) with a sysfs of that
 * namespace mounted over /sys in a mount namespace of this process's own.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>

#include "counters.h"
#include "ktgen.h"
#include "knob.h"
#include "nl.h"
#include "print.h"

/* --- namespaces ------------------------------------------------------- */

static int home_ns = -1;
static char cur_ns[64];
static bool own_mounts;		/* in a mount namespace of our own */
static bool own_sysfs;		/* /sys is our mount of cur_ns's sysfs */

/* sysfs shows the devices of the namespace it was mounted in: in a mount
 * namespace of our own (its mounts go with the process) a fresh one covers
 * /sys while we are away from home (in namespace @name), and is taken off
 * again when we return ("").
 */
static int ns_sysfs(const char *name)
{
	if (own_sysfs) {
		umount2("/sys", MNT_DETACH);
		own_sysfs = false;
	}
	if (!*name)
		return 0;
	if (!own_mounts) {
		if (unshare(CLONE_NEWNS) ||
		    mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL)) {
			fprintf(stderr, "ktgen: a mount namespace for sysfs: %s\n",
				strerror(errno));
			return -1;
		}
		own_mounts = true;
	}
	if (mount("sysfs", "/sys", "sysfs", 0, NULL)) {
		fprintf(stderr, "ktgen: mounting sysfs: %s\n", strerror(errno));
		return -1;
	}
	own_sysfs = true;
	return 0;
}

/* Enter network namespace @name ("" for this process's own), with /sys
 * showing its devices. 0 or -1 after a message.
 */
static int ns_enter(const char *name)
{
	char path[128];
	int fd, err;

	if (!strcmp(cur_ns, name))
		return 0;
	if (home_ns < 0) {
		home_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		if (home_ns < 0) {
			fprintf(stderr, "ktgen: /proc/self/ns/net: %s\n", strerror(errno));
			return -1;
		}
	}
	if (*name) {
		snprintf(path, sizeof(path), "/run/netns/%s", name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, "ktgen: network namespace '%s': %s\n", name,
				strerror(errno));
			return -1;
		}
	} else {
		fd = home_ns;
	}
	err = setns(fd, CLONE_NEWNET);
	if (fd != home_ns)
		close(fd);
	if (err) {
		fprintf(stderr, "ktgen: entering network namespace '%s': %s\n",
			*name ? name : "(own)", strerror(errno));
		return -1;
	}
	snprintf(cur_ns, sizeof(cur_ns), "%s", name);
	return ns_sysfs(name);
}

/* Run @fn of @k inside its namespace, and come back. */
int in_ns(const struct knob *k)
{
	return ns_enter(k->netns);
}

void ns_home(void)
{
	ns_enter("");
}
int want_onoff(struct knob *k, const char *arg)
{
	if (strcmp(arg, "on") && strcmp(arg, "off")) {
		usage_error("%s %s: on or off, not '%s'", k->type->kw, k->name, arg);
		return -1;
	}
	snprintf(k->want, sizeof(k->want), "%s", arg);
	return 0;
}

int want_u32(struct knob *k, const char *arg)
{
	uint32_t v;

	if (parse_u32(arg, &v)) {
		usage_error("%s%s%s: a number, not '%s'", k->type->kw, *k->name ? " " : "",
			    k->name, arg);
		return -1;
	}
	snprintf(k->want, sizeof(k->want), "%u", v);
	return 0;
}

/* --- the knobs --------------------------------------------------------- */

const struct knob_type *knob_type(const char *kw)
{
	static const struct {
		const struct knob_type	*types;
		const size_t		*n;
	} families[] = {
		{ knob_types_ethtool, &knob_types_ethtool_n },
		{ knob_types_sysfs, &knob_types_sysfs_n },
	};
	size_t f, i;

	for (f = 0; f < ARRAY_SIZE(families); f++)
		for (i = 0; i < *families[f].n; i++)
			if (!strcmp(families[f].types[i].kw, kw))
				return &families[f].types[i];
	return NULL;
}

const char knob_usage[] =
	"KNOB: feature NAME on|off      an ethtool -k feature (tx-nocache-copy, rx-gro, ...)\n"
	"      priv-flag NAME on|off    a private flag (legacy-rx, ...)\n"
	"      tunable rx-copybreak|tx-copybreak BYTES\n"
	"      gro on|off, gro-hw on|off (the rx-gro and rx-gro-hw features)\n"
	"      xps off|default|CPULIST  CPUs dealt to the transmit queues in turn\n"
	"      rps off|CPULIST          every receive queue steers to these CPUs\n"
	"      rings [rx N] [tx N]      channels N (combined; rx and tx without)\n"
	"      coalesce [rx-usecs N] [rx-frames N] [tx-usecs N] [tx-frames N]\n"
	"               [adaptive-rx on|off] [adaptive-tx on|off]\n"
	"      tcp-data-split on|off    busy-poll USECS (net.core.busy_poll, busy_read)\n"
	"      irq-affinity CPULIST     every interrupt of the device to these CPUs\n"
	"      param NAME VALUE         a parameter of the device's driver module\n"
	"                               (e1000e's copybreak: every device it drives)\n";

static struct knob *knob_add(struct knob_list *l, const char *ifname, const char *netns,
			     const char *kw, const char *name)
{
	struct knob *k;

	k = realloc(l->k, (l->n + 1) * sizeof(*k));
	if (!k) {
		fprintf(stderr, "ktgen: out of memory\n");
		exit(EXIT_FAIL);
	}
	l->k = k;
	k = &l->k[l->n++];
	memset(k, 0, sizeof(*k));
	snprintf(k->ifname, sizeof(k->ifname), "%s", ifname);
	snprintf(k->netns, sizeof(k->netns), "%s", netns ? netns : "");
	snprintf(k->name, sizeof(k->name), "%s", name ? name : "");
	k->type = knob_type(kw);
	return k;
}

/* Keyword-value pairs of rings and coalesce, as many as follow. */
static int knob_parse_pairs(struct knob_list *l, const char *ifname, const char *netns,
			    const char *kw, int argc, char **argv)
{
	static const char * const ring_kw[] = { "rx", "tx" };
	bool rings = !strcmp(kw, "rings");
	int i = 1, j;

	while (i + 1 < argc) {
		struct knob *k;
		char full[16];

		for (j = 0; rings && j < 2 && strcmp(argv[i], ring_kw[j]); j++)
			;
		if (rings && j == 2)
			break;
		if (!rings && !knob_type("coalesce"))
			break;
		if (!rings) {
			if (!knob_coalesce_param(argv[i]))
				break;
			k = knob_add(l, ifname, netns, "coalesce", argv[i]);
		} else {
			snprintf(full, sizeof(full), "rings-%s", argv[i]);
			k = knob_add(l, ifname, netns, full, NULL);
		}
		if (k->type->want(k, argv[i + 1]))
			return -1;
		i += 2;
	}
	if (i == 1) {
		usage_error("%s: %s", kw, rings ? "rx N and/or tx N" :
			    "rx-usecs, rx-frames, tx-usecs, tx-frames, adaptive-rx or adaptive-tx, and a value");
		return -1;
	}
	return i;
}

int knob_parse(struct knob_list *l, const char *ifname, const char *netns,
	       int argc, char **argv)
{
	const struct knob_type *t;
	const char *kw = argv[0], *name = NULL;
	struct knob *k;
	int n;

	if (!strcmp(kw, "rings") || !strcmp(kw, "coalesce"))
		return knob_parse_pairs(l, ifname, netns, kw, argc, argv);
	if (!strcmp(kw, "gro") || !strcmp(kw, "gro-hw")) {
		name = !strcmp(kw, "gro") ? "rx-gro" : "rx-gro-hw";
		kw = "feature";
	}
	t = knob_type(kw);
	if (!t || !strcmp(kw, "busy-read") || !strncmp(kw, "rings-", 6))
		return 0;
	n = t->named && !name ? 3 : 2;
	if (argc < n) {
		usage_error("%s: needs %s", argv[0], t->named && !name ? "a name and a value" : "a value");
		return -1;
	}
	if (t->named && !name) {
		name = argv[1];
		if (strlen(name) >= KNOB_NAME_LEN) {
			usage_error("%s: a name of at most %d characters, not '%.40s...'", kw,
				    KNOB_NAME_LEN - 1, name);
			return -1;
		}
	}
	if (!strcmp(kw, "tunable") && strcmp(name, "rx-copybreak") && strcmp(name, "tx-copybreak")) {
		usage_error("tunable: rx-copybreak or tx-copybreak, not '%s'", name);
		return -1;
	}
	k = knob_add(l, ifname, netns, kw, name);
	if (t->want(k, argv[n - 1]))
		return -1;
	if (!strcmp(kw, "busy-poll")) {
		/* Both sysctls: polling in poll() and in reads. */
		k = knob_add(l, ifname, netns, "busy-read", NULL);
		snprintf(k->want, sizeof(k->want), "%s", l->k[l->n - 2].want);
	}
	return n;
}

int knob_parse_dev(struct knob_list *l, int argc, char **argv)
{
	char ifname[IF_NAMESIZE + 64], *at;
	int n;

	if (argc < 3) {
		usage_error("knob: IFNAME[@NETNS] and a knob");
		return -1;
	}
	snprintf(ifname, sizeof(ifname), "%s", argv[0]);
	at = strchr(ifname, '@');
	if (at)
		*at++ = 0;
	if (!*ifname || strlen(ifname) >= IF_NAMESIZE ||
	    (at && (!*at || strchr(at, '/') || strlen(at) >= 64))) {
		usage_error("knob: IFNAME[@NETNS], not '%s'", argv[0]);
		return -1;
	}
	n = knob_parse(l, ifname, at, argc - 1, argv + 1);
	if (n == 0)
		usage_error("knob: unknown knob '%s'", argv[1]);
	return n > 0 ? n + 1 : -1;
}

/* --- apply, verify, restore ------------------------------------------- */

static int knob_read(struct knob *k, char *val, size_t len)
{
	int err;

	if (in_ns(k))
		return -1;
	err = k->type->get(k, val, len);
	ns_home();
	return err;
}

bool carrier_up(const struct knob *k)
{
	char path[96];
	FILE *f;
	int c;

	snprintf(path, sizeof(path), "/sys/class/net/%s/carrier", k->ifname);
	f = host_fopen(path);
	if (!f)
		return false;
	c = fgetc(f);
	fclose(f);
	return c == '1';
}

/* The device's carrier transitions so far; -1 when it does not say. */
static long carrier_changes(const struct knob *k)
{
	char path[96], buf[32];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/carrier_changes", k->ifname);
	f = host_fopen(path);
	if (f && fgets(buf, sizeof(buf), f))
		v = strtol(buf, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

/*
 * After a reset: the carrier back, then no carrier transition and no reset
 * counted for KNOB_SETTLE_MS (a link that comes back bouncing, a driver
 * that resets twice); at most KNOB_RESET_MS in all.
 */
static int reset_settle(const struct knob *k)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	long long last_resets = -2;
	long last = -2;
	int quiet = 0, i;

	for (i = 0; i < KNOB_RESET_MS / 10; i++) {
		long long resets = ethtool_resets(k->ifname);
		long now = carrier_changes(k);

		if (!carrier_up(k) || now != last || resets != last_resets)
			quiet = 0;
		else if (++quiet >= KNOB_SETTLE_MS / 10)
			return 0;
		last = now;
		last_resets = resets;
		nanosleep(&ts, NULL);
	}
	fprintf(stderr, "Error: %s: %s%s%s: the carrier %s %d s after the reset it caused\n",
		k->ifname, k->type->kw, *k->name ? " " : "", k->name,
		carrier_up(k) ? "was still changing" : "had not come back", KNOB_RESET_MS / 1000);
	return -1;
}

/* Whether the device's @got has each entry of @want: per-queue values only
 * for the queues @want names (a reset since may have added queues, with
 * their own).
 */
bool knob_entries_same(const char *want, const char *got)
{
	const char *p = want;

	while (*p) {
		size_t n = strcspn(p, " ");
		char tok[KTG_CPULIST_LEN + 16];
		const char *at;

		snprintf(tok, sizeof(tok), "%.*s", (int)n, p);
		for (at = strstr(got, tok); at; at = strstr(at + 1, tok))
			if ((at == got || at[-1] == ' ') && (at[n] == ' ' || !at[n]))
				break;
		if (!at)
			return false;
		p += n;
		p += strspn(p, " ");
	}
	return true;
}

static bool knob_same(const struct knob *k, const char *want, const char *got)
{
	return k->type->same ? k->type->same(want, got) : !strcmp(want, got);
}

/*
 * Set @val on @k and check the device took it; @after gets what it has.
 * Whether the write reset the device is observed, not assumed from the
 * knob's kind: its carrier dropped or changed (ixgbe resets for legacy-rx,
 * a private flag like any other) or its reset counters moved (mlx5 reopens
 * its channels with the carrier up), then it is waited out (reset_settle).
 */
static int knob_write(struct knob *k, const char *val, char *after, size_t len)
{
	long long resets;
	long before;
	bool up;
	int err;

	if (in_ns(k))
		return -1;
	up = carrier_up(k);
	before = carrier_changes(k);
	resets = ethtool_resets(k->ifname);
	err = k->type->set(k, val);
	if (!err) {
		long now = carrier_changes(k);

		k->reset = (k->type->resets && up) || (before >= 0 && now != before) ||
			   (up && !carrier_up(k)) ||
			   (resets >= 0 && ethtool_resets(k->ifname) != resets);
		if (k->reset && up)
			err = reset_settle(k);
	}
	if (!err)
		err = k->type->get(k, after, len);
	ns_home();
	if (err)
		return -1;
	if (!knob_same(k, val, after)) {
		fprintf(stderr, "Error: %s: %s%s%s: set to %s, the device kept %s%s\n",
			k->ifname, k->type->kw, *k->name ? " " : "", k->name, val, after,
			!strcmp(k->type->kw, "feature") ? " (a fixed feature)" : "");
		return -1;
	}
	return 0;
}

/* The kind's check of @k, inside its namespace. */
static int knob_check(struct knob *k)
{
	int err = in_ns(k);

	if (!err)
		err = k->type->check(k);
	ns_home();
	return err;
}

int knobs_check(struct knob_list *l)
{
	static char val[KNOB_VAL_LEN];
	size_t i;

	for (i = 0; i < l->n; i++) {
		struct knob *k = &l->k[i];
		int err = k->type->check ? knob_check(k) : knob_read(k, val, sizeof(val));

		if (err) {
			usage_error("run: knob %s%s%s %s%s%s cannot act here (the error above)",
				    k->ifname, *k->netns ? "@" : "", k->netns, k->type->kw,
				    *k->name ? " " : "", k->name);
			return -1;
		}
	}
	return 0;
}

/* Knobs that reset a device first, in their order, then the others: a
 * reset must not undo what was set before it.
 */
static void knobs_order(struct knob_list *l)
{
	size_t i, k = 0;

	for (i = 0; i < l->n; i++) {
		if (l->k[i].type->resets) {
			struct knob t = l->k[i];

			memmove(&l->k[k + 1], &l->k[k], (i - k) * sizeof(t));
			l->k[k++] = t;
		}
	}
}

int knobs_apply(struct knob_list *l)
{
	size_t i;

	knobs_order(l);
	for (i = 0; i < l->n; i++) {
		struct knob *k = &l->k[i];
		int err;

		k->changed = false;
		if (k->type->resolve) {
			if (in_ns(k))
				goto err_restore;
			err = k->type->resolve(k);
			ns_home();
			if (err)
				goto err_restore;
		}
		if (knob_read(k, k->before, sizeof(k->before)))
			goto err_restore;
		if (knob_same(k, k->want, k->before)) {
			snprintf(k->after, sizeof(k->after), "%s", k->before);
			continue;
		}
		/* What the kind can refuse before writing is refused here,
		 * with nothing to put back (dev set checks nothing first).
		 */
		if (k->type->check && knob_check(k))
			goto err_restore;
		/* Marked first: a value half taken is put back too. */
		k->changed = true;
		if (knob_write(k, k->want, k->after, sizeof(k->after)))
			goto err_restore;
		l->resets |= k->reset;
	}
	return 0;

err_restore:
	knobs_restore(l);
	return -1;
}

int knobs_restore(struct knob_list *l)
{
	static char now[KNOB_VAL_LEN];
	int err = 0;
	size_t i;

	/* Devices reset first (a reset may redo what they map, XPS), then
	 * the rest over them: each group newest first.
	 */
	for (i = 2 * l->n; i-- > 0; ) {
		struct knob *k = &l->k[i % l->n];

		if (!k->changed || k->type->resets != (i >= l->n))
			continue;
		now[0] = 0;
		if (knob_write(k, k->before, now, sizeof(now))) {
			fprintf(stderr, "ktgen: %s: %s%s%s not put back to %s (now %s)\n",
				k->ifname, k->type->kw, *k->name ? " " : "", k->name, k->before,
				*now ? now : "unknown");
			err = -1;
		}
		k->changed = false;
	}
	return err;
}

void knobs_print(const struct knob_list *l, const char *key)
{
	size_t i;

	if (!l->n)
		return;
	print_open_array(key);
	print_text("%s:", key);
	for (i = 0; i < l->n; i++) {
		const struct knob *k = &l->k[i];
		bool changed = strcmp(k->before, k->after);

		print_open_object(NULL);
		print_string(PRINT_ANY, "dev", " %s", k->ifname);
		if (*k->netns)
			print_string(PRINT_ANY, "netns", "@%s", k->netns);
		print_string(PRINT_ANY, "knob", " %s", k->type->kw);
		if (*k->name)
			print_string(PRINT_ANY, "name", " %s", k->name);
		print_string(PRINT_ANY, "before", " %s", k->before);
		print_string(PRINT_ANY, "after", changed ? " -> %s" : "", k->after);
		print_bool(PRINT_JSON, "changed", NULL, changed);
		print_bool(PRINT_JSON, "reset", NULL, k->reset);
		print_text("%s", changed ? (k->reset ? " (reset)" : "") : " (unchanged)");
		print_text("%s", i + 1 < l->n ? ";" : "\n");
		print_close_object();
	}
	print_close_array();
}

void knobs_free(struct knob_list *l)
{
	free(l->k);
	memset(l, 0, sizeof(*l));
}
