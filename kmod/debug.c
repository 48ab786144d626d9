// SPDX-License-Identifier: GPL-2.0
/*
 * The test hooks (debug.h) under debugfs: /sys/kernel/debug/ktgen/, one
 * file per hook, root's only. Built with KTGEN_TEST_HOOKS=1 alone.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>

#include "debug.h"

struct ktg_test_hooks ktg_test __read_mostly = KTG_TEST_HOOKS_OFF;

MODULE_INFO(test_hooks, "Y");

static struct dentry *ktg_debug_dir;

/* flip_byte: a signed value (-1 is off), which debugfs's u32 files and
 * its attributes (unsigned parsing before 6.2) do not take.
 */
static ssize_t ktg_flip_byte_read(struct file *file, char __user *ubuf, size_t len,
				  loff_t *ppos)
{
	char buf[16];
	int n = scnprintf(buf, sizeof(buf), "%d\n", READ_ONCE(ktg_test.flip_byte));

	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static ssize_t ktg_flip_byte_write(struct file *file, const char __user *ubuf, size_t len,
				   loff_t *ppos)
{
	int v, err;

	err = kstrtoint_from_user(ubuf, len, 0, &v);
	if (err)
		return err;
	if (v < -1)
		return -EINVAL;
	WRITE_ONCE(ktg_test.flip_byte, v);
	return len;
}

static const struct file_operations ktg_flip_byte_fops = {
	.owner	= THIS_MODULE,
	.read	= ktg_flip_byte_read,
	.write	= ktg_flip_byte_write,
	.llseek	= default_llseek,
};

/* debugfs's errors are not the module's: a hook that could not be made is
 * one a test cannot set, and says so there.
 */
void ktg_debug_init(void)
{
	struct dentry *d = debugfs_create_dir("ktgen", NULL);

	pr_info("test hooks built in (debugfs ktgen/): a test build, not for use\n");
	ktg_debug_dir = d;
	debugfs_create_file("flip_byte", 0600, d, NULL, &ktg_flip_byte_fops);
	debugfs_create_u32("drain_timeout_ms", 0600, d, &ktg_test.drain_timeout_ms);
	debugfs_create_u32("send_delay_ns", 0600, d, &ktg_test.send_delay_ns);
	debugfs_create_u32("fill_delay_ms", 0600, d, &ktg_test.fill_delay_ms);
	debugfs_create_u32("done_delay_ms", 0600, d, &ktg_test.done_delay_ms);
	debugfs_create_u32("start_delay_ms", 0600, d, &ktg_test.start_delay_ms);
	debugfs_create_u32("build_delay_ms", 0600, d, &ktg_test.build_delay_ms);
	debugfs_create_u32("owner_delay_ms", 0600, d, &ktg_test.owner_delay_ms);
}

void ktg_debug_exit(void)
{
	debugfs_remove_recursive(ktg_debug_dir);
}
